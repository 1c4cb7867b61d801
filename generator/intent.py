"""IntentParser: request text -> IntentSpec (domains, goal, capabilities, roles, cues).

The rule-based parser matches the vocabulary of the domain packs and the cue phrases of the
workflow patterns. The text is data: it is matched, never executed or rendered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol

from a4a.generator.analysis import RequestAnalysis, analyse, without_asides
from a4a.generator.domains import (
    acted_on,
    alternation,
    domain_hits,
    domain_matches,
    names_departments,
    select_domains,
    without_product,
)
from a4a.generator.naming import ascii_words
from a4a.generator.text import Text, fold, normalize
from a4a.generator.tools import gloss
from a4a.runtime import knowledge

NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "a pair of": 2, "a couple of": 2, "several": 3}
_COUNT = re.compile(
    r"\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|a pair of|a couple of)\s+"
    r"(?:[a-z-]+\s+){0,2}?([a-z]+?(?:ers|ors|ists|ants|ges|ts|es|s))\b"
)
_STOP = frozenset("a an the that which who whom to of for and or with in on at by from into as is "
                  "are be it its this these those my our your their i we you me us please can "
                  "could would should will build make create want need set up setup give team "
                  "agent agents system multi multiagent framework using use so some each every "
                  "all any then them they do does".split())


@dataclass(frozen=True)
class IntentSpec:
    """What a request asks for, as the rest of the generator needs it."""

    text: str
    goal: str
    domains: tuple[str, ...]
    capabilities: tuple[str, ...]
    roles: tuple[str, ...]
    cues: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)
    keywords: tuple[str, ...] = ()
    weak_cues: tuple[str, ...] = ()
    named_agents: tuple[str, ...] = ()
    analysis: RequestAnalysis | None = None
    domain_evidence: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pack_roles: dict[str, str] = field(default_factory=dict)  # pack -> the role title naming it
    warnings: tuple[tuple[str, str], ...] = ()


@cache
def _brands(pid: str) -> tuple[str, ...]:
    """The product names of a pack; a trailing `*` keeps only the stem ("ватсап*")."""
    pack = knowledge.domain_packs().get(pid)
    return tuple(pack.brands) if pack else ()


def _is_brand(pid: str, word: str) -> bool:
    """Whether a matched word is one of the pack's product names (or a form of one)."""
    return any(word.startswith(b[:-1]) if b.endswith("*") else word == b for b in _brands(pid))


class IntentParser(Protocol):
    """Turns request text into an IntentSpec."""

    def parse(self, text: str) -> IntentSpec:
        """Parse `text`."""
        ...


class RuleIntentParser:
    """Deterministic parser over the request analysis, the packs' vocabulary and the cues."""

    def parse(self, text: str) -> IntentSpec:
        """Parse `text` (already checked by the security policy)."""
        analysis = analyse(text)
        norm = normalize(text)[:20_000]
        work = normalize(without_product(without_asides(text)))[:20_000]
        hits, mentions = domain_matches(Text(work, work, fold(work)))
        # A multi-word phrase ("on the web", "stock market") or a product name ("WhatsApp") is
        # precise: it counts twice.
        scores = {p: sum(2 if " " in w or _is_brand(p, w) else 1 for w in h)
                  for p, h in hits.items()}
        # A lone term the request acts on with one of the pack's verbs counts as two.
        scores |= {p: 2 for p, s in scores.items() if s == 1 and acted_on(p, hits[p], norm)}
        by_role = role_packs(analysis, select_domains(scores, names_departments(norm), mentions),
                             hits)
        domains = tuple(by_role)
        packs = knowledge.domain_packs()
        chosen = domains[:MAX_PACKS] or ("generic",)
        caps, roles = [], []
        # The packs' keywords are English: a request in another language is read through its
        # English gloss too ("estado de pedidos, facturación" names orders and invoices).
        read = norm if analysis.lang == "en" else f"{norm} {gloss(text, analysis.lang)}"
        for pid in chosen:
            pack = packs[pid]
            caps += [f"{pid}.{op.name}" for op in pack.operations
                     if op.keywords and alternation(tuple(op.keywords)).search(read)]
            roles += [f"{pid}.{r.name}" for r in pack.roles
                      if r.keywords and alternation(tuple(r.keywords)).search(read)]
        named = tuple(r.name for r in analysis.roles)
        strong = tuple(sorted({c.pattern for c in analysis.cues if c.weight >= 1.0}))
        weak = tuple(sorted({c.pattern for c in analysis.cues if c.weight < 1.0}))
        return IntentSpec(
            text=text, goal=_goal(norm), domains=chosen, capabilities=tuple(caps),
            roles=tuple(roles), cues=strong, counts=_counts(norm),
            keywords=_keywords(norm), weak_cues=weak,
            named_agents=named if len(named) >= 2 else named_agents(norm),
            analysis=analysis, domain_evidence={p: hits.get(p, ()) for p in domains},
            warnings=_warnings(analysis, domains),
            pack_roles={p: t for p, t in by_role.items() if t},
        )


