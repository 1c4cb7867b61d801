"""The embedded model on one thread: import, cached load and generation speed, medians.

Each run is a fresh process. The first `load()` pays transformers' lazy imports of its model
code (torch.distributed among them) once per process; `load_seconds` times only reading the
cached tokenizer and safetensors, for the first and for a second load.

Usage: python bench/local_model.py [--runs N] [--tokens N]   (needs `make model`)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import torch, transformers
t1 = time.perf_counter()
from a4a.runtime.llm.base import LLMRequest, Message
from a4a.runtime.llm.local import LocalLLM
first = LocalLLM(max_new_tokens=int(sys.argv[1]))
t1b = time.perf_counter(); first.load(); t1c = time.perf_counter()
second = LocalLLM(max_new_tokens=int(sys.argv[1])); second.load()
req = LLMRequest((Message("user", "Write a short poem about the sea."),))
t2 = time.perf_counter(); out = second.generate(req); t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_call": t1c - t1b, "first": first.load_seconds,
                  "warm": second.load_seconds,
                  "tok_s": len(out.token_ids) / (t3 - t2), "threads": torch.get_num_threads()}))
"""


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args()
    env = {**os.environ, "A4A_ALLOW_LOCAL_LLM": "1"}
    rows = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD, str(args.tokens)], check=True,
                             capture_output=True, text=True, env=env)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(f"import torch + transformers: median {med('import') * 1000:.0f} ms")
    print(f"first load() in a process:   median {med('first_call') * 1000:.0f} ms "
          "(with transformers' lazy imports)")
    print(f"  of which the cached files: median {med('first') * 1000:.0f} ms")
    print(f"second load() (files only): median {med('warm') * 1000:.0f} ms")
    print(f"greedy generation:           median {med('tok_s'):.1f} tokens/s on "
          f"{rows[0]['threads']} thread ({args.runs} runs, {args.tokens} new tokens)")


if __name__ == "__main__":
    main()
