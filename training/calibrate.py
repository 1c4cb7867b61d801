"""The call/no-call decision as a number: P(the reply opens a tool call), and a cut fitted on it.

Greedy decoding calls a tool whenever the call's first token is the likeliest, so a model that
has learnt "a call usually follows the tools block" calls even when no tool fits, though it
may still rank fitting tools above unfitting ones. `CallProbe` reads that ranking (one forward
pass, no decoding); `auc` says how well it separates, `best_threshold` (balanced accuracy) or
`strict_threshold` (a bound on wrong calls) fits a cut on rows whose answer is known (a4a's
own held-out rows, never a benchmark's items), and a decoder calls only at or above the cut
(`bench/bfcl.py --call-threshold`).

`name_overlap` is the model-independent gate beside it: how much of an offered tool's name the
request mentions, with a cut fitted the same way (`bench/bfcl.py --relevance-cut`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

CALL_OPENING = "<tool_call>"  # the Hermes text mode's call (training.recipe.MODE)
# Function words that say nothing about which tool fits; tool names and requests share them.
STOPWORDS = frozenset({
    "the", "and", "for", "with", "from", "this", "that", "these", "those", "into", "onto",
    "are", "was", "were", "been", "has", "have", "had", "its", "his", "her", "our", "your",
    "their", "you", "they", "them", "can", "will", "would", "should", "could", "please",
    "what", "which", "who", "how", "when", "where", "why", "all", "any", "some", "not", "but",
    "also", "than", "then", "there", "here", "about", "via", "per", "each", "out", "off",
})
STEM = 5  # words compare by their first letters: "calculate" meets "calculation"
_MIN_LETTERS = 3
_LETTER_RUN = re.compile(r"[A-Za-z]+")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")  # "getHTTPResponse" -> get HTTP Response


class CallProbe:
    """P(first reply token == the first token of `CALL_OPENING`) for chat-template turns."""

    def __init__(self, llm: Any) -> None:
        """`llm`: a `runtime.llm.local.LocalLLM` (loaded here; generation can share it)."""
        self.llm = llm
        llm.load()
        lm = llm._loaded
        assert lm is not None
        self.torch, self.model, self.tokenizer = lm.torch, lm.model, lm.tokenizer
        self.token = int(self.tokenizer(CALL_OPENING, add_special_tokens=False)["input_ids"][0])

    def __call__(self, turns: Sequence[dict[str, str]]) -> float:
        """The probability for these turns (roles and text, before the reply)."""
        torch, tok = self.torch, self.tokenizer
        torch.set_num_threads(1)
        prompt = tok.apply_chat_template(list(turns), add_generation_prompt=True, tokenize=False)
        enc = tok(prompt, return_tensors="pt", add_special_tokens=False)
        with torch.inference_mode():
            logits = self.model(**enc).logits[0, -1].float()
        return float(torch.softmax(logits, dim=-1)[self.token])


def auc(calls: Sequence[float], no_calls: Sequence[float]) -> float | None:
    """P(a random call row scores above a random no-call row), ties half; None when one is empty."""
    if not calls or not no_calls:
        return None
    wins = sum((c > n) + 0.5 * (c == n) for c in calls for n in no_calls)
    return wins / (len(calls) * len(no_calls))


def best_threshold(calls: Sequence[float], no_calls: Sequence[float]) -> float:
    """The cut (call when p >= cut) with the best balanced accuracy; the lowest on a tie.

    Raises:
        ValueError: when either side is empty (no cut can be fitted).
    """
    if not calls or not no_calls:
        raise ValueError("fitting a call threshold needs rows with and without a call")

    def balanced(cut: float) -> float:
        hit = sum(c >= cut for c in calls) / len(calls)
        rest = sum(n < cut for n in no_calls) / len(no_calls)
        return (hit + rest) / 2

    return max(sorted(set(calls) | set(no_calls)), key=balanced)


def strict_threshold(calls: Sequence[float], no_calls: Sequence[float],
                     max_false_call: float) -> float:
    """The lowest cut that lets at most `max_false_call` of the no-call rows call.

    An operating point for a model whose wrong calls cost more than its missed ones (a
    benchmark that counts a call where none fits as a failure, like BFCL's irrelevance):
    it trades calls for silence, as far as the rows say, and no further.

    Raises:
        ValueError: when either side is empty, or the share is not in [0, 1).
    """
    if not calls or not no_calls:
        raise ValueError("fitting a call threshold needs rows with and without a call")
    if not 0.0 <= max_false_call < 1.0:
        raise ValueError(f"max_false_call must be in [0, 1), not {max_false_call}")
    allowed = int(max_false_call * len(no_calls))  # this many no-call rows may sit at or above
    above = sorted(no_calls, reverse=True)
    # Just above the (allowed+1)-th highest no-call row: it and every lower one stay silent.
    bar = above[allowed]
    return min((p for p in (*calls, *no_calls) if p > bar), default=bar + 1e-9)


def share_at_or_above(probs: Sequence[float], cut: float) -> float:
    """The share of rows the cut lets call."""
    return sum(p >= cut for p in probs) / len(probs) if probs else 0.0


def summary(probs: dict[str, list[float]], cut: float) -> dict[str, dict[str, Any]]:
    """Per group: n, mean probability and the share at or above the cut."""
    return {k: {"n": len(v), "mean": sum(v) / len(v) if v else None,
                "at_or_above": share_at_or_above(v, cut)} for k, v in probs.items()}


def _stems(text: str) -> set[str]:
    """The crude stems of the content words of a name or a request.

    Letter runs (so `_`, `.`, `-`, spaces and digits all split), camelCase split, lowercased;
    words under three letters and STOPWORDS dropped; each cut to its first STEM letters.
    """
    words = (part.lower() for run in _LETTER_RUN.findall(text)
             for part in _CAMEL_PART.findall(run))
    return {w[:STEM] for w in words if len(w) >= _MIN_LETTERS and w not in STOPWORDS}


def _tool_name(tool: Mapping[str, Any]) -> str:
    """The name of a function object, or of the `{"type": "function", "function": ...}` wrapper.

    Raises:
        ValueError: when neither the mapping nor its "function" holds a "name".
    """
    inner = tool.get("function", tool)
    if not isinstance(inner, Mapping) or not isinstance(inner.get("name"), str):
        raise ValueError(f"a tool needs a 'name' (pass the function object), got keys "
                         f"{sorted(tool)}")
    return str(inner["name"])


def name_overlap(request: str, tools: Sequence[Mapping[str, Any]]) -> float:
    """The highest share, over the offered tools, of a tool name's content words in the request.

    A call/no-call gate that the model does not move. The model's P(call) shifts from one
    training batch to the next, so a cut on it fitted on a4a's rows does not carry to the next
    checkpoint; whether the request names an offered tool is fixed by a4a's data generator and
    the benchmark's items, not by the model, so a cut on this share fitted on a4a's rows (with
    `best_threshold`) is a rule that carries across batches. A name with no content word scores
    0; no tools score 0.0.

    Raises:
        ValueError: for a tool without a name.
    """
    said = _stems(request)
    shares = [len(name & said) / len(name) if name else 0.0
              for name in (_stems(_tool_name(t)) for t in tools)]
    return max(shares, default=0.0)


def _function_of(line: str) -> dict[str, Any]:
    """The function object of one tools-block line.

    Raises:
        ValueError: when the line is not `{"type": "function", "function": {...}}`.
    """
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"a line of the tools block is not JSON: {line[:80]!r}") from err
    if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
        raise ValueError('a tools line must be {"type": "function", "function": {...}}, '
                         f"got {line[:80]!r}")
    return entry["function"]


def tools_in_prompt(system: str) -> list[dict[str, Any]]:
    """The function objects listed in a Hermes system prompt's tools block.

    The block is the one opened by the LAST `<tools>` line: the prompt's own text mentions
    "<tools></tools>" before it. Each line of it is `{"type": "function", "function": {...}}`.

    Raises:
        ValueError: when the prompt has no `<tools>` ... `</tools>` block or a line of it is
            not a function entry (pass the Hermes system prompt, `messages[0]`).
    """
    start = system.rfind("<tools>\n")
    end = system.find("</tools>", start) if start >= 0 else -1
    if end < 0:
        raise ValueError("no <tools> ... </tools> block in the system prompt: pass the Hermes "
                         "system prompt (messages[0]) of a tool-calling row")
    block = system[start + len("<tools>\n"):end]
    return [_function_of(line) for line in block.splitlines() if line.strip()]


_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")
_WORD_NUMBERS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def _numbers(text: str) -> set[float]:
    """The numbers a text states: digits (with thousands commas) and the words zero..twelve."""
    found = {float(n.replace(",", "")) for n in _NUMBER.findall(text)}
    words = set(_NON_ALNUM.split(text.lower()))
    return found | {v for w, v in _WORD_NUMBERS.items() if w in words}


def _flat(text: str) -> str:
    return " " + _NON_ALNUM.sub(" ", text.lower()).strip() + " "


def _mentioned(stem: str, said: set[str]) -> bool:
    """Whether a word stem is among the request's, up to a plural or longer form: farm, farms."""
    return any(s.startswith(stem) or stem.startswith(s) for s in said if len(s) > _MIN_LETTERS)


def _string_stated(value: str, request: str) -> bool:
    """A run of the request's words, or words whose stems it mentions and numbers it states."""
    flat = _flat(value)
    if not flat.strip() or flat in _flat(request):
        return True
    stems, said = _stems(value), _stems(request)
    return bool(stems) and all(_mentioned(w, said) for w in stems) and all(
        float(n.replace(",", "")) in _numbers(request) for n in _NUMBER.findall(value))


def _stated(value: Any, request: str) -> bool:
    """Whether the request states `value`.

    A number among its numbers (or its percent), a string as a run of its words or as words
    whose stems it mentions, each item of a list and each value of a mapping; flags and nulls
    state nothing and always pass.
    """
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        numbers = _numbers(request)
        return float(value) in numbers or round(float(value) * 100, 6) in numbers
    if isinstance(value, str):
        return _string_stated(value, request)
    if isinstance(value, Mapping):
        return all(_stated(v, request) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_stated(v, request) for v in value)
    return False


def ungrounded(request: str, arguments: Mapping[str, Any],
               parameters: Mapping[str, Any] | None = None) -> list[str]:
    """The arguments of a call whose values the request does not state, in order.

    The second model-free gate beside `name_overlap`: a tool that fits is called with what the
    request says (an id, a date, a number, a name); a call on a tool that does not fit fills
    its parameters with values the request never gave. Numbers compare as numbers (a percent
    also as its fraction), strings by their words (as a run of them or as words whose stems the
    request mentions); booleans and nulls pass, and so does a parameter whose schema (the
    function's `parameters`, when given) lists its values as an `enum`: picking one of the
    offered values states nothing.
    """
    props = (parameters or {}).get("properties", {})
    return [name for name, value in arguments.items()
            if "enum" not in props.get(name, {}) and not _stated(value, request)]
