"""Kill -9 a batch at 20 random points, resuming each time: nothing lost, nothing written
twice, and the final outputs are the bytes of an uninterrupted run with the same seed.

The batch runs as `a4a synth` in a child process with two workers; the test SIGKILLs the
parent (its pool workers are orphaned mid-unit, as after a real crash) after a random delay
and resumes. A resumed process pays its start-up again, so after each kill that found no new
journal line the delays grow (else every kill could land in start-up or in the final writing
and the batch never finish). If a batch finishes before all kills were spent, the next seed
is used.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from a4a.synth import SynthConfig, SynthOptions, synthesize
from tests.a4a.synth_support import journal_ids, outputs

KILLS = 20


def _cli(out: Path, seed: int) -> list[str]:
    return [sys.executable, "-c", "from a4a.cli import main; main()", "synth", "--resume",
            "--n", "24", "--tasks-per-env", "4", "--seed", str(seed), "--workers", "2",
            "--out", str(out), "--json"]


def _journal_lines(out: Path) -> int:
    work = out / "work"
    return sum(len(p.read_bytes().splitlines()) for p in work.glob("*.jsonl")) if (
        work.is_dir()) else 0


def test_kill_9_at_twenty_random_points_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    kills: list[tuple[int, float, int]] = []
    seed = 0
    while len(kills) < KILLS:
        out = tmp_path / f"killed-{seed}"
        stalls = 0
        while True:
            proc = subprocess.Popen(_cli(out, seed), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env={**os.environ})
            delay = rng.uniform(0.3, 2.5) + 1.5 * stalls
            time.sleep(delay)
            if len(kills) < KILLS and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                lines = _journal_lines(out)
                last = kills[-1][2] if kills and kills[-1][0] == seed else 0
                stalls = 0 if lines > last else stalls + 1
                kills.append((seed, round(delay, 2), lines))
                continue
            stdout, stderr = proc.communicate(timeout=600)
            assert proc.returncode == 0, stderr.decode()
            break
        ref = tmp_path / f"reference-{seed}"
        synthesize(ref, SynthConfig(n=24, tasks_per_env=4, seed=seed),
                   options=SynthOptions(workers=1, catalog=False))
        for name in ("builds.jsonl", "tasks.jsonl", "runs.jsonl"):
            got = journal_ids(out, name)
            assert len(got) == len(set(got)), f"{name}: a unit was written twice"
            assert sorted(got) == sorted(journal_ids(ref, name)), f"{name}: units lost"
        assert outputs(out) == outputs(ref), kills
        assert json.loads(stdout)["runs"]["total"] == 96
        seed += 1
    assert len(kills) == KILLS
    assert len({(seed, lines) for seed, _, lines in kills}) >= 3, kills  # not all in one spot
