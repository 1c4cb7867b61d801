"""The sandbox seam: the limits a run gets, the result it returns, and the one protocol.

Generated or untrusted tool code never runs in the runtime's process. A `Sandbox` runs a
Python snippet in a child process with the interpreter's standard library, a writable
workspace, no network and resource limits, and reports what happened as data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Protocol

from a4a.runtime.errors import UserError

# Values of SandboxResult.limit_hit. Apart from TIMEOUT (the sandbox itself killed the run),
# they are read from how the child ended and are hints for the model, never a security signal.
TIMEOUT = "timeout"
CPU = "cpu"
MEMORY = "memory"
FILE_SIZE = "file_size"
PROCESSES = "processes"
DISK = "disk"


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed run.

    Attributes:
        timeout_s: wall-clock limit; the whole run is killed when it passes.
        memory_mb: address-space limit (RLIMIT_AS) of each process; also caps the private /tmp.
            Memory no rlimit counts (memfds, shared memory) is refused.
        cpu_s: CPU seconds per process (RLIMIT_CPU).
        max_output_bytes: bytes kept of stdout and of stderr each; the rest is dropped.
        max_processes: processes and threads the sandboxed code may hold at once (RLIMIT_NPROC).
        max_file_mb: the largest file the code may write (RLIMIT_FSIZE).
        workspace_mb: the bytes the workspace may hold (a tmpfs of that size).
        max_files: the files, directories and links the workspace may hold, and /tmp too.
    """

    timeout_s: float = 10
    memory_mb: int = 512
    cpu_s: int = 10
    max_output_bytes: int = 65536
    max_processes: int = 64
    max_file_mb: int = 16
    workspace_mb: int = 128
    max_files: int = 4096

    def __post_init__(self) -> None:
        bad = [f.name for f in fields(self)
               if not _positive(getattr(self, f.name), whole=f.type == "int")]
        if bad:
            raise UserError("sandbox.limits", f"sandbox limits must be positive numbers: {bad}",
                            hint="pass a positive value for each limit (whole numbers for all "
                                 "but timeout_s), or keep the default", fields=bad)


def _positive(value: object, *, whole: bool) -> bool:
    kinds = int if whole else int | float
    return (isinstance(value, kinds) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


@dataclass(frozen=True)
class SandboxResult:
    """What one sandboxed run did.

    Attributes:
        exit_code: the exit status; negative when a signal ended the code; None when the
            sandbox killed it at the wall-clock limit.
        stdout: standard output (UTF-8, undecodable bytes replaced), at most max_output_bytes.
        stderr: standard error, likewise.
        timed_out: the wall-clock limit passed and the run was killed.
        limit_hit: which limit ended or broke the run, when known (see the module constants).
        truncated: stdout or stderr was longer than max_output_bytes and was cut.
        duration_s: wall-clock seconds from start to the end of the run.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    limit_hit: str | None
    truncated: bool
    duration_s: float

    @property
    def ok(self) -> bool:
        """True when the code exited with status 0 within its limits."""
        return self.exit_code == 0 and not self.timed_out


class Sandbox(Protocol):
    """Runs Python code in isolation. Implementations: bubblewrap, unsafe local, fake."""

    name: str

    def run_python(self, code: str, *, workspace: Path, limits: SandboxLimits) -> SandboxResult:
        """Run `code` as a script with `workspace` as its writable working directory.

        Args:
            code: the Python source to run as `__main__`.
            workspace: an existing directory; the only place the code may write.
            limits: the resource limits of this run.

        Returns:
            The result; failures of the code itself are data, never exceptions.

        Raises:
            UserError: the workspace is not a directory.
            RunError: the sandbox could not start the run.
        """
        ...


def check_workspace(workspace: Path) -> Path:
    """The workspace as an absolute, symlink-free path.

    Raises:
        UserError: `workspace` is not an existing directory.
    """
    path = Path(workspace).resolve()
    if not path.is_dir():
        raise UserError("sandbox.workspace", f"sandbox workspace is not a directory: {workspace}",
                        hint="create the workspace directory before running code in it",
                        workspace=str(workspace))
    return path
