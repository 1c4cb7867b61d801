"""What a shape builder reads (ShapeInput) and the small pieces every shape uses.

The team a request states (counts, the roles it names, the one role that leads or merges),
edges and pattern nodes. The shapes themselves live in generator/shapes.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache

from a4a.generator.intent import IntentSpec
from a4a.generator.plan import AgentPlan, Area, archetype_of
from a4a.generator.rolewords import is_role_word
from a4a.generator.text import LANGUAGES, fold, normalize, table
from a4a.runtime.ir.spec import EdgeSpec, PatternNode

MAX_AGENTS = 34
MAX_TEAM = 8
TEAM_MEMBERS = 3  # specialists under one team lead of a hierarchy
# Count nouns that name members of the team whatever their job ("three agents").
_WORKER_NOUNS = frozenset("agents members workers assistants bots experts specialists "
                          "participants personas".split())


@dataclass(frozen=True)
class ShapeInput:
    """What a shape builder needs.

    The intent, the areas of work (most relevant first), the roles or agents the request
    names, and how many areas the request itself touches.
    """

    intent: IntentSpec
    areas: tuple[Area, ...]
    roles: tuple[AgentPlan, ...] = ()
    hits: int = 0

    def count(self, *nouns: str, default: int, lo: int = 2, hi: int = 7) -> int:
        """A count the request asked for ("three reviewers"), else the default."""
        for noun, n in self.intent.counts.items():
            if any(noun.startswith(x) for x in nouns):
                return max(lo, min(hi, n))
        return default

    def stated(self, times: bool = False) -> int | None:
        """The number of workers the request states ("6 review agents", "3 members").

        With `times`, a repeat count ("run it three times in parallel") is one too.
        """
        caps = self.intent.analysis.caps if self.intent.analysis else {}
        if times and "times" in caps:
            return max(2, min(MAX_TEAM, caps["times"]))
        stated = {**(self.intent.analysis.counts if self.intent.analysis else {}),
                  **self.intent.counts}
        for noun, n in stated.items():
            if noun in _WORKER_NOUNS or is_role_word(noun.removesuffix("s")):
                return max(1, min(MAX_TEAM, n))
        return None

    def team(self, suffix: str = "specialist", hi: int = 4, times: bool = False
             ) -> list[AgentPlan]:
        """The workers: the roles the request names, then specialists for uncovered areas.

        A worker count the request states sets the team's size, padded with generic workers
        where the areas run out.
        """
        if self.intent.named_agents:
            return list(self.roles[:8])
        stated = self.stated(times)
        size = max(2, min(hi, len(self.roles) + self.hits)) if self.roles or self.hits else 3
        size = stated or size
        covered = {a for r in self.roles for a in r.areas}
        rest = tuple(a for a in self.areas if a not in covered)
        if not self.hits:  # no area named: the packs' central ones (the most operations)
            rest = tuple(sorted(rest, key=lambda a: -len(a.ops)))
        team = (list(self.roles[:size]) + _specialists(rest, suffix))[:size]
        if not team and stated is None:  # out of domain: generic workers that share the task
            size = self.count("worker", "agent", "part", default=3, hi=hi)
        stem = self.stem() or suffix
        team += [AgentPlan(f"{stem}_{i + 1}", "specialist", f"part {i + 1} of the task")
                 for i in range(len(team), size)]
        return team

    def stem(self) -> str:
        """The name padded workers share ("" for none).

        The counted role noun ("five reviewers"), else the one role the request names ("runs
        a translation agent three times").
        """
        analysis = self.intent.analysis
        if counted := counted_role(self.intent):
            return counted[0]
        if (analysis is not None and len(analysis.roles) == 1 and _lone_lead(self) is None
                and not MERGES.search(analysis.roles[0].duty)
                and archetype_of(analysis.roles[0].name) not in _NOT_WORKERS):
            return analysis.roles[0].name
        return ""


    @property
    def named(self) -> list[AgentPlan]:
        """The roles the request names (two or more), in the stated order."""
        return list(self.roles) if self.intent.named_agents and len(self.roles) >= 2 else []

    def take(self, *archetypes: str, last: bool = False) -> tuple[AgentPlan | None,
                                                                   list[AgentPlan]]:
        """A named role of one of `archetypes` (the first, or the last) and the others."""
        named = self.named
        hits = [r for r in named if r.archetype in archetypes]
        if not hits or len(named) < 2:
            return None, named
        pick = hits[-1] if last else hits[0]
        return pick, [r for r in named if r is not pick]


def counted_role(intent: IntentSpec) -> tuple[str, int] | None:
    """The role noun the request counts and how many ("five reviewers": reviewer, 5)."""
    stated = {**(intent.analysis.counts if intent.analysis else {}), **intent.counts}
    for noun, n in stated.items():
        single = noun.removesuffix("s")
        if noun not in _WORKER_NOUNS and is_role_word(single) and single.isalpha() and n >= 2:
            return single, min(n, MAX_TEAM)
    return None


def _as(plan: AgentPlan, archetype: str) -> AgentPlan:
    """A named role put in a structural slot: its name and duty, the slot's archetype."""
    return replace(plan, archetype=archetype, areas=() if archetype in _NO_AREAS else plan.areas)


_NO_AREAS = ("coordinator", "router", "synthesizer", "judge")
# Roles that give the workers their work or judge it: never the name of the workers.
_NOT_WORKERS = ("coordinator", "router", "planner", "synthesizer", "judge", "approver")


def _e(source: str, target: str, kind: str, **kw: object) -> EdgeSpec:
    return EdgeSpec.model_validate({"source": source, "target": target, "kind": kind, **kw})


def _specialists(areas: tuple[Area, ...], suffix: str = "specialist") -> list[AgentPlan]:
    names = [a.resource for a in areas]
    def name(a: Area) -> str:
        stem = f"{a.domain}_{a.resource}" if names.count(a.resource) > 1 else a.resource
        return f"{stem}_{suffix}"

    return [AgentPlan(name(a), "specialist", f"{a.label} work", (a,)) for a in areas]


def _node(pattern: str, agents: list[AgentPlan]) -> PatternNode:
    return PatternNode(pattern=pattern, agents=[a.name for a in agents])


# A duty that brings the others' work together ("then a lead editor merges them").
MERGES = re.compile(r"\b(?:merg|combin|aggregat|synthesi[sz]|consolidat|compil)\w*"
                    r"|\bintegrat\w* (?:(?:all|the|their) )*(?:\w+ )?(?:results|outputs|findings)"
                    r"|整合|汇总|合并|統合|まとめ|\b(?:zusammenf|объедин|обобщ|synth[eé]tis|fusionn)\w*")


LEADS = re.compile(r"\b(?:coordinat|orchestrat|delegat|oversee|supervis|spawn)\w*"
                   r"|\b(?:main|master|central|primary|lead) agent\b"
                   # "the publisher agent manages the workflow, calling the copywriter"
                   r"|\bmanag(?:es|ing|e) the (?:whole |entire |overall )?"
                   r"(?:workflow|process|pipeline|team|other agents)\b(?!['’])"
                   # the same duty in the other languages ("coordonne tous les autres agents")
                   r"|\b(?:coordonn|coordin|coorden|koordinier|координир|orquest|orchestre|"
                   r"délègu|delegu|delega|делегир|оркестр)\w*|协调|统筹|調整役|統括", re.IGNORECASE)


def _lone_lead(x: ShapeInput) -> AgentPlan | None:
    """The one role the request names when it leads ("the Lead Researcher spawns subagents")."""
    roles = x.intent.analysis.roles if x.intent.analysis else ()
    if len(roles) != 1:
        return None
    role = roles[0]
    lead = _LEAD_TITLE.match(role.name) or archetype_of(role.name) == "coordinator"
    if not (lead or _LEAD_TITLE.match(role.title) or LEADS.search(role.duty)):
        return None
    name = role.name if lead else f"lead_{role.name}"
    return AgentPlan(name, "coordinator", role.duty or "decomposing, delegating and synthesizing",
                     (), 12, duty=role.duty)


_LEAD_TITLE = re.compile(r"(?:lead|chief|head|main|master|principal)\b")


_SINGLE = re.compile(r"^(?:a single (?:\w+ ){1,3}(?:agent|assistant|bot)|single[- ]agent)")


def says_single(intent: IntentSpec) -> bool:
    """Whether the request asks in so many words for one agent.

    "A single Pydantic AI agent", "a single-agent system" do; "one agent" or "an agent" in
    passing does not. So does a system prompt written to one agent ("You are a customer
    service agent ...") that mentions no agent after its first sentence: its lists are that
    agent's tools and steps.
    """
    cues = intent.analysis.cues if intent.analysis else ()
    return any(c.pattern == "single_agent" and _SINGLE.match(c.phrase) for c in cues) or (
        addressed_alone(intent.text, intent.analysis.lang if intent.analysis else "en"))


# Any agent word, in any of the eight languages ("Hauptagent", "agentes", "智能体").
_ANY_AGENT = re.compile(r"agent|агент|\bbots?\b|智能体|代理|エージェント|ボット")
_FIRST_SENTENCE = re.compile(r"[^.!?。！？\n]*[.!?。！？\n]?")


@cache
def _openers(lang: str) -> re.Pattern[str] | None:
    """How a system prompt opens when it speaks to one agent (the `addressed` table)."""
    terms = [fold(normalize(t)) for t in (*table("en", "analysis").get("addressed", ()),
                                          *table(lang, "analysis").get("addressed", ()))]
    return re.compile(r"\W*(?:" + "|".join(map(re.escape, terms)) + r")\b") if terms else None


def addressed_alone(text: str, lang: str = "en") -> bool:
    """Whether `text` speaks to one agent and names no other.

    It opens by telling one agent what it is ("You are a ...", "Du bist ein ...") and names no
    agent after that first sentence.
    """
    folded = fold(normalize(text, keep_lines=True))
    opener = _openers(lang if lang in LANGUAGES else "en")
    if opener is None or not opener.match(folded):
        return False
    first = _FIRST_SENTENCE.match(folded)
    return not _ANY_AGENT.search(folded[first.end() if first else 0:])
