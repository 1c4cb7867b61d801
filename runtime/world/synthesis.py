"""Task synthesis for a framework: verifiable tasks its agents can solve, deterministically.

Templates are drawn from the domain packs of the framework's environment whose operations
the framework's tools cover; problem types are sampled with inverse-frequency weights
(1 / (count + 1) ** 1.5 per problem-type path) so rare types are not starved. Each gold
call is attributed to the agent that should make it: the first agent, in breadth-first order
from the entry, that holds the tool. When those templates give fewer than `n` tasks, the
derived families of runtime.world.derived fill up: lookups over the held read operations,
then arithmetic questions (with the calculator when an agent holds it; up to FLOOR tasks
when the framework has world tasks, up to `n` when it has none).
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from dataclasses import asdict, dataclass
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack, ProblemType, TaskTemplate
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.world import derived
from a4a.runtime.world.tasks import TemplateError, instantiate, task_id


@dataclass(frozen=True)
class Task:
    """A verifiable task: query, gold plan with agents, and its checker."""

    id: str
    pack: str
    template: str
    difficulty: str
    problem_type: list[str]
    problem_type_labels: dict[str, list[str]]
    persona: dict[str, str]
    query: str
    world_seed: int
    plan: list[dict[str, Any]]
    checker: dict[str, Any]

    def to_json(self) -> str:
        """One JSONL line, sorted keys."""
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))


def tool_names(spec: FrameworkSpec) -> dict[tuple[str, str], str]:
    """(pack, operation) -> the framework's tool name for it."""
    out = {}
    for t in spec.tools:
        if t.implementation.startswith("world:"):
            pack, _, op = t.implementation[6:].partition(".")
            out[(pack, op)] = t.name
    return out


def owners(spec: FrameworkSpec) -> dict[str, str]:
    """Tool name -> the agent that should call it (first holder in BFS order from the entry)."""
    order, seen, queue = [], {spec.entry}, deque([spec.entry])
    while queue:
        name = queue.popleft()
        order.append(name)
        for e in spec.edges:
            if e.source == name and e.target not in seen:
                seen.add(e.target)
                queue.append(e.target)
    out: dict[str, str] = {}
    for name in order:
        agent = spec.agent(name)
        for tool in agent.tool_names() if agent else []:
            out.setdefault(tool, name)
    return out


class Topology:
    """Who can reach whom: control and delegation edges, and where delegated work returns."""

    def __init__(self, spec: FrameworkSpec) -> None:
        self.spec = spec
        self.holders = owners(spec)
        self.parents = {e.target: e.source for e in spec.edges if e.kind == "delegate"}
        self._reach: dict[str, set[str]] = {}

    def reach(self, name: str) -> set[str]:
        """Agents reachable from `name` along any edges (itself included)."""
        if name not in self._reach:
            seen, queue = {name}, deque([name])
            while queue:
                cur = queue.popleft()
                for e in self.spec.edges:
                    if e.source == cur and e.target not in seen:
                        seen.add(e.target)
                        queue.append(e.target)
            self._reach[name] = seen
        return self._reach[name]

    def can_follow(self, a: str, b: str) -> bool:
        """Whether work can move from agent `a` to agent `b`.

        Directly, or after `a`'s work returns to the agents that delegated to it.
        """
        cur: str | None = a
        while cur is not None:
            if b in self.reach(cur):
                return True
            cur = self.parents.get(cur)
        return False

    def assign(self, tools: list[str]) -> list[str] | None:
        """An agent for each call in order, or None when the topology cannot carry the plan.

        The current agent keeps a call when it holds the tool.
        """
        out: list[str] = []
        for tool in tools:
            prev = out[-1] if out else self.spec.entry
            agent = self.spec.agent(prev)
            if out and agent is not None and tool in agent.tool_names():
                out.append(prev)
                continue
            first = self.holders.get(tool)
            options = [a.name for a in self.spec.agents if tool in a.tool_names()]
            ordered = ([first] if first else []) + [o for o in options if o != first]
            nxt = next((o for o in ordered if self.can_follow(prev, o)), None)
            if nxt is None:
                return None
            out.append(nxt)
        return out


def _labels(tree: list[ProblemType], path: list[str]) -> dict[str, list[str]]:
    if path[0] in derived.LABELS:
        return derived.labels(path[0])
    en, zh, nodes = [], [], tree
    for key in path:
        node = next(n for n in nodes if n.id == key)
        en.append(node.en)
        zh.append(node.zh)
        nodes = node.children
    return {"en": en, "zh": zh}


def candidates(spec: FrameworkSpec) -> list[tuple[DomainPack, TaskTemplate]]:
    """Templates of the environment's packs whose every operation the framework can call."""
    packs = knowledge.domain_packs()
    tools = tool_names(spec)
    held = owners(spec)
    domains = spec.environment.domains if spec.environment else []
    return [(packs[d], t) for d in domains if d in packs for t in packs[d].tasks
            if all((d, s.op) in tools and tools[(d, s.op)] in held for s in t.plan)]


