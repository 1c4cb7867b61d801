"""FrameworkBuilder: intent + pattern choice -> topology (shape, then modifiers)."""

from __future__ import annotations

from dataclasses import replace
from itertools import zip_longest
from typing import Protocol

from a4a.generator.intent import IntentSpec
from a4a.generator.meta import PatternChoice
from a4a.generator.plan import AgentPlan, Area, Topology, archetype_of, sends_back
from a4a.generator.relevance import bm25
from a4a.generator.shape_input import ShapeInput, _e
from a4a.generator.shapes import SHAPES
from a4a.generator.tools import gloss, kept_ops, main_language, plan_tools
from a4a.runtime import knowledge
from a4a.runtime.ir.spec import PatternNode


class FrameworkBuilder(Protocol):
    """Builds the topology for an intent and a pattern choice."""

    def build(self, intent: IntentSpec, choice: PatternChoice) -> Topology:
        """Return agents, edges and the pattern tree."""
        ...


def areas_for(intent: IntentSpec) -> tuple[Area, ...]:
    """One area per resource with operations: named areas first, domains interleaved."""
    packs = knowledge.domain_packs()
    wanted = {c.split(".", 1)[1] for c in intent.capabilities}
    per_domain: list[list[Area]] = []
    for pid in intent.domains:
        if pid == "generic":  # out of domain: no to-do operations dressed up as domain tools
            continue
        pack = packs[pid]
        rows = []
        for ri, res in enumerate(pack.resources):
            ops = tuple(op.name for op in pack.operations if op.resource == res.name)
            if ops:
                rows.append((-sum(1 for o in ops if o in wanted), ri, Area(pid, res.name, ops)))
        per_domain.append([r[2] for r in sorted(rows, key=lambda r: (r[0], r[1]))])
    # Round-robin across domains so a team of a few covers every domain the request names.
    return tuple(a for rank in zip_longest(*per_domain) for a in rank if a is not None)


RESERVED = frozenset("orchestrator router splitter aggregator dispatcher judge reviewer "
                     "review_chair supervisor selector mapper reducer planner executor replanner "
                     "proposer approval_gate front_desk generalist producer assistant item_worker "
                     "researcher writer chief_coordinator".split())


# An unowned area the request names at least this share as strongly as its best is adopted.
ADOPT_SHARE = 0.5
_HANDS_ON = ("specialist", "executor", "researcher", "analyst", "classifier")


def _area_docs(areas: tuple[Area, ...]) -> list[str]:
    packs = knowledge.domain_packs()
    docs = []
    for a in areas:
        ops = [packs[a.domain].operation(o) for o in a.ops]
        docs.append(" ".join([a.resource, *(f"{o.name} {o.description} {' '.join(o.keywords)}"
                                            for o in ops if o is not None)]))
    return docs


def named_for(intent: IntentSpec, areas: tuple[Area, ...]) -> tuple[AgentPlan, ...]:
    """Agent plans for the roles the request names, each with its duty and relevant areas."""
    found = intent.analysis.roles if intent.analysis else ()
    if len(found) < 2:
        found = ()
    rows = [(r.name, r.title, r.duty) for r in found] or [
        (s, s.replace("_", " "), "") for s in intent.named_agents]
    docs = _area_docs(areas)
    lang = main_language(intent.text) if intent.text else "en"
    out: list[AgentPlan] = []
    for slug, title, duty in rows:
        name = f"{slug}_agent" if slug in RESERVED else slug
        if any(p.name == name for p in out):  # "Researcher", later "Researcher Agent": one role
            continue
        scores = bm25(f"{title} {duty} {gloss(f'{title} {duty}', lang)}", docs)
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
        mine = tuple(areas[i] for i in ranked[:2])
        arche = archetype_of(slug)
        if not mine and arche in _HANDS_ON:
            mine = areas[:1]
        focus = duty.rstrip(" .") or title
        out.append(AgentPlan(name, arche, focus, mine, duty=duty))
    return _adopt_unowned(intent, areas, tuple(out), lang)


