"""Helpers shared by the sandbox tests: the real sandbox or a skip, and process scans."""

from __future__ import annotations

import os
import socket
import time
import uuid
from pathlib import Path

import pytest

from a4a.runtime.errors import RunError
from a4a.runtime.sandbox import (
    BubblewrapSandbox,
    Sandbox,
    SandboxLimits,
    SandboxResult,
    get_sandbox,
)

PROBE_LIMITS = SandboxLimits(timeout_s=20)


def real_sandbox() -> Sandbox:
    """The bubblewrap sandbox; skipped where it is missing, unless A4A_REQUIRE_SANDBOX is set.

    `make test` sets it (and installs bubblewrap first), so there a missing sandbox fails.
    """
    try:
        sandbox = get_sandbox()
    except RunError as err:
        if os.environ.get("A4A_REQUIRE_SANDBOX"):
            pytest.fail(f"bubblewrap sandbox required but unavailable: {err.message}")
        pytest.skip(f"bubblewrap sandbox unavailable: {err.message}")
    assert isinstance(sandbox, BubblewrapSandbox)
    return sandbox


def processes_with(marker: str) -> list[int]:
    """PIDs of host processes whose command line contains `marker`."""
    found = []
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_gone(marker: str, within_s: float = 10.0) -> list[int]:
    """Wait (bounded) until no host process carries `marker`; returns those left over.

    Namespace teardown finishes in the kernel shortly after the sandbox returns, so the
    check polls instead of reading the process table once.
    """
    deadline = time.monotonic() + within_s
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


SECRET = f"a4a-canary-{uuid.uuid4().hex}"

# Each probe's code starts with these helpers.
PRELUDE = '''
import ctypes, os, signal, socket, subprocess, sys

def attempt(label, fn):
    try:
        result = fn()
    except BaseException as exc:
        print("BLOCKED", label, type(exc).__name__, exc)
    else:
        print("ESCAPED", label, repr(result)[:200])

def libc(name, *args):
    lib = ctypes.CDLL(None, use_errno=True)
    if getattr(lib, name)(*args) == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))

def read(path):
    with open(path, "rb") as f:
        return f.read()

def write(path, data=b"x"):
    with open(path, "wb") as f:
        f.write(data)
'''


def probe(sandbox: Sandbox, workspace: Path, body: str,
          limits: SandboxLimits = PROBE_LIMITS) -> SandboxResult:
    """Run `body` after the PRELUDE; the canary secret must never show in the output."""
    result = sandbox.run_python(PRELUDE + body, workspace=workspace, limits=limits)
    assert SECRET not in result.stdout + result.stderr
    return result


def assert_blocked(result: SandboxResult, count: int = 1) -> None:
    """Every one of the `count` attempts was refused and the snippet ran to its end."""
    assert "ESCAPED" not in result.stdout, result.stdout
    assert result.stdout.count("BLOCKED") == count, (result.stdout, result.stderr)
    assert result.exit_code == 0, result.stderr


def no_connection(server: socket.socket) -> bool:
    """True when no client is waiting on the (non-blocking) listening socket."""
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return True
    conn.close()
    return False
