"""Batch synthesis throughput: units per second per stage, and concurrency efficiency.

Rows, side by side in one run:
- the oracle batch (`a4a synth --llm oracle`) with 1 and with 2 worker processes: build
  (compile + validate + write + register), task generation, and oracle runs (run + score +
  quality rules), in units per second; the speed-up of 2 workers over 1;
- model-bound runs against the loopback OpenAI-compatible fake server with a fixed latency
  L (the server's echo reply is each agent's final answer, so a run makes one model call per
  agent it passes through): with C runs in flight and M model calls in all, the runs ideally
  take M * L / C; efficiency = ideal / measured.
Medians over rounds; each round is a fresh batch folder. The machine's other core may be
busy: read ratios, not single timings.

Usage: python bench/synth_throughput.py [--n 40] [--tasks 5] [--rounds 3]
       [--latency-s 0.2] [--concurrency 16 64] [--model-runs 256]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("A4A_HOME", tempfile.mkdtemp(prefix="a4a-bench-home-"))

from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models
from a4a.synth import SynthConfig, SynthOptions, synthesize


def _batch(config: SynthConfig, options: SynthOptions) -> tuple[dict[str, Any], float]:
    out = Path(tempfile.mkdtemp(prefix="a4a-bench-synth-")) / "batch"
    start = time.perf_counter()
    try:
        report = synthesize(out, config, options=options)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    return report, time.perf_counter() - start


def oracle_rows(n: int, tasks: int, rounds: int) -> list[tuple[str, dict[str, float]]]:
    """Units/s per stage with 1 and 2 workers (medians over rounds)."""
    rows = []
    for workers in (1, 2):
        per: dict[str, list[float]] = {"build": [], "tasks": [], "runs": [], "wall": []}
        for r in range(rounds):
            report, wall = _batch(SynthConfig(n=n, tasks_per_env=tasks, seed=r),
                                  SynthOptions(workers=workers))
            for stage in ("build", "tasks", "runs"):
                per[stage].append(report["throughput"][stage]["per_second"])
            per["wall"].append(wall)
        rows.append((f"oracle, {workers} worker{'s' * (workers > 1)}",
                     {k: statistics.median(v) for k, v in per.items()}))
    return rows


def model_rows(latency: float, concurrencies: list[int], runs: int, rounds: int
               ) -> list[tuple[int, float, float, float]]:
    """(concurrency, runs/s, model calls/s, efficiency) against the fake server (medians)."""
    n, tasks = max(1, runs // 4), 4
    out = []
    with FakeOpenAIServer(latency_s=latency) as server, allow_real_models():
        for c in concurrencies:
            rates, calls, effs = [], [], []
            for r in range(rounds):
                report, _ = _batch(SynthConfig(n=n, tasks_per_env=tasks, seed=r,
                                               llm="openai:fake-model"),
                                   SynthOptions(workers=2, concurrency=c,
                                                base_url=server.base_url, catalog=False))
                stage = report["throughput"]["runs"]
                ideal = max(math.ceil(stage["units"] / c), report["cost"]["llm_attempts"] / c
                            ) * latency
                rates.append(stage["per_second"])
                calls.append(report["cost"]["llm_attempts"] / stage["seconds"])
                effs.append(ideal / stage["seconds"])
            out.append((c, statistics.median(rates), statistics.median(calls),
                        statistics.median(effs)))
    return out


def main() -> None:
    """Print the tables."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--tasks", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--latency-s", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--model-runs", type=int, default=256)
    a = ap.parse_args()
    print(f"oracle batch: {a.n} environments x {a.tasks} tasks, median of {a.rounds} rounds")
    print(f"{'engine':<22}{'build/s':>10}{'tasks/s':>10}{'runs/s':>10}{'wall s':>10}")
    rows = oracle_rows(a.n, a.tasks, a.rounds)
    for name, v in rows:
        print(f"{name:<22}{v['build']:>10.1f}{v['tasks']:>10.1f}{v['runs']:>10.1f}"
              f"{v['wall']:>10.2f}")
    one, two = rows[0][1], rows[1][1]
    print(f"2 workers / 1: build {two['build'] / one['build']:.2f}x, tasks "
          f"{two['tasks'] / one['tasks']:.2f}x, runs {two['runs'] / one['runs']:.2f}x, "
          f"wall {one['wall'] / two['wall']:.2f}x")
    print(f"\nmodel-bound runs vs the loopback fake server, latency {a.latency_s * 1000:.0f} ms, "
          f"~{a.model_runs} runs")
    print(f"{'in flight':<12}{'runs/s':>10}{'calls/s':>10}{'efficiency':>12}")
    for c, rate, calls, eff in model_rows(a.latency_s, a.concurrency, a.model_runs, a.rounds):
        print(f"{c:<12}{rate:>10.1f}{calls:>10.1f}{eff:>12.1%}")


if __name__ == "__main__":
    main()
