"""Serve a framework's world over MCP stdio: its world tools acting on one seeded World.

    serve_world(load("frameworks/github-triage"), seed=7)  # returns when the client hangs up

A bad call never ends the session: invalid arguments, WorldErrors and unknown tools come back
as tool results with `is_error` set and the JSON body {code, message, hint}. The `mcp` SDK is
imported inside functions, so importing this module stays light.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from a4a import __version__
from a4a.runtime.errors import UserError
from a4a.runtime.ir.spec import FrameworkSpec, ToolSpec
from a4a.runtime.tools.base import Tool, ToolContext, ToolError, ToolOutcome
from a4a.runtime.tools.registry import bind, world_for
from a4a.runtime.world.engine import World

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from mcp.types import CallToolResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorldSession:
    """The world tools of one framework and the World they act on, for one MCP session."""

    name: str
    specs: tuple[ToolSpec, ...]
    tools: dict[str, Tool]
    world: World

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Run one tool on the session's World; never raises.

        Args:
            name: The tool's name, as listed.
            arguments: Its arguments, validated against the tool's input schema first.

        Returns:
            The operation's result, or a structured error: invalid_arguments, not_found,
            invalid_state, not_allowed, unknown_tool, or internal for a fault of a4a itself.
        """
        tool = self.tools.get(name)
        if tool is None:
            return ToolOutcome(error=ToolError(
                "unknown_tool", f"no tool {name!r} in {self.name}",
                f"Call one of: {', '.join(sorted(self.tools))}."))
        ctx = ToolContext(run_id=f"mcp-{self.name}", agent="mcp",
                          services={"world": self.world})
        try:
            return await tool.call({} if arguments is None else arguments, ctx)
        except Exception as err:  # a fault in one operation must not end the session
            log.exception("tool %s failed", name)
            return ToolOutcome(error=ToolError("internal", f"{type(err).__name__}: {err}",
                                               "Report this; other calls still work."))


def world_tools(spec: FrameworkSpec) -> list[ToolSpec]:
    """The framework's tools implemented by world operations (`world:<pack>.<op>`)."""
    return [t for t in spec.tools if t.implementation.startswith("world:")]


def world_session(spec: FrameworkSpec, seed: int | None = None) -> WorldSession:
    """A fresh World for the framework and its world tools bound to it.

    Args:
        spec: The framework.
        seed: World seed; by default the framework environment's own.

    Raises:
        UserError: mcp.no_world_tools when the framework has no world tools to serve.
    """
    specs = world_tools(spec)
    world = world_for(spec, seed)
    if not specs or world is None:
        raise UserError("mcp.no_world_tools", f"framework {spec.name!r} has no world tools",
                        "Serve a framework whose tools use world:<pack>.<op> implementations.")
    return WorldSession(spec.name, tuple(specs), {t.name: bind(t) for t in specs}, world)


def serve_world(spec: FrameworkSpec, *, seed: int | None = None) -> None:
    """Serve the framework's world tools over MCP stdio until the client closes the session.

    Raises:
        UserError: mcp.no_world_tools, or mcp.missing when the `mcp` package is not installed.
    """
    serve_stdio(world_session(spec, seed))


def serve_stdio(session: WorldSession) -> None:
    """Serve one session over stdin/stdout; returns when the client closes stdin.

    Raises:
        UserError: mcp.missing when the `mcp` package is not installed.
    """
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError as err:
        raise UserError("mcp.missing", "serving over MCP needs the `mcp` package",
                        "Install the MCP extra: pip install 'a4a[mcp]'.") from err
    server = build_server(session)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def build_server(session: WorldSession) -> Server[Any]:
    """A low-level MCP server that lists the session's tools with their exact JSON schemas."""
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.types import (
        CallToolRequestParams,
        ListToolsResult,
        PaginatedRequestParams,
        Tool,
        ToolAnnotations,
    )

    listing = ListToolsResult(tools=[
        Tool(name=t.name, description=t.description, input_schema=t.input_schema,
             annotations=ToolAnnotations(read_only_hint=not t.writes))
        for t in session.specs])

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: PaginatedRequestParams | None) -> ListToolsResult:
        return listing

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: CallToolRequestParams) -> CallToolResult:
        return call_result(await session.call(params.name, params.arguments))

    return Server(f"a4a-{session.name}", version=__version__,
                  instructions=f"The simulated world of the a4a framework {session.name}: "
                  "seeded records that the tools read and change for this session.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def call_result(outcome: ToolOutcome) -> CallToolResult:
    """An outcome as an MCP tool result: structured JSON content plus the same JSON as text.

    Errors set `is_error` and carry {code, message, hint}; a result that is not a JSON object
    is wrapped as {"result": ...}, since older protocol versions require an object.
    """
    from mcp.types import CallToolResult, TextContent

    if outcome.error is not None:
        body: dict[str, Any] = dict(outcome.error.to_dict())
    elif isinstance(outcome.content, dict):
        body = outcome.content
    else:
        body = {"result": outcome.content}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=body, is_error=outcome.error is not None)
