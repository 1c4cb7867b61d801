"""Tools per agent: world operations ranked by relevance to its duty, and runtime builtins.

An agent the request names gets the operations of its areas ranked by BM25 against its duty
clause, read-only unless the duty asks for a change; roles that only reason keep just the
operations their duty mentions. Builtins (templates/roles/builtins.yaml) are wired where the
duty (or, for an agent without one, the request) calls for them and the security policy
allows them. Every choice carries its relevance and reason for `--explain`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from a4a.generator.plan import WHOLE_REQUEST, AgentPlan
from a4a.generator.relevance import bm25
from a4a.generator.text import TermIndex, Text, compile_terms, detect, fold, normalize
from a4a.runtime import knowledge
from a4a.runtime.ir.spec import FrameworkSpec, ToolSpec
from a4a.runtime.loader.yamlio import load_yaml_text

MAX_TOOLS = 12
# Archetypes whose work is reasoning: they keep only the operations their duty names.
REASONING = frozenset({"debater", "judge", "reviewer", "writer", "planner", "synthesizer",
                       "coordinator", "router", "communicator"})
# Read-only archetypes that may still save what they draft, and how close to the best match a
# write operation must come for that.
DRAFTERS = frozenset({"writer", "communicator"})
DRAFT_SHARE = 0.6
# An area counts as named by the work when its best operation ranks at least this share of
# the agent's best ("employee" alone names no leave request).
AREA_SHARE = 0.3


@dataclass(frozen=True)
class ToolChoice:
    """One candidate tool of one agent: kept or left out, with its relevance and why."""

    tool: str  # "pack.operation" or "builtin:<name>" / "sandbox:python"
    relevance: float
    kept: bool
    reason: str


@cache
def builtin_table() -> tuple[dict[str, Any], ...]:
    """The builtins the compiler may wire, as data."""
    ref = resources.files("a4a.templates").joinpath("roles/builtins.yaml")
    data = load_yaml_text(ref.read_text("utf-8"), "roles/builtins.yaml", trusted=True)
    return tuple(data["builtins"])


@cache
def _builtin_cues() -> dict[str, tuple[Any, Any]]:
    """Per builtin: its cues and its false friends (`not_cues`: "in-memory" is no memory)."""
    return {b["name"]: (compile_terms(b["cues"]), compile_terms(b.get("not_cues", [])))
            for b in builtin_table()}


@cache
def builtin_spec(name: str) -> ToolSpec:
    """The ToolSpec of a builtin of the table."""
    b = next(b for b in builtin_table() if b["name"] == name)
    return ToolSpec(name=b["name"], description=b["description"], input_schema=b["input_schema"],
                    implementation=b["implementation"], writes=bool(b["writes"]))


@cache
def policy_allows(name: str) -> bool:
    """Whether the output policy lets a generated framework hold this builtin."""
    from a4a.generator.policy import check_output

    probe: dict[str, Any] = {"tools": [builtin_spec(name)]}  # check_output reads the tools only
    return not check_output(FrameworkSpec.model_construct(**probe))


@cache
def _change_index() -> TermIndex:
    return TermIndex("analysis", ("duty",))


@cache
def _gloss_index() -> TermIndex:
    return TermIndex("analysis", ("glossary", "work"))


def main_language(request: str) -> str:
    """The main language of a request."""
    return detect(request).main


@lru_cache(maxsize=1024)
def gloss(text: str, lang: str) -> str:
    """English words for the work a text written in `lang` names ("" for English).

    Operation names and descriptions are English, so a duty written in German or Chinese
    ranks tools through these words (templates/lang/<code>/analysis.yaml `glossary`, `work`).
    The language is the request's: a short duty clause says too little to detect its own.
    """
    if lang == "en":
        return ""
    hits = _gloss_index().find_in(Text.of(text), lang)
    return " ".join(dict.fromkeys(h.cls.split(".", 1)[1].replace("_", " ") for h in hits))


@lru_cache(maxsize=4096)
def implies_change(duty: str, lang: str = "en") -> bool:
    """Whether a duty clause asks the agent to change something (create, update, send ...).

    `lang` is the request's language: a short clause of a German request ("newsletter
    verwalten") may read as English on its own, so its language's verbs count too.
    """
    text = Text.of(duty)
    hits = _change_index().find(text)
    if lang != "en":
        hits += _change_index().find_in(text, lang)
    return any(h.cls == "duty.change" for h in hits)


def rank_operations(plan: AgentPlan, request: str = "") -> list[ToolChoice]:
    """The world operations of the agent's areas, ranked, each kept or left out with why.

    Operations are ordered by relevance to the agent's own work (its duty clause, or for a
    structural agent its focus) and then to the whole request, so the cap drops the least
    relevant ones.
    """
    policy = knowledge.archetypes()[plan.archetype]["tools"]
    if policy == "none":
        return []
    packs = knowledge.domain_packs()
    cands = [(a.domain, n, packs[a.domain].operation(n)) for a in plan.areas for n in a.ops]
    ops = [(d, n, op) for d, n, op in cands if op is not None]
    docs = [f"{n} {op.description} {' '.join(op.keywords)}" for _, n, op in ops]
    work, lang = plan.duty or plan.focus, main_language(request) if request else "en"
    context = bm25(f"{request} {gloss(request, lang)}", docs) if request else [0.0] * len(ops)
    if work == WHOLE_REQUEST:  # its work is the request ("request" names no operation)
        own = context
    else:
        own = bm25(f"{work} {gloss(work, lang)} {plan.name.replace('_', ' ')}", docs)
    order = sorted(range(len(ops)), key=lambda i: (-own[i], -context[i], i))
    drafts = _drafted(plan, policy, [(own[i], ops[i][2].writes) for i in range(len(ops))], lang)
    rows = [_choice(plan, policy, ops[i], own[i], context[i], drafts, lang) for i in order]
    return _cap(rows, [f"{ops[i][0]}.{ops[i][2].resource}" for i in order],
                [ops[i][2].writes for i in order])


def _drafted(plan: AgentPlan, policy: str, scored: list[tuple[float, bool]],
             lang: str = "en") -> float:
    """The least relevance at which a writer may hold a change its own work names.

    A writer is read-only, but one whose work is to draft or save (replies saved as
    drafts, a report written down) gets the write operations that work names most
    strongly; infinity where it gets none.
    """
    if plan.archetype not in DRAFTERS or policy != "read" or not plan.writes:
        return float("inf")
    top = max((s for s, writes in scored if writes), default=0.0)
    if top <= 0 or not implies_change(plan.duty or plan.focus, lang):
        return float("inf")
    return DRAFT_SHARE * top


def _choice(plan: AgentPlan, policy: str, op: tuple[str, str, Any], own: float,
            context: float, drafts: float, lang: str = "en") -> ToolChoice:
    d, n, spec = op
    tool = f"{d}.{n}"
    if not plan.duty:  # a structural agent: its areas, by the archetype's policy
        may_write = policy == "write" and plan.writes
    else:
        may_write = policy == "write" and plan.writes and implies_change(plan.duty, lang)
    if spec.writes and not may_write:
        if own >= drafts:
            return ToolChoice(tool, own, True, "the work is to draft or save this")
        reason = "the duty asks for no change" if plan.duty else "read-only role"
        return ToolChoice(tool, own, False, reason)
    if plan.duty and plan.archetype in REASONING and own <= 0:
        return ToolChoice(tool, 0.0, False, "a reasoning role; its duty does not need it")
    if own > 0:
        return ToolChoice(tool, own, True, "relevant to the duty" if plan.duty
                          else "relevant to the role")
    if context > 0:
        return ToolChoice(tool, context, True, "area of the role, relevant to the request")
    return ToolChoice(tool, 0.0, True, "area of the role" if plan.duty else "area")


def _cap(rows: list[ToolChoice], groups: list[str], writes: list[bool]) -> list[ToolChoice]:
    """The rows with at most MAX_TOOLS kept, chosen in three passes over the ranking.

    First the best operation of each area (`groups`: "pack.resource" per row) that the work
    or the request names, and where it `writes`, the area's best read to check the change;
    then each pack's share of the cap, since every pack among the agent's areas was chosen
    for something the request says; then the rest by rank. No named area and no pack goes
    unserved because another's operations rank higher.
    """
    packs = [g.partition(".")[0] for g in groups]
    share = MAX_TOOLS // max(len({p for p, r in zip(packs, rows, strict=True) if r.kept}), 1)
    named = AREA_SHARE * max((r.relevance for r in rows if r.kept), default=0.0)
    chosen: dict[int, None] = {}
    for i, r in enumerate(rows):  # the best of each named area, with a read to check a change
        if r.kept and r.relevance > named and groups[i] not in {groups[k] for k in chosen}:
            chosen[i] = None
            if writes[i]:
                read = next((k for k, q in enumerate(rows) if q.kept and not writes[k]
                             and groups[k] == groups[i]), None)
                if read is not None:
                    chosen[read] = None
    for i, r in enumerate(rows):  # each pack's share
        if r.kept and i not in chosen and sum(packs[k] == packs[i] for k in chosen) < share:
            chosen[i] = None
    for i, r in enumerate(rows):
        if r.kept:
            chosen[i] = None
    keep = set(list(chosen)[:MAX_TOOLS])
    return [r if not r.kept or i in keep
            else ToolChoice(r.tool, r.relevance, False, f"over the cap of {MAX_TOOLS} tools")
            for i, r in enumerate(rows)]


@lru_cache(maxsize=256)
def cue_hits(text: str) -> dict[str, str]:
    """The builtins whose cues a text holds, with the words that cued each."""
    folded = fold(normalize(text))
    out = {}
    for name, (pat, nots) in _builtin_cues().items():
        if pat is None:
            continue
        friends = [m.span() for m in nots.finditer(folded)] if nots is not None else []
        for m in pat.finditer(folded):
            if not any(a <= m.start() and m.end() <= b for a, b in friends):
                out[name] = m.group(0)
                break
    return out


def rank_builtins(plan: AgentPlan, request: str, taken: set[str]) -> list[ToolChoice]:
    """The builtins the agent's work calls for, each kept or left out with why."""
    own = cue_hits(" ".join(x for x in (plan.duty or plan.focus, plan.name.replace("_", " "))
                            if x))
    hits = own if plan.duty else {**cue_hits(request), **own}
    out = []
    for b in builtin_table():
        word = hits.get(b["name"])
        if word is None or plan.archetype not in b["archetypes"]:
            continue
        impl = b["implementation"]
        if b["name"] in taken:
            out.append(ToolChoice(impl, 1.0, False, "a world tool has the same name"))
        elif not policy_allows(b["name"]):
            out.append(ToolChoice(impl, 1.0, False, "the output policy does not allow it"))
        else:
            out.append(ToolChoice(impl, 1.0, True, f"the work mentions {word!r}"))
    return out


