"""Every shipped pattern runs end to end with a model fake; the trajectories compare byte
for byte with golden files (injected clock, deterministic ids and world seed).

Regenerate after an intended change with A4A_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest

from a4a.generator.pipeline import compile_request
from a4a.runtime import knowledge
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.state import RunStatus
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.llm.fakes import SchemaLLM
from tests.conftest import DATA, load_data

GOLDEN = DATA / "golden"
TASK = "Look into the open items and fix what you can; report what you did."


def _requests() -> dict[str, str]:
    chosen: dict[str, str] = {}
    for case in load_data("requests_labelled.yaml")["cases"]:
        chosen.setdefault(case["pattern"], case["request"])
    return chosen


REQUESTS = _requests()


def _run(request: str) -> dict[str, Any]:
    compiled = compile_request(request)
    opts = RunOptions(task_id="golden", policy="fake:schema", clock=FixedClock(),
                      framework_id=compiled.framework_id)
    record = asyncio.run(run_framework(compiled.spec, TASK, SchemaLLM(), opts))
    return json.loads(record.to_json())


def test_every_pattern_has_a_golden_run() -> None:
    assert set(REQUESTS) == set(knowledge.patterns())


@pytest.mark.parametrize("pattern", sorted(REQUESTS))
def test_golden_trajectory(pattern: str) -> None:
    record = _run(REQUESTS[pattern])
    assert record["status"] in {s.value for s in RunStatus}, record["error"]
    assert record["counts"]["llm_calls"] >= 1
    text = json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    path = GOLDEN / f"{pattern}.json"
    if os.environ.get("A4A_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{pattern} trajectory changed"


def test_runs_are_deterministic() -> None:
    request = REQUESTS["hierarchical_teams"]
    assert _run(request) == _run(request)


def test_agents_see_every_edge_kind_of_their_pattern() -> None:
    kinds = {e.kind for r in REQUESTS.values() for e in compile_request(r).spec.edges}
    assert kinds == {"delegate", "handoff", "sequence", "route", "parallel", "loop"}
