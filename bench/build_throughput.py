"""In-process build throughput: frameworks per second on one core, over the request corpus.

Prints medians over repeated rounds, in memory and written to disk. In memory the rate is per
CPU-second of this process (time.process_time), so a busy second core does not lower it;
written to disk it is per wall-clock second (file writes wait on the disk).
Usage: python bench/build_throughput.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from a4a.api import build
from a4a.generator.pipeline import compile_request

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "requests_benign.yaml"


def _rate(texts: list[str], fn, clock=time.perf_counter) -> float:  # type: ignore[no-untyped-def]
    start = clock()
    for i, text in enumerate(texts):
        fn(text, i)
    return len(texts) / (clock() - start)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts = yaml.safe_load(CORPUS.read_text())["requests"]
    compile_request(texts[0])  # warm caches (packs, patterns, templates)
    mem = [_rate(texts, lambda t, i: compile_request(t), time.process_time)
           for _ in range(args.rounds)]
    with tempfile.TemporaryDirectory() as tmp:
        disk = [_rate(texts, lambda t, i: build(t, out=Path(tmp) / str(i)))
                for _ in range(args.rounds)]
    sizes = [len(compile_request(t).spec.agents) for t in texts]
    print(f"corpus: {len(texts)} requests, {statistics.mean(sizes):.1f} agents on average "
          f"(max {max(sizes)})")
    print(f"build in memory (compile + validate + render files): "
          f"median {statistics.median(mem):.0f} frameworks per CPU-second over "
          f"{args.rounds} rounds")
    print(f"build written to disk:                                "
          f"median {statistics.median(disk):.0f} frameworks/s over {args.rounds} rounds")


if __name__ == "__main__":
    main()
