"""Model fakes that ship with a4a: scripted, function-backed and schema-filling.

Tests and offline runs use them instead of real models. A ScriptedLLM fails loudly when its
script runs out and can assert that every step was consumed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall, ToolSchema, Usage
from a4a.runtime.loader.yamlio import load_yaml_file


@dataclass(frozen=True)
class Step:
    """One scripted reply: text and/or tool calls, or an infrastructure failure to raise."""

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    fail: str | None = None  # an LLMError code to raise instead (e.g. "llm.http_429")


def _step(data: dict[str, Any], where: str) -> Step:
    if not isinstance(data, dict):
        raise UserError("script.invalid", f"{where}: a step must be a mapping",
                        "Write steps as {content: ..., tool_calls: [...]} mappings.")
    calls = tuple(
        ToolCall(id=str(c.get("id") or f"call_{i}"), name=str(c["name"]),
                 arguments=dict(c.get("arguments") or {}))
        for i, c in enumerate(data.get("tool_calls") or [])
    )
    return Step(str(data.get("content") or ""), calls, data.get("fail"))


def load_script(path: Path) -> dict[str, list[Step]]:
    """Read a script file: `{agent_name: [steps...]}` or a plain list (any agent)."""
    data = load_yaml_file(path)
    if isinstance(data, list):
        data = {"*": data}
    if not isinstance(data, dict):
        raise UserError("script.invalid", f"{path}: expected a mapping of agent to steps",
                        "See `a4a run --help` for the script format.")
    return {str(agent): [_step(s, f"{path}:{agent}[{i}]") for i, s in enumerate(steps or [])]
            for agent, steps in data.items()}


class ScriptedLLM:
    """Replays scripted steps per agent (key `*` serves any agent), in order."""

    name = "scripted"

    def __init__(self, script: dict[str, list[Step]] | list[Step]) -> None:
        self._script = {"*": list(script)} if isinstance(script, list) else {
            k: list(v) for k, v in script.items()}
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Return the agent's next step; raises LLMError when the script is exhausted."""
        self.requests.append(request)
        queue = self._script.get(request.agent) or self._script.get("*") or []
        if not queue:
            raise LLMError("script.exhausted", f"the script has no step left for agent "
                           f"{request.agent!r}", "Add steps to the script.", retryable=False)
        step = queue.pop(0)
        if step.fail:
            raise LLMError(step.fail, f"scripted failure {step.fail}", "", retryable=True)
        message = Message("assistant", step.content, step.tool_calls)
        return LLMResponse(message, Usage(_tokens(request), len(step.content.split())),
                           "tool_calls" if step.tool_calls else "stop", self.name)

    def assert_consumed(self) -> None:
        """Raise AssertionError-like UserError when steps remain unused."""
        left = {k: len(v) for k, v in self._script.items() if v}
        if left:
            raise UserError("script.unconsumed", f"unused scripted steps: {left}",
                            "Remove the extra steps or fix the run.")


Responder = Callable[[LLMRequest], Awaitable[LLMResponse] | LLMResponse]


class FunctionLLM:
    """Answers with a Python function of the request (sync or async)."""

    name = "function"

    def __init__(self, fn: Responder) -> None:
        self._fn = fn
        self.calls = 0

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Delegate to the function."""
        self.calls += 1
        out = self._fn(request)
        return await out if isinstance(out, Awaitable) else out


class SchemaLLM:
    """Calls every offered tool once, all in one turn, then answers.

    Arguments are filled from each tool's schema. Like a test model that exercises every
    tool: useful to smoke-test tool plumbing. With `explore`, an enum argument takes its
    first member that names no agent this model has served yet (across runs), so routes and
    handoffs lead somewhere new on each run; repeated runs then enter every agent control
    can reach. Tools named in `withhold` are never called (`exit_loop`, say, so that loops go
    around to their cap).
    """

    name = "schema"

    def __init__(self, explore: bool = False, withhold: Set[str] = frozenset()) -> None:
        self.explore = explore
        self.withhold = withhold
        self.served: set[str] = set()  # agents that asked this model, in any run

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """One turn calling each uncalled tool (in parallel), or a final answer."""
        self.served.add(request.agent)
        avoid = self.served if self.explore else frozenset()
        called = {c.name for m in request.messages for c in m.tool_calls} | self.withhold
        calls = tuple(ToolCall(f"call_{i}", tool.name, fill(tool, avoid))
                      for i, tool in enumerate(t for t in request.tools if t.name not in called))
        if calls:
            return LLMResponse(Message("assistant", "", calls), Usage(), "tool_calls", self.name)
        called -= self.withhold
        text = "done: " + ", ".join(sorted(called)) if called else "done"
        return LLMResponse(Message("assistant", text), Usage(), "stop", self.name)


_DEFAULTS: dict[str, Any] = {"integer": 1, "number": 1.0, "boolean": True, "string": "x"}


def fill(tool: ToolSchema, avoid: Set[str] = frozenset()) -> dict[str, Any]:
    """Arguments that satisfy a tool's schema: required properties with typed defaults.

    An enum takes its first member not in `avoid` (its first member when all are).
    """
    value = _value(tool.parameters, 0, avoid)
    return value if isinstance(value, dict) else {}


def _value(schema: dict[str, Any], depth: int, avoid: Set[str] = frozenset()) -> Any:
    """A value of `schema`: an enum's member, a typed default, a filled object."""
    if schema.get("enum"):
        members = schema["enum"]
        return next((m for m in members if m not in avoid), members[0])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "array":
        items = schema.get("items")
        need = int(schema.get("minItems") or 0)
        one = [_value(items, depth + 1, avoid)] if isinstance(items, dict) and depth < 4 else []
        return one * max(need, 1) if one and need else one[:need]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: _value(props.get(name) or {}, depth + 1, avoid)
                for name in schema.get("required") or [] if depth < 4}
    return _DEFAULTS.get(str(kind), "x")


def _tokens(request: LLMRequest) -> int:
    return sum(len(m.content.split()) + len(json.dumps([c.arguments for c in m.tool_calls]))
               for m in request.messages)