def derived_candidates(spec: FrameworkSpec) -> list[tuple[DomainPack, TaskTemplate]]:
    """Lookup templates over the read operations the framework's reachable agents hold."""
    packs = knowledge.domain_packs()
    tools, held = tool_names(spec), owners(spec)
    domains = spec.environment.domains if spec.environment else []
    return [(packs[d], t) for d in domains if d in packs
            for t in derived.lookups(packs[d], {op for (p, op), name in tools.items()
                                                if p == d and name in held})]


FLOOR = 3  # tasks every framework gets when `n` asks for at least as many

_VOICES = ("I'm {p}. {q}", "{q} (I'm {p}.)", "Context: I'm {p}. {q}", "{q}")


def _in_voice(persona: str, query: str, rng: random.Random) -> str:
    """The query as this persona would send it."""
    if not persona:
        return query
    return rng.choice(_VOICES).format(p=persona, q=query)


def synthesize(spec: FrameworkSpec, n: int, seed: int = 0) -> list[Task]:
    """Up to `n` distinct tasks: the packs' templates first, then the derived families."""
    out = _from_templates(spec, candidates(spec), n, seed)
    if len(out) < n:
        out += _from_templates(spec, derived_candidates(spec), n - len(out), seed, "lookups:")
    # off-topic for a framework with world tasks: there they only make up the floor
    want = min(n, FLOOR) if out else n
    if len(out) < want:
        out += _arithmetic(spec, want - len(out), seed)
    return out


def _from_templates(spec: FrameworkSpec, pool: list[tuple[DomainPack, TaskTemplate]], n: int,
                    seed: int, family: str = "") -> list[Task]:
    """Up to `n` distinct tasks drawn from `pool` (fewer when it covers few templates)."""
    if not pool:
        return []
    rng = random.Random(f"{family}tasks:{seed}")
    counts: Counter[tuple[str, ...]] = Counter()
    tools, topo = tool_names(spec), Topology(spec)
    world_seed = spec.environment.seed if spec.environment else 0
    out: list[Task] = []
    seen: set[str] = set()
    for draw in range(n * 20):
        if len(out) >= n:
            break
        weights = [1 / (counts[(p.id, *t.problem_type)] + 1) ** 1.5 for p, t in pool]
        pack, template = rng.choices(pool, weights)[0]
        try:
            inst = instantiate(template, pack, world_seed,
                               random.Random(f"{family}{seed}:{draw}"))
        except TemplateError:
            continue
        key = json.dumps([template.id, inst.query, [c.args for c in inst.calls]], sort_keys=True)
        agents = topo.assign([tools[(pack.id, c.op)] for c in inst.calls])
        if key in seen or agents is None:
            continue
        seen.add(key)
        counts[(pack.id, *template.problem_type)] += 1
        persona = (rng.choice(pack.personas).model_dump() if pack.personas
                   else {"en": "", "zh": ""})
        plan = [{"op": c.op, "tool": tools[(pack.id, c.op)], "agent": agent, "args": c.args,
                 "expect_error": c.expect_error} for c, agent in zip(inst.calls, agents,
                                                                     strict=True)]
        out.append(Task(
            id=task_id(pack.id, template.id, world_seed, draw), pack=pack.id,
            template=template.id, difficulty=template.difficulty,
            problem_type=list(template.problem_type),
            problem_type_labels=_labels(pack.problem_types, template.problem_type),
            persona=persona, query=_in_voice(persona["en"], inst.query, rng),
            world_seed=world_seed, plan=plan,
            checker={"expected_diff": inst.expected_diff, "answer": list(inst.answer)}))
    return out


def _arithmetic(spec: FrameworkSpec, n: int, seed: int) -> list[Task]:
    """Up to `n` arithmetic tasks; the calculator's holder computes when there is one."""
    held = owners(spec)
    calc = next((t.name for t in spec.tools
                 if t.implementation == "builtin:calculator" and t.name in held), None)
    agents = Topology(spec).assign([calc]) if calc else None
    world_seed = spec.environment.seed if spec.environment else 0
    rng = random.Random(f"arithmetic:{seed}")
    return [Task(
        id=task_id("builtin", "arithmetic", world_seed, draw), pack="builtin",
        template="arithmetic", difficulty="easy", problem_type=["arithmetic"],
        problem_type_labels=derived.labels("arithmetic"), persona={"en": "", "zh": ""},
        query=query, world_seed=world_seed,
        plan=derived.calculator_plan(calc, expr, agents[0]) if calc and agents else [],
        checker={"expected_diff": [], "answer": [value]})
        for draw, (query, expr, value) in enumerate(derived.arithmetic(rng, n))]
