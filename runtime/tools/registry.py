"""The tool registry: a framework's ToolSpecs bound to implementations, by registered name."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.errors import RunError
from a4a.runtime.ir.spec import FrameworkSpec, ToolSpec
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.tools.base import (
    FunctionTool,
    Tool,
    ToolContext,
    ToolError,
    ToolOutcome,
    argument_problem,
)
from a4a.runtime.tools.builtins import BUILTINS
from a4a.runtime.tools.code import SandboxTool
from a4a.runtime.tools.nexau import builtins as nexau_builtins
from a4a.runtime.world.engine import World
from a4a.runtime.world.errors import WorldError


@dataclass(frozen=True)
class WorldTool:
    """A domain-pack operation executed on the run's World."""

    schema: ToolSchema
    pack: str
    operation: str
    writes: bool

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Validate, then apply the operation; WorldErrors become structured outcomes."""
        problem = argument_problem(self.schema.parameters, args)
        if problem:
            return ToolOutcome(error=ToolError("invalid_arguments", problem,
                                               "Fix the arguments to match the tool's schema."))
        world = ctx.services.get("world")
        if not isinstance(world, World):
            return ToolOutcome(error=ToolError("world_unavailable", "no world is attached",
                                               "Run the framework with its environment."))
        try:
            return ToolOutcome(world.call(self.pack, self.operation, args))
        except WorldError as err:
            return ToolOutcome(error=ToolError(err.code, err.message, err.hint))


@dataclass(frozen=True)
class UnavailableTool:
    """A tool whose backend this run does not provide; calling it is an observation."""

    schema: ToolSchema
    reason: ToolError
    writes: bool = False

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Report why the tool cannot run."""
        return ToolOutcome(error=self.reason)


def schema_of(spec: ToolSpec) -> ToolSchema:
    """The model-facing schema of a ToolSpec."""
    return ToolSchema(spec.name, spec.description, spec.input_schema)


def bind(tool: ToolSpec, *, trusted: bool = False) -> Tool:
    """Bind one ToolSpec to its implementation; raises RunError for untrusted bindings."""
    kind, _, ref = tool.implementation.partition(":")
    schema = schema_of(tool)
    if kind == "world":
        pack, _, op = ref.partition(".")
        return WorldTool(schema, pack, op, tool.writes)
    builtin = (BUILTINS.get(ref) or nexau_builtins().get(ref)) if kind == "builtin" else None
    if builtin is not None:
        return FunctionTool(schema, builtin.fn, builtin.writes, requires=builtin.requires
                            if builtin.requires is not None else builtin.schema.parameters)
    if kind == "sandbox":
        return SandboxTool(schema)
    if kind == "binding":
        if not trusted:
            raise RunError("binding.untrusted", f"tool {tool.name!r} is bound to the import "
                           f"path {ref!r}", "Run hand-written configs you trust with --trust.")
        return FunctionTool(schema, _imported(ref, tool.name), tool.writes)
    return UnavailableTool(schema, ToolError("tool_unavailable", f"{tool.implementation} is not "
                                             "available in this run", "Use another tool."))


def _imported(ref: str, name: str) -> Any:
    """A trusted NexAU binding `module:function`, called with the arguments as keywords."""
    import importlib

    module, _, attr = ref.partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise RunError("binding.missing", f"cannot import {ref!r} for tool {name!r}: {err}",
                       "Install the module or fix the binding.") from err

    async def call(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            out = await asyncio.to_thread(fn, **args)
        except Exception as err:  # the user's own code: its failures are observations
            return ToolOutcome(error=ToolError("tool_failed", f"{type(err).__name__}: {err}",
                                               "Check the arguments."))
        return ToolOutcome(out if isinstance(out, dict | list | str | int | float | bool)
                           or out is None else str(out))

    return call


def bind_all(spec: FrameworkSpec, *, trusted: bool = False) -> dict[str, Tool]:
    """Every tool of the framework by name."""
    return {t.name: bind(t, trusted=trusted) for t in spec.tools}


def world_for(spec: FrameworkSpec, seed: int | None = None) -> World | None:
    """A fresh World for the framework's environment (None when it has no domain packs)."""
    packs = knowledge.domain_packs()
    env = spec.environment
    ids = [d for d in (env.domains if env else []) if d in packs]
    ids += sorted({t.implementation.split(":", 1)[1].split(".", 1)[0] for t in spec.tools
                   if t.implementation.startswith("world:")} - set(ids))
    if not ids:
        return None
    return World([packs[i] for i in ids if i in packs],
                 seed=env.seed if seed is None and env else (seed or 0))


