"""A fault-injecting model fake: every way a model or its server misbehaves, seeded.

Per request it draws one behaviour: a good tool call, a final answer, malformed JSON
arguments, an unknown tool, schema-invalid arguments, an empty reply, a tool call that never
ends the loop, or an infrastructure failure (HTTP 429, HTTP 500, timeout) raised as a
retryable LLMError. It counts every request it receives, like a server would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from a4a.runtime.errors import LLMError
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall, Usage
from a4a.runtime.llm.fakes import fill

BEHAVIOURS = ("good_call", "answer", "bad_json", "unknown_tool", "bad_args", "empty",
              "loop_call", "http_429", "http_500", "timeout")
_INFRA = {"http_429": "llm.rate_limited", "http_500": "llm.server_error",
          "timeout": "llm.timeout"}


@dataclass
class FaultLLM:
    """Draws a behaviour per request from `weights` (uniform by default)."""

    seed: int = 0
    weights: dict[str, float] = field(default_factory=lambda: dict.fromkeys(BEHAVIOURS, 1.0))
    name: str = "faults"
    requests: int = 0
    drawn: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """One misbehaving (or well-behaved) reply."""
        self.requests += 1
        kinds = list(self.weights)
        kind = self._rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        self.drawn[kind] = self.drawn.get(kind, 0) + 1
        if kind in _INFRA:
            raise LLMError(_INFRA[kind], f"injected {kind}", "", retryable=True)
        return LLMResponse(self._message(kind, request), Usage(10, 5), "stop", self.name)

    def _message(self, kind: str, request: LLMRequest) -> Message:
        cid = f"call_{self.requests}"
        tools = [t for t in request.tools if t.name not in ("exit_loop",)] or list(request.tools)
        tool = self._rng.choice(tools) if tools else None
        if kind == "answer" or tool is None:
            return Message("assistant", "final answer" if kind != "empty" else "")
        if kind == "empty":
            return Message("assistant", "")
        if kind == "bad_json":
            return Message("assistant", "", (ToolCall(cid, tool.name, {}, raw="{not json"),))
        if kind == "unknown_tool":
            return Message("assistant", "", (ToolCall(cid, "no_such_tool", {}),))
        if kind == "bad_args":
            return Message("assistant", "", (ToolCall(cid, tool.name, {"bogus": [1, 2]}),))
        return Message("assistant", "", (ToolCall(cid, tool.name, fill(tool)),))
