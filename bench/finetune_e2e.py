"""End to end on the embedded model: build frameworks, record oracle runs, LoRA-fine-tune
SmolLM2-135M on them, merge, and compare base and fine-tune on held-out frameworks' tasks.

1. Build `--frameworks` frameworks from the benign request corpus (tests/data), picked round
   robin over their patterns so single agents do not crowd out teams; each gets its tasks.
2. Split whole frameworks: sorted by a hash of their name, the last `--held-out` are held out.
3. Run the gold plan (`oracle`) of `--train-tasks` tasks per training framework through the
   runtime and turn every agent turn into a function_calling sample written as the embedded
   model reads its prompts at run time (training.textmode: hermes tool instructions in the
   system prompt, calls as <tool_call> text, results as user turns), masked with a4a's masking.
4. LoRA-fine-tune (training.loop.finetune), merge into plain weights (merge_and_export).
5. Run the base model (`local`) and the merged model on `--eval-tasks` tasks per held-out
   framework through the runtime, and print evaluate_agent's metrics side by side.

Usage: python bench/finetune_e2e.py [--frameworks 20] [--held-out 4] [--train-tasks 2]
       [--eval-tasks 2] [--epochs 2] [--max-steps 20] [--max-seq-length 1536] [--out DIR]
(needs `make train` and `make model`; time it on an otherwise idle machine)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("tool_use_accuracy", "task_success_rate", "step_efficiency", "error_recovery_rate",
           "format_validity")


def model_dir() -> Path:
    """The cached embedded model."""
    home = Path(os.environ.get("A4A_HOME") or Path.home() / ".local/share/a4a")
    return home / "models" / "SmolLM2-135M-Instruct"


def build_frameworks(n: int, out: Path, tasks: int) -> list[Path]:
    """`n` framework directories with tasks, from the benign corpus, round robin by pattern."""
    import yaml

    from a4a import api

    texts = yaml.safe_load((ROOT / "tests/data/requests_benign.yaml").read_text())["requests"]
    by_pattern: dict[str, list[Path]] = {}
    for i, text in enumerate(texts):
        folder = out / f"fw{i:03d}"
        result = api.build(text, out=folder)
        if result.spec.pattern and api.tasks(folder, tasks, seed=0):
            by_pattern.setdefault(result.spec.pattern, []).append(folder)
    picked: list[Path] = []
    while len(picked) < n and any(by_pattern.values()):
        for folders in by_pattern.values():
            if folders and len(picked) < n:
                picked.append(folders.pop(0))
    return picked


def split(folders: list[Path], held_out: int) -> tuple[list[Path], list[Path]]:
    """(train, held_out): whole frameworks, ordered by a hash of their name."""
    from a4a.training.eval_run import load_framework

    def key(f: Path) -> str:
        return hashlib.sha256(load_framework(f).name.encode()).hexdigest()

    ordered = sorted(folders, key=key)
    return ordered[:-held_out], ordered[-held_out:]


def oracle_samples(folders: list[Path], tasks: int) -> list[dict[str, Any]]:
    """Text-mode function_calling samples of oracle runs on each framework's first tasks."""
    from a4a.training.eval_run import held_out_tasks, load_framework, policy, run_tasks
    from a4a.training.textmode import text_mode_samples

    out = []
    for folder in folders:
        spec = load_framework(folder)
        for record in run_tasks(spec, held_out_tasks(folder, tasks), policy("oracle"), "oracle"):
            if record["status"] == "completed":
                out += text_mode_samples(record, spec)
    return out


def local_policy(model: Path, new_tokens: int) -> Callable[..., Any]:
    """One loaded model for every task, replies capped at `new_tokens`."""
    from a4a.runtime.llm.local import LocalLLM

    shared = LocalLLM(model_dir=model, max_new_tokens=new_tokens)
    return lambda spec, task: shared


