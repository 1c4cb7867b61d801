"""The SFT recipe end to end on the embedded model, scored on BFCL and on a4a's own next calls.

1. `a4a synth` (oracle policy) builds `--n` environments from a4a's request corpora with
   `--tasks-per-env` tasks each and records their runs.
2. Runs split by stable hashes: whole held-out frameworks, held-out tasks of training
   frameworks, training runs. Training runs become SFT rows (training.recipe: task rows,
   per-agent rows, rows that recover from tool errors, irrelevance rows, and with
   `--near-miss-every` / `--call-every` / `--hard-negative-every` / `--stated-every`
   near-miss, single-call, hard-negative and stated-request rows) in the Hermes text style
   `bench/bfcl.py` prompts with. No BFCL item is read to build them.
3. LoRA SFT of SmolLM2-135M-Instruct on one thread (`--max-steps`), merged into plain weights.
4. BFCL v4 AST accuracy (bench/bfcl.py) of base and SFT on `--categories`, first `--limit`
   items each; per-turn next-call accuracy on `--cases` held-out turns of each split; with
   `--decision-cases`, the call/no-call decision on held-out rows of each row kind.
5. Prints the table; every stage's output stays in `--out` and a rerun reuses it (delete a file
   to redo its stage): data.json, lora/, merged/, bfcl_base.json, bfcl_sft.json, next_call.json,
   decisions.json.

Usage: OMP_NUM_THREADS=1 nice python bench/recipe.py [--out build/recipe] [--n 120]
       [--tasks-per-env 4] [--irrelevant-every 2] [--near-miss-every 0] [--call-every 0]
       [--hard-negative-every 0] [--stated-every 0] [--twins] [--overlap-twins] [--max-steps 120]
       [--decision-weight 1] [--limit 25] [--cases 20] [--decision-cases 0] [--no-base]
(needs `make train`, `make model` and `make bfcl`; hours on 2 cores at the defaults)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SPLITS = ("held_task", "held_framework")
NEXT_CALL_KINDS = ("task", "agent")  # whole runs; a call row repeats one of their calls
DECISION_KINDS = ("call", "stated", "irrelevant", "near_miss", "hard_negative")


def _bench(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cached(path: Path, make: Any) -> Any:
    if path.exists():
        return json.loads(path.read_text())
    value = make()
    path.write_text(json.dumps(value, indent=1))
    return value


def synth_rows(args: argparse.Namespace) -> dict[str, Any]:
    """Synthesize, split and build rows; the rows of each split and the counts."""
    from a4a.synth import SynthConfig, SynthOptions, synthesize
    from a4a.training import recipe
    from a4a.training.eval_run import load_framework

    batch = args.out / "synth"
    start = time.perf_counter()
    if not (batch / "trajectories.jsonl").exists():
        synthesize(batch, SynthConfig(n=args.n, tasks_per_env=args.tasks_per_env, seed=args.seed),
                   options=SynthOptions(workers=1, catalog=False))
    envs = [json.loads(x) for x in (batch / "environments.jsonl").read_text().splitlines()]
    specs = {e["framework_id"]: load_framework(batch / e["path"]) for e in envs if e["valid"]}
    records = [json.loads(x) for x in (batch / "trajectories.jsonl").read_text().splitlines()]
    parts = recipe.split(records)
    rows = {k: recipe.build_rows(v, specs, irrelevant_every=args.irrelevant_every,
                                 near_miss_every=args.near_miss_every,
                                 call_every=args.call_every,
                                 hard_negative_every=args.hard_negative_every,
                                 stated_every=args.stated_every, twins=args.twins,
                                 near_twins=args.near_twins,
                                 overlap_twins=args.overlap_twins, seed=args.seed)
            for k, v in parts.items()}
    kinds: dict[str, int] = {}
    for r in rows["train"]:
        kinds[r["meta"]["kind"]] = kinds.get(r["meta"]["kind"], 0) + 1
    return {"rows": rows, "runs": {k: len(v) for k, v in parts.items()},
            "frameworks": {k: len({r["framework_id"] for r in v}) for k, v in parts.items()},
            "kinds": kinds, "recovering": sum(bool(r["meta"].get("recovers"))
                                              for r in rows["train"]),
            "seconds": round(time.perf_counter() - start, 1)}


def train(args: argparse.Namespace, rows: list[dict[str, Any]], base: Path) -> dict[str, Any]:
    """LoRA SFT on the rows and the merge; steps, tokens, losses and wall time."""
    from a4a.training.loop import finetune, merge_and_export

    start = time.perf_counter()

    def report(state: Any) -> None:
        if state.step % 10 == 0 or state.step == state.total_steps:
            print(f"  step {state.step}/{state.total_steps} loss {state.losses[-1]:.3f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)

    state = finetune(base, rows, format="function_calling", style="hermes",
                     max_seq_length=args.max_seq_length, output_dir=args.out / "lora",
                     num_epochs=args.epochs, max_steps=args.max_steps, batch_size=1,
                     gradient_accumulation_steps=args.grad_accum, learning_rate=args.lr,
                     lora_r=16, lora_alpha=32, callbacks=[report], seed=args.seed, save_steps=50,
                     decision_weight=args.decision_weight, decision_tokens=args.decision_tokens,
                     target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                     "up_proj", "down_proj"])
    seconds = time.perf_counter() - start
    merge_and_export(state.checkpoint or "", args.out / "merged", base=base)
    tail = state.losses[-10:]
    return {"steps": state.step, "tokens": state.tokens, "seconds": round(seconds, 1),
            "samples": state.step * args.grad_accum, "loss_first": state.losses[0],
            "loss_last10": sum(tail) / len(tail)}


def grpo_prompts(rows: list[dict[str, Any]], irrelevant_every: int, max_chars: int = 0
                 ) -> list[dict[str, Any]]:
    """GRPO {prompt, gold} pairs from SFT rows: every gold call of the task and agent rows
    (the chat before it), and one in `irrelevant_every` irrelevance rows with gold `null`;
    with `max_chars`, only prompts of at most that many characters (a step's cost on CPU is
    the prompt's prefill, twice, and its backward)."""
    from a4a.training import recipe

    calls = recipe.next_call_cases(r["messages"] for r in rows if r["meta"]["kind"] != "irrelevant")
    out = [{"prompt": c["prompt"], "gold": json.dumps(c["gold"], sort_keys=True)} for c in calls]
    none = [r["messages"][:-1] for r in rows if r["meta"]["kind"] == "irrelevant"]
    out += [{"prompt": chat, "gold": "null"} for chat in none[::max(1, irrelevant_every)]]
    return [p for p in out if not max_chars or
            sum(len(m["content"]) for m in p["prompt"]) <= max_chars]


def merge_adapter(adapter: Path, base: Path, out: Path) -> Path:
    """Merge a bare peft adapter (as GRPOTrainer saves it, no a4a train config) into `base`."""
    import peft
    import transformers

    from a4a.training.loop import quiet_peft

    model = transformers.AutoModelForCausalLM.from_pretrained(str(base), local_files_only=True)
    with quiet_peft():
        model = peft.PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    model.save_pretrained(str(out))
    transformers.AutoTokenizer.from_pretrained(str(base)).save_pretrained(str(out))
    return out


def grpo(args: argparse.Namespace, rows: list[dict[str, Any]], sft: Path) -> dict[str, Any]:
    """Single-turn GRPO (training.grpo) of the SFT model on training-split prompts, merged."""
    import random

    import transformers

    from a4a.training import grpo as align

    prompts = grpo_prompts(rows, args.grpo_irrelevant_every, args.grpo_max_chars)
    random.Random(args.seed).shuffle(prompts)
    start = time.perf_counter()

    class Clock(transformers.TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, _args: Any, state: Any, control: Any, **_: Any) -> None:
            seconds = time.perf_counter() - start
            print(f"  grpo step {state.global_step} ({seconds:.0f} s)", flush=True)
            if args.grpo_seconds and seconds > args.grpo_seconds:
                control.should_training_stop = True

    group = args.grpo_group
    config = {"per_device_train_batch_size": group, "num_generations": group,
              "max_completion_length": args.grpo_new_tokens, "learning_rate": args.grpo_lr,
              "num_train_epochs": 1, "max_steps": args.grpo_steps, "temperature": 1.0,
              "beta": 0.0, "seed": args.seed, "logging_steps": 1, "save_strategy": "no",
              "report_to": [], "bf16": False, "disable_tqdm": True, "dataloader_num_workers": 0}
    lora = {"r": 16, "lora_alpha": 32, "lora_dropout": 0.0,
            "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
    with align._quiet():
        report = align._train(sft, prompts, [align.next_call], [Clock()], lora,
                              args.out / "grpo", config)
    seconds = time.perf_counter() - start
    merge_adapter(Path(report["checkpoint"]), sft, args.out / "merged_grpo")
    return {**report, "seconds": round(seconds, 1), "group": group,
            "none_prompts": sum(p["gold"] == "null" for p in prompts)}


def _generator(model: Path, new_tokens: int) -> Any:
    """`generate(chat) -> reply text` of `model` in the Hermes text mode."""
    from a4a.runtime.llm.base import LLMRequest, Message
    from a4a.runtime.llm.local import LocalLLM
    from a4a.training import recipe

    llm = LocalLLM(model, max_new_tokens=new_tokens)

    def generate(chat: list[dict[str, str]]) -> str:
        msgs = tuple(Message(m["role"], m["content"]) for m in chat)  # type: ignore[arg-type]
        return llm.generate(LLMRequest(msgs, tool_mode=recipe.MODE)).message.content

    return generate


def next_call(model: Path, rows: dict[str, list[dict[str, Any]]], cases: int,
              new_tokens: int) -> dict[str, Any]:
    """Next-call accuracy of `model` on the first `cases` gold calls of each held-out split."""
    from a4a.training import recipe

    generate = _generator(model, new_tokens)
    out = {}
    for split in SPLITS:
        every = recipe.next_call_cases(r["messages"] for r in rows[split]
                                       if r["meta"]["kind"] in NEXT_CALL_KINDS)
        out[split] = {**recipe.next_call_accuracy(generate, every[:cases]), "of": len(every)}
    return out


def decisions(model: Path, rows: dict[str, list[dict[str, Any]]], cases: int,
              new_tokens: int) -> dict[str, Any]:
    """Call/no-call decision accuracy of `model` on the first `cases` held-out rows (both
    held-out splits) of each of DECISION_KINDS: does a4a's own no-call data transfer?"""
    from a4a.training import recipe

    generate = _generator(model, new_tokens)
    held = [r for split in SPLITS for r in rows[split]]
    out = {}
    for kind in DECISION_KINDS:
        chats = [r["messages"] for r in held if r["meta"]["kind"] == kind][:cases]
        out[kind] = recipe.decision_accuracy(generate, chats) if chats else None
    return out


def _cell(s: dict[str, Any] | None) -> str:
    return "n/a" if not s else f"{s['accuracy']:.3f} ± {s['se']:.3f} (n={s['n']})"


def table(bfcl: dict[str, Any], calls: dict[str, Any]) -> str:
    """BFCL per category and next-call accuracy, base vs SFT (vs SFT + GRPO), as markdown."""
    labels = [k for k in ("base", "sft", "grpo") if k in bfcl]
    first = bfcl[labels[0]]["categories"]
    names = {"base": "base SmolLM2-135M", "sft": "SFT (a4a synth)", "grpo": "SFT + GRPO"}
    rows = ["| measure | " + " | ".join(names[k] for k in labels) + " |",
            "|---|" + "---|" * len(labels)]
    for category in first:
        rows.append(f"| BFCL {category} | " + " | ".join(
            _cell(bfcl[k]["categories"].get(category)) for k in labels) + " |")
    for split in SPLITS:
        rows.append(f"| next call, {split.replace('_', ' ')} | " + " | ".join(
            _cell(calls.get(k, {}).get(split)) for k in labels) + " |")
    return "\n".join(rows)


def main() -> None:
    """Run (or resume) every stage and print the figures."""
    import torch

    torch.set_num_threads(1)
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, default=Path("build/recipe"))
    p.add_argument("--n", type=int, default=120, help="environments to synthesize")
    p.add_argument("--tasks-per-env", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--irrelevant-every", type=int, default=2,
                   help="one irrelevance row per this many runs")
    p.add_argument("--near-miss-every", type=int, default=0,
                   help="one near-miss row (own framework, no tool its run used) per N runs")
    p.add_argument("--call-every", type=int, default=0,
                   help="one single-call row (first call among sibling operations) per N runs")
    p.add_argument("--hard-negative-every", type=int, default=0,
                   help="one hard-negative row (unused sibling operations sharing the "
                        "request's words, text answer) per N runs")
    p.add_argument("--stated-every", type=int, default=0,
                   help="one stated-request call row (a request naming every argument of one "
                        "operation; training.stated) per N runs")
    p.add_argument("--twins", action="store_true",
                   help="each call and stated row followed by its irrelevance twin (the same "
                        "request, as many tools, none of its framework's)")
    p.add_argument("--near-twins", action="store_true",
                   help="each call and stated row also followed by its near twin (the same "
                        "request, as many of its own framework's operations, none on the "
                        "called operation's object)")
    p.add_argument("--overlap-twins", action="store_true",
                   help="each call and stated row also followed by its overlap twin (the same "
                        "request among other frameworks' operations sharing its called "
                        "operation's parameter words)")
    p.add_argument("--epochs", type=int, default=1, help="passes over the rows (--max-steps "
                                                         "stops earlier)")
    p.add_argument("--max-steps", type=int, default=200, help="optimizer steps")
    p.add_argument("--decision-weight", type=float, default=1.0,
                   help="loss weight of each assistant turn's first token(s), the call/text "
                        "decision (1: plain per-token loss)")
    p.add_argument("--decision-tokens", type=int, default=1,
                   help="opening tokens of each assistant turn that take --decision-weight")
    p.add_argument("--grad-accum", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--max-seq-length", type=int, default=512)
    p.add_argument("--limit", type=int, default=25, help="BFCL items per category")
    p.add_argument("--categories", default="simple_python,multiple,irrelevance")
    p.add_argument("--new-tokens", type=int, default=128, help="new tokens per BFCL reply")
    p.add_argument("--cases", type=int, default=20,
                   help="next-call turns per held-out split (0: no next-call stage)")
    p.add_argument("--decision-cases", type=int, default=0,
                   help="held-out rows per kind (call, stated, irrelevant, near_miss, "
                        "hard_negative) "
                        "whose call/no-call decision is scored (0: no such stage)")
    p.add_argument("--no-base", action="store_true",
                   help="skip the base model's BFCL and next-call stages (greedy decoding: "
                        "its figures do not change between runs; see README)")
    p.add_argument("--grpo-steps", type=int, default=0,
                   help="single-turn GRPO updates after SFT (0: no GRPO stage)")
    p.add_argument("--grpo-seconds", type=float, default=0,
                   help="stop GRPO after the step that passes this wall time (0: no limit)")
    p.add_argument("--grpo-group", type=int, default=4, help="completions per GRPO prompt")
    p.add_argument("--grpo-new-tokens", type=int, default=64)
    p.add_argument("--grpo-lr", type=float, default=5e-5)
    p.add_argument("--grpo-max-chars", type=int, default=1500,
                   help="longest GRPO prompt kept, in characters (0: all)")
    p.add_argument("--grpo-irrelevant-every", type=int, default=1,
                   help="one no-tool prompt per this many irrelevance rows")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = _bench("finetune_e2e").model_dir()
    made = _cached(args.out / "data.json", lambda: synth_rows(args))
    print(f"data: {made['runs']} runs, {made['frameworks']} frameworks; train rows "
          f"{made['kinds']}, {made['recovering']} recover from tool errors ({made['seconds']} s)")
    fit = _cached(args.out / "train.json", lambda: train(args, made["rows"]["train"], base))
    print(f"SFT: {fit['steps']} steps x {args.grad_accum} rows, {fit['tokens']} trainable tokens, "
          f"{fit['seconds']:.0f} s on one thread; loss {fit['loss_first']:.3f} -> "
          f"{fit['loss_last10']:.3f} (mean of last 10)")
    merged, bench = args.out / "merged", _bench("bfcl")
    cats = [c for c in args.categories.split(",") if c]
    models = (("sft", merged),) if args.no_base else (("base", base), ("sft", merged))
    scores = {label: _cached(args.out / f"bfcl_{label}.json", lambda m=model: bench.run(
        None if m == base else m, cats, args.limit, "hermes", args.new_tokens))
        for label, model in models}
    calls = {} if not args.cases else _cached(args.out / "next_call.json", lambda: {
        label: next_call(model, made["rows"], args.cases, 96) for label, model in models})
    if args.decision_cases:
        picks = _cached(args.out / "decisions.json", lambda: {
            label: decisions(model, made["rows"], args.decision_cases, 96)
            for label, model in models})
        for label, kinds in picks.items():
            print(f"decision ({label}): " + ", ".join(
                f"{k} {_cell(v)}" for k, v in kinds.items()))
    if args.grpo_steps:
        fit = _cached(args.out / "grpo.json", lambda: grpo(args, made["rows"]["train"], merged))
        print(f"GRPO: {fit['steps']} steps x {fit['group']} completions of {fit['prompts']} "
              f"prompts ({fit['none_prompts']} no-tool), {fit['seconds']:.0f} s on one thread; "
              f"reward {fit['first_reward']:.3f} -> {fit['final_reward']:.3f}")
        tuned = args.out / "merged_grpo"
        scores["grpo"] = _cached(args.out / "bfcl_grpo.json", lambda: bench.run(
            tuned, cats, args.limit, "hermes", args.new_tokens))
        calls["grpo"] = _cached(args.out / "next_call_grpo.json", lambda: next_call(
            tuned, made["rows"], args.cases, 96))
    print(table(scores, calls))


if __name__ == "__main__":
    main()
