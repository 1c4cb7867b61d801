"""The tool interface: a schema, a flag for side effects, and an async call.

A tool never raises for a bad call: wrong arguments, missing records or violated
preconditions come back as a ToolOutcome with a structured error the model sees next turn.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from a4a.runtime.llm.base import ToolSchema


@dataclass(frozen=True)
class ToolError:
    """A structured tool failure."""

    code: str
    message: str
    hint: str = ""

    def to_dict(self) -> dict[str, str]:
        """JSON shape."""
        return {"code": self.code, "message": self.message, "hint": self.hint}


@dataclass(frozen=True)
class ToolOutcome:
    """A tool's result: JSON-able content, or an error."""

    content: Any = None
    error: ToolError | None = None

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.error is None

    def text(self) -> str:
        """What the model reads."""
        if self.error:
            return json.dumps({"error": self.error.to_dict()}, ensure_ascii=False)
        if isinstance(self.content, str):
            return self.content
        return json.dumps(self.content, ensure_ascii=False, sort_keys=True)


@dataclass
class ToolContext:
    """What a tool may touch during one run."""

    run_id: str
    agent: str
    workspace_path: Path | None = None  # created on first use when None
    storage: dict[str, Any] = field(default_factory=dict)
    network: bool = False
    services: dict[str, Any] = field(default_factory=dict)  # world, human, sandbox, mcp pool
    created: list[Path] = field(default_factory=list)

    @property
    def workspace(self) -> Path:
        """The run's private workspace (made lazily: most runs never touch files)."""
        if self.workspace_path is None:
            self.workspace_path = Path(tempfile.mkdtemp(prefix="a4a-run-"))
            self.created.append(self.workspace_path)
        return self.workspace_path

    def cleanup(self) -> None:
        """Remove a workspace this context created."""
        for path in self.created:
            shutil.rmtree(path, ignore_errors=True)
        self.created.clear()


class Tool(Protocol):
    """A callable tool."""

    @property
    def schema(self) -> ToolSchema:
        """What the model sees."""
        ...

    @property
    def writes(self) -> bool:
        """Whether calling it changes the world."""
        ...

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Run the tool; never raises for a bad call."""
        ...


@dataclass(frozen=True)
class FunctionTool:
    """A tool backed by an async or sync function of (args, ctx).

    `requires` is the function's own schema, checked after the one the model sees: a
    config may show a builtin under a looser schema than the builtin needs.
    """

    schema: ToolSchema
    fn: Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutcome] | ToolOutcome]
    writes: bool = False
    requires: dict[str, Any] | None = None

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Validate the arguments against the schemas, then run the function.

        Whatever the function raises becomes a `tool_failed` outcome: a tool never raises.
        """
        problem = check_arguments(args, self.schema.parameters, self.requires)
        if problem:
            return problem
        try:
            out = self.fn(args, ctx)
            return await out if isinstance(out, Awaitable) else out
        except Exception as err:  # the tool boundary: a failure is an observation
            return ToolOutcome(error=ToolError("tool_failed", f"{type(err).__name__}: {err}",
                                               "Try other arguments or another tool."))


def check_arguments(args: Any, *schemas: dict[str, Any] | None) -> ToolOutcome | None:
    """An `invalid_arguments` outcome for the first schema `args` breaks; None when valid."""
    for schema in schemas:
        problem = argument_problem(schema, args) if schema is not None else None
        if problem:
            return ToolOutcome(error=ToolError("invalid_arguments", problem,
                                               "Fix the arguments to match the tool's schema."))
    return None


def argument_problem(schema: dict[str, Any], args: Any) -> str | None:
    """The first way `args` breaks `schema`, in words; None when valid."""
    if not isinstance(args, dict):
        return "arguments must be a JSON object"
    validator = _validator(json.dumps(schema, sort_keys=True))
    error = next(iter(sorted(validator.iter_errors(args), key=lambda e: list(e.path))), None)
    if error is None:
        return None
    where = ".".join(str(p) for p in error.path)
    return f"{where}: {error.message}" if where else error.message


@lru_cache(maxsize=2048)
def _validator(schema_text: str) -> Any:
    import jsonschema  # imported on first tool call, not on `a4a --help`

    return jsonschema.Draft202012Validator(json.loads(schema_text))
