"""Domain pack selection: keyword, vocabulary and sense matching with the precision rules.

A pack counts the distinct terms of its vocabulary found in the request; a term inside a
longer term of another pack does not count, nor does one whose sense rule sees another sense
in the same sentence. The best pack is kept, a secondary needs two distinct hits, and at most
two packs are kept unless the request names departments or teams.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from a4a.generator.text import (
    Text,
    compile_terms,
    fold,
    has_cjk,
    literal_regex,
    normalize,
    term_tokens,
    terms,
)
from a4a.runtime import knowledge


@cache
def alternation(words: tuple[str, ...]) -> re.Pattern[str]:
    """Whole-word alternation of English keywords; plurals and verb forms match.

    A word ends at a Chinese or Japanese character too ("Slack上で", "用Notion记录").
    """
    forms = set(words) | {w[:-1] + "ing" for w in words if w.endswith("e") and len(w) > 3}
    return re.compile(rf"{_LATIN_START}(?:{literal_regex(w.lower() for w in forms)})"
                      rf"(?:s|es|d|ed|ing)?{_LATIN_END}")


_LATIN = r"0-9A-Za-z_\u00c0-\u024f\u0400-\u04ff"
_LATIN_START, _LATIN_END = rf"(?<![{_LATIN}])", rf"(?![{_LATIN}])"


@cache
def _domain_matchers() -> dict[str, tuple[re.Pattern[str], ...]]:
    """Per pack: its English keywords (plurals match), then its other-language vocabulary."""
    out: dict[str, tuple[re.Pattern[str], ...]] = {}
    for pid, pack in knowledge.domain_packs().items():
        if pid == "generic":
            continue
        other = compile_terms(_vocabulary(pid))
        out[pid] = (alternation(tuple(pack.keywords)), *((other,) if other else ()))
    return out


def _vocabulary(pid: str) -> list[str]:
    return [w for ws in knowledge.domain_packs()[pid].vocabulary.values() for w in ws]


@dataclass(frozen=True)
class _Gate:
    """Literals a text must hold for any of a pack's vocabulary terms to match.

    One word of each term, the most selective: a whole word, a word's start, or else a
    substring (suffixes, infixes, Chinese and Japanese). Scanning a pack's vocabulary costs a
    regex pass; most texts hold none of its literals and skip it.
    """

    words: frozenset[str]
    starts: frozenset[str]
    inner: tuple[str, ...]

    @staticmethod
    def of(items: list[str]) -> _Gate:
        words: set[str] = set()
        starts: set[str] = set()
        inner: set[str] = set()
        for term in items:
            kind, core = _gate_literal(term)
            {"=": words, "^": starts}.get(kind, inner).add(core)
        return _Gate(frozenset(words), frozenset(starts), tuple(sorted(inner)))

    def admits(self, text: Text, tokens: frozenset[str], starts: frozenset[str]) -> bool:
        """Whether `text` (its words `tokens`, their beginnings `starts`) may hold a term."""
        if not self.words.isdisjoint(tokens) or "" in self.inner:
            return True
        if not self.starts.isdisjoint(starts):
            return True
        return any(core in text.fold for core in self.inner)


def _gate_literal(term: str) -> tuple[str, str]:
    """The most selective (kind, core) of a term; ("%", "") when it has no plain literal."""
    if has_cjk(term):
        cores = fold(normalize(term.replace("*", " ").replace("~", " "))).split()
        return ("%", max(cores, key=len)) if cores else ("%", "")
    toks = [(k, c) for k, c in term_tokens(term) if k != "~" and _WORD.fullmatch(c)]
    for kind in ("=", "^"):
        cores = [c for k, c in toks if k == kind]
        if cores:
            return kind, max(cores, key=len)
    return ("%", max((c for _, c in toks), key=len)) if toks else ("%", "")


@cache
def _gates() -> dict[str, _Gate]:
    return {pid: _Gate.of(_vocabulary(pid)) for pid in _domain_matchers()}


@cache
def _senses() -> dict[str, tuple[tuple[str, re.Pattern[str], str], ...]]:
    out = {}
    for pid, pack in knowledge.domain_packs().items():
        rows: list[tuple[str, re.Pattern[str], str]] = []
        for s in pack.senses:
            pat = compile_terms(s.unless)
            if pat is not None:
                rows.append((fold(normalize(s.term)), pat, s.scope))
        out[pid] = tuple(rows)
    return out


_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?;\n。！？；]")


def domain_hits(text: Text) -> dict[str, tuple[str, ...]]:
    """Distinct terms of each pack found in the text, after sense rules and longest match.

    A hit inside a longer hit of another pack does not count ("stock" inside "stock market"),
    nor does a keyword whose sense rule sees another sense in the same sentence.
    """
    return domain_matches(text)[0]


def domain_matches(text: Text) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """`domain_hits` and, per pack, how many times its terms occur (repeats included)."""
    spans: list[tuple[int, int, str, str]] = []
    tokens = frozenset(_WORD.findall(text.fold))
    starts = frozenset(t[:n] for t in tokens for n in range(1, len(t) + 1))
    gates = _gates()
    for pid, pats in _domain_matchers().items():
        for i, pat in enumerate(pats):
            if i and not gates[pid].admits(text, tokens, starts):
                continue
            src = text.norm if i == 0 else text.fold
            spans += [(m.start(), m.end(), pid, m.group(0)) for m in pat.finditer(src)]
    out: dict[str, dict[str, str]] = {}
    mentions: dict[str, int] = {}
    for start, end, pid, word in spans:
        if any(s <= start and end <= e and (e - s) > (end - start) and p != pid
               for s, e, p, _ in spans):
            continue
        if _sense_excludes(pid, word, text.norm, start):
            continue
        out.setdefault(pid, {}).setdefault(_singular(word), word)
        mentions[pid] = mentions.get(pid, 0) + 1
    return {pid: tuple(sorted(ws.values())) for pid, ws in sorted(out.items())}, mentions


def _singular(word: str) -> str:
    """The key two forms of one term share ("issue", "issues")."""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def _sense_excludes(pid: str, word: str, norm: str, pos: int) -> bool:
    rules = [(pat, scope) for term, pat, scope in _senses().get(pid, ()) if word.startswith(term)]
    if not rules:
        return False
    begin = max((m.end() for m in _SENTENCE_END.finditer(norm, 0, pos)), default=0)
    end_m = _SENTENCE_END.search(norm, pos)
    sentence = fold(norm[begin:end_m.start() if end_m else len(norm)])
    return any(pat.search(fold(norm) if scope == "request" else sentence) for pat, scope in rules)


def domain_scores(norm: str) -> dict[str, int]:
    """Distinct keywords of each pack found in the normalised text."""
    hits = domain_hits(Text(norm, norm, fold(norm)))
    return {pid: len(hits.get(pid, ())) for pid in _domain_matchers()}


_DEPARTMENT_WORDS = re.compile(r"\b(?:departments?|divisions?|sub-?teams?|org chart|"
                               r"business units?|desks? for)\b")
_TEAM = re.compile(r"\b([a-z][a-z-]*) teams?\b")
_NOT_DEPARTMENT = frozenset("a an the agent agents ai our your their this that whole entire "
                            "multi-agent small one each every same".split())


def names_departments(norm: str) -> bool:
    """Whether the request names departments: the word, or two distinct "<x> team"s."""
    if _DEPARTMENT_WORDS.search(norm):
        return True
    teams = {m.group(1) for m in _TEAM.finditer(norm) if m.group(1) not in _NOT_DEPARTMENT}
    return len(teams) >= 2


def select_domains(scores: dict[str, int], departments: bool = True,
                   mentions: dict[str, int] | None = None) -> tuple[str, ...]:
    """The best-scoring pack, plus others with at least two distinct hits.

    At most two packs unless the request names departments or teams. Packs of equal score
    rank by how often the request names them (a topic the whole text returns to before a tool
    it names once), then by name.
    """
    top = max(scores.values(), default=0)
    often = mentions or {}
    ranked = sorted((p for p, s in scores.items() if s),
                    key=lambda p: (-scores[p], -often.get(p, 0), p))
    if departments:
        return tuple(ranked[:8])
    return tuple(p for p in ranked if scores[p] == top or scores[p] >= 2)[:2]


# An action on a pack's lone term: the verb of one of its operations this few words before
# the term ("sends ... by email") or right after it ("emails sent"). Verbs that as often name
# a thing ("a web search", "the list") do not count.
_VERB_BEFORE, _VERB_AFTER = 4, 2
_SEND_BEFORE = 5  # "envoie le tout dans un email"
_WEAK_VERBS = frozenset({"list", "get", "search"})


@cache
def _op_verbs() -> dict[str, re.Pattern[str]]:
    """Per pack: the verbs of its operations, in their inflected forms.

    The verbs its operation names start with, and the change verbs among their one-word
    keywords ("write" and "compose" of `save_draft`).
    """
    change = compile_terms(t for lang, t in terms("analysis", "duty").get("change", ())
                           if lang == "en")
    out = {}
    for pid, pack in knowledge.domain_packs().items():
        verbs = {op.name.split("_", 1)[0] for op in pack.operations}
        verbs |= {k for op in pack.operations for k in op.keywords
                  if " " not in k and change is not None and change.fullmatch(k)}
        verbs -= _WEAK_VERBS
        stems = {v[:-1] if v.endswith("e") and len(v) > 3 else v for v in verbs}
        out[pid] = re.compile(rf"^(?:{'|'.join(sorted(map(re.escape, stems)))})"
                              r"(?:e|es|s|ed|d|ing)?$")
    return out


def acted_on(pid: str, terms: tuple[str, ...], norm: str) -> bool:
    """Whether the request acts on one of the pack's terms with one of its operations' verbs.

    "sends the report by email" names the email pack through `send_email`: a lone term with
    such a verb beside it is as plain as two distinct terms.
    """
    verbs = _op_verbs().get(pid)
    heads = {t.split()[0] for t in terms if t.split()}
    if verbs is None or not heads:
        return False
    sends = any(op.name.startswith("send") for op in knowledge.domain_packs()[pid].operations)
    for sentence in _SENTENCE_END.split(norm):
        words = _WORD.findall(sentence)
        for i, w in enumerate(words):
            if w in heads:
                near = words[max(0, i - _VERB_BEFORE):i] + words[i + 1:i + 1 + _VERB_AFTER]
                wide = words[max(0, i - _SEND_BEFORE):i] + words[i + 1:i + 1 + _VERB_AFTER]
                if any(verbs.match(x) for x in near) or (
                        sends and any(_SENDS.match(x) for x in wide)):
                    return True
    return False


# Sending in the other Latin and Cyrillic languages ("envoie le tout dans un email"): a lone
# term of a pack that sends, with one of these beside it, is acted on.
_SENDS = re.compile(r"^(?:envoi\w*|envoy\w*|envi[aoeá]\w*|envía\w*|mand[aeo]\w*|schick\w*|"
                    r"verschick\w*|versend\w*|sendet|отправ\w*|присыла\w*|пришл\w*)$")


# Work on a product ("develops the Expense Tracker app", "le développement du projet Expense
# Tracker"): the product's name says what the software is about, not which systems the agents
# work with, and the work is software development.
_DEV = (r"(?:build(?:s|ing)?|develop(?:s|ing)?|development of|cod(?:e|es|ing)|"
        r"implement(?:s|ing)?|d[ée]velopp(?:ement|er|e|ent)|desarroll(?:o|ar|a|an)|"
        r"desenvolv(?:imento|er|e|em)|entwickl(?:ung|en|t)|construire|constru(?:ir|ye|yen))")
_ART = (r"(?:an?|the|our|my|your|du|de la|de l'|d'une?|le|la|les|l'|une?|des|del|de|el|los|"
        r"las|uma?|o|os|as|do|da|der|die|das|ein(?:e|en)?|unser(?:e|en)?)")
_PRODUCT = (r"(?:apps?|applications?|web ?apps?|websites?|site web|sitio web|plataforma|"
            r"platforms?|plateforme|saas|mvps?|prototypes?|projects?|projet|proyecto|projeto|"
            r"projekt|aplicaci[oó]n|aplicativo|aplica[cç][aã]o|anwendung|logiciel)")
_NAMED_BEFORE = re.compile(rf"\b{_DEV}\s+{_ART}\s*((?:[\w'-]+\s+){{1,4}}?){_PRODUCT}\b",
                           re.IGNORECASE)
_NAMED_AFTER = re.compile(rf"(?i:\b{_DEV}\s+(?:{_ART}\s*)?{_PRODUCT})\s+"
                          r"((?:[A-Z][\w-]*\s?){1,3})")
DEVELOPMENT = "software development"


def without_product(raw: str) -> str:
    """The request with the name of the product its agents develop blanked out.

    "Software development" is added where there is one; otherwise the request is unchanged.
    """
    out, found = raw, False
    for pat in (_NAMED_BEFORE, _NAMED_AFTER):
        for m in reversed(list(pat.finditer(out))):
            if m.group(1).strip():
                out, found = out[:m.start(1)] + " " + out[m.end(1):], True
    return f"{out} ({DEVELOPMENT})" if found else raw
