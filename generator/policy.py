"""Security policy: deny by default. Requests are screened before parsing; output after.

Two kinds of rule, both data in `templates/policy.yaml`, read on the shared text layer
(`generator/text.py`: NFKC, case folding, invisible characters removed, leetspeak and
look-alikes folded, split words joined) in the eight languages of its tables:

- intent rules: term classes that must meet in one stretch of two sentences (a verb, an
  object, a target or a covertness cue, from `templates/lang/<code>/lexicon.yaml` and the
  policy's own `templates/lang/<code>/policy.yaml`), unless a class that makes it benign is
  there too ("with her consent", "spam");
- keyword rules: regexes for what is never built (payloads, host paths, shell pipes). A
  keyword match is waived when its own sentence asks to detect, guard against or explain the
  thing ("spot CEO-fraud emails", "what does `sudo rm -rf /` do") and holds no hostile cue.

Base64 fragments are decoded and read too (`generator/policy_terms.py` reads the classes).

When no rule refuses, a learned second stage may (`generator/policy_model.py`, weights in
`templates/policy_model.json`): a logistic regression over the same term classes, the intents
met but for one group, and the content words. It refuses (`hostile_intent`) only a request that
comes within one class of an intent rule, at a score the tuning data's cross-validation sets (1%
of its benign requests, and 0.1 above every real request), and never overrides a rule. On the
fresh batch it takes hostile requests contained from 92.5% to 94.0% (served 15 -> 12), benign
refused unchanged at 4.0% (every one a rule's); held-out 96.9% -> 99.0% contained, benign 1.2%
-> 2.3% (one request of 86).

A refusal raises RefusedError whose code names the reason (secret_access, unrestricted_shell,
write_outside_workspace, arbitrary_network, deceptive, destructive, template_injection,
covert_surveillance, exfiltration, discrimination, network_abuse, hostile_intent); a learned
refusal also carries its score, threshold and strongest features.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from a4a.generator import policy_model
from a4a.generator.policy_terms import WORDS as _WORDS
from a4a.generator.policy_terms import Intent, Waiver, decoded_fragments, pooled_classes, readings
from a4a.generator.policy_terms import classes as _classes
from a4a.generator.policy_terms import rules as _rules
from a4a.generator.text import Text
from a4a.runtime import knowledge
from a4a.runtime.errors import RefusedError, UserError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec

__all__ = ["check_output", "check_request", "decoded_fragments", "explain", "screen"]

MAX_REQUEST_CHARS = 20_000
# A waiver reads the whole clause: "explain this command: sudo ..." is one.
_CLAUSE = re.compile(r"(?:[^.!?。！？\n]|\.(?=[\w/~]))+[.!?。！？\n]*")
# A piece that ends in a colon after a few words is a label ("- Tool:"), read with what
# follows it, by the rules of these codes (code run outside the sandbox, written as a spec).
_LABEL_CHARS = 24
_SPEC_CODES = frozenset({"unrestricted_shell"})
# How a question ends (Japanese asks with a closing "か。").
_QUESTION = ("?", "？", "か。", "か")


def check_request(text: object) -> None:
    """Raise UserError for unusable input and RefusedError for a denied request."""
    if not isinstance(text, str):
        raise UserError("request.type", "the request must be text", "Pass a string.")
    if len(text) > MAX_REQUEST_CHARS:
        raise UserError("request.too_long", f"the request has {len(text)} characters, over "
                        f"{MAX_REQUEST_CHARS}", "Describe the framework in fewer words.")
    if not _WORDS.search(text):
        raise UserError("request.empty", "the request has no words to build from",
                        'Describe the agents you want, e.g. "a team that triages GitHub issues".')
    verdict = decide(text)
    if verdict is None:
        return
    if verdict.score is None:
        raise RefusedError(verdict.code, f"refused ({verdict.code}): the request asks for "
                           f"something a4a never builds: {verdict.match!r}", "Remove that part "
                           "of the request; generated frameworks only act through their own "
                           "tools.", reason=verdict.code, match=verdict.match)
    th = policy_model.load().threshold
    raise RefusedError(verdict.code, f"refused ({verdict.code}): no rule matched, but the "
                       f"learned screen scores the request {verdict.score:.2f} (it refuses at "
                       f"{th:.2f}) on the evidence {verdict.match}", "Rephrase to say whose "
                       "data, accounts or systems the agents act on and why that is allowed "
                       "(\"our own servers\", \"with her consent\", \"to detect ...\"); the "
                       "decision came from the learned screen (templates/policy_model.json), "
                       "which reads the same term classes as the rules.",
                       reason=verdict.code, match=verdict.match, score=verdict.score,
                       threshold=th)


@dataclass(frozen=True)
class Verdict:
    """Why a request is refused: a reason code, the evidence, and the learned score if any.

    A rule's verdict names the text it matched; the learned screen's names the features that
    weighed most, and carries its score (`score` is None for a rule).
    """

    code: str
    match: str
    score: float | None = None


def screen(text: str) -> tuple[str, str] | None:
    """Why the request is refused, as (reason code, matched text or evidence), else None.

    The first policy rule it breaks decides; if none does, the learned screen may refuse it.
    """
    verdict = decide(text)
    return (verdict.code, verdict.match) if verdict else None


def decide(text: str) -> Verdict | None:
    """The rules' verdict on a request, then (if they let it pass) the learned screen's.

    Every reading of the request is screened (`policy_terms.readings`: base64 decoded, split
    words joined, Latin run into CJK read apart); the intent rules and the learned screen see
    the classes of every reading pooled. The learned screen never overrides a rule.
    """
    texts = readings(text)
    sentences = pooled_classes(texts)
    rule = (_screen_intents(texts[0], sentences)
            or next((r for t in texts if (r := _screen_keywords(t.raw))), None))
    if rule:
        return Verdict(*rule)
    feats = policy_model.features(sentences, _rules().intents, texts[0].fold)
    score = policy_model.score(feats)
    if policy_model.near_rule(feats) and score >= policy_model.load().threshold:
        evidence = [policy_model.nearest_rule(feats), *policy_model.evidence(feats)]
        return Verdict("hostile_intent", ", ".join(dict.fromkeys(evidence)), round(score, 3))
    return None


def _screen_intents(text: Text, sentences: list[set[str]]) -> tuple[str, str] | None:
    """An intent met within a sentence and the next (consent may also stand just before).

    `sentences` are the classes of the readings of `text`, pooled. The rules of
    `_SPEC_CODES` also read a specification's labels joined to their values.
    """
    starts = [s for s, _ in text.segments] + [len(text.fold)]
    joined, joined_starts = _join_labels(text, sentences)
    return (_first_intent(text, sentences, starts, _rules().intents)
            or _first_intent(text, joined, joined_starts,
                             [r for r in _rules().intents if r.code in _SPEC_CODES]))


def _first_intent(text: Text, sentences: list[set[str]], starts: list[int],
                  rules: list[Intent] | tuple[Intent, ...]) -> tuple[str, str] | None:
    for i in range(len(sentences)):
        need = set().union(*sentences[i:i + 2])
        near = need.union(*(c & _rules().before for c in sentences[max(0, i - 1):i]))
        for rule in rules:
            if all(group & need for group in rule.need) and not rule.unless & near:
                end = starts[min(i + 2, len(starts) - 1)]
                return rule.code, text.fold[starts[i]:end].strip()[:80]
    return None


def _join_labels(text: Text, sentences: list[set[str]]) -> tuple[list[set[str]], list[int]]:
    """The sentences' classes with each short label ("- Where it runs:") joined to what follows.

    A specification's lines are cut at every colon; read apart, "Tool: a code runner" and
    "Where it runs: on the host, no sandbox" would fall outside one window. Returns the
    classes and the start of each joined sentence, with the end of the text last.
    """
    bounds = [s for s, _ in text.segments] + [len(text.fold)]
    joined: list[set[str]] = []
    starts: list[int] = []
    open_label = False
    for i, classes in enumerate(sentences):
        if open_label:
            joined[-1] |= classes
        else:
            joined.append(set(classes))
            starts.append(bounds[i])
        piece = text.fold[bounds[i]:bounds[i + 1]].strip()
        open_label = _is_label(piece)
    return joined, [*starts, len(text.fold)]


def _is_label(piece: str) -> bool:
    """Whether a piece of text ends in a specification label ("- Where it runs:", "Tool:").

    A label is a few words, then a colon; a sentence that introduces a list is none.
    """
    if not piece.endswith((":", "\uff1a")):
        return False
    label = piece.rsplit(" - ", 1)[-1].lstrip("-*\u2022 ")  # "... value - Where it runs:"
    return len(label) <= _LABEL_CHARS and len(label.split()) <= 3


def _screen_keywords(full: str) -> tuple[str, str] | None:
    rules = _rules()
    text = Text.of(full)
    for variant in (text.norm, text.fold):
        clauses = [(m.start(), m.group(0)) for m in _CLAUSE.finditer(variant)]
        starts = [start for start, _ in clauses]
        found: dict[int, set[str]] = {}  # clause index -> its classes, computed once
        for code, patterns in rules.keywords:
            mine = [w for w in rules.waivers if code in w.codes]
            for pat in patterns:
                for m in pat.finditer(variant):
                    i = bisect_right(starts, m.start()) - 1
                    if mine and i >= 0 and _waived(mine, clauses, found, i):
                        continue
                    return code, m.group(0)[:80]
    return None


def _waived(waivers: list[Waiver], clauses: list[tuple[int, str]], found: dict[int, set[str]],
            i: int) -> bool:
    """Whether a waiver holds in clause `i`, or in it and the question right after it.

    "A colleague told me to run `sudo ...`. What will it delete?" asks about the command in
    its second clause. Classes are kept in `found`, computed once per clause.
    """
    held = [_clause_classes(clauses, found, i)]
    if i + 1 < len(clauses) and clauses[i + 1][1].rstrip().endswith(_QUESTION):
        held.append(held[0] | _clause_classes(clauses, found, i + 1))
    return any(c & w.when and not c & w.unless for w in waivers for c in held)


def _clause_classes(clauses: list[tuple[int, str]], found: dict[int, set[str]],
                    i: int) -> set[str]:
    if i not in found:
        found[i] = set().union(*_classes(Text.of(clauses[i][1])))
    return found[i]


def explain(text: str) -> dict[str, Any]:
    """The term classes the policy found in each sentence, and its verdict (for --explain)."""
    t = Text.of(text)
    sentences = [t.fold[s:e].strip() for (s, _), e in
                 zip(t.segments, [s for s, _ in t.segments[1:]] + [len(t.fold)], strict=True)]
    verdict = decide(text)
    feats = policy_model.features_of(text)
    return {"sentences": [{"text": s, "classes": sorted(c)}
                          for s, c in zip(sentences, _classes(t), strict=True)],
            "learned": {"score": round(policy_model.score(feats), 3),
                        "near_rule": policy_model.near_rule(feats),
                        "threshold": policy_model.load().threshold,
                        "evidence": policy_model.evidence(feats)},
            "refused": {"reason": verdict.code, "match": verdict.match,
                        **({"score": verdict.score} if verdict.score is not None else {})}
            if verdict else None}


def check_output(spec: FrameworkSpec) -> list[Issue]:
    """The tools a generated framework may not hold, whatever the request asked for.

    One table decides (`knowledge.generated_may_hold`): world operations, vetted MCP servers,
    sandboxed code and the workspace, web and clock builtins (web tools answer
    `network_disabled` until a run enables the network). Shells, `http_get`, import paths and
    unvetted MCP servers are refused.
    """
    return [Issue("policy.capability", f"tools[{i}]", f"generated tool {t.name!r} uses "
                  f"{t.implementation}, which generated frameworks may not have",
                  "Remove the tool.")
            for i, t in enumerate(spec.tools) if not knowledge.generated_may_hold(t.implementation)]
