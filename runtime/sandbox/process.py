"""Running one child process under rlimits, a wall-clock kill and capped output capture.

Both real sandboxes start the code through the same bootstrap: a tiny Python program that
sets the rlimits on itself (soft and hard, so the code cannot raise them again) and then
replaces itself with the interpreter running the script. Setting the limits in the child
avoids `preexec_fn`, which is unsafe in a threaded parent.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

from a4a.runtime.errors import RunError
from a4a.runtime.sandbox.base import (
    CPU,
    DISK,
    FILE_SIZE,
    MEMORY,
    PROCESSES,
    TIMEOUT,
    SandboxLimits,
    SandboxResult,
)

# Run as `python -I -S -c BOOTSTRAP <script> NAME=SOFT:HARD ...`.
BOOTSTRAP = (
    "import os, resource, sys\n"
    "for spec in sys.argv[2:]:\n"
    "    name, _, pair = spec.partition('=')\n"
    "    soft, hard = (int(v) for v in pair.split(':'))\n"
    "    resource.setrlimit(getattr(resource, name), (soft, hard))\n"
    "os.execv(sys.executable, [sys.executable, '-I', '-S', sys.argv[1]])\n"
)
# Open files per process; not a tunable limit, only a bound on descriptor exhaustion.
MAX_OPEN_FILES = 256
_MB = 1024 * 1024
_CHUNK = 65536
# How long the capture keeps reading after the main process ended, for output that
# children still hold in the pipes before they are killed.
_DRAIN_S = 0.5


def rlimit_args(limits: SandboxLimits) -> list[str]:
    """The bootstrap's `NAME=SOFT:HARD` arguments for `limits`.

    The CPU hard limit sits one second above the soft one, so the code first gets SIGXCPU
    (which tells the CPU limit apart) and SIGKILL only if it ignores that.
    """
    cpu = int(limits.cpu_s)
    pairs = {
        "RLIMIT_AS": (limits.memory_mb * _MB,) * 2,
        "RLIMIT_CPU": (cpu, cpu + 1),
        "RLIMIT_NPROC": (limits.max_processes,) * 2,
        "RLIMIT_FSIZE": (limits.max_file_mb * _MB,) * 2,
        "RLIMIT_NOFILE": (MAX_OPEN_FILES,) * 2,
        "RLIMIT_CORE": (0, 0),
    }
    return [f"{name}={soft}:{hard}" for name, (soft, hard) in pairs.items()]


@dataclass(frozen=True)
class Outcome:
    """How a child process ended, before its output is decoded."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    truncated: bool
    duration_s: float


class _Capture:
    """The first `cap` bytes of one stream; later bytes are read and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
        if room > 0:
            self.data += chunk[:room]


def run_limited(argv: Sequence[str], *, env: dict[str, str], cwd: str, timeout_s: float,
                max_output_bytes: int, pass_fds: Sequence[int] = ()) -> Outcome:
    """Run `argv` in a new session; kill the session's process group at the deadline.

    Output is read as it comes (so a chatty child never blocks on a full pipe) and only the
    first `max_output_bytes` of each stream are kept. When the main process ends, whatever
    is left of its process group is killed too.

    Raises:
        RunError: the process could not be started (code `sandbox.start_failed`).
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, cwd=cwd,
                                start_new_session=True, pass_fds=tuple(pass_fds))
    except OSError as exc:
        raise RunError("sandbox.start_failed", f"could not start the sandbox: {exc}",
                       hint="check that the sandbox program exists and is executable",
                       argv0=argv[0]) from exc
    out, err = _Capture(max_output_bytes), _Capture(max_output_bytes)
    pipes = [(proc.stdout, out), (proc.stderr, err)]
    try:
        timed_out = _pump(proc.pid, [(p.fileno(), c) for p, c in pipes if p is not None],
                          deadline=start + timeout_s)
    finally:
        _kill_group(proc.pid)
        proc.wait()
        for pipe, _ in pipes:
            if pipe is not None:
                pipe.close()
    return Outcome(None if timed_out else proc.returncode, bytes(out.data), bytes(err.data),
                   timed_out, out.truncated or err.truncated, time.monotonic() - start)


def _pump(pid: int, pipes: list[tuple[int, _Capture]], *, deadline: float) -> bool:
    """Read the pipes until they close and `pid` ends, or until the deadline passes.

    Returns:
        True when the deadline passed first.
    """
    exited = os.pidfd_open(pid)
    sel = selectors.DefaultSelector()
    for fd, capture in pipes:
        sel.register(fd, selectors.EVENT_READ, capture)
    sel.register(exited, selectors.EVENT_READ, None)
    ended = False
    try:
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return not ended
            for key, _ in sel.select(remaining):
                if key.data is None:
                    # The main process ended (still a zombie, so its group id stays ours):
                    # kill the rest of its group and give the pipes a moment to drain.
                    sel.unregister(exited)
                    ended = True
                    _kill_group(pid)
                    deadline = min(deadline, time.monotonic() + _DRAIN_S)
                    continue
                chunk = os.read(key.fd, _CHUNK)
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fd)
        return False
    finally:
        sel.close()
        os.close(exited)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def to_result(outcome: Outcome, exit_code: int | None) -> SandboxResult:
    """The SandboxResult of `outcome`, with `exit_code` as the sandbox reports it."""
    stderr = outcome.stderr.decode("utf-8", errors="replace")
    return SandboxResult(
        exit_code=exit_code,
        stdout=outcome.stdout.decode("utf-8", errors="replace"),
        stderr=stderr,
        timed_out=outcome.timed_out,
        limit_hit=TIMEOUT if outcome.timed_out else _limit_from(exit_code, stderr),
        truncated=outcome.truncated,
        duration_s=outcome.duration_s,
    )


def _limit_from(exit_code: int | None, stderr: str) -> str | None:
    """Which rlimit most likely ended the code, from its exit status and last words."""
    if exit_code in (-signal.SIGXCPU, -signal.SIGKILL):
        return CPU
    if not exit_code:
        return None
    tail = stderr[-2000:]
    if "MemoryError" in tail:
        return MEMORY
    if "[Errno 27]" in tail:  # EFBIG: a write past RLIMIT_FSIZE (Python ignores SIGXFSZ)
        return FILE_SIZE
    if "[Errno 28]" in tail:  # ENOSPC: the workspace or /tmp is full, in bytes or in files
        return DISK
    if "[Errno 11]" in tail:  # EAGAIN from fork or thread creation at RLIMIT_NPROC
        return PROCESSES
    return None
