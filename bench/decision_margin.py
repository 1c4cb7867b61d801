"""How well a model's call probability separates "a tool fits" from "none fits".

For each prompt (a4a's held-out rows of each decision kind, BFCL's first `--limit` items of
simple_python, multiple and irrelevance) it reads P(the reply opens a `<tool_call>`) from one
forward pass (a4a.training.calibrate, no decoding). It prints the mean per group, the AUC of
call against no-call on a4a's rows and on BFCL, the cut that best separates a4a's held-out rows
(fitted on those alone, never on BFCL) and each group's share at or above that cut: the cut to
pass to `bench/bfcl.py --call-threshold`. An AUC near 0.5 says the model does not know whether
a tool fits, whatever the cut.

Usage: OMP_NUM_THREADS=1 python bench/decision_margin.py --model DIR --rows DATA.json
       [--cases 30] [--limit 25] [--max-false-call 0.02] [--json]
`DATA.json` is the `data.json` that bench/recipe.py writes into its `--out`; `--model` a merged
checkpoint (default: the embedded base model).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

CALLS = ("call", "stated")  # row kinds whose first reply is a call; the rest answer in text
KINDS = (*CALLS, "irrelevant", "near_miss", "hard_negative")
SPLITS = ("held_task", "held_framework")
BFCL = ("simple_python", "multiple", "irrelevance")


def a4a_turns(rows_file: Path, cases: int) -> dict[str, list[list[dict[str, str]]]]:
    """Chat-template turns before the first reply of the first `cases` held-out rows per kind."""
    from a4a.runtime.llm.base import Message
    from a4a.runtime.llm.local import chat_messages

    rows = json.loads(rows_file.read_text())["rows"]
    held = [r for split in SPLITS for r in rows[split]]
    out = {}
    for kind in KINDS:
        out[kind] = []
        for r in [r for r in held if r["meta"]["kind"] == kind][:cases]:
            msgs = r["messages"]
            i = next(k for k, m in enumerate(msgs) if m["role"] == "assistant")
            out[kind].append(chat_messages(tuple(Message(m["role"], m["content"])
                                                 for m in msgs[:i]), "hermes"))
    return out


def bfcl_turns(limit: int) -> dict[str, list[list[dict[str, str]]]]:
    """Chat-template turns of BFCL's first `limit` items per category, as bench/bfcl.py sends."""
    from a4a.runtime.llm.local import chat_messages
    from a4a.training import bfcl

    return {c: [chat_messages(bfcl.messages(item, "hermes"), "hermes")
                for item in bfcl.load(c, limit)] for c in BFCL}


def measure(model: Path | None, rows_file: Path, cases: int, limit: int,
            max_false_call: float | None = None) -> dict[str, Any]:
    from a4a.runtime.llm.local import LocalLLM
    from a4a.training import calibrate

    probe = calibrate.CallProbe(LocalLLM(model))
    turns = {**{f"a4a {k}": v for k, v in a4a_turns(rows_file, cases).items()},
             **{f"bfcl {k}": v for k, v in bfcl_turns(limit).items()}}
    probs = {k: [probe(t) for t in v] for k, v in turns.items()}
    calls = [p for k in CALLS for p in probs[f"a4a {k}"]]
    none = [p for k in KINDS if k not in CALLS for p in probs[f"a4a {k}"]]
    cut = (calibrate.best_threshold(calls, none) if max_false_call is None
           else calibrate.strict_threshold(calls, none, max_false_call))
    return {"model": str(probe.llm.model_dir), "threshold": cut,
            "rule": "balanced accuracy" if max_false_call is None
            else f"at most {max_false_call:.0%} of no-call rows at or above",
            "auc_a4a": calibrate.auc(calls, none),
            "auc_bfcl": calibrate.auc(probs["bfcl simple_python"] + probs["bfcl multiple"],
                                      probs["bfcl irrelevance"]),
            "groups": calibrate.summary(probs, cut), "probs": probs}


def main() -> None:
    import torch

    torch.set_num_threads(1)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--rows", type=Path, required=True)
    ap.add_argument("--cases", type=int, default=30)
    ap.add_argument("--limit", type=int, default=25)
    ap.add_argument("--max-false-call", type=float, default=None,
                    help="fit the cut that lets at most this share of a4a's no-call rows "
                         "call (default: the cut with the best balanced accuracy)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = measure(args.model, args.rows, args.cases, args.limit, args.max_false_call)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"model {out['model']}")
    for k, g in out["groups"].items():
        if not g["n"]:  # a kind the rows hold none of (no hard-negative rows in the batch)
            print(f"  {k:20s} n   0")
            continue
        print(f"  {k:20s} n {g['n']:3d}  mean P(call) {g['mean']:.3f}  "
              f"at or above the cut {g['at_or_above']:.2f}")
    print(f"AUC call vs no-call: a4a held-out {out['auc_a4a']:.3f}, BFCL {out['auc_bfcl']:.3f}")
    print(f"cut fitted on a4a held-out rows ({out['rule']}): {out['threshold']:.4g}")


if __name__ == "__main__":
    main()
