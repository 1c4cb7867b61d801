"""AgentBuilder: agent plans -> AgentSpecs with prompts (jinja2 templates) and tools."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources
from typing import Protocol

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from a4a.generator.plan import AgentPlan, Topology
from a4a.generator.tools import (
    assign_request_builtins,
    builtin_spec,
    kept_ops,
    plan_tools,
    rank_builtins,
)
from a4a.runtime import knowledge
from a4a.runtime.ir.domain import input_schema
from a4a.runtime.ir.spec import AgentSpec, ToolSpec

_ASK_HUMAN = ToolSpec(
    name="ask_human", implementation="builtin:ask_human", writes=False,
    description="Ask a human to approve, reject or amend a proposed action; returns the answer "
    "(rejection when nobody answers in time).",
    input_schema={"type": "object", "additionalProperties": False, "required": ["question"],
                  "properties": {"question": {"type": "string",
                                              "description": "What to approve, in one paragraph"}}},
)
_KIND_TEXT = {
    "sequence": "{t} continues with your output",
    "route": "you choose the next agent: {t} ({c})",
    "parallel": "{t} works on its part in parallel",
    "handoff": "you may hand the conversation to {t}",
    "loop": "back to {t} unless: {c}",
}


class AgentBuilder(Protocol):
    """Fills in prompts, tools and skills for a topology."""

    def build(self, topo: Topology, framework: str, request: str
              ) -> tuple[list[AgentSpec], list[ToolSpec]]:
        """Return the agents and the tools they use."""
        ...


@cache
def _template() -> jinja2.Template:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False,
                               trim_blocks=False, keep_trailing_newline=True)
    text = resources.files("a4a.templates").joinpath("prompts/agent.j2").read_text("utf-8")
    return env.from_string(text)


class RuleAgentBuilder:
    """Deterministic agent builder over the role archetypes and the domain packs."""

    def build(self, topo: Topology, framework: str, request: str
              ) -> tuple[list[AgentSpec], list[ToolSpec]]:
        """Return the agents (in topology order) and the tools they use (first-use order)."""
        ranked = plan_tools(topo.agents, request)
        picks = {n: kept_ops(rows) for n, rows in ranked.items()}
        tools = _tool_specs(picks)
        world_names = {t.name for t in tools.values()}
        extra = {a.name: [builtin_spec(c.tool.split(":")[1] if c.tool.startswith("builtin:")
                                       else "python")
                          for c in rank_builtins(a, request, world_names) if c.kept]
                 for a in topo.agents}
        held = {n: [t.name for t in ts] for n, ts in extra.items()}
        more = assign_request_builtins(topo.agents, request, held, world_names)
        for agent, names in more.items():
            extra[agent] += [builtin_spec(n) for n in names]
        built = [self._agent(a, topo, framework, request, picks[a.name], tools, extra[a.name])
                 for a in topo.agents]
        used = {t.name: t for _, mine in built for t in mine}
        return [a for a, _ in built], list(used.values())

    def _agent(self, plan: AgentPlan, topo: Topology, framework: str, request: str,
               picks: list[tuple[str, str]], tools: dict[tuple[str, str], ToolSpec],
               builtins: list[ToolSpec]) -> tuple[AgentSpec, list[ToolSpec]]:
        arche = knowledge.archetypes()[plan.archetype]
        mine = [tools[p] for p in picks] + builtins
        if plan.archetype == "approver" or plan.asks_human:
            mine.append(_ASK_HUMAN)
        by_name = {a.name: a for a in topo.agents}
        subs = [by_name[e.target] for e in topo.edges
                if e.source == plan.name and e.kind == "delegate"]
        nexts = [_KIND_TEXT[e.kind].format(t=e.target, c=e.condition or "otherwise")
                 for e in topo.edges if e.source == plan.name and e.kind != "delegate"]
        side, topic = _debate(plan, request)
        prompt = _template().render(
            agent={"name": plan.name, "title": arche["title"]}, framework=framework,
            request=html.escape(request, quote=False), focus=plan.focus, archetype=arche,
            duty=_clause(plan.duty), side=side, topic=topic,
            areas=sorted({a.label for a in plan.areas}), tools=mine,
            world_tools=any(t.implementation.startswith("world:") for t in mine),
            sub_agents=[{"name": s.name, "description": _describe(s)} for s in subs],
            next_steps=nexts, receives=_receives(plan.name, topo),
            done_when=_done_when(plan.name, topo),
            audience="the user" if plan.name == topo.entry or not nexts else "the next agent",
        )
        agent = AgentSpec(
            name=plan.name, role=plan.archetype, description=_describe(plan),
            system_prompt=prompt, tools=[t.name for t in mine],
            skills=sorted({pack for pack, _ in picks}), max_iterations=plan.max_iterations,
        )
        return agent, mine


def _describe(plan: AgentPlan) -> str:
    """One grammatical sentence: what the agent does."""
    title = knowledge.archetypes()[plan.archetype]["title"]
    if plan.duty:
        duty = _clause(plan.duty)
        return f"{title} ({plan.name.replace('_', ' ')}) that {duty}." if _verbal(duty) else \
            f"{title} ({plan.name.replace('_', ' ')}): {duty}."
    return f"{title} for {plan.focus}."


def _clause(duty: str) -> str:
    """A duty clause of the request, as escaped data (it never closes the <request> block)."""
    return html.escape(" ".join(duty.split()).rstrip(" .;,:")[:200], quote=False)


def _verbal(duty: str) -> bool:
    first = duty.split(" ", 1)[0] if duty else ""
    return first.endswith("s") and not first.endswith("ss") and len(first) > 3


_RECEIVE = {"sequence": "the output of {s}", "parallel": "one part of the task from {s}",
            "handoff": "the conversation from {s}", "route": "requests {s} sends to you",
            "delegate": "tasks from {s}, who calls you as a tool", "loop": "feedback from {s}"}


def _receives(name: str, topo: Topology) -> list[str]:
    seen: dict[str, None] = {}
    for e in topo.edges:
        if e.target == name and e.source != name:
            seen.setdefault(_RECEIVE[e.kind].format(s=e.source), None)
    return list(seen) or ["the user's task"]


def _done_when(name: str, topo: Topology) -> str:
    for e in topo.edges:
        if e.source == name and e.kind == "loop" and e.condition:
            return e.condition
    if any(e.target == name and e.kind == "delegate" for e in topo.edges):
        return "you have returned your result to the agent that called you"
    return "your part is complete and handed on"


def _debate(plan: AgentPlan, request: str) -> tuple[str, str]:
    """The side a debater argues and the question, from the request's first sentence."""
    if plan.archetype != "debater":
        return "", ""
    first = " ".join(request.split())[:300]
    topic = html.escape(first.split(". ")[0].rstrip(". "), quote=False)
    return (_clause(plan.duty) or plan.focus), f'"{topic}"'



def _tool_specs(picks: dict[str, list[tuple[str, str]]]) -> dict[tuple[str, str], ToolSpec]:
    pairs = list(dict.fromkeys(p for ps in picks.values() for p in ps))
    clash = {op for _, op in pairs if sum(1 for _, o in pairs if o == op) > 1}
    packs = knowledge.domain_packs()
    out: dict[tuple[str, str], ToolSpec] = {}
    for pack, name in pairs:
        op = packs[pack].operation(name)
        if op is None:  # plan_tools only yields existing operations
            continue
        out[(pack, name)] = ToolSpec(
            name=f"{pack}__{name}" if name in clash else name, description=op.description,
            input_schema=input_schema(op), implementation=f"world:{pack}.{name}", writes=op.writes,
        )
    return out


def ask_human_tool() -> ToolSpec:
    """The approval tool approval gates use."""
    return _ASK_HUMAN
