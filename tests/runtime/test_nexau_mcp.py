"""NexAU's http (streamable HTTP) MCP servers through the mcp client, against a loopback
server: headers sent, permissions honoured, an unreachable server left out of the run."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from a4a.runtime.llm.fakes import Step
from a4a.runtime.loader.nexau import inspect_agent_config, load_agent_config
from tests.runtime.test_nexau_compat import run, step, write

SERVER = textwrap.dedent('''
    import sys
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.responses import JSONResponse

    server = MCPServer("probe")

    @server.tool(description="Echo the text.")
    def echo(text: str) -> str:
        return "echo: " + text

    @server.tool(description="Drop a table.")
    def drop(table: str) -> str:
        return "dropped " + table

    app = server.streamable_http_app()

    async def gate(scope, receive, send):
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"x-probe-token") != b"secret":
            await JSONResponse({"error": "no token"}, status_code=401)(scope, receive, send)
            return
        await app(scope, receive, send)

    uvicorn.run(gate, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
''')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("uvicorn")
    script = tmp_path_factory.mktemp("mcp") / "server.py"
    script.write_text(SERVER)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


def _config(tmp_path: Path, url: str, token: str, extra: str = "") -> Path:
    return write(tmp_path, {"a.yaml": (
        "type: agent\nname: probe\nsystem_prompt: Probe.\nllm_config: {}\nmcp_servers:\n"
        f"  - name: db\n    type: http\n    url: {url}\n    headers: {{X-Probe-Token: {token}}}\n"
        f"    timeout: 20\n{extra}")})


def test_http_server_tools_are_called_with_the_headers(tmp_path: Path, url: str) -> None:
    spec = load_agent_config(_config(tmp_path, url, "secret"))
    record, llm = run(spec, {"probe": [step("db__echo", text="hi"), Step(content="ok")]})
    assert record.status == "completed", record.error
    offered = {t.name for t in llm.requests[0].tools}
    assert {"db__echo", "db__drop"} <= offered
    calls = [e for e in record.events if e["type"] == "tool_call"]
    assert calls[0]["ok"] and calls[0]["result"] == {"result": "echo: hi"}


def test_a_server_that_refuses_is_left_out(tmp_path: Path, url: str) -> None:
    spec = load_agent_config(_config(tmp_path, url, "wrong"))
    record, llm = run(spec, {"probe": [Step(content="ok")]})
    skipped = [e for e in record.events if e["type"] == "mcp_skipped"]
    assert skipped and skipped[0]["server"] == "db" and skipped[0]["code"] == "mcp.start_failed"
    assert not {t.name for t in llm.requests[0].tools} & {"db__echo"}


def test_server_permissions_are_honoured(tmp_path: Path, url: str) -> None:
    rules = "    permissions: {allow: ['db__echo'], deny: ['db__drop']}\n"
    spec = load_agent_config(_config(tmp_path, url, "secret", rules))
    record, _ = run(spec, {"probe": [step("db__drop", table="users"),
                                     step("db__echo", text="ok"), Step(content="ok")]})
    calls = [e for e in record.events if e["type"] == "tool_call"]
    assert calls[0]["result"]["error"]["code"] == "permission_denied"
    assert calls[1]["result"] == {"result": "echo: ok"}


def test_remote_servers_need_the_network(tmp_path: Path) -> None:
    path = _config(tmp_path, "https://mcp.example.com/mcp", "secret")
    _, issues = inspect_agent_config(path)
    assert "mcp.needs_network" in {i.code for i in issues}
    record, _ = run(load_agent_config(path), {"probe": [Step(content="ok")]})
    skipped = [e for e in record.events if e["type"] == "mcp_skipped"]
    assert skipped[0]["code"] == "mcp.network_off"
