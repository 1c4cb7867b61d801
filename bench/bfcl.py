"""BFCL v4 AST accuracy of a local model on the non-live categories, with standard errors.

Data and checker are BFCL's own (the `bfcl-eval` wheel, `make bfcl`); the model is prompted
as the embedded backend prompts an agent turn (a4a.training.bfcl: tools and call grammar of a
text mode in the system prompt, the question as the user turn) and decoded greedily.
Irrelevance counts a reply with no valid call as correct, as BFCL does.

With `--call-threshold P` (hermes mode) the model calls only where its probability of opening
a `<tool_call>` is at least P (a4a.training.calibrate; fit P on a4a's own held-out rows with
bench/decision_margin.py, never on BFCL): at or above it the reply is decoded from a written
`<tool_call>` opening, so the decision is the probe's alone; below it the reply is a text
answer, recorded as "(no call: P(call) below the threshold)" and not decoded, since any text
scores the same.

With `--relevance-cut C` (any mode, with or without `--call-threshold`) an item whose question
shares less than C of any offered tool's name (a4a.training.calibrate.name_overlap) is not
decoded at all: its reply is "(no call: no offered tool's name matches the request)". The gate
does not depend on the model, so one C carries across checkpoints; fit it on a4a's own
held-out rows with `bench/decision_margin.py --lexical-only` (its `lexical_cut`), never on
BFCL. Each item records its `name_overlap`.

With `--grounded-args` a decoded call whose argument values the question does not state
(a4a.training.calibrate.ungrounded: numbers as numbers, strings by their words; enum
parameters, booleans and nulls pass) is dropped and the reply counts as a text answer, recorded
as "(no call: a decoded call's arguments are not stated in the request)" with the call kept in
`dropped`. The rule is fixed, not fitted: `bench/decision_margin.py --lexical-only` reports the
share of a4a's held-out gold calls it would keep.

Usage: python bench/bfcl.py [--model DIR] [--limit N] [--categories simple_python,...]
       [--mode hermes] [--max-new-tokens 256] [--call-threshold P] [--relevance-cut C]
       [--grounded-args] [--json]
`--model` is a Hugging Face model directory (default: the embedded SmolLM2-135M-Instruct that
`a4a models pull` caches; or a merged fine-tuned checkpoint). `--limit` takes the first N
items of each category. Run it niced on a shared machine: one torch thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

BELOW = "(no call: P(call) below the threshold)"
UNGROUNDED = "(no call: a decoded call's arguments are not stated in the request)"
NO_MATCH = "(no call: no offered tool's name matches the request)"


def _reply(llm: Any, probe: Any, msgs: Any, mode: str,
           call_threshold: float | None) -> tuple[str, float | None]:
    """The reply to one item's messages and the probe's P(call) (None without a probe)."""
    from a4a.runtime.llm.base import LLMRequest
    from a4a.runtime.llm.local import chat_messages
    from a4a.training import calibrate

    p = probe(chat_messages(msgs, mode)) if probe else None
    if p is not None and call_threshold is not None and p < call_threshold:
        return BELOW, p
    opening = calibrate.CALL_OPENING if probe else ""
    return llm.generate(LLMRequest(msgs, tool_mode=mode), opening).message.content, p


def _ungrounded(item: Any, calls: list[dict[str, Any]]) -> list[str]:
    """The `function.argument` names of `calls` whose values the item's question does not state."""
    from a4a.training import calibrate

    question = " ".join(str(q.get("content", "")) for q in item.question if q.get("role") == "user")
    params = {f["name"]: f.get("parameters") for f in item.functions}
    return [f"{name}.{arg}" for call in calls for name, args in call.items()
            for arg in calibrate.ungrounded(question, args, params.get(name))]


def run(model: Path | None, categories: list[str], limit: int | None, mode: str,
        max_new_tokens: int, call_threshold: float | None = None,
        relevance_cut: float | None = None, grounded_args: bool = False) -> dict[str, Any]:
    """Score `model` on each category; per-item verdicts and the summary.

    Below `relevance_cut` (name overlap of the question with the offered tools) an item is
    answered NO_MATCH without the model (no probe, no decoding).
    """
    from a4a.runtime.llm.local import LocalLLM
    from a4a.training import bfcl, calibrate

    check = bfcl.checker()
    llm = LocalLLM(model, max_new_tokens=max_new_tokens)
    probe = calibrate.CallProbe(llm) if call_threshold is not None else None
    verdicts: dict[str, list[bool]] = {}
    items: list[dict[str, Any]] = []
    start = time.perf_counter()
    for category in categories:
        verdicts[category] = []
        for item in bfcl.load(category, limit):
            msgs = bfcl.messages(item, mode)
            overlap = calibrate.name_overlap(msgs[-1].content, item.functions)
            text, p = ((NO_MATCH, None) if relevance_cut is not None and overlap < relevance_cut
                       else _reply(llm, probe, msgs, mode, call_threshold))
            calls = bfcl.calls(text, mode, item)
            dropped = _ungrounded(item, calls) if grounded_args else []
            if dropped:
                text, calls = UNGROUNDED, []
            ok = bfcl.correct(item, calls, check)
            verdicts[category].append(ok)
            items.append({"id": item.id, "correct": ok, "calls": calls, "p_call": p,
                          "name_overlap": overlap, "dropped": dropped, "reply": text[:200]})
            print(json.dumps({"id": item.id, "correct": ok, "p_call": p,
                              "name_overlap": overlap, "reply": text[:200]}),
                  file=sys.stderr, flush=True)
    return {"model": str(llm.model_dir), "mode": mode, "limit": limit,
            "call_threshold": call_threshold, "relevance_cut": relevance_cut,
            "grounded_args": grounded_args,
            "seconds": round(time.perf_counter() - start, 1),
            "categories": bfcl.summary(verdicts), "items": items}


def main(argv: list[str] | None = None) -> int:
    from a4a.runtime.errors import A4AError
    from a4a.training import bfcl

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--categories", default=",".join(bfcl.CATEGORIES))
    ap.add_argument("--mode", default="hermes", choices=("hermes", "xml", "react"))
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--call-threshold", type=float, default=None,
                    help="call only where P(<tool_call> first) >= this (hermes mode)")
    ap.add_argument("--relevance-cut", type=float, default=None,
                    help="answer without the model where the question's name overlap with "
                         "every offered tool is below this (fit it with "
                         "bench/decision_margin.py --lexical-only)")
    ap.add_argument("--grounded-args", action="store_true",
                    help="drop a decoded call whose argument values the question does not state")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.call_threshold is not None and args.mode != "hermes":
        ap.error("--call-threshold reads the hermes call opening: use --mode hermes")
    try:
        result = run(args.model, [c for c in args.categories.split(",") if c], args.limit,
                     args.mode, args.max_new_tokens, args.call_threshold, args.relevance_cut,
                     args.grounded_args)
    except A4AError as exc:
        print(json.dumps(exc.to_dict()) if args.json else f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"model {result['model']} ({result['mode']}, {result['seconds']} s)")
    for category, s in result["categories"].items():
        print(f"{category:<18} {s['accuracy']:.3f} ± {s['se']:.3f}  (n={s['n']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
