"""How well a model's P(call), and a model-free name match, separate "a tool fits" from "none".

For each prompt (a4a's held-out rows of each decision kind, BFCL's first `--limit` items of
simple_python, multiple and irrelevance) it reads P(the reply opens a `<tool_call>`) from one
forward pass (a4a.training.calibrate, no decoding). It prints the mean per group, the AUC of
call against no-call on a4a's rows and on BFCL, the cut that best separates a4a's held-out rows
(fitted on those alone, never on BFCL) and each group's share at or above that cut: the cut to
pass to `bench/bfcl.py --call-threshold`. An AUC near 0.5 says the model does not know whether
a tool fits, whatever the cut.

Beside it, for the same prompts, `calibrate.name_overlap` of the request with the offered tool
names (read from the system prompt): its AUCs (`auc_lexical_a4a`, `auc_lexical_bfcl`), the cut
with the best balanced accuracy on a4a's call and stated rows against the rest (`lexical_cut`,
never fitted on BFCL) and each group's share at or above it: the cut to pass to
`bench/bfcl.py --relevance-cut`. It does not depend on the model, so it carries across
checkpoints; `--lexical-only` reports it alone, without loading a model (or torch).

Usage: OMP_NUM_THREADS=1 python bench/decision_margin.py --model DIR --rows DATA.json
       [--cases 30] [--limit 25] [--max-false-call 0.02] [--lexical-only] [--json]
`DATA.json` is the `data.json` that bench/recipe.py writes into its `--out`; `--model` a merged
checkpoint (default: the embedded base model).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

Pairs = dict[str, list[tuple[str, list[dict[str, Any]]]]]  # group -> (request, tools) per prompt

CALLS = ("call", "stated")  # row kinds whose first reply is a call; the rest answer in text
KINDS = (*CALLS, "irrelevant", "near_miss", "hard_negative")
SPLITS = ("held_task", "held_framework")
BFCL = ("simple_python", "multiple", "irrelevance")


def held_rows(rows_file: Path, cases: int) -> dict[str, list[dict[str, Any]]]:
    """The first `cases` held-out rows of each kind."""
    rows = json.loads(rows_file.read_text())["rows"]
    held = [r for split in SPLITS for r in rows[split]]
    return {kind: [r for r in held if r["meta"]["kind"] == kind][:cases] for kind in KINDS}


def a4a_turns(rows_file: Path, cases: int) -> dict[str, list[list[dict[str, str]]]]:
    """Chat-template turns before the first reply of the first `cases` held-out rows per kind."""
    from a4a.runtime.llm.base import Message
    from a4a.runtime.llm.local import chat_messages

    out: dict[str, list[list[dict[str, str]]]] = {}
    for kind, rows in held_rows(rows_file, cases).items():
        out[kind] = []
        for r in rows:
            msgs = r["messages"]
            i = next(k for k, m in enumerate(msgs) if m["role"] == "assistant")
            out[kind].append(chat_messages(tuple(Message(m["role"], m["content"])
                                                 for m in msgs[:i]), "hermes"))
    return out


def a4a_pairs(rows_file: Path, cases: int) -> Pairs:
    """(first user message, tools of the system prompt) of the rows `a4a_turns` reads."""
    from a4a.training.calibrate import tools_in_prompt

    return {kind: [(next(m["content"] for m in r["messages"] if m["role"] == "user"),
                    tools_in_prompt(r["messages"][0]["content"])) for r in rows]
            for kind, rows in held_rows(rows_file, cases).items()}


def bfcl_turns(limit: int) -> dict[str, list[list[dict[str, str]]]]:
    """Chat-template turns of BFCL's first `limit` items per category, as bench/bfcl.py sends."""
    from a4a.runtime.llm.local import chat_messages
    from a4a.training import bfcl

    return {c: [chat_messages(bfcl.messages(item, "hermes"), "hermes")
                for item in bfcl.load(c, limit)] for c in BFCL}


def bfcl_pairs(limit: int) -> Pairs:
    """(question, tools of the system prompt) of the BFCL items `bfcl_turns` reads."""
    from a4a.training import bfcl
    from a4a.training.calibrate import tools_in_prompt

    pairs: Pairs = {}
    for c in BFCL:
        msgs = [bfcl.messages(item, "hermes") for item in bfcl.load(c, limit)]
        pairs[c] = [(m[-1].content, tools_in_prompt(m[0].content)) for m in msgs]
    return pairs


def grounded_share(rows_file: Path, cases: int) -> dict[str, float | None]:
    """Per call kind, the share of a4a's held-out gold first calls that `calibrate.ungrounded`
    finds fully stated by the request: what `bench/bfcl.py --grounded-args` keeps of calls
    that should be made."""
    from a4a.runtime.llm import textmodes
    from a4a.training.calibrate import tools_in_prompt, ungrounded

    out: dict[str, float | None] = {}
    for kind in CALLS:
        kept = []
        for r in held_rows(rows_file, cases)[kind]:
            msgs = r["messages"]
            i = next(k for k, m in enumerate(msgs) if m["role"] == "assistant")
            said = " ".join(m["content"] for m in msgs[1:i] if m["role"] == "user")
            params = {t["name"]: t.get("parameters") for t in tools_in_prompt(msgs[0]["content"])}
            calls = textmodes.parse(msgs[i]["content"], "hermes").calls
            kept.append(all(not ungrounded(said, dict(c.arguments), params.get(c.name))
                            for c in calls))
        out[kind] = sum(kept) / len(kept) if kept else None
    return out


