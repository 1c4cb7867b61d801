"""FrameworkBuilder: a pattern choice and the areas of work -> agents and typed edges.

One small function per pattern builds its IR shape (see templates/patterns); modifiers
(review loops, reflection, approval gates) are applied on top of any shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise

from a4a.generator.domains import domain_hits
from a4a.generator.plan import WHOLE_REQUEST, AgentPlan, Area, Topology, archetype_of
from a4a.generator.rolewords import ADJECTIVES, is_filler
from a4a.generator.shape_input import (
    LEADS,
    MAX_AGENTS,
    MAX_TEAM,
    MERGES,
    TEAM_MEMBERS,
    ShapeInput,
    _as,
    _e,
    _lone_lead,
    _node,
    _specialists,
    addressed_alone,
    counted_role,
    says_single,
)
from a4a.generator.text import Text
from a4a.runtime.ir.spec import PatternNode


def single_agent(x: ShapeInput) -> Topology:
    """One tool agent over every area, named as the request names it ("an email assistant")."""
    a = AgentPlan("assistant", "specialist", WHOLE_REQUEST, x.areas, 15)
    roles = x.intent.analysis.roles if x.intent.analysis else ()
    headed = [r for r in roles if r.source == "header"]
    one = roles[0] if len(roles) == 1 else headed[0] if len(headed) == 1 else None
    if roles and addressed_alone(x.intent.text, x.intent.analysis.lang if x.intent.analysis
                                 else "en"):  # "You are a customer service agent": that one
        one = min(roles, key=lambda r: r.position)
    if one is not None and one.name:  # its name; its work is still the whole request
        a = replace(a, name=one.name)
    return Topology(a.name, [a], [], _node("single_agent", [a]))


def prompt_chaining(x: ShapeInput) -> Topology:
    """Researcher -> (executor) -> writer, as a fixed pipeline; or the named roles in order."""
    if x.named:
        stages = x.named
        edges = [_e(a.name, b.name, "sequence") for a, b in pairwise(stages)]
        return Topology(stages[0].name, stages, edges, _node("prompt_chaining", stages))
    a = x.intent.analysis
    steps = (a.numbered or a.series) if a else ()
    if 3 <= len(steps) <= MAX_TEAM:  # "1. Generate an outline 2. ...": one stage per step
        names = stage_names(steps, a.lang if a else "en")
        stages = [AgentPlan(name, "specialist", step.rstrip(" ."), _step_areas(x, step), 8,
                            duty=step.rstrip(" .")) for name, step in zip(names, steps,
                                                                           strict=True)]
        edges = [_e(a.name, b.name, "sequence") for a, b in pairwise(stages)]
        return Topology(stages[0].name, stages, edges, _node("prompt_chaining", stages))
    stages = [AgentPlan("researcher", "researcher", "gathering the facts", x.areas[:3], 8, False)]
    if any(True for _ in x.areas) and x.stated() != 2:  # "two agents": research, then write
        stages.append(AgentPlan("executor", "executor", "making the changes", x.areas[:3], 8))
    stages.append(AgentPlan("writer", "writer", "writing the final result", x.areas[:1], 6, False))
    edges = [_e(a.name, b.name, "sequence") for a, b in pairwise(stages)]
    return Topology(stages[0].name, stages, edges, _node("prompt_chaining", stages))


_STEP_TITLE = re.compile(r"^\W*(?P<t>[^:：.。!?！？\n]{2,40}?)\s*[:：]")


def stage_names(steps: tuple[str, ...], lang: str) -> list[str]:
    """A name per step from its title ("1. 天気調査: ..." -> weather_research), else stage_N.

    The title is the text before the step's colon, else its first words; a title in another
    language is named by its English gloss (templates/lang/<code>/analysis.yaml).
    """
    from a4a.generator.rolewords import slug, title_words
    from a4a.generator.tools import gloss

    out: list[str] = []
    for i, step in enumerate(steps):
        m = _STEP_TITLE.match(step)
        title = m.group("t") if m else " ".join(step.split()[:3])
        words = (title_words(title) if title.isascii() else _gloss_words(gloss(title, lang)))
        if words and not m:  # "extracts data" -> extract_data: the step's verb, not its tense
            words = [_base_verb(words[0]), *words[1:]]
        name = slug([w for w in words if not is_filler(w)][:3]) if words else ""
        out.append(name if name and name not in out else f"stage_{i + 1}")
    return out


def _base_verb(word: str) -> str:
    """"extracts" -> "extract", "searches" -> "search", "applies" -> "apply"."""
    if re.search(r"(?:ch|sh|ss|x|z)es$", word):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def _gloss_words(glossed: str) -> list[str]:
    """English words of a gloss, less one inside another ("research search" -> research)."""
    words: list[str] = []
    for w in glossed.split():
        if not any(w in k or k in w for k in words):
            words.append(w)
    return words[:2]


def _step_areas(x: ShapeInput, step: str) -> tuple[Area, ...]:
    """The areas of the packs a step names ("天気調査: 週末の予報を確認"), else the first two."""
    named = set(domain_hits(Text.of(step)))
    mine = tuple(a for a in x.areas if a.domain in named)
    return mine[:2] or x.areas[:2]


def routing(x: ShapeInput) -> Topology:
    """Router -route-> the named specialists, else one specialist and a default generalist.

    Where the request names no specialist, the one is its most-named area's and the generalist
    serves every area.
    """
    named, rest = x.take("router")
    if named is None:  # "handles the user and directs them to ...", "routes the question"
        named = next((r for r in x.named if _DIRECTS.search(r.duty)), None)
        # ... or the lead the request names: an orchestrator of a routing system routes.
        named = named or next((r for r in x.named if r.archetype == "coordinator"), None)
        rest = [r for r in x.named if r is not named]
    router = _as(named, "router") if named else AgentPlan(
        "router", "router", "sending each request to the right specialist", (), 4)
    if x.named and (len(rest) >= 2 or (named is not None and rest)):
        edges = [_e(router.name, s.name, "route", condition=route_condition(s))
                 for s in rest[:-1]]
        edges.append(_e(router.name, rest[-1].name, "route", default=True,
                        condition=f"anything else ({route_condition(rest[-1])})"))
        agents = [router, *rest]
        return Topology(router.name, agents, edges, _node("routing", agents))
    specs = rest if x.named else x.team(hi=2)[:ROUTED_UNNAMED]
    fallback = AgentPlan("generalist", "researcher", "requests no specialist covers", x.areas,
                         8, False)
    edges = [_e(router.name, s.name, "route", condition=route_condition(s)) for s in specs]
    edges.append(_e(router.name, fallback.name, "route", default=True, condition="anything else"))
    agents = [router, *specs, fallback]
    return Topology(router.name, agents, edges, _node("routing", agents))


# Specialists of a routing the request names none of: the area it names most, beside the
# generalist over every area (three agents; "plans, replies, escalates" needs no team of six).
ROUTED_UNNAMED = 1


# A duty that sends work on: its role is the router.
_DIRECTS = re.compile(r"\b(?:rout|direct|dispatch|triag|forward|redirect)(?:e|es|s|ing|ed)?\b")


def route_condition(plan: AgentPlan) -> str:
    """When a router sends work to `plan`: from its duty, else from its area."""
    if plan.duty:
        return f"the request needs someone who {plan.duty.rstrip(' .')}"
    if plan.areas:
        return f"the request is about {plan.areas[0].label}"
    return f"the request concerns {plan.focus}"


def parallel_sectioning(x: ShapeInput) -> Topology:
    """Splitter -parallel-> workers -> aggregator."""
    lead, rest = x.take("coordinator")
    split = _as(lead, "coordinator") if lead else AgentPlan(
        "splitter", "coordinator", "splitting the task into independent parts", (), 4)
    if x.named and len(rest) >= 3 and (rest[-1].archetype in (
            "synthesizer", "writer", "judge", "reviewer") or MERGES.search(rest[-1].duty)):
        agg = _as(rest[-1], "synthesizer")
        return _fan(split, rest[:-1], agg)
    if x.named and len(rest) >= 2:
        return _fan(split, rest, AgentPlan("aggregator", "synthesizer",
                                           "merging the parts into one answer", (), 4))
    workers = rest if lead else x.team("worker", times=True)
    if len(workers) < 2:
        workers = [*workers, AgentPlan("research_worker", "researcher", "background facts",
                                       x.areas[:2], 8, False)]
    return _fan(split, workers, _merger(x) or AgentPlan(
        "aggregator", "synthesizer", "merging the parts into one answer", (), 4))



def _merger(x: ShapeInput, kinds: tuple[str, ...] = ("synthesizer", "judge")
            ) -> AgentPlan | None:
    """The one role the request names when it merges or judges the others' work.

    "Three researchers ... and a writer merges their findings", "let a judge pick the best".
    """
    roles = x.intent.analysis.roles if x.intent.analysis else ()
    if x.named or len(roles) != 1:
        return None
    role = roles[0]
    kind = archetype_of(role.name)
    if kind not in kinds and not MERGES.search(role.duty) and not (
            counted_role(x.intent) and kind in ("writer", "reviewer")):
        return None
    return AgentPlan(role.name, "synthesizer", role.duty or "merging the parts", (), 4,
                     duty=role.duty)


def _fan(split: AgentPlan, workers: list[AgentPlan], agg: AgentPlan) -> Topology:
    edges = [_e(split.name, w.name, "parallel", join=agg.name) for w in workers]
    edges += [_e(w.name, agg.name, "sequence") for w in workers]
    agents = [split, *workers, agg]
    return Topology(split.name, agents, edges, _node("parallel_sectioning", agents))


def voting(x: ShapeInput) -> Topology:
    """Dispatcher -parallel-> N identical voters -> judge (majority, tie-break stated)."""
    n = x.count("voter", "reviewer", "grader", "classifier", "judge", "labeler", "annotator",
                "analyst", "agent", "expert", "model", default=x.stated(times=True) or 3)
    disp = AgentPlan("dispatcher", "coordinator", "giving every voter the same task", (), 3)
    voters = [AgentPlan(f"voter_{i + 1}", "classifier", "an independent answer", x.areas[:2], 6,
                        False) for i in range(n)]
    judge = AgentPlan("judge", "judge", "the majority answer; ties go to the most cautious", (), 4)
    edges = [_e("dispatcher", v.name, "parallel", join="judge") for v in voters]
    edges += [_e(v.name, "judge", "sequence") for v in voters]
    agents = [disp, *voters, judge]
    return Topology("dispatcher", agents, edges, _node("voting", agents))


def orchestrator_workers(x: ShapeInput) -> Topology:
    """Orchestrator with one worker per area, called as tools."""
    named, rest = _lead(x)
    lead = replace(_as(named, "coordinator"), max_iterations=12) if named else _lone_lead(x) or (
        AgentPlan("orchestrator", "coordinator", "decomposing, delegating and synthesizing", (),
                  12))
    workers = rest if x.named else x.team()
    if len(workers) < 2:
        workers.append(AgentPlan("researcher", "researcher", "looking things up", x.areas[:2], 8,
                                 False))
    edges = [_e(lead.name, w.name, "delegate") for w in workers]
    agents = [lead, *workers]
    return Topology(lead.name, agents, edges, _node("orchestrator_workers", agents))



def _lead(x: ShapeInput) -> tuple[AgentPlan | None, list[AgentPlan]]:
    """The named role whose duty coordinates the others, else the named coordinator.

    A duty says more than a title: the "Incident Commander" who coordinates the response leads
    a "Comms Lead" who drafts the updates.
    """
    named, rest = x.take("coordinator")
    by_duty = next((r for r in x.named if LEADS.search(r.duty)), None)
    if named is None and x.named:
        return by_duty, [r for r in x.named if r is not by_duty]
    if named is not None and by_duty is not None and named.duty and not LEADS.search(named.duty):
        # the titled lead has a duty of its own, and it is not leading
        return by_duty, [r for r in x.named if r is not by_duty]
    return named, rest


def supervisor(x: ShapeInput) -> Topology:
    """Supervisor -route-> worker; each worker reports back (capped loop)."""
    named, rest = _lead(x)
    sup = replace(_as(named, "coordinator"), max_iterations=6) if named else AgentPlan(
        "supervisor", "coordinator", "choosing the next worker and finishing", (), 6)
    workers = rest if x.named else x.team()
    if len(workers) < 2:
        workers.append(AgentPlan("researcher", "researcher", "looking things up", x.areas[:2], 8,
                                 False))
    edges = [_e(sup.name, w.name, "route", default=i == 0,
                condition=None if i == 0 else f"the next step concerns {w.focus}")
             for i, w in enumerate(workers)]
    edges += [_e(w.name, sup.name, "loop", max_iterations=5,
                 condition="the supervisor has everything it needs") for w in workers]
    agents = [sup, *workers]
    return Topology(sup.name, agents, edges, _node("supervisor", agents))


def hierarchical_teams(x: ShapeInput) -> Topology:
    """A lead over one team per domain; each team lead over its specialists (agents <= 34).

    Within one domain, the teams the request names ("a research team and a document writing
    team") are the teams.
    """
    top = AgentPlan("chief_coordinator", "coordinator", "running the whole organisation", (), 12)
    domains = list(dict.fromkeys(a.domain for a in x.areas))[:8]
    if len(domains) < 2:  # one domain: a team per named team or per area
        teams = named_teams(x.intent.text)
        if len(teams) >= 2:
            return _area_teams(x, top, [(t, f"{t.replace('_', ' ')} work", _areas_of(t, x.areas))
                                        for t in teams])
        return _area_teams(x, top)
    agents, edges, children = [top], [], []
    # A team is a lead and a few specialists, not one member per resource type.
    per_team = max(1, min(TEAM_MEMBERS, (MAX_AGENTS - 1 - len(domains)) // len(domains)))
    chosen = tuple(a for d in domains for a in [b for b in x.areas if b.domain == d][:per_team])
    specialists = dict(zip(chosen, _specialists(chosen), strict=True))
    for d in domains:
        lead = AgentPlan(f"{d}_lead", "coordinator", f"the {d.replace('_', ' ')} team", (), 10)
        team = [s for a, s in specialists.items() if a.domain == d]
        for s in team:
            edges.append(_e(lead.name, s.name, "delegate"))
        edges.insert(len(agents) - 1, _e(top.name, lead.name, "delegate"))
        agents += [lead, *team]
        children.append(PatternNode(pattern="orchestrator_workers",
                                    agents=[lead.name, *(s.name for s in team)]))
    edges.sort(key=lambda e: (e.source != top.name, [a.name for a in agents].index(e.target)))
    tree = PatternNode(pattern="hierarchical_teams", agents=[top.name], children=children)
    return Topology(top.name, agents, edges, tree)


_TEAM = re.compile(r"\b(?:an?|the|one|each|its own)\s+((?:[a-z][a-z-]*\s+){1,3})team\b")
_NOT_TEAM_WORDS = frozenset("agent agents ai multi-agent hierarchical whole small large virtual "
                            "top-level top level entire same other own".split())


def named_teams(text: str) -> list[str]:
    """The teams a request names, as slugs ("a research team and a document writing team")."""
    out: list[str] = []
    for m in _TEAM.finditer(text.lower()):
        words = [w for w in m.group(1).split() if w not in ADJECTIVES]
        if words and not any(w in _NOT_TEAM_WORDS or is_filler(w) for w in words):
            name = "_".join(words[-2:])
            if name not in out:
                out.append(name)
    return out[:5]


def _areas_of(team: str, areas: tuple[Area, ...]) -> tuple[Area, ...]:
    """The areas whose resource or label shares a word with a team's name."""
    words = set(team.split("_"))
    return tuple(a for a in areas if words & set(f"{a.resource} {a.label}".replace("_", " ")
                                                 .split()))[:2]


# Teams of a hierarchy whose request names none: the size follows the request (a lead, two
# teams of three; "section editors for politics, business, and tech": three), not the number
# of resource types the pack has.
UNNAMED_TEAMS = 2
_FOR_LIST = re.compile(r"\bfor ((?:[\w-]+(?: [\w-]+)?, )+(?:[\w-]+ )?(?:and|or) [\w-]+)")


def _unnamed_teams(text: str) -> int:
    """How many teams a hierarchy that names none gets."""
    m = _FOR_LIST.search(text.lower())
    items = len(re.split(r",\s*(?:and |or )?|\s+(?:and|or)\s+", m.group(1))) if m else 0
    return min(5, items) if items >= 2 else UNNAMED_TEAMS


def _area_teams(x: ShapeInput, top: AgentPlan,
                named: list[tuple[str, str, tuple[Area, ...]]] | None = None) -> Topology:
    """One team per area; out of domain, two generic teams: a hierarchy is never one agent."""
    agents, edges, children = [top], [], []
    teams: list[tuple[str, str, tuple[Area, ...]]] = named or [
        (a.resource, a.label, (a,)) for a in x.areas[:_unnamed_teams(x.intent.text)]] or [
        (f"team_{i + 1}", f"part {i + 1} of the task", ()) for i in range(2)]
    for stem, label, mine in teams:
        lead = AgentPlan(f"{stem}_lead", "coordinator", f"the {label} team", (), 8)
        team = [AgentPlan(f"{stem}_researcher", "researcher", f"{label} facts", mine, 6, False),
                AgentPlan(f"{stem}_executor", "executor", f"{label} changes", mine, 6)]
        edges.append(_e(top.name, lead.name, "delegate"))
        edges += [_e(lead.name, m.name, "delegate") for m in team]
        agents += [lead, *team]
        children.append(PatternNode(pattern="orchestrator_workers",
                                    agents=[lead.name, *(m.name for m in team)]))
    edges.sort(key=lambda e: (e.source != top.name, [a.name for a in agents].index(e.target)))
    return Topology(top.name, agents, edges,
                    PatternNode(pattern="hierarchical_teams", agents=[top.name], children=children))


def handoff(x: ShapeInput) -> Topology:
    """A front agent hands off to specialists, who hand back (capped) when done."""
    named = x.named
    router, others = x.take("router")  # "handoffs between a triage agent, a sales agent ..."
    if router is not None:
        front, specs = replace(router, writes=False), others
    elif named and named[0].archetype in ("router", "communicator", "coordinator"):
        front, specs = replace(named[0], writes=False), named[1:]
    elif len(named) >= 3:  # a swarm of named peers: the first one the request names greets
        front, specs = named[0], named[1:]
    else:
        front = AgentPlan("front_desk", "communicator", "talking with the user and handing off",
                          x.areas[:1], 6, False)
        specs = named or x.team()
    edges = [_e(front.name, s.name, "handoff") for s in specs]
    edges += [_e(s.name, front.name, "loop", max_iterations=3,
                 condition="the user's need is resolved") for s in specs]
    agents = [front, *specs]
    return Topology(front.name, agents, edges, _node("handoff", agents))


def debate(x: ShapeInput) -> Topology:
    """N debaters argue in capped rounds, then a judge decides."""
    n = x.count("debater", "side", "agent", "expert", "advocate", default=2, hi=5)
    rounds = x.count("round", default=3, lo=1, hi=6)
    named, rest = x.take("judge", "synthesizer", last=True)
    lone = _merger(x, ("judge", "synthesizer", "coordinator"))  # "a moderator declares ..."
    judge = _as(named, "judge") if named else replace(lone, archetype="judge") if lone else (
        AgentPlan("judge", "judge", "deciding which position wins", (), 4))
    sides = debate_sides(x.intent.text, n)
    if len(rest) >= 2:
        deb = [replace(r, archetype="debater", writes=False, max_iterations=4) for r in rest[:5]]
    else:
        deb = [AgentPlan(f"debater_{i + 1}", "debater", sides[i], x.areas[:2], 4, False)
               for i in range(n)]
    edges = [_e(a.name, b.name, "sequence") for a, b in pairwise(deb)]
    edges += [_e(deb[-1].name, deb[0].name, "loop", max_iterations=rounds,
                 condition=f"{rounds} rounds are done"), _e(deb[-1].name, judge.name, "sequence")]
    agents = [*deb, judge]
    return Topology(deb[0].name, agents, edges, _node("debate", agents))


def debate_sides(text: str, n: int) -> list[str]:
    """The positions debaters argue: for and against the question, then further views."""
    base = ["arguing for the proposal in the request",
            "arguing against the proposal in the request"]
    return (base + [f"an independent view {i + 1}" for i in range(n)])[:n]


def map_reduce(x: ShapeInput) -> Topology:
    """Mapper lists the items, a worker processes each (dynamic, capped), a reducer merges."""
    area = x.areas[:1]
    mapper = AgentPlan("mapper", "researcher", "listing the items to process", area, 4, False)
    worker = AgentPlan("item_worker", "specialist", "processing one item", x.areas[:2], 6)
    reducer = AgentPlan("reducer", "synthesizer", "combining the per-item results", (), 4)
    cap = x.count("item", "document", "file", "ticket", default=10, lo=2, hi=50)
    edges = [_e("mapper", "item_worker", "parallel", join="reducer", max_iterations=cap),
             _e("item_worker", "reducer", "sequence")]
    agents = [mapper, worker, reducer]
    return Topology("mapper", agents, edges, _node("map_reduce", agents))


# A named role that runs the chat ("Group Chat Manager", "Moderator") is its selector.
_CHAIR = re.compile(r"(?:^|_)(?:chat_manager|selector|moderator|facilitator)$")
# ... and a request that asks for one ("with a selector picking each speaker") gets one.
_ASKS_CHAIR = re.compile(r"\b(?:selector|moderator|facilitator|chat manager|chair)\b", re.I)


def group_chat(x: ShapeInput) -> Topology:
    """A selector picks the next speaker on a shared transcript until done.

    Two named participants and no named chair take turns instead (a round robin: the first
    speaks, the second answers, until they agree): a selector would only ever pick "the other".
    """
    host = next((r for r in x.named if _CHAIR.search(r.name)), None)
    if host is None and len(x.named) == 2 and not _ASKS_CHAIR.search(x.intent.text):
        return _round_robin(*x.named)
    sel = replace(_as(host, "router"), max_iterations=8) if host else AgentPlan(
        "selector", "router", "picking the next speaker and ending the chat", (), 8)
    parts = [r for r in x.named if r is not host] or x.team("participant")
    if len(parts) < 2:
        parts = [*parts, AgentPlan("critic_participant", "reviewer", "challenging ideas",
                                   x.areas[:1], 4, False)]
    edges = [_e(sel.name, p.name, "route", default=i == 0,
                condition=None if i == 0 else f"{p.focus} is the next topic")
             for i, p in enumerate(parts)]
    edges += [_e(p.name, sel.name, "loop", max_iterations=6,
                 condition="the group agrees or the turn limit is reached") for p in parts]
    agents = [sel, *parts]
    return Topology(sel.name, agents, edges, _node("group_chat", agents))


def _round_robin(first: AgentPlan, second: AgentPlan) -> Topology:
    """Two participants alternating on the shared transcript until they agree."""
    edges = [_e(first.name, second.name, "sequence"),
             _e(second.name, first.name, "loop", max_iterations=6,
                condition="the two agree or the turn limit is reached")]
    agents = [first, second]
    return Topology(first.name, agents, edges, _node("group_chat", agents))


def plan_execute(x: ShapeInput) -> Topology:
    """Planner -> executor -loop-> replanner -> executor."""
    named, rest = x.take("planner")
    if named and rest:
        planner = replace(named, writes=False)
        edges = [_e(planner.name, rest[0].name, "sequence")]
        edges += [_e(a.name, b.name, "sequence") for a, b in pairwise(rest)]
        edges.append(_e(rest[-1].name, planner.name, "loop", max_iterations=3,
                        condition="every plan step is done"))
        agents = [planner, *rest]
        return Topology(planner.name, agents, edges, _node("plan_execute", agents))
    planner = AgentPlan("planner", "planner", "writing the numbered plan", x.areas[:3], 6, False)
    ex = AgentPlan("executor", "executor", "carrying out the plan steps", x.areas[:4], 12)
    re_ = AgentPlan("replanner", "planner", "revising the plan after a failed step", (), 4, False)
    edges = [_e("planner", "executor", "sequence"),
             _e("executor", "replanner", "loop", max_iterations=3,
                condition="every plan step is done"),
             _e("replanner", "executor", "sequence")]
    agents = [planner, ex, re_]
    return Topology("planner", agents, edges, _node("plan_execute", agents))


def evaluator_optimizer(x: ShapeInput) -> Topology:
    """A producer (or the named roles in order), then the evaluator loop the modifier adds."""
    if x.named:
        stages = x.named
        edges = [_e(a.name, b.name, "sequence") for a, b in pairwise(stages)]
        return Topology(stages[0].name, stages, edges, _node("evaluator_optimizer", stages))
    base = AgentPlan("producer", "executor", "producing the result", x.areas[:4], 10)
    return Topology(base.name, [base], [], _node("evaluator_optimizer", [base]))


def reflection(x: ShapeInput) -> Topology:
    """One agent; the modifier adds its self-critique loop."""
    base = single_agent(x)
    return Topology(base.entry, base.agents, [], _node("reflection", base.agents))


def human_gate(x: ShapeInput) -> Topology:
    """Proposer -> approval gate -route-> executor, the gate being an approver the request names.

    Where it names none, a human approves through the executor's ask_human: proposer ->
    executor, no gate agent the request did not ask for.
    """
    named, _ = x.take("approver")
    if named is None and says_single(x.intent):  # "a single agent ... with human approval"
        one = single_agent(x).agents[0]
        return Topology(one.name, [replace(one, asks_human=True)], [],
                        _node("human_gate", [one]))
    prop = AgentPlan("proposer", "planner", "proposing the actions to take", x.areas[:3], 6, False)
    if named is None:
        ex = AgentPlan("executor", "executor", "carrying out the actions a human approved",
                       x.areas[:3], 8, asks_human=True)
        agents = [prop, ex]
        return Topology("proposer", agents, [_e("proposer", "executor", "sequence")],
                        _node("human_gate", agents))
    gate = _as(named, "approver")
    ex = AgentPlan("executor", "executor", "carrying out approved actions", x.areas[:3], 8)
    edges = [_e("proposer", gate.name, "sequence"),
             _e(gate.name, "executor", "route", condition="a human approved the proposal"),
             _e(gate.name, "proposer", "route", default=True, max_iterations=2,
                condition="rejected, amended or no answer")]
    agents = [prop, gate, ex]
    return Topology("proposer", agents, edges, _node("human_gate", agents))


SHAPES: dict[str, Callable[[ShapeInput], Topology]] = {
    f.__name__: f for f in (
        single_agent, prompt_chaining, routing, parallel_sectioning, voting, orchestrator_workers,
        supervisor, hierarchical_teams, handoff, debate, map_reduce, group_chat, plan_execute,
        evaluator_optimizer, reflection, human_gate,
    )
}
