"""What each sandbox limit does: how much hostile code gets before the cap, and how fast.

For each attack (disk fill, inode flood, /tmp fill, memfd and shared-memory hogs) the code
inside the bubblewrap sandbox counts what it reached before the first refusal and times it;
the bench prints those figures with what reached the host workspace, and the median wall
time of a trivial run (the sandbox's own overhead, stage and copies included).
Usage: python bench/sandbox_limits.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from a4a.runtime.sandbox import SandboxLimits, get_sandbox

LIMITS = SandboxLimits(timeout_s=60, memory_mb=128, workspace_mb=64, max_files=2048)

# Each attack sets `reached` (bytes or entries) and stops at the first refusal.
PRELUDE = """
import os, time, ctypes
reached, error, start = 0, None, time.monotonic()
def report():
    print(reached, round(time.monotonic() - start, 3), repr(error))
"""
ATTACKS = {
    "disk fill (1 MiB files)": ("bytes", """
try:
    for i in range(100000):
        with open(f'f{i}', 'wb') as f:
            f.write(b'0' * (1 << 20))
        reached += 1 << 20
except OSError as exc:
    error = exc.strerror
"""),
    "inode flood (empty files)": ("files", """
try:
    for i in range(10 ** 7):
        os.close(os.open(f'e{i}', os.O_CREAT | os.O_WRONLY))
        reached += 1
except OSError as exc:
    error = exc.strerror
"""),
    "inode flood (directories)": ("files", """
try:
    for i in range(10 ** 7):
        os.mkdir(f'd{i}')
        reached += 1
except OSError as exc:
    error = exc.strerror
"""),
    "/tmp fill (1 MiB files)": ("bytes", """
try:
    for i in range(100000):
        with open(f'/tmp/f{i}', 'wb') as f:
            f.write(b'0' * (1 << 20))
        reached += 1 << 20
except OSError as exc:
    error = exc.strerror
"""),
    "memfd hog (4 MiB writes)": ("bytes", """
try:
    for i in range(1000):
        fd = os.memfd_create(f'm{i}')
        for _ in range(4):
            os.write(fd, b'0' * (4 << 20))
            reached += 4 << 20
except OSError as exc:
    error = exc.strerror
"""),
    "System V shm segment": ("bytes", """
libc = ctypes.CDLL(None, use_errno=True)
if libc.shmget(0, 64 << 20, 0o1600) == -1:
    error = os.strerror(ctypes.get_errno())
else:
    reached = 64 << 20
"""),
}


def _host(root: Path) -> tuple[int, int]:
    seen, used, entries = set(), 0, 0
    for path in root.rglob("*"):
        st = path.lstat()
        entries += 1
        if st.st_ino not in seen:
            seen.add(st.st_ino)
            used += st.st_blocks * 512
    return used, entries


def _attack(name: str, unit: str, code: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="a4a-bench-") as ws:
        result = get_sandbox().run_python(PRELUDE + code + "report()\n", workspace=Path(ws),
                                          limits=LIMITS)
        used, entries = _host(Path(ws))
    reached, seconds, error = result.stdout.split(" ", 2)
    return {"attack": name, "unit": unit, "reached": int(reached), "seconds": float(seconds),
            "refused_with": error.strip().strip("'\""), "host_bytes": used,
            "host_entries": entries}


def _overhead_s(runs: int) -> float:
    times = []
    with tempfile.TemporaryDirectory(prefix="a4a-bench-") as ws:
        Path(ws, "given.txt").write_text("x" * 1000)
        for _ in range(runs):
            start = time.perf_counter()
            get_sandbox().run_python("pass", workspace=Path(ws), limits=LIMITS)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="trivial runs for the overhead")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    rows = [_attack(name, unit, code) for name, (unit, code) in ATTACKS.items()]
    overhead = _overhead_s(args.runs)
    if args.json:
        print(json.dumps({"limits": LIMITS.__dict__, "attacks": rows,
                          "trivial_run_median_s": overhead}))
        return
    print(f"limits: memory {LIMITS.memory_mb} MiB, workspace {LIMITS.workspace_mb} MiB, "
          f"{LIMITS.max_files} files")
    for row in rows:
        amount = (f"{int(row['reached']) >> 20} MiB" if row["unit"] == "bytes"
                  else f"{row['reached']} files")
        print(f"{row['attack']:28} reached {amount:>10} in {row['seconds']:.3f} s, refused: "
              f"{row['refused_with']}; host workspace {int(row['host_bytes']) >> 20} MiB, "
              f"{row['host_entries']} entries")
    print(f"trivial run (stage, copies, two bwraps): median {overhead * 1000:.0f} ms "
          f"over {args.runs}")


if __name__ == "__main__":
    main()
