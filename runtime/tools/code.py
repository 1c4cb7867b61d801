"""The `sandbox:python` tool: model-written code runs only in the sandbox.

The sandbox comes from the run's services (a fake in tests), else `get_sandbox`, which
fails closed: without bubblewrap the call is refused unless the run allowed unsafe
execution explicitly.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from a4a.runtime.errors import A4AError
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.tools.base import ToolContext, ToolError, ToolOutcome, check_arguments

PYTHON_SCHEMA = {"type": "object", "required": ["code"], "additionalProperties": False,
                 "properties": {"code": {"type": "string",
                                         "description": "Python 3 source; print the results"}}}


@dataclass(frozen=True)
class SandboxTool:
    """Runs Python code in the sandbox and returns its exit code and output."""

    schema: ToolSchema
    writes: bool = True

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Run the code; sandbox failures become structured errors, never exceptions."""
        problem = check_arguments(args, self.schema.parameters, PYTHON_SCHEMA)
        if problem:
            return problem
        from a4a.runtime.sandbox import SandboxLimits, get_sandbox

        try:
            sandbox = ctx.services.get("sandbox") or get_sandbox(
                allow_unsafe=bool(ctx.services.get("allow_unsafe")))
            result = await asyncio.to_thread(sandbox.run_python, str(args["code"]),
                                             workspace=ctx.workspace, limits=SandboxLimits())
        except A4AError as err:
            return ToolOutcome(error=ToolError(err.code, err.message, err.hint))
        except OSError as err:  # the host could not set the run up (no memory, no fds)
            return ToolOutcome(error=ToolError("sandbox.failed", f"the sandbox could not run "
                                               f"the code: {err}", "Try again later."))
        return ToolOutcome({"exit_code": result.exit_code, "stdout": result.stdout,
                            "stderr": result.stderr, "timed_out": result.timed_out,
                            "limit_hit": result.limit_hit, "truncated": result.truncated})
