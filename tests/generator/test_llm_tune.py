"""Tuning the builders' program, and the batch hook: both through the loopback fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dspy")

from a4a.generator.llm.builder import LLMOptions, build_llm
from a4a.generator.llm.fakes import DraftModel
from a4a.generator.llm.tune import fit, load_trainset, tune
from a4a.generator.pipeline import compile_request
from a4a.runtime.errors import UserError
from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models

CORPUS = Path(__file__).parents[1] / "data" / "generation"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=DraftModel().responder) as s, allow_real_models():
        yield s


def test_tune_saves_a_program_that_build_loads(server: FakeOpenAIServer,
                                                tmp_path: Path) -> None:
    opts = LLMOptions("openai:fake-model", base_url=server.base_url,
                      cache_dir=tmp_path / "cache")
    report = tune(opts, CORPUS / "tuning.yaml", tmp_path / "program.json", limit=1)
    assert report.cases == 1 and report.calls == server.stats.requests > 0
    assert 0.0 < report.before <= 1.0 and 0.0 < report.after <= 1.0
    saved = json.loads((tmp_path / "program.json").read_text())
    assert {"intent", "domain", "meta", "framework", "agents"} <= set(saved)
    assert saved["intent"]["demos"]  # a bootstrapped trace became a demonstration
    text = "a team that triages GitHub issues"
    _, plain = build_llm(text, 0, opts)
    tuned_opts = LLMOptions("openai:fake-model", base_url=server.base_url,
                            cache_dir=tmp_path / "cache", program=tmp_path / "program.json")
    _, tuned = build_llm(text, 0, tuned_opts)
    assert tuned.cache_key != plain.cache_key and tuned.fallback is None


def test_trainset_refuses_the_heldout_split(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="held-out"):
        load_trainset(CORPUS / "heldout.yaml")


def test_fit_reads_the_labels() -> None:
    compiled = compile_request("a team that triages GitHub issues")
    n = len(compiled.spec.agents)
    assert fit({"agents": [n, n], "roles": [], "forbidden": []}, compiled) == 1.0
    assert fit({"agents": [n + 5, n + 9], "roles": [{"name": "zebra keeper"}],
                "forbidden": ["issue"]}, compiled) == 0.0


def test_synth_build_unit_with_the_builder_model(server: FakeOpenAIServer, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from a4a.synth.units import build_unit

    monkeypatch.setenv("A4A_HOME", str(tmp_path / "home"))
    request: dict[str, Any] = {"id": "r1", "index": 0,
                               "text": "a team that triages GitHub issues"}
    row = build_unit(request, 0, str(tmp_path), ("openai:fake-model", server.base_url))
    assert row["valid"] and row["builder"]["llm"]["calls"] == server.stats.requests == 4
    again = build_unit(request, 0, str(tmp_path), ("openai:fake-model", server.base_url))
    assert again["framework_id"] == row["framework_id"]
    assert again["builder"]["llm"]["calls"] == 0 and server.stats.requests == 4