MAX_PACKS = 8


def role_packs(analysis: RequestAnalysis, domains: tuple[str, ...],
               found: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """`domains` plus, for each named role (or titled step) no chosen pack covers, its pack.

    Returns every pack in order, each with the title of the role that added it ("" for the
    packs the request's words chose).

    The two-pack limit keeps a request's passing words from pulling in packs; a role's title
    is no passing word ("Agent Météo", "calendar analyst"): a team of specialists each
    named after a domain needs each domain's operations. A role whose title holds a chosen
    pack's term is covered (its duty may pass through another pack's words: "a weather
    agent checks the forecast for the trip"); else the best-scoring pack of its title's
    words is added (ties by name), up to MAX_PACKS in all.
    """
    out = dict.fromkeys(domains, "")
    titles = [(r.title, f"{r.title} {r.name.replace('_', ' ')}") for r in analysis.roles]
    # ... or, where no role is named, the titles of numbered steps ("1. 天気調査: 週末の予報を
    # 確認"): each a stage of a chain.
    titles += [(t, t) for step in (analysis.numbered if not titles else ())
               if (t := re.split(r"[:：]", step, maxsplit=1)[0].strip()) != step.strip()]
    for written, named in titles if len(titles) >= 2 else ():
        title = normalize(named)
        # Only terms the whole request's reading kept: its sense rules see the context
        # ("Finance Agent for detailed financial analysis" is no expense clerk).
        hits = {p: h for p, h in domain_hits(Text(title, title, fold(title))).items()
                if set(h) & set(found.get(p, ()))}
        if not hits or set(hits) & set(out) or len(out) >= MAX_PACKS:
            continue
        best = min(hits, key=lambda p: (-len(hits[p]), p))
        if not any(_serves(p, t) for p in out for t in hits[best]):
            out[best] = written
    return out


@cache
def _pack_text(pack: str) -> str:
    """The words of a pack's operations: names, descriptions and parameter names."""
    p = knowledge.domain_packs().get(pack)
    ops = p.operations if p else ()
    return " ".join(f"{o.name} {o.description} {' '.join(x.name for x in o.params)}"
                    for o in ops).replace("_", " ").lower()


def _serves(pack: str, term: str) -> bool:
    """Whether a chosen pack's operations already deal with a role's term.

    "insurance" at a clinic: the healthcare pack records each patient's insurance.
    """
    return re.search(rf"\b{re.escape(term)}\b", _pack_text(pack)) is not None


def _warnings(analysis: RequestAnalysis, domains: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    if not domains:
        out.append(("domain.none", "no domain pack covers this request: the agents get builtin "
                    "tools only and the framework has no verifiable world tasks"))
    if analysis.not_understood:
        quoted = "; ".join(f'"{s}"' for s in analysis.not_understood[:3])
        out.append(("lang.partial", f"{len(analysis.not_understood)} sentence(s) in "
                    f"{analysis.lang} matched no known role, cue or domain term: {quoted}"))
    return tuple(out)


_ROLE_NOUNS = ("agent|agents|expert|specialist|clerk|liaison|guide|handler|drafter|archiver|"
               "counter|analyst|reviewer|writer|editor|researcher|checker|scout|advisor|"
               "assistant|bot|coordinator|responder|scheduler|tracker|monitor|auditor|"
               "translator|summarizer|summariser|classifier|planner|negotiator|recruiter")
_NAMED = re.compile(rf"\b(?:an?|one|the) ((?:[a-z][a-z-]*[ ]){{1,2}}?)({_ROLE_NOUNS})\b")
_NOT_NAMES = frozenset("single simple small helpful little lead worker second third first other "
                       "separate new ai llm smart dedicated final main ai-powered each".split())


def named_agents(norm: str) -> tuple[str, ...]:
    """Agents the request names in a list ("an orders agent, a returns agent"), as slugs."""
    out: dict[str, None] = {}
    for mod, noun in _NAMED.findall(norm):
        words = [w for w in mod.split() if w not in _STOP and w not in _NOT_NAMES]
        if not words or len(words) != len(mod.split()):
            continue
        slug = re.sub(r"[^a-z0-9]+", "_", " ".join([*words, noun.rstrip("s")])).strip("_")
        if slug and slug[0].isalpha():
            out.setdefault(slug[:40], None)
    return tuple(out)[:8] if len(out) >= 2 else ()


def _counts(norm: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for num, noun in _COUNT.findall(norm):
        n = int(num) if num.isdigit() else NUMBERS.get(num, 0)
        if 1 <= n <= 12:
            out.setdefault(noun, n)
    return out


def _keywords(norm: str) -> tuple[str, ...]:
    """The request's first content words in ASCII, any language (the framework's name)."""
    seen = dict.fromkeys(w for w in ascii_words(norm) if w not in _STOP)
    return tuple(seen)[:12]


def _goal(norm: str) -> str:
    first = re.split(r"(?<=[.!?])\s", norm, maxsplit=1)[0]
    return first[:200].rstrip(" .!?")
