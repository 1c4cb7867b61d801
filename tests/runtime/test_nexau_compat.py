"""NexAU compatibility: import-path bindings only under trust; tracers map to a4a's recorder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.errors import SpecError
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.loader.nexau import load_agent_config

AGENT = """type: agent
name: adder
system_prompt: Add numbers.
llm_config: {temperature: 0}
tools:
  - name: add
    yaml_path: ./add.yaml
    binding: tests.runtime.binding_target:add
"""
TOOL = """type: tool
name: add
description: Add two integers.
input_schema:
  type: object
  properties: {a: {type: integer}, b: {type: integer}}
  required: [a, b]
"""


def _write(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "add.yaml").write_text(TOOL)
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT + extra)
    return path


def _run(path: Path, trusted: bool):  # type: ignore[no-untyped-def]
    call = Step(tool_calls=(ToolCall("1", "add", {"a": 2, "b": 3}),))
    llm = ScriptedLLM({"adder": [call, Step(content="5")]})
    return asyncio.run(run_framework(load_agent_config(path), "2+3?", llm,
                                     RunOptions(clock=FixedClock(), trusted=trusted)))


def test_bindings_need_trust(tmp_path: Path) -> None:
    path = _write(tmp_path)
    refused = _run(path, trusted=False)
    assert refused.status == "error:invalid_framework"
    assert refused.error and refused.error["code"] == "binding.untrusted"
    trusted = _run(path, trusted=True)
    event = next(e for e in trusted.events if e["type"] == "tool_call")
    assert trusted.status == "completed" and event["result"] == {"sum": 5}


def test_in_memory_tracer_maps_to_the_recorder(tmp_path: Path) -> None:
    ok = _write(tmp_path, "tracers:\n  - nexau.archs.tracer.adapters.in_memory:InMemoryTracer\n")
    assert load_agent_config(ok).agents[0].name == "adder"
    bad = _write(tmp_path, "tracers:\n  - import: mylib.tracing:Tracer\n")
    with pytest.raises(SpecError) as info:
        load_agent_config(bad)
    assert info.value.data["issues"][0]["code"] == "tracer.unsupported"
