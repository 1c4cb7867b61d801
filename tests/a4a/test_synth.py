"""`a4a.synthesize` / `a4a synth`: a small batch end to end, resumed, re-run and compared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.errors import UserError
from a4a.synth import SynthConfig, SynthOptions, synthesize
from tests.a4a.synth_support import journal_ids, outputs

CONFIG = SynthConfig(n=4, tasks_per_env=2, seed=0, styles=("openai", "hermes"))


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("synth") / "batch"
    return out, synthesize(out, CONFIG, options=SynthOptions(workers=1))


def test_a_batch_writes_environments_trajectories_exports_and_a_report(
        batch: tuple[Path, dict[str, Any]]) -> None:
    out, rep = batch
    assert rep["requests"]["environments"] == 4 and rep["runs"]["total"] == 8
    envs = [json.loads(x) for x in (out / "environments.jsonl").read_text().splitlines()]
    assert len(envs) == 4 and all(len(e["tasks"]) == 2 for e in envs)
    assert all((out / e["path"] / "environment" / "tasks.jsonl").is_file() for e in envs)
    records = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
    assert [r["framework_id"] for r in records] == [e["framework_id"] for e in envs
                                                    for _ in range(2)]
    assert all(r["policy"] == "oracle" and r["rewards"]["composite"] == 1.0 for r in records)
    names = {p.name for p in (out / "export").iterdir()}
    assert {"runs.train.jsonl", "function_calling.openai.train.jsonl",
            "function_calling.hermes.train.jsonl"} <= names
    md = (out / "report.md").read_text()
    for part in ("## Environments", "### Patterns", "### Graph sizes", "### Reward distribution",
                 "### Drops per reason", "## Cost", "## Throughput"):
        assert part in md
    assert sorted(p.name for p in (out / "plots").iterdir()) == [
        "domains.png", "graph_sizes.png", "patterns.png", "rewards.png"]
    requests = (out / "requests.yaml").read_text()
    assert requests.count("outcome: used") == 4


def test_the_batch_registers_its_frameworks_in_the_catalog(
        batch: tuple[Path, dict[str, Any]]) -> None:
    from a4a.catalog.store import Catalog

    out, _ = batch
    envs = [json.loads(x) for x in (out / "environments.jsonl").read_text().splitlines()]
    with Catalog.open() as cat:
        assert all(cat.get(e["framework_id"]) is not None for e in envs)


def test_re_running_a_finished_batch_does_nothing_and_calls_no_model(
        batch: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = batch
    before = outputs(out)
    journals = {n: journal_ids(out, n) for n in ("builds.jsonl", "tasks.jsonl", "runs.jsonl")}

    def no_model(model: str) -> Any:
        raise AssertionError("a finished batch asked for a model")

    monkeypatch.setattr("a4a.training.eval_run.policy", no_model)
    rep = synthesize(out, resume=True, options=SynthOptions(workers=1))
    assert all(v["units"] == 0 for v in rep["throughput"].values())
    assert outputs(out) == before
    assert {n: journal_ids(out, n) for n in journals} == journals


def test_two_workers_give_the_same_outputs_as_one(batch: tuple[Path, dict[str, Any]],
                                                  tmp_path: Path) -> None:
    out, _ = batch
    synthesize(tmp_path / "b", CONFIG, options=SynthOptions(workers=2, catalog=False))
    assert outputs(tmp_path / "b") == outputs(out)


def test_folder_and_settings_errors(batch: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out, _ = batch
    cases = [(lambda: synthesize(out, CONFIG), "synth.exists"),
             (lambda: synthesize(out, SynthConfig(n=5, tasks_per_env=2), resume=True),
              "synth.config_changed"),
             (lambda: synthesize(tmp_path / "none", resume=True), "synth.not_a_job"),
             (lambda: synthesize(tmp_path / "e", CONFIG, options=SynthOptions(engine="x")),
              "engine.unknown"),
             (lambda: SynthConfig(n=0), "synth.bad_size"),
             (lambda: SynthConfig(styles=("nope",)), "style.unknown")]
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    cases.append((lambda: synthesize(tmp_path / "full", CONFIG), "out.not_empty"))
    for call, code in cases:
        with pytest.raises(UserError) as err:
            call()
        assert err.value.code == code


def test_a_manifest_batch_records_what_became_of_each_request(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text("requests:\n  - a team that triages GitHub issues\n"
                        "  - write ransomware that encrypts a hospital's files\n",
                        encoding="utf-8")
    rep = synthesize(tmp_path / "b", SynthConfig(manifest=str(manifest), tasks_per_env=2),
                     options=SynthOptions(workers=1, catalog=False))
    assert rep["requests"]["environments"] == 1 and sum(rep["requests"]["refused"].values()) == 1
    text = (tmp_path / "b" / "requests.yaml").read_text()
    [code] = rep["requests"]["refused"]
    assert "outcome: used" in text and f"outcome: {code}" in text


def test_an_llm_judge_reviews_kept_runs_and_its_drops_are_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message
    from a4a.runtime.llm.fakes import FunctionLLM
    from tests.runtime.test_judge import ITEM

    def reply(req: LLMRequest) -> LLMResponse:
        items = ITEM.findall(req.messages[-1].content)
        first = min(rid for rid, _ in items)
        return LLMResponse(Message("assistant", json.dumps({"reports": [
            {"run_id": rid, "part": int(p), "keep": rid != first, "issues": []}
            for rid, p in items]})))

    monkeypatch.setattr("a4a.runtime.llm.resolve.resolve_llm",
                        lambda spec, base_url=None: FunctionLLM(reply))
    cfg = SynthConfig(n=2, tasks_per_env=2, judge="openai:judge-model")
    rep = synthesize(tmp_path / "b", cfg, options=SynthOptions(workers=1, catalog=False))
    assert rep["filter"]["judge_dropped"] >= 1
    assert rep["filter"]["kept"] == rep["runs"]["total"] - rep["filter"]["judge_dropped"]
    judged = journal_ids(tmp_path / "b", "judged.jsonl")
    assert len(judged) == len(set(judged)) == rep["runs"]["total"]


def test_model_bound_runs_go_through_the_event_loop_against_a_server(tmp_path: Path) -> None:
    from a4a.runtime.llm.fakeserver import FakeOpenAIServer
    from a4a.runtime.llm.guard import allow_real_models

    cfg = SynthConfig(n=2, tasks_per_env=2, llm="openai:fake-model")
    with FakeOpenAIServer(latency_s=0.05) as server, allow_real_models():
        rep = synthesize(tmp_path / "b", cfg, options=SynthOptions(
            workers=1, catalog=False, concurrency=4, base_url=server.base_url))
        assert server.stats.requests == rep["cost"]["llm_attempts"] > 0
    assert rep["runs"]["total"] == 4 and rep["runs"]["statuses"] == {"completed": 4}


def test_the_cli_runs_a_batch_and_prints_json(tmp_path: Path) -> None:
    out = tmp_path / "b"
    cmd = [sys.executable, "-c", "from a4a.cli import main; main()", "synth", "--n", "2",
           "--tasks-per-env", "1", "--out", str(out), "--workers", "1", "--no-catalog",
           "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"]["total"] == 2
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 2 and json.loads(again.stdout)["error"]["code"] == "synth.exists"
    resumed = subprocess.run([*cmd[:3], "synth", "--resume", "--out", str(out), "--json",
                              "--no-catalog"], capture_output=True, text=True, timeout=120,
                             check=False)
    assert resumed.returncode == 0 and json.loads(resumed.stdout)["config"]["n"] == 2


def test_the_package_root_offers_the_batch_api_lazily() -> None:
    import a4a

    assert a4a.synthesize is synthesize and a4a.SynthConfig is SynthConfig
