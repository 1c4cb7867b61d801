"""Choosing the sandbox: bubblewrap when it works here, else fail closed.

Whether bubblewrap works is probed once per bwrap path by running a tiny script in it;
the answer is cached for the life of the process.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

from a4a.runtime.errors import A4AError, RunError
from a4a.runtime.sandbox.base import Sandbox, SandboxLimits
from a4a.runtime.sandbox.bubblewrap import INSTALL_HINT, BubblewrapSandbox
from a4a.runtime.sandbox.local import UnsafeLocalSandbox

_PROBE_LIMITS = SandboxLimits(timeout_s=30)


def get_sandbox(allow_unsafe: bool = False) -> Sandbox:
    """The sandbox for code tools.

    Args:
        allow_unsafe: when bubblewrap is unavailable, return the unisolated
            UnsafeLocalSandbox instead of failing. Only for code the caller trusts.

    Raises:
        RunError: bubblewrap is missing or does not work here and `allow_unsafe` is false
            (code `sandbox.unavailable`).
    """
    bwrap = shutil.which("bwrap")
    problem = _probe(bwrap) if bwrap else "bwrap not found on PATH"
    if problem is None:
        return BubblewrapSandbox(bwrap)
    if allow_unsafe:
        return UnsafeLocalSandbox()
    raise RunError("sandbox.unavailable", f"no sandbox for code tools: {problem}",
                   hint=f"{INSTALL_HINT} (get_sandbox(allow_unsafe=True))",
                   problem=problem)


@cache
def _probe(bwrap: str) -> str | None:
    """None when code runs under `bwrap`; otherwise what went wrong."""
    with tempfile.TemporaryDirectory(prefix="a4a-sandbox-probe-") as workspace:
        try:
            result = BubblewrapSandbox(bwrap).run_python(
                "print(6 * 7)", workspace=Path(workspace), limits=_PROBE_LIMITS)
        except A4AError as err:
            return err.message
    if result.exit_code != 0 or result.stdout.strip() != "42":
        return f"bubblewrap probe failed (exit {result.exit_code}): {result.stderr.strip()[:500]}"
    return None
