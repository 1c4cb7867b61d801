"""Agents call real MCP servers through the run's pool; a changed pinned schema aborts."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, McpServer, PatternNode, Provenance
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step


def _spec(servers: list[McpServer]) -> FrameworkSpec:
    agent = AgentSpec(name="clerk", system_prompt="Use your tools.", mcp_servers=servers)
    return FrameworkSpec(name="mcp-test", description="t", pattern="single_agent",
                         patterns=PatternNode(pattern="single_agent"), entry="clerk",
                         agents=[agent], provenance=Provenance(a4a_version="0", builder="hand"))


def _run(spec: FrameworkSpec, calls: list[Step], **opts: object):  # type: ignore[no-untyped-def]
    llm = ScriptedLLM({"clerk": [*calls, Step(content="done")]})
    options = RunOptions(clock=FixedClock(), **opts)  # type: ignore[arg-type]
    return asyncio.run(run_framework(spec, "what time is it in UTC?", llm, options)), llm


def test_agent_calls_the_time_server_and_pins_its_schemas() -> None:
    call = Step(tool_calls=(ToolCall("1", "time__get_current_time", {"timezone": "UTC"}),))
    record, llm = _run(_spec([McpServer(name="time", id="time")]), [call])
    assert record.status == "completed", record.error
    event = next(e for e in record.events if e["type"] == "tool_call")
    assert event["ok"] and "UTC" in json.dumps(event["result"])
    assert "time__get_current_time" in {t.name for t in llm.requests[0].tools}
    assert record.mcp and set(record.mcp["time"]) >= {"get_current_time", "convert_time"}


def test_changed_schema_aborts_the_run() -> None:
    spec = _spec([McpServer(name="time", id="time")])
    first, _ = _run(spec, [])
    pins = json.loads(json.dumps(first.mcp))
    pins["time"]["get_current_time"] = "0" * 64  # what was locked no longer matches
    record, llm = _run(spec, [], mcp_pins=pins)
    assert record.status == "error:aborted"
    assert record.error and record.error["code"] == "mcp.schema_changed"
    assert llm.requests == []


def test_git_server_on_a_workspace_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "notes.txt").write_text("hello\n")
    spec = _spec([McpServer(name="git", id="git")])
    call = Step(tool_calls=(ToolCall("1", "git__git_status", {"repo_path": str(tmp_path)}),))
    record, _ = _run(spec, [call], workspace=tmp_path)
    event = next(e for e in record.events if e["type"] == "tool_call")
    assert event["ok"], event
    assert "notes.txt" in json.dumps(event["result"])


def test_untrusted_commands_are_refused() -> None:
    spec = _spec([McpServer(name="sh", command="bash", args=["-c", "id"])])
    record, _ = _run(spec, [])
    assert record.status == "error:aborted" and record.error["code"] == "mcp.untrusted"


def test_nexau_example_runs_and_its_web_tools_fail_as_observations() -> None:
    from a4a.runtime.loader.nexau import load_agent_config

    root = Path(__file__).resolve().parents[1] / "data" / "nexau"
    spec = load_agent_config(root / "deep_research_agent.yaml")
    call = Step(tool_calls=(ToolCall("1", "web_search", {"query": "quantum computing"}),))
    llm = ScriptedLLM({"deep_research_agent": [call, Step(content="no web access")]})
    record = asyncio.run(run_framework(spec, "latest in quantum computing?", llm,
                                       RunOptions(clock=FixedClock())))
    assert record.status == "completed"
    event = next(e for e in record.events if e["type"] == "tool_call")
    assert event["result"]["error"]["code"] == "network_disabled"


def test_jinja_prompts_render_with_runtime_variables() -> None:
    from a4a.runtime.loader.nexau import load_agent_config

    root = Path(__file__).resolve().parents[1] / "data" / "nexau"
    spec = load_agent_config(root / "deep_research_agent.yaml")
    llm = ScriptedLLM({"deep_research_agent": [Step(content="ok")]})
    asyncio.run(run_framework(spec, "t", llm, RunOptions(clock=FixedClock())))
    system = llm.requests[0].messages[0].content
    # NexAU's `date` runtime variable: the run clock's date and time
    assert system.startswith("Date: 2026-01-01 00:00:00\n") and "{{" not in system
