"""The real NexAU and NexRL configs (tests/data/nexau_corpus, see its SOURCES.md) run as
they are: each validates (warnings only) and runs with the schema fake to `completed`, and
the tool calls reach a4a's own implementations.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from a4a.api import validate
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.llm.fakes import SchemaLLM
from a4a.runtime.loader.nexau import iter_agent_files, load_agent_config
from a4a.runtime.sandbox import FakeSandbox, scripted_result
from tests.conftest import DATA

CORPUS = DATA / "nexau_corpus"
CONFIGS = list(iter_agent_files(CORPUS))
# Outcomes that mean a call never reached an implementation.
UNREAL = frozenset({"unknown_tool", "tool_unavailable", "binding.untrusted", "binding.missing",
                    "invalid_json"})
# The entry files SOURCES.md lists as the configs tried (19 current, 6 historical).
LISTED = 25


def _name(path: Path) -> str:
    return str(path.relative_to(CORPUS))


def test_every_listed_config_is_found() -> None:
    assert len(CONFIGS) >= LISTED
    names = {_name(p) for p in CONFIGS}
    assert {"nexau/examples/cc_agent/cc_agent.yaml", "nexau_tests/cli_stdio/agent.yaml",
            "nexrl/recipe/nexau_deepsearch/agent_workspace/agent_config.yaml",
            "nexau_history/fa581e0/examples/code_agent_external_tool/code_agent.yaml"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=_name)
def test_config_validates_with_warnings_only(path: Path) -> None:
    report = validate(path)
    errors = [str(i) for i in report.issues if i.severity == "error"]
    assert report.valid and not errors, errors
    assert all(i.file for i in report.issues if i.code.startswith("nexau.")), \
        "loader issues name their file"


def test_tool_entries_map_to_implementations() -> None:
    mapped = dropped = 0
    for path in CONFIGS:
        report = validate(path)
        assert report.spec is not None
        mapped += sum(len(a.tools) for a in report.spec.agents)
        dropped += sum(1 for i in report.issues if i.code in ("binding.untrusted",
                                                              "binding.missing")
                       or (i.code == "nexau.external_tool" and "dropped" in i.message))
    share = mapped / (mapped + dropped)
    print(f"\ntool entries: {mapped} mapped to a4a implementations, {dropped} dropped "
          f"({share:.1%})")
    assert share >= 0.95


def _run(path: Path) -> dict[str, object]:
    spec = load_agent_config(path)
    sandbox = FakeSandbox(default=scripted_result("ok\n"))
    record = asyncio.run(run_framework(spec, "Look around and report what you find.",
                                       SchemaLLM(), RunOptions(clock=FixedClock(),
                                                               sandbox=sandbox)))
    return {"status": record.status, "error": record.error,
            "calls": [e for e in record.events if e["type"] == "tool_call"]}


def test_whole_corpus_runs_to_completed_on_real_implementations() -> None:
    calls, statuses = [], {}
    for path in CONFIGS:
        out = _run(path)
        statuses[_name(path)] = (out["status"], out["error"])
        calls += out["calls"]  # type: ignore[operator]
    assert all(s == "completed" for s, _ in statuses.values()), statuses
    unreal = [(c["name"], c["result"]["error"]["code"]) for c in calls
              if not c["ok"] and c["result"]["error"]["code"] in UNREAL]
    share = 1 - len(unreal) / len(calls)
    print(f"\n{len(CONFIGS)} configs, {len(calls)} tool calls, {share:.1%} reached a4a's "
          f"own implementations; not: {unreal}")
    assert len(calls) >= 200 and share >= 0.95, unreal