def _adopt_unowned(intent: IntentSpec, areas: tuple[Area, ...], plans: tuple[AgentPlan, ...],
                   lang: str) -> tuple[AgentPlan, ...]:
    """Plans where every area the request wants has an owner among the hands-on agents.

    An area of a chosen pack that holds an operation the request asks for (or that the
    request names nearly as strongly as its best area), but that no named
    role's duty matched, goes to the hands-on agent whose work comes closest to it (the one
    with the fewest areas on a tie), so no capability the request needs goes unserved.
    """
    wanted = {c.split(".", 1)[1] for c in intent.capabilities}
    arche = knowledge.archetypes()
    # An area held only by roles that take no tools (a coordinator) is served by nobody.
    held = {(a.domain, a.resource) for p in plans if arche[p.archetype]["tools"] != "none"
            for a in p.areas}
    hands = [i for i, p in enumerate(plans) if p.archetype in _HANDS_ON]
    asked = bm25(f"{intent.text} {gloss(intent.text, lang)}", _area_docs(areas))
    top = max(asked, default=0.0)
    out = list(plans)
    for k, area in enumerate(areas):
        needed = wanted & set(area.ops) or (top > 0 and asked[k] >= ADOPT_SHARE * top)
        if (area.domain, area.resource) in held or not needed or not hands:
            continue
        doc = _area_docs((area,))
        fit = {i: bm25(f"{out[i].focus} {out[i].name.replace('_', ' ')}", doc)[0] for i in hands}
        best = min(hands, key=lambda i: (-fit[i], len(out[i].areas), i))
        out[best] = replace(out[best], areas=(*out[best].areas, area))
    return tuple(out)


def roles_for(intent: IntentSpec, areas: tuple[Area, ...]) -> tuple[AgentPlan, ...]:
    """Agent plans for the agents the request names, else the domain roles it mentions."""
    if intent.named_agents:
        return named_for(intent, areas)
    packs = knowledge.domain_packs()
    out = []
    for ref in intent.roles:
        pid, name = ref.split(".", 1)
        role = next(r for r in packs[pid].roles if r.name == name)
        cue = set(role.keywords)
        mine = tuple(a for a in areas if a.domain == pid and any(
            cue & set(op.keywords) for op in packs[pid].operations if op.name in a.ops))
        first = next((a for a in areas if a.domain == pid), None)
        fallback = (first,) if first else ()
        out.append(AgentPlan(role.name, role.archetype, role.description.rstrip("."),
                             mine[:2] or fallback))
    return tuple(out)


class RuleFrameworkBuilder:
    """Instantiates the chosen pattern's shape, then nests the modifiers into it."""

    def build(self, intent: IntentSpec, choice: PatternChoice) -> Topology:
        """Return the topology for `choice`."""
        areas = areas_for(intent)
        wanted = {c.split(".", 1)[1] for c in intent.capabilities}
        hits = sum(1 for a in areas if wanted & set(a.ops))
        topo = SHAPES[choice.top](ShapeInput(intent, areas, roles_for(intent, areas), hits))
        mods = [m for m in choice.modifiers if m != choice.top]
        if choice.top in ("evaluator_optimizer", "reflection"):
            mods.insert(0, choice.top)  # their shape is the base; the modifier adds the loop
        for mod in mods:
            _MODIFIERS[mod](topo, intent)
        seen: set[tuple[str, str, str]] = set()  # a modifier may repeat an edge of the shape
        topo.edges = [e for e in topo.edges if (k := (e.source, e.target, e.kind)) not in seen
                      and not seen.add(k)]  # type: ignore[func-returns-value]
        return topo


def _ends(topo: Topology) -> list[str]:
    """Agents where control ends (not delegate children), in agent order."""
    children = {e.target for e in topo.edges if e.kind == "delegate"}
    forward = {e.source for e in topo.edges if e.kind not in ("delegate", "loop")}
    return [a.name for a in topo.agents if a.name not in children | forward]


