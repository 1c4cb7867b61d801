"""Cold start of `a4a --help` and of `a4a build` (a fresh process each run), medians.

Usage: python bench/cli_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _median_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exe = shutil.which("a4a", path=str(Path(sys.executable).parent)) or "a4a"
    base = _median_ms([sys.executable, "-c", "pass"], args.runs)
    helptime = _median_ms([exe, "--help"], args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        buildtime = _median_ms([exe, "build", "a team that triages GitHub issues", "--out",
                                str(Path(tmp) / "fw")], args.runs)
    print(f"python -c pass:      median {base:.0f} ms over {args.runs} runs")
    print(f"a4a --help (cold):   median {helptime:.0f} ms over {args.runs} runs")
    print(f"a4a build (cold):    median {buildtime:.0f} ms over {args.runs} runs")


if __name__ == "__main__":
    main()
