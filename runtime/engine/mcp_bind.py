"""MCP servers of a run: open one pool for the whole run and expose its tools to agents.

Servers come from agents' `mcp_servers` (hand-written configs; commands need trust) and
from `mcp:<server>.<tool>` tool implementations (generated frameworks; vetted registry ids).
Pinned schemas (a4a.lock `mcp:`) are verified when the pool opens; a change aborts the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from a4a.runtime.ir.spec import FrameworkSpec, McpServer
from a4a.runtime.llm.base import ToolSchema
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


@asynccontextmanager
async def mcp_tools(spec: FrameworkSpec, ctx: ToolContext, *, trusted: bool,
                    pinned: dict[str, Any] | None) -> AsyncIterator[tuple[dict[str, McpBoundTool],
                                                                          dict[str, Any]]]:
    """Open the run's pool; yield its tools by namespaced name and the pins of this run."""
    servers = servers_of(spec)
    if not servers:
        yield {}, {}
        return
    from a4a.runtime.mcp import McpPool, pin, resolve

    launches = [resolve(s, workspace=ctx.workspace, trusted=trusted) for s in servers.values()]
    async with McpPool(launches, pinned=pinned or None) as pool:
        listed = await pool.list_tools()
        tools = {t.name: McpBoundTool(ToolSchema(t.name, t.description or t.name,
                                                 t.input_schema), pool, t.name) for t in listed}
        for spec_tool in spec.tools:  # generated tools name an mcp:<server>.<tool> directly
            if spec_tool.implementation.startswith("mcp:"):
                remote = spec_tool.implementation[4:].replace(".", "__", 1)
                if remote in tools:
                    tools[spec_tool.name] = McpBoundTool(
                        ToolSchema(spec_tool.name, spec_tool.description,
                                   tools[remote].schema.parameters), pool, remote)
        yield tools, pin(listed, servers)
