"""Which builder repairs a failed proposal: its issues attributed to one scope.

`agent`: one agent's prompt or tools (an uncallable tool, a gold call its tools cannot
serve): the AgentBuilder rewrites that agent alone. `framework`: a missing edge (an agent no
run enters, a gold plan needing an agent no edge reaches): the FrameworkBuilder lays out the
topology again, and the agents follow it. `meta`: the wrong pattern (tasks needing a shape
the pattern cannot express, verification failures across several agents): the MetaAgent
chooses again, and every later stage follows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from a4a.runtime.graph.issues import Issue, errors

Scope = Literal["meta", "framework", "agent"]
_ORDER: tuple[Scope, ...] = ("meta", "framework", "agent")
STAGES: dict[Scope, tuple[str, ...]] = {"meta": ("meta", "framework", "agents"),
                                        "framework": ("framework", "agents"),
                                        "agent": ("agents",)}

# Codes whose scope is not the stage their path points at.
_BY_CODE: dict[str, Scope] = {
    "agent.unreachable": "framework", "verify.agent_unreached": "framework",
    "verify.gold_unreachable": "framework", "verify.no_tasks": "meta",
    "verify.gold_shape": "meta"}
_BY_HEAD: dict[str, Scope] = {"patterns": "meta", "pattern": "meta", "meta": "meta",
                              "edges": "framework", "entry": "framework",
                              "framework": "framework"}
_AGENT = re.compile(r"agents\[(\d+)\]")


@dataclass(frozen=True)
class Attribution:
    """Where a repair round starts, for which agent (scope `agent` only), and why."""

    scope: Scope
    agent: str | None
    issues: tuple[Issue, ...]

    @property
    def stages(self) -> tuple[str, ...]:
        """The builder stages the repair round runs, in order."""
        return STAGES[self.scope]

    @property
    def codes(self) -> list[str]:
        """The issue codes."""
        return [i.code for i in self.issues]

    def to_dict(self) -> dict[str, Any]:
        """As `--json` reports a repair round."""
        return {"scope": self.scope, "agent": self.agent,
                "issues": [{k: v for k, v in i.to_dict().items() if k != "severity"}
                           for i in self.issues]}


def attribute(issues: list[Issue], agents: list[str]) -> Attribution:
    """The scope of a proposal's error issues; `agents` are its agent names, in order.

    The earliest scope any issue has wins (a new pattern means a new topology and new
    agents). Agent issues of one agent repair that agent alone; verification failures of
    several agents point at the pattern; other issues of several agents (or of no agent,
    such as a tool schema) go to the AgentBuilder for every agent.
    """
    found = errors(issues)
    scoped = [(_scope(i), _agent(i, agents)) for i in found]
    scope: Scope = min((s for s, _ in scoped), key=_ORDER.index) if scoped else "agent"
    if scope != "agent":
        return Attribution(scope, None, tuple(found))
    named = {a for _, a in scoped}
    if len(named) == 1 and None not in named:
        return Attribution("agent", named.pop(), tuple(found))
    verified = {a for (_, a), i in zip(scoped, found, strict=True)
                if a is not None and i.code.startswith("verify.")}
    return Attribution("meta" if len(verified) > 1 else "agent", None, tuple(found))


def _scope(issue: Issue) -> Scope:
    head = issue.path.split("[")[0].split(".")[0]
    return _BY_CODE.get(issue.code) or _BY_HEAD.get(head, "agent")


def _agent(issue: Issue, agents: list[str]) -> str | None:
    m = _AGENT.match(issue.path)
    index = int(m.group(1)) if m else -1
    return agents[index] if 0 <= index < len(agents) else None


def focus(state: dict[str, Any], agent: str | None) -> tuple[list[Any], list[Any]]:
    """The agents and tools the AgentBuilder rewrites: all, or one agent and its tools."""
    if agent is None:
        return state["agents"], state["tools"]
    chosen = [a for a in state["agents"] if a.name == agent]
    names = {n for a in chosen for n in a.tool_names()}
    return chosen, [t for t in state["tools"] if t.name in names]


def merge(state: dict[str, Any], agent: str, agents: list[Any], tools: list[Any]
           ) -> list[Issue]:
    """Put the repaired `agent` (and the tools it declares) into `state`."""
    new = next((a for a in agents if a.name == agent), None)
    if new is None:
        return [Issue("llm.agent_missing", "agents", f"the repair of agent {agent!r} does not "
                      "contain it", f"Answer with the agent {agent!r} and the tools it uses.")]
    state["agents"] = [new if a.name == agent else a for a in state["agents"]]
    given = {t.name: t for t in tools}
    kept = [given.pop(t.name, t) for t in state["tools"]]
    state["tools"] = kept + list(given.values())
    return []