def assign_request_builtins(plans: list[AgentPlan], request: str,
                            held: dict[str, list[str]], taken: set[str]) -> dict[str, list[str]]:
    """Builtins the request calls for that no agent holds yet, for the first agent that may.

    Agents are taken in topology order, so no capability the work needs goes unserved.
    """
    hits = cue_hits(request)
    have = {n for names in held.values() for n in names}
    out: dict[str, list[str]] = {}
    for b in builtin_table():
        name = b["name"]
        if name in have or name in taken or name not in hits:
            continue
        if not policy_allows(name):
            continue
        owner = next((p for p in plans if p.archetype in b["archetypes"]), None)
        if owner is not None:
            out.setdefault(owner.name, []).append(name)
    return out


def kept_ops(rows: list[ToolChoice]) -> list[tuple[str, str]]:
    """The (pack, operation) pairs of the kept rows."""
    return [(pack, op) for pack, _, op in (c.tool.partition(".") for c in rows if c.kept)]


def plan_tools(plans: Sequence[AgentPlan], request: str) -> dict[str, list[ToolChoice]]:
    """Every agent's ranked operations, plus the changes the request names that none holds.

    A request that says "send personalised emails" needs `send_email` although no agent's
    own duty asks for a change: such an operation goes to the agent that ranks it highest
    among those whose areas hold it and whose archetype takes tools, within the cap.
    """
    rows = {p.name: rank_operations(p, request) for p in plans}
    held = {r.tool for rs in rows.values() for r in rs if r.kept}
    for tool in requested_changes(plans, request):
        if tool in held:
            continue
        owners = [(r.relevance, -i, p.name) for i, p in enumerate(plans) if p.writes
                  for r in rows[p.name] if r.tool == tool
                  and sum(x.kept for x in rows[p.name]) < MAX_TOOLS]
        if not owners:
            continue
        owner = max(owners)[2]
        rows[owner] = [ToolChoice(r.tool, r.relevance, True, "the request asks for this change")
                       if r.tool == tool else r for r in rows[owner]]
        held.add(tool)
    return rows


def requested_changes(plans: Sequence[AgentPlan], request: str) -> list[str]:
    """Write operations of the agents' areas that the request names, verb and object.

    "sending personalized cold sales emails" names `send_email`: the operation's verb is a
    change word the request uses and each word of its object is in the request.
    """
    if not request:
        return []
    words = set(_WORDS.findall(fold(normalize(request))))
    packs = knowledge.domain_packs()
    out: dict[str, None] = {}
    for plan in plans:
        for area in plan.areas:
            for name in area.ops:
                op = packs[area.domain].operation(name)
                if op is not None and op.writes and _names_op(name, words):
                    out.setdefault(f"{area.domain}.{name}", None)
    return list(out)


def _names_op(name: str, words: set[str]) -> bool:
    verb, *nouns = name.split("_")
    if not nouns or not implies_change(verb):
        return False
    stem = verb[:-1] if verb.endswith("e") and len(verb) > 3 else verb
    return any(w.startswith(stem) and len(w) - len(stem) <= 3 for w in words) and all(
        any(w in (n, n + "s", n + "es") for w in words) for n in nouns)


_WORDS = re.compile(r"\w+")
