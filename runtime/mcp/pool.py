"""One stdio session per MCP server for the length of a run.

Sessions start when the pool is entered and stop when it exits, errors and cancellation
included (the SDK closes stdin, then kills the server's process group). Tool calls never
raise: timeouts, tool errors and dead servers come back as McpOutcome observations.
The `mcp` SDK is imported here, inside functions, so commands that run no server never load it.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from a4a import __version__
from a4a.runtime.errors import RunError, UserError
from a4a.runtime.mcp.launch import LaunchSpec, init_repository
from a4a.runtime.mcp.pinning import verify
from a4a.runtime.mcp.tools import McpOutcome, McpTool, outcome_of

if TYPE_CHECKING:
    from mcp import Client

# A server that pages its tool list forever must not hang the run.
_MAX_PAGES = 100
_STDERR_TAIL = 2000


class McpPool:
    """Async context manager over the sessions of a run's MCP servers.

    Enter and exit it in the same task. On enter every server starts and lists its tools;
    with `pinned` (the `mcp` section of a4a.lock) the listing is verified and a changed
    schema aborts before any tool can be called.
    """

    def __init__(self, launches: Sequence[LaunchSpec], *, pinned: dict[str, Any] | None = None,
                 start_timeout_s: float = 30.0) -> None:
        names = [launch.name for launch in launches]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise UserError("mcp.duplicate_server", f"MCP server names repeat: {dupes}",
                            "Give each server of a run its own name.", servers=dupes)
        self._launches = tuple(launches)
        self._timeouts = {launch.name: launch.timeout_s for launch in launches}
        self._pinned = pinned
        self._start_timeout_s = start_timeout_s
        self._clients: dict[str, Client] = {}
        self._tools: dict[str, McpTool] = {}
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> McpPool:
        """Start every server (one session each) and list their tools.

        Raises:
            UserError: mcp.pool_reentered when the pool is already open.
            RunError: mcp.start_failed, mcp.list_failed, mcp.name_collision, or
                mcp.schema_changed when `pinned` was given and a schema differs.
        """
        if self._stack is not None:
            raise UserError("mcp.pool_reentered", "the MCP pool is already open",
                            "Open one pool per run.")
        stack = AsyncExitStack()
        try:
            # The servers' working directory and HOME: a private empty folder, never the
            # workspace, so nothing sandboxed code or tools wrote is read as configuration.
            home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="a4a-mcp-")))
            for launch in self._launches:
                launch = dataclasses.replace(launch, cwd=home)
                init_repository(launch)
                self._clients[launch.name] = await _start(stack, launch, self._start_timeout_s)
            await self.list_tools()
        except BaseException:
            self._clients.clear()
            self._tools.clear()
            # Closed without the error, so the sessions' task groups do not wrap it.
            await stack.aclose()
            raise
        self._stack = stack
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        """Stop every server; the SDK shields the shutdown from cancellation."""
        stack, self._stack = self._stack, None
        self._clients.clear()
        self._tools.clear()
        if stack is not None:
            await stack.aclose()

    async def list_tools(self) -> list[McpTool]:
        """Every server's tools, freshly listed; only these can be called afterwards.

        Raises:
            RunError: mcp.list_failed, mcp.name_collision, or mcp.schema_changed when the
                pool was given pins and the listing differs from them.
        """
        tools: list[McpTool] = []
        for server, client in self._clients.items():
            tools += await _list(server, client)
        self._tools = {}
        if self._pinned is not None:
            verify(self._pinned, tools, list(self._clients))
        by_name = {t.name: t for t in tools}
        if len(by_name) != len(tools):
            clash = sorted({t.name for t in tools if sum(u.name == t.name for u in tools) > 1})
            raise RunError("mcp.name_collision", f"namespaced MCP tool names repeat: {clash}",
                           "Rename one of the servers so that server__tool stays unique.")
        self._tools = by_name
        return tools

    async def call(self, name: str, arguments: dict[str, Any] | None = None,
                   timeout_s: float | None = None) -> McpOutcome:
        """Call a listed tool by its namespaced name; failures come back as outcomes.

        Args:
            name: `server__tool`, as returned by `list_tools`.
            arguments: The tool's arguments (validated by the server).
            timeout_s: Seconds to wait for the result; by default the server's own.

        Returns:
            The outcome; error codes mcp.unknown_tool, mcp.tool_error, mcp.timeout,
            mcp.server_unavailable, mcp.protocol_error or mcp.invalid_result.
        """
        tool = self._tools.get(name)
        client = self._clients.get(tool.server) if tool else None
        if tool is None or client is None:
            known = ", ".join(sorted(self._tools)) or "none"
            return McpOutcome.failed("mcp.unknown_tool",
                                     f"no MCP tool {name!r}; available: {known}")
        wait = timeout_s if timeout_s is not None else self._timeouts[tool.server]
        return await _call(client, tool, arguments or {}, wait)


async def _transport(stack: AsyncExitStack, launch: LaunchSpec, timeout_s: float
                     ) -> tuple[Any, IO[str] | None]:
    """The SDK transport of a server (its process over stdio, or its URL) and its stderr."""
    if launch.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(str(launch.url), headers=launch.headers, timeout=timeout_s), None
    if launch.transport == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(httpx2.AsyncClient(
            headers=launch.headers, timeout=timeout_s))
        return streamable_http_client(str(launch.url), http_client=http), None
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # The server's stderr goes to a file: kept out of the run's output, quoted on failure.
    errlog = stack.enter_context(
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
    argv = launch.argv()
    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=launch.cwd)
    return stdio_client(params, errlog=errlog), errlog


async def _start(stack: AsyncExitStack, launch: LaunchSpec, timeout_s: float) -> Client:
    from mcp import Client
    from mcp.types import Implementation

    transport, errlog = await _transport(stack, launch, timeout_s)
    # No response cache: every listing must reach the server, or a pin check could pass
    # on a stale copy.
    client = Client(transport, cache=None, read_timeout_seconds=timeout_s,
                    client_info=Implementation(name="a4a", version=__version__))
    try:
        return await stack.enter_async_context(client)
    except Exception as err:  # any failure of a foreign process to come up is the same fault
        where = launch.url if launch.transport != "stdio" else [launch.command, *launch.args]
        stderr = (_tail(errlog) if errlog else "") or "(empty)"
        raise RunError("mcp.start_failed", f"MCP server {launch.name!r} did not start: "
                       f"{_describe(err)}; stderr: {stderr}",
                       "Run the server's command by hand (or check its URL) to see why.",
                       server=launch.name, command=where) from err


async def _list(server: str, client: Client) -> list[McpTool]:
    out: list[McpTool] = []
    cursor: str | None = None
    try:
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            out += [McpTool.listed(server, t.name, t.description, dict(t.input_schema))
                    for t in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
    except Exception as err:  # a server that cannot list its tools is unusable, whatever the cause
        raise RunError("mcp.list_failed", f"MCP server {server!r} could not list its tools: "
                       f"{_describe(err)}", "Check that the server is a working MCP server.",
                       server=server) from err
    return out


async def _call(client: Client, tool: McpTool, arguments: dict[str, Any],
                timeout_s: float) -> McpOutcome:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    late = McpOutcome.failed("mcp.timeout", f"{tool.name} gave no result within {timeout_s:g}s")
    dead = McpOutcome.failed("mcp.server_unavailable", f"MCP server {tool.server!r} is gone")
    try:
        with anyio.fail_after(timeout_s):
            result = await client.call_tool(tool.tool, arguments,
                                            read_timeout_seconds=timeout_s)
    except TimeoutError:
        return late
    except MCPError as err:
        if err.code == REQUEST_TIMEOUT:
            return late
        if err.code == CONNECTION_CLOSED:
            return dead
        return McpOutcome.failed("mcp.protocol_error", err.message)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        return dead
    except (RuntimeError, ValueError) as err:  # a result that breaks the tool's output schema
        return McpOutcome.failed("mcp.invalid_result", _describe(err))
    return outcome_of(result)


def _describe(err: BaseException) -> str:
    # Task groups wrap the real cause in exception groups; show the innermost first cause.
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return f"{type(err).__name__}: {err}"


def _tail(errlog: IO[str]) -> str:
    try:
        errlog.seek(0)
        text = errlog.read()
    except OSError:
        return ""
    return text[-_STDERR_TAIL:].strip()
