"""MCP servers of a run: open one pool for the whole run and expose its tools to agents.

Servers come from agents' `mcp_servers` (hand-written configs; commands need trust) and
from `mcp:<server>.<tool>` tool implementations (generated frameworks; vetted registry ids).
Pinned schemas (a4a.lock `mcp:`) are verified when the pool opens; a change aborts the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from a4a.runtime.errors import RunError
from a4a.runtime.ir.spec import FrameworkSpec, McpServer
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.llm.guard import is_loopback_url
from a4a.runtime.tools.base import ToolContext, ToolError, ToolOutcome, argument_problem


@dataclass(frozen=True)
class McpBoundTool:
    """A tool served by an MCP server of the run's pool."""

    schema: ToolSchema
    pool: Any
    remote: str  # the namespaced server__tool name in the pool
    timeout_s: float | None = None
    writes: bool = True  # unknown side effects: treat as writes

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Validate against the listed schema, then call through the pool."""
        problem = argument_problem(self.schema.parameters, args)
        if problem:
            return ToolOutcome(error=ToolError("invalid_arguments", problem,
                                               "Fix the arguments to match the tool's schema."))
        out = await self.pool.call(self.remote, args, self.timeout_s)
        if out.ok:
            return ToolOutcome(out.content)
        err = out.error or {}
        return ToolOutcome(error=ToolError(str(err.get("code", "mcp.error")),
                                           str(err.get("message", "")), "Try another way."))


def servers_of(spec: FrameworkSpec) -> dict[str, McpServer]:
    """Every MCP server the framework uses, by name."""
    out: dict[str, McpServer] = {}
    for agent in spec.agents:
        for server in agent.mcp_servers:
            out.setdefault(server.name, server)
    for tool in spec.tools:
        if tool.implementation.startswith("mcp:"):
            sid = tool.implementation[4:].split(".", 1)[0]
            out.setdefault(sid, McpServer(name=sid, id=sid))
    return out


def agent_servers(spec: FrameworkSpec) -> dict[str, set[str]]:
    """Which servers each agent may use."""
    out: dict[str, set[str]] = {a.name: {s.name for s in a.mcp_servers} for a in spec.agents}
    for agent in spec.agents:
        for name in agent.tool_names():
            tool = next((t for t in spec.tools if t.name == name), None)
            if tool and tool.implementation.startswith("mcp:"):
                out[agent.name].add(tool.implementation[4:].split(".", 1)[0])
    return out


def optional_servers(spec: FrameworkSpec) -> set[str]:
    """Servers of NexAU agents: one that cannot run is left out, as NexAU skips it."""
    return {s.name for a in spec.agents if a.nexau is not None for s in a.mcp_servers}


def _usable(servers: dict[str, McpServer], optional: set[str], network: bool,
            skipped: Callable[[dict[str, Any]], object]) -> dict[str, McpServer]:
    out = {}
    for name, server in servers.items():
        if server.type != "stdio" and not network and not is_loopback_url(server.url):
            if name not in optional:
                raise RunError("mcp.network_off", f"MCP server {name!r} is reached over the "
                               "network, which is off for this run", "Run with --network.")
            skipped({"server": name, "code": "mcp.network_off",
                     "message": "the network is off for this run"})
            continue
        out[name] = server
    return out


@asynccontextmanager
async def mcp_tools(spec: FrameworkSpec, ctx: ToolContext, *, trusted: bool,
                    pinned: dict[str, Any] | None,
                    skipped: Callable[[dict[str, Any]], object] = lambda e: None
                    ) -> AsyncIterator[tuple[dict[str, McpBoundTool], dict[str, Any]]]:
    """Open the run's pool; yield its tools by namespaced name and the pins of this run.

    A server of a NexAU agent that cannot be resolved, reached or started is left out
    (reported through `skipped`); any other such server aborts the run.
    """
    optional = optional_servers(spec)
    servers = _usable(servers_of(spec), optional, ctx.network, skipped)
    if not servers:
        yield {}, {}
        return
    from a4a.runtime.mcp import McpPool, pin, resolve

    launches = {}
    for name, server in servers.items():
        try:
            launches[name] = resolve(server, workspace=ctx.workspace, trusted=trusted)
        except RunError as err:
            if name not in optional:
                raise
            skipped({"server": name, "code": err.code, "message": err.message})
    async with AsyncExitStack() as stack:
        pool = None
        while launches:
            try:
                pool = await stack.enter_async_context(
                    McpPool(list(launches.values()), pinned=pinned or None))
                break
            except RunError as err:
                failed = err.data.get("server")
                if failed not in optional or failed not in launches:
                    raise
                skipped({"server": failed, "code": err.code, "message": err.message})
                del launches[failed]
        if pool is None:
            yield {}, {}
            return
        listed = await pool.list_tools()
        yield _bound(spec, pool, listed), pin(listed, list(launches))


def _bound(spec: FrameworkSpec, pool: Any, listed: list[Any]) -> dict[str, McpBoundTool]:
    tools = {t.name: McpBoundTool(ToolSchema(t.name, t.description or t.name, t.input_schema),
                                  pool, t.name) for t in listed}
    for spec_tool in spec.tools:  # generated tools name an mcp:<server>.<tool> directly
        if spec_tool.implementation.startswith("mcp:"):
            remote = spec_tool.implementation[4:].replace(".", "__", 1)
            if remote in tools:
                tools[spec_tool.name] = McpBoundTool(
                    ToolSchema(spec_tool.name, spec_tool.description,
                               tools[remote].schema.parameters), pool, remote)
    return tools