def _add_child(topo: Topology, pattern: str, agents: list[AgentPlan]) -> None:
    """Record a modifier in the pattern tree (merged into the root when it is the root)."""
    topo.agents.extend(agents)
    names = [a.name for a in agents]
    if pattern == topo.tree.pattern:
        topo.tree = topo.tree.model_copy(update={"agents": [*topo.tree.agents, *names]})
        return
    node = PatternNode(pattern=pattern, agents=names)
    topo.tree = topo.tree.model_copy(update={"children": [*topo.tree.children, node]})


def add_review_loop(topo: Topology, intent: IntentSpec) -> None:
    """Evaluator-optimizer: the final producer's output is reviewed until approved."""
    named = [a for a in topo.agents
             if a.duty and (a.archetype == "reviewer" or sends_back(a.duty))]
    if named and len(topo.agents) >= 2:
        judge = named[-1].name
        before = [e.source for e in topo.edges if e.target == judge and e.kind == "sequence"]
        back = before[0] if before else topo.entry
        loops = any(e.source == judge and e.kind == "loop" for e in topo.edges)
        if back != judge and not loops:
            topo.edges.append(_e(judge, back, "loop", max_iterations=3,
                                 condition=f"{judge} approves the result"))
        if back != judge:  # the named reviewer sends work back already: no second reviewer
            _add_child(topo, "evaluator_optimizer", [])
            return
    ends = _ends(topo) or [topo.entry]
    n = next((v for k, v in intent.counts.items() if k.startswith(("reviewer", "critic"))), 1)
    n = max(1, min(5, n)) if len(ends) == 1 else 1
    target = ends[0] if len(ends) == 1 else topo.entry
    if n == 1:
        rev = [AgentPlan("reviewer", "reviewer", "checking the result against the rubric", (), 4)]
        topo.edges += [_e(t, "reviewer", "sequence") for t in ends]
        chair = "reviewer"
    else:
        rev = [AgentPlan(f"reviewer_{i + 1}", "reviewer", "an independent review", (), 4)
               for i in range(n)]
        rev.append(AgentPlan("review_chair", "judge", "merging the reviews into one verdict",
                             (), 3))
        chair = "review_chair"
        src = ends[0]
        topo.edges += [_e(src, r.name, "parallel", join=chair) for r in rev[:-1]]
        topo.edges += [_e(r.name, chair, "sequence") for r in rev[:-1]]
    topo.edges.append(_e(chair, target, "loop", max_iterations=3,
                         condition="the reviewers approve the result"))
    _add_child(topo, "evaluator_optimizer", rev)


def add_reflection(topo: Topology, intent: IntentSpec) -> None:
    """Reflection: each final agent critiques and revises its own output (capped)."""
    for name in _ends(topo) or [topo.entry]:
        topo.edges.append(_e(name, name, "loop", max_iterations=2,
                             condition="the answer is complete and correct"))
    _add_child(topo, "reflection", [])


def add_gate(topo: Topology, intent: IntentSpec) -> None:
    """Human gate: agents with side-effect tools ask a human before acting.

    An approver the request names is the gate the writers call; where it names none, the
    writers (else the entry agent) hold ask_human themselves: no extra agent the user did
    not ask for.
    """
    packs = knowledge.domain_packs()
    ranked = plan_tools(topo.agents, intent.text)
    writers = [a.name for a in topo.agents if any(
        packs[p].operation(o).writes for p, o in kept_ops(ranked[a.name]))]  # type: ignore[union-attr]
    approver = next((a for a in topo.agents if a.archetype == "approver" and a.duty), None)
    if approver is not None:
        topo.edges += [_e(w, approver.name, "delegate")
                       for w in writers or [topo.entry] if w != approver.name]
        _add_child(topo, "human_gate", [])
        return
    asking = set(writers or [topo.entry])
    topo.agents[:] = [replace(a, asks_human=True) if a.name in asking else a
                      for a in topo.agents]
    _add_child(topo, "human_gate", [])


_MODIFIERS = {"evaluator_optimizer": add_review_loop, "reflection": add_reflection,
              "human_gate": add_gate}