def evaluate(label: str, model: Path, held: list[Path], args: argparse.Namespace
             ) -> tuple[dict[str, Any], float]:
    """evaluate_frameworks on the held-out frameworks; the report and its wall time."""
    from a4a.training.eval_run import evaluate_frameworks

    start = time.perf_counter()
    report = evaluate_frameworks(label, held, n=args.eval_tasks, max_steps=args.max_steps_run,
                                 make=local_policy(model, args.new_tokens))
    return report, time.perf_counter() - start


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def table(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The overall metrics side by side, as a markdown table."""
    rows = ["| metric | base SmolLM2-135M | fine-tuned |", "|---|---|---|"]
    rows += [f"| {m} | {_num(before['overall'][m])} | {_num(after['overall'][m])} |"
             for m in (*METRICS, "mean_composite")]
    return "\n".join(rows)


def main() -> None:
    """Run the whole pipeline and print its figures."""
    import torch

    from a4a.training.loop import finetune, merge_and_export

    torch.set_num_threads(1)
    p = argparse.ArgumentParser()
    p.add_argument("--frameworks", type=int, default=20)
    p.add_argument("--held-out", type=int, default=4)
    p.add_argument("--train-tasks", type=int, default=2)
    p.add_argument("--eval-tasks", type=int, default=2)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--max-steps", type=int, default=20, help="optimizer steps (cap)")
    p.add_argument("--max-seq-length", type=int, default=1536)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--grad-accum", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--max-steps-run", type=int, default=8, help="model calls per eval run")
    p.add_argument("--new-tokens", type=int, default=64, help="new tokens per eval reply")
    p.add_argument("--out", type=Path, default=Path("runs/finetune_e2e"))
    args = p.parse_args()
    t0 = time.perf_counter()
    folders = build_frameworks(args.frameworks, args.out / "frameworks", args.train_tasks)
    train, held = split(folders, args.held_out)
    samples = oracle_samples(train, args.train_tasks)
    t_data = time.perf_counter() - t0
    print(f"frameworks: {len(train)} train, {len(held)} held out "
          f"({', '.join(sorted(f.name for f in held))}); {len(samples)} samples "
          f"from oracle runs in {t_data:.0f} s")
    t1 = time.perf_counter()

    def report(state: Any) -> None:
        print(f"  step {state.step}/{state.total_steps} loss {state.losses[-1]:.3f} "
              f"({time.perf_counter() - t1:.0f} s)", flush=True)

    state = finetune(model_dir(), samples, format="function_calling", style="hermes",
                     max_seq_length=args.max_seq_length, output_dir=args.out / "lora",
                     num_epochs=args.epochs, max_steps=args.max_steps,
                     batch_size=args.batch_size, gradient_accumulation_steps=args.grad_accum,
                     learning_rate=args.lr, lora_r=16, lora_alpha=32, callbacks=[report],
                     target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                     "up_proj", "down_proj"])
    t_train = time.perf_counter() - t1
    merged = merge_and_export(state.checkpoint or "", args.out / "merged", base=model_dir())
    first, last = state.losses[0], sum(state.losses[-5:]) / len(state.losses[-5:])
    print(f"training: {state.step} steps, {state.tokens} trainable tokens in {t_train:.0f} s "
          f"({t_train / 60:.1f} min); loss {first:.3f} -> {last:.3f} (mean of last 5 steps)")
    before, t_before = evaluate("local", model_dir(), held, args)
    after, t_after = evaluate("finetuned", merged, held, args)
    print(f"evaluation: {len(held)} held-out frameworks x {args.eval_tasks} tasks, "
          f"base {t_before:.0f} s, fine-tuned {t_after:.0f} s")
    print(table(before, after))
    for b, a in zip(before["frameworks"], after["frameworks"], strict=True):
        print(f"  {b['framework']}: task success {_num(b['task_success_rate'])} -> "
              f"{_num(a['task_success_rate'])}, tool use {_num(b['tool_use_accuracy'])} -> "
              f"{_num(a['tool_use_accuracy'])}, format validity {_num(b['format_validity'])}"
              f" -> {_num(a['format_validity'])}")
    (args.out / "report.json").write_text(json.dumps(
        {"before": before, "after": after, "losses": state.losses}, indent=2))
    print(f"total wall time {(time.perf_counter() - t0) / 60:.1f} min")


if __name__ == "__main__":
    main()
