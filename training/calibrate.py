"""The call/no-call decision as a number: P(the reply opens a tool call), and a cut fitted on it.

Greedy decoding calls a tool whenever the call's first token is the likeliest, so a model that
has learnt "a call usually follows the tools block" calls even when no tool fits, though it
may still rank fitting tools above unfitting ones. `CallProbe` reads that ranking (one forward
pass, no decoding); `auc` says how well it separates, `best_threshold` (balanced accuracy) or
`strict_threshold` (a bound on wrong calls) fits a cut on rows whose answer is known (a4a's
own held-out rows, never a benchmark's items), and a decoder calls only at or above the cut
(`bench/bfcl.py --call-threshold`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CALL_OPENING = "<tool_call>"  # the Hermes text mode's call (training.recipe.MODE)


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
