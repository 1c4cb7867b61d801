"""Training tokens/s: a4a's loop against TRL's SFTTrainer, same model, data and settings.

Held equal: the model (SmolLM2-135M-Instruct from the a4a cache, fp32, sdpa attention), the
data (oracle runs of `--frameworks` frameworks from the benign corpus, written as the embedded
model reads them (training.textmode), tokenized and loss-masked by a4a; TRL takes these
`input_ids`/`labels` as they are), every example cut to its last `--length` tokens (so each
step holds the same number of real tokens in both trainers and shuffling order cannot favour
one: no padding anywhere), LoRA (r, alpha, dropout, target modules), batch size, gradient
accumulation, optimizer (AdamW: lr, betas, eps, no weight decay), constant learning rate,
gradient clipping at 1.0, seed, steps, no gradient checkpointing, one torch thread.
TRL keeps its other defaults (its per-step token-accuracy and entropy metrics among them).
Each trainer runs in a fresh process, alternating, `--rounds` times. tokens/s = real tokens of
an optimizer step / the wall time between the ends of consecutive steps (data loading,
forward, backward, clipping and the optimizer step), median over the steps after `--warmup`.

Usage: python bench/training_throughput.py [--length 256] [--batch 2] [--accum 1]
       [--steps 10] [--warmup 2] [--rounds 2]    (needs `make train` and `make model`)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from finetune_e2e import build_frameworks, model_dir, oracle_samples

LORA = {"r": 8, "lora_alpha": 16, "lora_dropout": 0.05,
        "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
LR = 2e-4


def examples(frameworks: int, length: int, out: Path) -> Path:
    """Write tokenized, masked examples cut to their last `length` tokens; returns the file."""
    from a4a.training.loop import IGNORE, tokenize_samples

    folders = build_frameworks(frameworks, out / "frameworks", tasks=2)
    full = tokenize_samples(model_dir(), oracle_samples(folders, 2), "function_calling",
                            "hermes", 100_000)
    cut = [{k: v[-length:] for k, v in e.items()} for e in full if len(e["input_ids"]) >= length]
    cut = [e for e in cut if any(x != IGNORE for x in e["labels"][1:])]
    path = out / "examples.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in cut), encoding="utf-8")
    return path


def run_a4a(data: Path, args: argparse.Namespace, out: Path) -> list[float]:
    """Seconds per optimizer step of a4a's loop."""
    from a4a.training.loop import finetune, load_examples

    ends: list[float] = []
    start = time.perf_counter()
    finetune(model_dir(), load_examples(data), output_dir=out, batch_size=args.batch,
             gradient_accumulation_steps=args.accum, max_steps=args.steps, learning_rate=LR,
             lora_r=LORA["r"], lora_alpha=LORA["lora_alpha"],
             lora_dropout=LORA["lora_dropout"], target_modules=LORA["target_modules"],
             num_epochs=100, callbacks=[lambda state: ends.append(time.perf_counter())])
    return _gaps(start, ends)


def run_trl(data: Path, args: argparse.Namespace, out: Path) -> list[float]:
    """Seconds per optimizer step of TRL's SFTTrainer."""
    import datasets
    import peft
    import transformers
    import trl

    ends: list[float] = []

    class Timer(transformers.TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, *a: Any, **k: Any) -> None:
            ends.append(time.perf_counter())

    model = transformers.AutoModelForCausalLM.from_pretrained(str(model_dir()),
                                                              local_files_only=True)
    tok = transformers.AutoTokenizer.from_pretrained(str(model_dir()), local_files_only=True)
    config = trl.SFTConfig(
        output_dir=str(out), per_device_train_batch_size=args.batch,
        gradient_accumulation_steps=args.accum, max_steps=args.steps, learning_rate=LR,
        lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0, max_grad_norm=1.0,
        optim="adamw_torch", seed=0, max_length=None, gradient_checkpointing=False,
        use_cpu=True, bf16=False, fp16=False, save_strategy="no", report_to=[],
        logging_steps=args.steps, dataloader_num_workers=0, disable_tqdm=True)
    trainer = trl.SFTTrainer(
        model=model, args=config, processing_class=tok,
        train_dataset=datasets.load_dataset("json", data_files=str(data), split="train"),
        peft_config=peft.LoraConfig(task_type="CAUSAL_LM", **LORA), callbacks=[Timer()])
    start = time.perf_counter()
    trainer.train()
    return _gaps(start, ends)


def _gaps(start: float, ends: list[float]) -> list[float]:
    return [b - a for a, b in zip([start, *ends], ends, strict=False)]


def child(which: str, data: Path, args: argparse.Namespace) -> None:
    """One trainer in this process; prints its per-step seconds as JSON."""
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        steps = (run_a4a if which == "a4a" else run_trl)(data, args, Path(tmp))
    print(json.dumps({"steps": steps, "threads": torch.get_num_threads()}))


def main() -> None:
    """Build the data, run both trainers alternately in fresh processes, print the figures."""
    p = argparse.ArgumentParser()
    p.add_argument("--frameworks", type=int, default=6)
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--accum", type=int, default=1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--child", choices=("a4a", "trl"))
    p.add_argument("--data", type=Path)
    args = p.parse_args()
    if args.child:
        child(args.child, args.data, args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = examples(args.frameworks, args.length, Path(tmp))
        n = sum(1 for _ in data.open())
        print(f"{n} examples of {args.length} tokens; batch {args.batch} x accumulation "
              f"{args.accum} = {args.batch * args.accum * args.length} tokens per step, "
              f"{args.steps} steps ({args.warmup} warm-up), {args.rounds} rounds")
        rates: dict[str, list[float]] = {"a4a": [], "trl": []}
        tokens = args.batch * args.accum * args.length
        for _ in range(args.rounds):
            for which in rates:
                cmd = [sys.executable, __file__, "--child", which, "--data", str(data),
                       *_passthrough(args)]
                done = subprocess.run(cmd, check=True, capture_output=True, text=True)
                steps = json.loads(done.stdout.strip().splitlines()[-1])["steps"]
                rates[which] += [tokens / s for s in steps[args.warmup:]]
    a4a, trl = statistics.median(rates["a4a"]), statistics.median(rates["trl"])
    print(f"a4a loop:         median {a4a:7.1f} tokens/s ({len(rates['a4a'])} steps)")
    print(f"TRL SFTTrainer:   median {trl:7.1f} tokens/s ({len(rates['trl'])} steps)")
    print(f"a4a / TRL:        {a4a / trl:.2f}x")


def _passthrough(args: argparse.Namespace) -> list[str]:
    return [f"--{k}={getattr(args, k)}" for k in ("length", "batch", "accum", "steps")]


if __name__ == "__main__":
    main()
