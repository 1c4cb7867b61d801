"""Processes a4a starts on the host (MCP servers) never run code from the run's workspace.

The attack: sandboxed code or a file-writing tool puts a module named after something the
server imports (`_strptime` is imported lazily by `datetime.strptime`) into the workspace;
a server that runs with the workspace as its working directory imports it on its next call
and runs it on the host. Each planted module writes a marker file on the host: the marker
must never appear, and the calls must still work.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock, RunRecord
from a4a.runtime.ir.spec import (
    AgentSpec,
    FrameworkSpec,
    McpServer,
    PatternNode,
    Provenance,
    ToolSpec,
)
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from tests.runtime.sandbox_support import real_sandbox

CONVERT = {"source_timezone": "UTC", "time": "12:30", "target_timezone": "Europe/Paris"}
# Modules named after the standard library and after what the servers import, lazily or at
# start-up: each one, if imported on the host, writes the marker.
PLANTED = ("_strptime", "zoneinfo", "json", "datetime", "logging", "typing_extensions",
           "pydantic", "anyio", "mcp", "mcp_server_time", "mcp_server_git", "git", "tzlocal",
           "sitecustomize", "usercustomize", "encodings", "click")
_TOOLS = [
    ToolSpec(name="python", description="Run Python code in the sandbox.",
             input_schema={"type": "object", "properties": {"code": {"type": "string"}},
                           "required": ["code"]}, implementation="sandbox:python"),
    ToolSpec(name="write_file", description="Write a file of the workspace.",
             input_schema={"type": "object", "properties": {
                 "path": {"type": "string"}, "content": {"type": "string"}},
                 "required": ["path", "content"]}, implementation="builtin:write_file"),
]


def _payload(marker: Path) -> str:
    return f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran on the host')\n"


def _spec(servers: list[McpServer]) -> FrameworkSpec:
    agent = AgentSpec(name="clerk", system_prompt="Use your tools.", mcp_servers=servers,
                      tools=[t.name for t in _TOOLS])
    return FrameworkSpec(name="host-isolation", description="t", pattern="single_agent",
                         patterns=PatternNode(pattern="single_agent"), entry="clerk",
                         agents=[agent], tools=_TOOLS,
                         provenance=Provenance(a4a_version="0", builder="hand"))


def _run(spec: FrameworkSpec, calls: list[ToolCall], **opts: Any) -> RunRecord:
    steps = [Step(tool_calls=(c,)) for c in calls]
    llm = ScriptedLLM({"clerk": [*steps, Step(content="done")]})
    options = RunOptions(clock=FixedClock(), **opts)
    return asyncio.run(run_framework(spec, "convert 12:30 UTC to Paris time", llm, options))


def _results(record: RunRecord) -> dict[str, dict[str, Any]]:
    """Tool-call events by tool name and by call id."""
    assert record.status == "completed", record.error
    calls = [e for e in record.events if e["type"] == "tool_call"]
    return {e["name"]: e for e in calls} | {e["id"]: e for e in calls}


def test_sandboxed_code_cannot_plant_a_module_the_time_server_imports(tmp_path: Path) -> None:
    real_sandbox()
    marker = tmp_path / "marker"
    plant = ToolCall("1", "python", {"code": f"open('_strptime.py', 'w').write("
                                             f"{_payload(marker)!r})\nprint('planted')"})
    convert = ToolCall("2", "clock__convert_time", CONVERT)
    calls = _results(_run(_spec([McpServer(name="clock", id="time")]), [plant, convert]))
    assert not marker.exists(), "code planted in the workspace ran on the host"
    assert calls["python"]["ok"] and "planted" in calls["python"]["result"]["stdout"]
    assert calls["clock__convert_time"]["ok"], calls["clock__convert_time"]
    assert "Europe/Paris" in json.dumps(calls["clock__convert_time"]["result"])


def test_write_file_cannot_plant_a_module_the_time_server_imports(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    plant = ToolCall("1", "write_file", {"path": "_strptime.py", "content": _payload(marker)})
    convert = ToolCall("2", "clock__convert_time", CONVERT)
    calls = _results(_run(_spec([McpServer(name="clock", id="time")]), [plant, convert]))
    assert not marker.exists(), "code planted in the workspace ran on the host"
    assert calls["write_file"]["ok"]
    assert calls["clock__convert_time"]["ok"], calls["clock__convert_time"]


def _plant_everything(workspace: Path, marker: Path) -> None:
    for name in PLANTED:
        (workspace / f"{name}.py").write_text(_payload(marker))
        package = workspace / "pkgs" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(_payload(marker))
    (workspace / "__main__.py").write_text(_payload(marker))
    (workspace / ".env").write_text(f"PYTHONSTARTUP={workspace / 'json.py'}\n")


def test_modules_planted_before_the_servers_start_are_never_imported(tmp_path: Path) -> None:
    workspace, marker = tmp_path / "ws", tmp_path / "marker"
    workspace.mkdir()
    _plant_everything(workspace, marker)
    spec = _spec([McpServer(name="clock", id="time"), McpServer(name="git", id="git")])
    calls = _results(_run(spec, [
        ToolCall("1", "clock__convert_time", CONVERT),
        ToolCall("2", "git__git_status", {"repo_path": str(workspace)}),
    ], workspace=workspace))
    assert calls["clock__convert_time"]["ok"], calls["clock__convert_time"]
    assert calls["git__git_status"]["ok"], calls["git__git_status"]
    assert not marker.exists(), "a module planted in the workspace ran on the host"


def test_the_git_server_gets_a_repository_in_a_fresh_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("hello\n")
    calls = _results(_run(_spec([McpServer(name="git", id="git")]), [
        ToolCall("1", "git__git_status", {"repo_path": str(workspace)})],
        workspace=workspace))
    assert calls["git__git_status"]["ok"], calls["git__git_status"]
    assert "notes.txt" in json.dumps(calls["git__git_status"]["result"])


def test_tools_cannot_plant_git_hooks_or_config(tmp_path: Path) -> None:
    real_sandbox()
    workspace, marker = tmp_path / "ws", tmp_path / "marker"
    workspace.mkdir()
    hook = f"#!/bin/sh\ntouch {marker}\n"
    config = f"[core]\n\tfsmonitor = touch {marker}\n\thooksPath = hooks\n"
    sandboxed = ("import os\n"
                 f"for rel, text in [('.git/config', {config!r}), "
                 f"('.git/hooks/pre-commit', {hook!r}), ('.git/hooks/post-commit', {hook!r})]:\n"
                 "    try:\n"
                 "        with open(rel, 'a') as f: f.write(text)\n"
                 "        os.chmod(rel, 0o755)\n"
                 "        print('ESCAPED', rel)\n"
                 "    except OSError as exc:\n"
                 "        print('BLOCKED', rel, exc)\n")
    calls = [
        ToolCall("1", "write_file", {"path": ".git/hooks/pre-commit", "content": hook}),
        ToolCall("2", "python", {"code": sandboxed}),
        ToolCall("3", "write_file", {"path": "notes.txt", "content": "hello\n"}),
        ToolCall("4", "git__git_add", {"repo_path": str(workspace), "files": ["notes.txt"]}),
        ToolCall("5", "git__git_commit", {"repo_path": str(workspace), "message": "notes"}),
    ]
    record = _run(_spec([McpServer(name="git", id="git")]), calls, workspace=workspace)
    events = _results(record)
    assert not marker.exists(), "a hook or config planted by a tool ran on the host"
    assert events["1"]["result"]["error"]["code"] == "file.protected"
    assert "ESCAPED" not in events["python"]["result"]["stdout"], events["python"]["result"]
    assert events["python"]["result"]["stdout"].count("BLOCKED") == 3
    assert events["git__git_commit"]["ok"], events["git__git_commit"]
    log = subprocess.run(["git", "-C", str(workspace), "log", "--oneline"], check=True,
                         capture_output=True, text=True).stdout
    assert "notes" in log


@pytest.mark.parametrize("server", ["time", "git"])
def test_servers_start_isolated_from_the_workspace(server: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from a4a.runtime.mcp import resolve

    workspace = tmp_path / "ws"
    workspace.mkdir()
    launch = resolve(McpServer(name=server, id=server), workspace=workspace, trusted=False)
    argv = launch.argv()
    assert argv[argv.index(launch.command) + 1] == "-I"
    assert launch.cwd is None  # the pool gives each server a private empty folder
    monkeypatch.setenv("PYTHONPATH", str(workspace))
    monkeypatch.setenv("PATH", f"{workspace}:/usr/bin")
    env = launch.child_env()
    assert str(workspace) not in env["PATH"]
    assert not any(k.startswith(("PYTHON", "LD_")) for k in env)
