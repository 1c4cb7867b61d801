"""The term classes the request policy reads: its compiled rules and each sentence's classes.

Shared by the rules (`generator/policy.py`) and the learned screen (`generator/policy_model.py`),
which both read a request through the same readings and the same classes.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

from a4a.generator.text import Hit, TermIndex, Text, tables
from a4a.runtime.loader.yamlio import load_yaml_text

WORDS = re.compile(r"[^\W\d_]{2,}")
_SPLIT_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011](?=[^\W\d_])")
_BASE64 = re.compile(r"(?<![\w+/])[A-Za-z0-9+/]{16,}={0,2}")
# Latin text run into CJK text ("能用sudo的shell"): no word boundary between them, so a reading
# with a space at each change of script is screened too.
_SCRIPT_CHANGE = re.compile(r"(?<=[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f])(?=[A-Za-z0-9])"
                            r"|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f])")
# Borrowed vocabulary read in its English form whatever the sentence's language.
_SECTIONS = ("verbs", "objects", "modifiers", "ownership")
_ANYWHERE = ("objects.credential", "objects.malware", "objects.shell")


@dataclass(frozen=True)
class Intent:
    """One intent rule: each `need` group must be met (any class of it), no `unless` class."""

    code: str
    need: tuple[frozenset[str], ...]
    unless: frozenset[str]


@dataclass(frozen=True)
class Waiver:
    """Keyword matches of `codes` are waived in a sentence with a `when` class, no `unless`."""

    codes: frozenset[str]
    when: frozenset[str]
    unless: frozenset[str]


@dataclass(frozen=True)
class Rules:
    """The compiled policy: keyword rules, their waivers, and the intent rules."""

    keywords: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    waivers: tuple[Waiver, ...]
    intents: tuple[Intent, ...]
    before: frozenset[str]
    negates: dict[str, frozenset[str]]


@cache
def rules() -> Rules:
    """The policy of `templates/policy.yaml`, compiled once."""
    text = resources.files("a4a.templates").joinpath("policy.yaml").read_text("utf-8")
    data = load_yaml_text(text, "policy.yaml", trusted=True)
    waivers = tuple(Waiver(frozenset(w["codes"]), frozenset(w["when"]), frozenset(w["unless"]))
                    for w in data["waivers"])
    intents = tuple(
        Intent(code, tuple(frozenset(group.split()) for group in rule["need"]),
               frozenset(rule.get("unless", ())))
        for code, rules in data["intents"].items() for rule in rules)
    return Rules(tuple((code, tuple(re.compile(p) for p in pats))
                       for code, pats in data["rules"].items()),
                 waivers, intents, frozenset(data["clear_from_before"]),
                 {cls: frozenset(gone) for cls, gone in data["negations"].items()})


@cache
def indexes() -> tuple[TermIndex, TermIndex]:
    """The shared lexicon (less the terms the policy's tables drop) and the policy's own terms.

    A policy table may add terms to a lexicon class (same section and class name) and drop
    lexicon terms too broad for a refusal (`drop: {"objects.person": [date]}`).
    """
    drop = {(cls, lang, term) for lang, data in tables("policy").items()
            for cls, items in (data.get("drop") or {}).items() for term in items}
    return (TermIndex("lexicon", _SECTIONS, drop),
            TermIndex("policy", ("cues", *_SECTIONS)))


def readings(text: str) -> list[Text]:
    """The readings of a request that the policy screens, the request itself first.

    Base64 fragments are decoded and appended. Where a hyphen splits a word ("ex-filtrate",
    "cust-omer") the text is also read with those hyphens dropped, and Latin words run into CJK
    text are read apart ("用sudo的").
    """
    full = " \n".join([text, *decoded_fragments(text)])
    nfkc = unicodedata.normalize("NFKC", full)  # a full-width hyphen splits words too
    joined = _SPLIT_HYPHEN.sub("", nfkc)
    spaced = _SCRIPT_CHANGE.sub(" ", nfkc)
    variants = dict.fromkeys([full, joined, *([spaced] if spaced != nfkc else [])])
    return [Text.of(v) for v in variants]


def decoded_fragments(text: str) -> list[str]:
    """The readable text hidden in base64 fragments of `text` (a hostile aim can hide there)."""
    out = []
    for m in _BASE64.finditer(text):
        chunk = m.group(0)
        try:
            raw = base64.b64decode(chunk + "=" * (-len(chunk) % 4), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if WORDS.search(decoded) and all(c.isprintable() or c.isspace() for c in decoded):
            out.append(decoded)
    return out


def pooled_classes(texts: list[Text]) -> list[set[str]]:
    """The classes of each sentence of the first reading, pooled over the readings.

    "made-up" stays "made up" in the first reading; the classes of a reading with another
    count of sentences are left out.
    """
    sentences = classes(texts[0])
    for other in texts[1:]:
        more = classes(other)
        if len(more) == len(sentences):
            sentences = [a | b for a, b in zip(sentences, more, strict=True)]
    return sentences


def classes(text: Text) -> list[set[str]]:
    """The term classes found in each sentence of `text`."""
    starts = [s for s, _ in text.segments]
    lexicon, own = indexes()
    hits = unnegated(lexicon.find(text, _ANYWHERE) + own.find(text))
    out: list[set[str]] = [set() for _ in starts]
    for h in hits:
        i = max(0, sum(s <= h.start for s in starts) - 1)
        out[i].add(h.cls)
    return out


def unnegated(hits: list[Hit]) -> list[Hit]:
    """`hits` less those that start inside a hit of a class that negates them.

    "without her consent" holds no consent, "without checking them" no guard, "never sends
    customer data outside" no sending out: the words of the negating term are read in its
    sense alone (`negations` in templates/policy.yaml).
    """
    negates = rules().negates
    spans = [(h.start, h.end, negates[h.cls]) for h in hits if h.cls in negates]
    return [h for h in hits
            if not any(s <= h.start < e and h.cls in gone for s, e, gone in spans)]
