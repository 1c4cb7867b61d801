"""The oracle policy: replays a task's gold plan through the real runtime, no model at all.

Each agent asks the oracle for its next move. The oracle makes the next gold call when the
agent owns it; otherwise it moves control toward the owner along the framework's edges
(delegating to a child, routing, handing off, or finishing so a sequence carries on), and
when nothing is left it answers with the task's answer facts. The result is a demonstration
trajectory in which the right agents make the right calls.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.engine.control import FINISH, in_cycle
from a4a.runtime.ir.spec import EdgeSpec, FrameworkSpec
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall, Usage


@dataclass
class OracleLLM:
    """A policy that follows the gold plan of one task."""

    spec: FrameworkSpec
    plan: list[dict[str, Any]]
    answer: list[str]
    name: str = "oracle"
    cursor: int = 0
    _calls: int = field(default=0, init=False)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """The agent's next move."""
        agent = request.agent
        offered = {t.name for t in request.tools}
        if self.cursor < len(self.plan):
            step = self.plan[self.cursor]
            if step["agent"] == agent:
                self.cursor += 1
                return self._call(step["tool"], step["args"])
            move = self._toward(agent, step["agent"], offered)
            if move is not None:
                return move
        return self._finish(agent, offered)

    def _call(self, name: str, args: dict[str, Any], text: str = "") -> LLMResponse:
        self._calls += 1
        call = ToolCall(f"oracle_{self._calls}", name, dict(args))
        return LLMResponse(Message("assistant", text, (call,)), Usage(), "tool_calls", self.name)

    def _say(self, text: str) -> LLMResponse:
        return LLMResponse(Message("assistant", text), Usage(), "stop", self.name)

    def _facts(self) -> str:
        return "Done. " + "; ".join(self.answer) if self.answer else "Done."

    def _toward(self, agent: str, owner: str, offered: set[str]) -> LLMResponse | None:
        edge = first_hop(self.spec, agent, owner)
        if edge is None:
            return None
        step = self.plan[self.cursor]
        if edge.kind == "delegate" and edge.target in offered:
            return self._call(edge.target, {"message": f"Please {step['op'].replace('_', ' ')}"
                                                       f" with {step['args']}."})
        if edge.kind == "route" and "route_to" in offered:
            return self._call("route_to", {"target": edge.target})
        if edge.kind == "handoff" and "handoff_to" in offered:
            return self._call("handoff_to", {"target": edge.target})
        if edge.kind == "parallel" and edge.max_iterations and "map_items" in offered:
            return self._call("map_items", {"items": ["all pending work"]})
        return self._say("Passing this on.")  # sequence, parallel, loop: control moves on

    def _finish(self, agent: str, offered: set[str]) -> LLMResponse:
        if "exit_loop" in offered:
            return self._call("exit_loop", {"reason": "done"}, self._facts())
        if "route_to" in offered and in_cycle(self.spec, agent):
            return self._call("route_to", {"target": FINISH}, self._facts())
        return self._say(self._facts())


def first_hop(spec: FrameworkSpec, source: str, target: str) -> EdgeSpec | None:
    """The first edge of a shortest path from `source` to `target` (None if unreachable)."""
    queue: deque[tuple[str, EdgeSpec | None]] = deque([(source, None)])
    seen = {source}
    while queue:
        name, first = queue.popleft()
        if name == target:
            return first
        for e in spec.edges:
            if e.source == name and e.target not in seen:
                seen.add(e.target)
                queue.append((e.target, first or e))
    return None
