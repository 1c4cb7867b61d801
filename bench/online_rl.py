"""Multi-turn online RL through the runtime: rollouts, rewards per update, seconds per update.

A framework is built from `--request` with its `--tasks` environment tasks; `train_online` runs
`--updates` rounds of `--group` runs per task, each scored by the task's checker, then one LoRA
GRPO step. The policy samples in-process (`--model tiny`: a random Llama from a config with
the embedded tokenizer; `local`: the embedded SmolLM2-135M-Instruct; or a model directory), or
with `--server` the loopback fake OpenAI server samples (a responder that follows the gold
plans and stops early by the request's seed; the trainer's model is then updated on its
tokens, so the rewards measure the loop, not learning). Seconds per update: the median of the
rounds' wall times (rollouts, scoring, the step and the dump).

Usage: python bench/online_rl.py [--model tiny|local|DIR] [--server] [--updates 4]
       [--group 4] [--tasks 2] [--max-calls 4] [--max-new-tokens 32] [--json]
       (needs `make train` and `make model`)
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any


def tiny_model(folder: Path, vocab: int | None = None) -> Path:
    """A random one-layer Llama with the embedded model's tokenizer, saved to `folder`."""
    import torch
    import transformers

    from a4a.runtime.llm.models import model_dir

    tok = transformers.AutoTokenizer.from_pretrained(str(model_dir()))
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab or len(tok), hidden_size=16, intermediate_size=32,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
        max_position_embeddings=4096, pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id, bos_token_id=tok.bos_token_id)
    transformers.LlamaForCausalLM(config).save_pretrained(str(folder))
    tok.save_pretrained(str(folder))
    return folder


def main() -> None:
    """Run the loop once and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--server", action="store_true")
    parser.add_argument("--request", default="an agent that labels GitHub issues")
    parser.add_argument("--updates", type=int, default=4)
    parser.add_argument("--group", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--max-calls", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = run(args, Path(tmp))
    figures = {"model": args.model, "server": args.server, "steps": report["steps"],
               "rollouts": report["rollouts"], "rewards": report["rewards"],
               "rows": [h["rows"] for h in report["history"]],
               "calls": [h["calls"] for h in report["history"]],
               "seconds": report["seconds"],
               "median_seconds_per_update": statistics.median(report["seconds"])}
    print(json.dumps(figures) if args.json else "\n".join(f"{k}: {v}"
                                                         for k, v in figures.items()))


def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """Build the framework and its tasks, then `train_online` as the arguments say."""
    import torch

    from a4a import api
    from a4a.runtime.llm.fakeserver import FakeOpenAIServer
    from a4a.runtime.llm.guard import allow_real_models
    from a4a.training.online_rl import train_online
    from a4a.training.policy_llm import plan_responder
    from a4a.training.rollouts import Server

    torch.set_num_threads(1)
    framework = tmp / "framework"
    api.build(args.request, out=framework)
    tasks = [json.loads(t.to_json()) for t in api.tasks(framework, args.tasks)]
    model: Any = args.model
    if model == "tiny":  # the fake server's token ids run to 100 000
        model = tiny_model(tmp / "tiny", 100_000 if args.server else None)
    common = {"updates": args.updates, "group_size": args.group, "tasks": args.tasks,
              "max_calls": args.max_calls, "max_new_tokens": args.max_new_tokens,
              "learning_rate": 1e-3, "output_dir": tmp / "out"}
    if not args.server:
        return train_online(model, [framework], **common)
    with allow_real_models(), FakeOpenAIServer(responder=plan_responder(tasks)) as server:
        return train_online(model, [framework], server=Server(server.base_url, "fake"),
                            **common)


if __name__ == "__main__":
    main()
