"""MetaAgent: IntentSpec -> pattern choice (a top-level pattern plus nested modifiers).

Every cue of the request analysis counts (strong cues 1.0, weak ones 0.4, words inside a role's
name masked); the structural pattern with the highest score wins, ties broken by the
patterns' priority. Named roles decide when no cue does: two or more never collapse to one
agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from a4a.generator.analysis import asks_for_writing
from a4a.generator.intent import IntentSpec
from a4a.generator.plan import archetype_of, sends_back
from a4a.generator.shape_input import LEADS, counted_role, says_single
from a4a.generator.text import fold, normalize
from a4a.runtime import knowledge

# Patterns that wrap another one rather than shape the whole team.
MODIFIERS = ("evaluator_optimizer", "reflection", "human_gate")
_OWN_LOOP = frozenset({"debate", "group_chat", "voting"})


@dataclass(frozen=True)
class PatternChoice:
    """The top-level pattern, the modifiers nested into it and why they were chosen."""

    top: str
    modifiers: tuple[str, ...]
    why: str = ""
    scores: dict[str, float] = field(default_factory=dict)


class MetaAgent(Protocol):
    """Chooses the pattern tree for an intent."""

    def choose(self, intent: IntentSpec) -> PatternChoice:
        """Choose patterns for `intent`."""
        ...


def _scores(intent: IntentSpec) -> dict[str, float]:
    if intent.analysis is not None:
        return intent.analysis.scores()
    return {**dict.fromkeys(intent.weak_cues, 0.4), **dict.fromkeys(intent.cues, 1.0)}


class RuleMetaAgent:
    """Picks the structural pattern with the highest cue score; modifiers nest inside it."""

    def choose(self, intent: IntentSpec) -> PatternChoice:
        """Choose patterns for `intent`."""
        pats = knowledge.patterns()
        scores = _scores(intent)
        cues = set(intent.cues)
        if _leaderless(intent):  # "it coordinates the agents": they work together
            cues.discard("orchestrator_workers")
        if _departments_are_agents(intent):  # "各部门 Agent": each department is one agent
            cues.discard("hierarchical_teams")
        modifiers = tuple(m for m in MODIFIERS if m in cues)
        structural = sorted((c for c in cues if c not in MODIFIERS and c != "single_agent"),
                            key=lambda c: (-scores.get(c, 1.0), pats[c]["priority"], c))
        big = (len(intent.domains) >= 3 and "hierarchical_teams" not in structural
               and len(intent.named_agents) < 2)
        if big and (not structural or structural[0] == "orchestrator_workers"):
            return PatternChoice("hierarchical_teams", modifiers,
                                 f"the request names teams over {len(intent.domains)} domains",
                                 scores)
        if says_single(intent):
            # "a single Pydantic AI agent ... with human approval for sending": the request
            # says one agent; its arrows are that agent's steps, its gate a human's
            top = next((t for t in ("human_gate", "reflection") if t in modifiers),
                       "single_agent")
            return PatternChoice(top, modifiers, "the request asks for a single agent", scores)
        if structural[:1] == ["orchestrator_workers"] and "routing" in structural and (
                _named_orchestration_only(intent)):
            structural.remove("routing")  # "the Orchestrator agent routes each question to
            structural.insert(0, "routing")  # one specialist": the lead's work is routing
        if structural:
            top = structural[0]
            if top in _OWN_LOOP:  # rounds or turns are their loop: no second reviewer loop
                modifiers = tuple(m for m in modifiers if m == "human_gate")
            return PatternChoice(top, modifiers, f"strongest control-flow cue: {top} "
                                 f"(score {scores.get(top, 1.0)})", scores)
        roles = intent.named_agents
        if len(roles) >= 2:
            return PatternChoice(*_by_roles(roles, modifiers, _reviewer(intent),
                                            _first_routes(intent, roles[0])), scores)
        return _fallback(intent, modifiers, scores)


def _leaderless(intent: IntentSpec) -> bool:
    """Two or more named roles, none of which leads, and "coordinate" the only lead cue.

    "A system that coordinates multiple agents: a researcher ..., a writer ..." describes the
    named roles working together; an orchestrator the request never names is an agent more
    than it asks for. A main agent, delegation or nested chats still ask for one.
    """
    analysis = intent.analysis
    if analysis is None or len(analysis.roles) < 2:
        return False
    strong = [c.phrase for c in analysis.cues
              if c.pattern == "orchestrator_workers" and c.weight >= 1.0]
    if not strong or not all(_COORDINATES.match(p) for p in strong):
        return False
    return not any(archetype_of(r.name) == "coordinator" or LEADS.search(r.duty)
                   for r in analysis.roles)


_COORDINATES = re.compile(r"coordinat|协调|coordin|koordin|координ")
_AGENT_AFTER = r"\s*(?:agents?|智能体|エージェント|агент\w*|agentes?)\b"


def _departments_are_agents(intent: IntentSpec) -> bool:
    """Whether every team cue names agents ("各部门 Agent", "department agents"), no teams.

    A department that is one agent is a specialist of a flat team; hierarchy needs teams.
    """
    analysis = intent.analysis
    if analysis is None or len(intent.named_agents) < 2:
        return False
    phrases = [c.phrase for c in analysis.cues if c.pattern == "hierarchical_teams"]
    text = fold(normalize(intent.text))
    return bool(phrases) and all(
        re.search(re.escape(fold(normalize(p))) + _AGENT_AFTER, text) for p in phrases)


# A duty that sends work on: routing, triage, classifying, handing off (eight languages).
_ROUTES = re.compile(r"\b(?:rout|dispatch|triag|classif|categori|forward|assign|hand\w* off|"
                     r"escalat|enrut|deriv|encamin|clasific|redirig|weiterleit|zuweis|klassifi|"
                     r"achemin|redirec|маршрут|распредел|направля|классифи)\w*"
                     r"|\bsends? (?:it |them |each \w+ )?to\b|路由|分发|分配|分类|转给|振り分|"
                     r"ルーティング", re.IGNORECASE)


def _first_routes(intent: IntentSpec, name: str) -> bool:
    """Whether the first named role's duty routes (or it states none).

    "**Intake Agent** - retrieves patient records, structures demographics ..." is a pipeline's
    first stage, whatever its title suggests.
    """
    roles = intent.analysis.roles if intent.analysis else ()
    duty = next((r.duty for r in roles if r.name == name), "")
    return not duty or bool(_ROUTES.search(duty))


def _by_roles(roles: tuple[str, ...], modifiers: tuple[str, ...], feedback: str = "",
              routes: bool = True) -> tuple[str, tuple[str, ...], str]:
    kinds = [archetype_of(r) for r in roles]
    if "coordinator" in kinds[:1] or (kinds.count("coordinator") == 1 and len(roles) >= 3):
        return "orchestrator_workers", modifiers, "a named coordinator role leads the team"
    if kinds[0] == "router" and routes:
        return "routing", modifiers, "the first named role triages the requests"
    if "evaluator_optimizer" in modifiers and "reviewer" in kinds:
        return "evaluator_optimizer", modifiers, "a named reviewer loops with the producers"
    if feedback and len(roles) == 2:
        return ("evaluator_optimizer", modifiers,
                f"{feedback} reviews the other's work and sends it back with feedback")
    return ("prompt_chaining", modifiers,
            f"{len(roles)} named roles and no other cue: they work in the stated order")


def _fallback(intent: IntentSpec, modifiers: tuple[str, ...], scores: dict[str, float]
              ) -> PatternChoice:
    pats = knowledge.patterns()
    for mod in ("evaluator_optimizer", "reflection"):
        if mod in modifiers:  # a second agent that critiques: its own shape
            return PatternChoice(mod, modifiers, f"cue for {mod} and no structural cue", scores)
    if "single_agent" in intent.cues:
        return PatternChoice("single_agent", modifiers, "the request asks for one agent", scores)
    a = intent.analysis
    series = a.series if a else ()
    if "human_gate" in modifiers and a and len(_agent_steps(a.numbered)) >= 3:
        series = a.numbered  # "1. Gather 2. Draft ... 6. Approval": a gate within a pipeline
    if len(series) >= 3 and not intent.named_agents:  # an approval among them gates the chain
        return PatternChoice("prompt_chaining", modifiers,
                             f"the request lists {len(series)} pieces of work in series", scores)
    if "human_gate" in modifiers:
        return PatternChoice("human_gate", modifiers, "an approval cue and no other", scores)
    counted = counted_role(intent)
    if counted and len(intent.named_agents) < 2:  # "five reviewers": workers side by side
        return PatternChoice("parallel_sectioning", modifiers, f"the request asks for "
                             f"{counted[1]} {counted[0]}s working side by side", scores)
    weak = sorted((c for c in intent.weak_cues if c not in MODIFIERS),
                  key=lambda c: (-scores.get(c, 0.4), pats[c]["priority"], c))
    if (weak == ["orchestrator_workers"] and not intent.named_agents
            and len(_areas(intent)) <= 1 and asks_for_writing(intent.text)):
        # "a multi-agent system that writes articles from Wikipedia": written work, no lead,
        # no roles and at most one area to split; the smallest team that does it gathers,
        # then writes.
        return PatternChoice("prompt_chaining", modifiers, "a team of agents is asked for "
                             "written work, with no roles and at most one area: gather, then "
                             "write", scores)
    if weak:
        return PatternChoice(weak[0], modifiers, f"weak cue for {weak[0]}", scores)
    return _by_team(intent, modifiers, scores)


def _by_team(intent: IntentSpec, modifiers: tuple[str, ...], scores: dict[str, float]
             ) -> PatternChoice:
    """No cue at all: the shape the stated number of agents or the named roles call for."""
    stated = intent.analysis.counts.get("agents", 0) if intent.analysis else 0
    if stated == 2 and not intent.named_agents:  # "dois agentes que colaboram": a pair in turn
        return PatternChoice("prompt_chaining", modifiers, "the request asks for two agents",
                             scores)
    if stated >= 3 and not intent.named_agents:  # "each of the four checks ... its own agent"
        return PatternChoice("parallel_sectioning", modifiers,
                             f"the request asks for {stated} agents, one for each part", scores)
    if intent.named_agents:
        return PatternChoice("orchestrator_workers", modifiers, "named agents", scores)
    return PatternChoice("single_agent", modifiers, "no control-flow cue and no named roles",
                         scores)


_HUMAN_STEP = re.compile(r"\W*(the )?(human|user|you|reviewer|manager)\b|.*approv", re.I)


def _agent_steps(steps: tuple[str, ...]) -> list[str]:
    """The steps an agent does, not the gate's ("Human reviews the request")."""
    return [s for s in steps if not _HUMAN_STEP.match(s)]


def _areas(intent: IntentSpec) -> tuple[str, ...]:
    """The domain packs the request matched (the generic fallback is none)."""
    return tuple(d for d in intent.domains if d != "generic")


def _reviewer(intent: IntentSpec) -> str:
    """The named role whose duty reviews the other's work and sends it back, "" for none."""
    roles = intent.analysis.roles if intent.analysis else ()
    return next((r.name for r in roles if sends_back(r.duty)), "")


_ORCHESTRATION = re.compile(r"orchestr|orquest|оркестр|编排|オーケストレ")


def _named_orchestration_only(intent: IntentSpec) -> bool:
    """Whether the only evidence for an orchestrator is the word itself.

    "An orchestrator agent", "arquitetura de orquestração" name it; delegation or
    decomposition would describe its work.
    """
    cues = intent.analysis.cues if intent.analysis else ()
    strong = [c.phrase for c in cues if c.pattern == "orchestrator_workers" and c.weight >= 1.0]
    return bool(strong) and all(_ORCHESTRATION.search(p.lower()) for p in strong)
