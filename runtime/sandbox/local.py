"""The unsafe local sandbox: rlimits and a timeout, but no isolation at all.

The code runs as the runtime's own user, sees the whole file system and the network, and
shares /tmp with the host; the workspace has no byte or file cap and memfds are allowed.
Only `get_sandbox(allow_unsafe=True)` hands it out, for machines where bubblewrap cannot run
and the caller trusts the code. Run as root, RLIMIT_NPROC binds nothing (the kernel exempts
uid 0), and a child that starts its own session escapes the kill.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from a4a.runtime.sandbox.base import SandboxLimits, SandboxResult, check_workspace
from a4a.runtime.sandbox.process import BOOTSTRAP, rlimit_args, run_limited, to_result


class UnsafeLocalSandbox:
    """Runs code in a plain child process of the running interpreter."""

    name = "unsafe-local"

    def run_python(self, code: str, *, workspace: Path, limits: SandboxLimits) -> SandboxResult:
        """Run `code` with `workspace` as its working directory; see `Sandbox.run_python`.

        Raises:
            UserError: the workspace is not a directory.
            RunError: the interpreter could not be started (`sandbox.start_failed`).
        """
        root = check_workspace(workspace)
        # The script lives outside the workspace, so the workspace holds only what the code
        # writes there.
        with tempfile.TemporaryDirectory(prefix="a4a-sandbox-") as scratch:
            script = Path(scratch) / "main.py"
            script.write_text(code, encoding="utf-8", errors="surrogateescape")
            env = {"PATH": os.defpath, "HOME": str(root), "LANG": "C.UTF-8"}
            outcome = run_limited(
                [sys.executable, "-I", "-S", "-c", BOOTSTRAP, str(script), *rlimit_args(limits)],
                env=env, cwd=str(root), timeout_s=limits.timeout_s,
                max_output_bytes=limits.max_output_bytes)
        return to_result(outcome, outcome.returncode)
