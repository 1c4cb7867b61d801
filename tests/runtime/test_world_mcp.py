"""`a4a mcp serve`: a framework's world served over MCP stdio, used by real MCP clients."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from a4a.api import build, load
from a4a.runtime.errors import UserError
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.mcp import LaunchSpec, McpPool
from a4a.runtime.world.mcp_server import call_result, world_session, world_tools

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[2]
SERVE = ["-c", "from a4a.cli import main; main()", "mcp", "serve"]


@pytest.fixture(scope="module")
def framework(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcp") / "triage"
    assert build("a team that triages GitHub issues", out=out).valid
    return out


def _serve(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *SERVE, str(path), *extra], capture_output=True,
                          text=True, cwd=ROOT, input="", timeout=60)


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error
    body: dict[str, Any] = result.structured_content
    assert json.loads(result.content[0].text) == body
    assert set(body) == {"code", "message", "hint"}
    return body


async def _session_checks(framework: Path, errlog: Any) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[*SERVE, str(framework)],
                                   cwd=ROOT)
    with anyio.fail_after(30):  # a hung server fails the test instead of stalling it
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await _use(session, load(framework))


async def _use(session: Any, spec: FrameworkSpec) -> None:
    await session.initialize()
    listed = (await session.list_tools()).tools
    assert [(t.name, t.description, t.input_schema) for t in listed] == [
        (t.name, t.description, t.input_schema) for t in world_tools(spec)]

    open_issues = await session.call_tool("list_issues", {"state": "open"})
    assert not open_issues.is_error
    items = open_issues.structured_content["items"]
    assert items and all(i["state"] == "open" for i in items)
    assert json.loads(open_issues.content[0].text) == open_issues.structured_content

    issue = items[0]["id"]
    closed = await session.call_tool("close_issue", {"issue_id": issue})
    assert closed.structured_content["state"] == "closed"
    again = await session.call_tool("get_issue", {"issue_id": issue})
    assert again.structured_content["state"] == "closed"  # the world lives on

    assert _error(await session.call_tool("close_issue", {}))["code"] == "invalid_arguments"
    missing = await session.call_tool("get_issue", {"issue_id": "ISS-999"})
    assert _error(missing)["code"] == "not_found"
    twice = await session.call_tool("close_issue", {"issue_id": issue})
    assert _error(twice)["code"] == "invalid_state"
    assert _error(await session.call_tool("delete_repo", {}))["code"] == "unknown_tool"


def test_mcp_client_lists_and_calls_the_world_tools(framework: Path) -> None:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        anyio.run(_session_checks, framework, errlog)
        errlog.seek(0)
        stderr = errlog.read()
    assert f"serving {len(world_tools(load(framework)))} world tools" in stderr
    assert "Traceback" not in stderr


def test_server_exits_cleanly_when_the_client_closes(framework: Path) -> None:
    proc = subprocess.Popen([sys.executable, *SERVE, str(framework), "--seed", "3"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout and proc.stderr
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}}
    proc.stdin.write(json.dumps(init) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())  # stdout carries the protocol and nothing else
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"].startswith("a4a-")
    proc.stdin.close()
    try:
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
    assert proc.stdout.read() == ""
    stderr = proc.stderr.read()
    assert "(seed 3)" in stderr and "Traceback" not in stderr
    proc.stdout.close()
    proc.stderr.close()


def test_the_project_pool_uses_the_served_world(framework: Path) -> None:
    async def go() -> tuple[Any, Any]:
        launch = LaunchSpec("world", sys.executable, (*SERVE, str(framework)), cwd=ROOT)
        async with McpPool([launch]) as pool:
            ok = await pool.call("world__get_issue", {"issue_id": "ISS-001"})
            bad = await pool.call("world__get_issue", {"issue_id": "nope"})
            return ok, bad

    ok, bad = anyio.run(go)
    assert ok.ok and ok.content["id"] == "ISS-001"
    assert not bad.ok and bad.error and bad.error["code"] == "mcp.tool_error"
    assert json.loads(bad.error["message"])["code"] == "not_found"


def test_user_errors_exit_before_serving(tmp_path: Path) -> None:
    missing = _serve(tmp_path / "nowhere")
    assert (missing.returncode, missing.stdout) == (2, "")
    assert "path.missing" in missing.stderr

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "framework.yaml").write_text("name: [not, a, framework]\n", encoding="utf-8")
    invalid = _serve(broken)
    assert (invalid.returncode, invalid.stdout) == (1, "")
    assert "error" in invalid.stderr and "Traceback" not in invalid.stderr


def test_a_framework_without_world_tools_is_refused(framework: Path) -> None:
    spec = load(framework)
    bare = FrameworkSpec.model_validate(
        spec.model_dump() | {"tools": [], "environment": None,
                             "agents": [a.model_dump() | {"tools": []} for a in spec.agents]})
    with pytest.raises(UserError) as err:
        world_session(bare)
    assert err.value.code == "mcp.no_world_tools"


def test_the_seed_picks_the_world(framework: Path) -> None:
    spec = load(framework)
    assert world_session(spec).world.seed == (spec.environment.seed if spec.environment else 0)
    assert world_session(spec, 7).world.seed == 7


def test_results_are_json_objects() -> None:
    from a4a.runtime.tools.base import ToolOutcome

    wrapped = call_result(ToolOutcome(["a", "b"]))
    assert wrapped.structured_content == {"result": ["a", "b"]} and not wrapped.is_error