def lexical(rows_file: Path, cases: int, limit: int,
            bfcl: Pairs | None = None) -> dict[str, Any]:
    """The name-overlap gate's figures; `bfcl` (category -> pairs) defaults to BFCL's items.

    Raises:
        ValueError: when a4a's rows lack call or no-call rows (no cut can be fitted).
    """
    from a4a.training import calibrate

    pairs = {**{f"a4a {k}": v for k, v in a4a_pairs(rows_file, cases).items()},
             **{f"bfcl {k}": v for k, v in (bfcl_pairs(limit) if bfcl is None
                                            else bfcl).items()}}
    scores = {k: [calibrate.name_overlap(q, tools) for q, tools in v] for k, v in pairs.items()}
    calls = [s for k in CALLS for s in scores[f"a4a {k}"]]
    none = [s for k in KINDS if k not in CALLS for s in scores[f"a4a {k}"]]
    cut = calibrate.best_threshold(calls, none)
    fits = scores.get("bfcl simple_python", []) + scores.get("bfcl multiple", [])
    return {"auc_lexical_a4a": calibrate.auc(calls, none),
            "auc_lexical_bfcl": calibrate.auc(fits, scores.get("bfcl irrelevance", [])),
            "lexical_cut": cut, "lexical_groups": calibrate.summary(scores, cut),
            "name_overlap": scores, "grounded_gold": grounded_share(rows_file, cases)}


def measure(model: Path | None, rows_file: Path, cases: int, limit: int,
            max_false_call: float | None = None) -> dict[str, Any]:
    """The probe's figures and, beside them, the name-overlap gate's (`lexical`)."""
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
            "groups": calibrate.summary(probs, cut), "probs": probs,
            **lexical(rows_file, cases, limit)}


def _auc(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def probe_lines(out: dict[str, Any]) -> list[str]:
    """The probe's figures as text."""
    lines = [f"model {out['model']}"]
    for k, g in out["groups"].items():
        if not g["n"]:  # a kind the rows hold none of (no hard-negative rows in the batch)
            lines.append(f"  {k:20s} n   0")
            continue
        lines.append(f"  {k:20s} n {g['n']:3d}  mean P(call) {g['mean']:.3f}  "
                     f"at or above the cut {g['at_or_above']:.2f}")
    lines.append(f"AUC call vs no-call: a4a held-out {out['auc_a4a']:.3f}, "
                 f"BFCL {out['auc_bfcl']:.3f}")
    lines.append(f"cut fitted on a4a held-out rows ({out['rule']}): {out['threshold']:.4g}")
    return lines


def lexical_lines(out: dict[str, Any]) -> list[str]:
    """The name-overlap gate's figures as text."""
    lines = ["name overlap of the request with the offered tool names (no model):"]
    for k, g in out["lexical_groups"].items():
        if not g["n"]:
            lines.append(f"  {k:20s} n   0")
            continue
        lines.append(f"  {k:20s} n {g['n']:3d}  mean overlap {g['mean']:.3f}  "
                     f"at or above the lexical cut {g['at_or_above']:.2f}")
    lines.append(f"AUC call vs no-call (name overlap): a4a held-out "
                 f"{_auc(out['auc_lexical_a4a'])}, BFCL {_auc(out['auc_lexical_bfcl'])}")
    lines.append(f"lexical cut fitted on a4a held-out rows (balanced accuracy): "
                 f"{out['lexical_cut']:.4g}")
    kept = ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}"
                     for k, v in out["grounded_gold"].items())
    lines.append(f"a4a held-out gold calls whose arguments the request states "
                 f"(kept by --grounded-args): {kept}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--rows", type=Path, required=True)
    ap.add_argument("--cases", type=int, default=30)
    ap.add_argument("--limit", type=int, default=25)
    ap.add_argument("--max-false-call", type=float, default=None,
                    help="fit the cut that lets at most this share of a4a's no-call rows "
                         "call (default: the cut with the best balanced accuracy)")
    ap.add_argument("--lexical-only", action="store_true",
                    help="report only the name-overlap gate: no model, no torch")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.lexical_only and (args.model or args.max_false_call is not None):
        ap.error("--lexical-only loads no model: drop --model and --max-false-call")
    if args.lexical_only:
        out = lexical(args.rows, args.cases, args.limit)
        lines = lexical_lines(out)
    else:
        import torch

        torch.set_num_threads(1)
        out = measure(args.model, args.rows, args.cases, args.limit, args.max_false_call)
        lines = probe_lines(out) + lexical_lines(out)
    print(json.dumps(out, indent=1) if args.json else "\n".join(lines))


if __name__ == "__main__":
    main()
