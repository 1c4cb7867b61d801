"""The bubblewrap sandbox: code runs in fresh namespaces with a read-only system and no network.

Two bwrap processes are nested, with a trusted stage between them:

- the outer one builds the file system view (read-only /usr and Python prefix, a private
  /proc, the device nodes, the script) and new PID and network namespaces; run as root it
  needs no user namespace. It reads its arguments from a descriptor (`--args`), so its
  command line names no host path;
- the stage (`stage.py`, PID 1 of the sandbox) mounts the workspace and /tmp as tmpfs
  capped in bytes and inodes, copies the host workspace in through a descriptor (the host
  directory is never mounted, so mountinfo shows no host path), runs the rest, and copies
  the result back;
- when the runtime is root, `setpriv` then drops to an unprivileged uid, because the kernel
  never enforces RLIMIT_NPROC on uid 0, not even inside a user namespace;
- the inner one, unprivileged, adds the user, IPC and UTS namespaces, forbids further user
  namespaces, makes everything but the workspace and /tmp read-only, loads the seccomp
  filter (`seccomp.py`: no memfd, no shared memory) and starts the bootstrap that sets the
  rlimits.

The inner bwrap cannot mount its own /proc (the kernel refuses a procfs mount in a user
namespace while the outer /proc has read-only overmounts), so it reuses the outer one: the
code sees only the PIDs of its own sandbox, and `/proc/*/net` only the sandbox's loopback.
bwrap is always started with an empty environment: its environment is readable there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import marshal
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import RunError, UserError
from a4a.runtime.loader.fsaccess import PROTECTED
from a4a.runtime.sandbox import stage
from a4a.runtime.sandbox.base import SandboxLimits, SandboxResult, check_workspace
from a4a.runtime.sandbox.process import BOOTSTRAP, Outcome, rlimit_args, run_limited, to_result
from a4a.runtime.sandbox.seccomp import seccomp_program

# The uid the code runs as, inside and (when the runtime is root) outside: nobody.
SANDBOX_UID = 65534
WORKSPACE = stage.WORKSPACE
SCRIPT = "/sandbox/main.py"
STAGE = "/sandbox/stage.py"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The only host file under /etc the code sees: the loader cache, so ctypes finds libraries.
_ETC_FILES = ("/etc/ld.so.cache",)
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
_MB = 1024 * 1024
# Time the stage gets past the code's own limit to kill it and copy the workspace back.
_COPY_GRACE_S = 30.0
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; `make test` "
                "does it), or allow unsafe local execution explicitly")


class BubblewrapSandbox:
    """Runs code under bubblewrap with the interpreter's standard library.

    The interpreter is the system's `/usr/bin/pythonX.Y` of the runtime's version when there
    is one (nothing outside /usr to show), else the runtime's own. One run at a time per
    workspace: the run replaces the host workspace with its copy when it ends.

    Args:
        bwrap: path of the bwrap program; found on PATH when omitted.
        uid: the unprivileged uid the code runs as.
    """

    name = "bubblewrap"

    def __init__(self, bwrap: str | None = None, *, uid: int = SANDBOX_UID) -> None:
        self.bwrap = bwrap if bwrap is not None else shutil.which("bwrap")
        self.uid = uid
        self.as_root = os.geteuid() == 0
        self.setpriv = shutil.which("setpriv") if self.as_root else None
        self.python = _interpreter()

    def run_python(self, code: str, *, workspace: Path, limits: SandboxLimits) -> SandboxResult:
        """Run `code` in the sandbox; see `Sandbox.run_python`.

        Raises:
            UserError: the workspace is not a directory, or does not fit the sandbox's
                disk (`sandbox.workspace_too_large`).
            RunError: bwrap (or setpriv, when root) is missing (`sandbox.unavailable`), or
                the sandbox failed to start (`sandbox.start_failed`).
        """
        root = check_workspace(workspace)
        tools = self._tools()
        with contextlib.ExitStack() as fds:
            status_r, status_w = os.pipe()
            fds.callback(os.close, status_r)
            fds.callback(os.close, status_w)
            host_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
            fds.callback(os.close, host_fd)
            code_fd = _memfd(fds, "main.py", code.encode("utf-8", errors="surrogateescape"))
            stage_fd = _memfd(fds, "stage.py", Path(stage.__file__).read_bytes())
            seccomp_fd = _memfd(fds, "seccomp", seccomp_program())
            inner = [*self._drop(tools), *self._inner(tools, limits, seccomp_fd,
                                                      _read_only_parts(root))]
            config = self._stage_config(limits, inner, host_fd, status_w, seccomp_fd)
            config_fd = _memfd(fds, "stage.config", marshal.dumps(config))
            args = self._outer(tools, code_fd, stage_fd)
            args_fd = _memfd(fds, "args", b"".join(a.encode() + b"\0" for a in args))
            # The command stays on the command line (bwrap wants one there); it names no
            # host path when the interpreter is the system's.
            command = [self.python, "-I", "-S", STAGE, str(config_fd)]
            outcome = run_limited([tools.bwrap, "--args", str(args_fd), "--", *command],
                                  env={}, cwd="/",
                                  timeout_s=limits.timeout_s + _COPY_GRACE_S,
                                  max_output_bytes=limits.max_output_bytes,
                                  pass_fds=(host_fd, code_fd, stage_fd, seccomp_fd, config_fd,
                                            args_fd, status_w))
            report = b""
            os.set_blocking(status_r, False)
            with contextlib.suppress(BlockingIOError):
                report = os.read(status_r, 1 << 20)
        _check_started(outcome)
        outcome = _apply_status(outcome, report, root)
        return to_result(outcome, _exit_code(outcome.returncode))

    def _stage_config(self, limits: SandboxLimits, inner: list[str], host_fd: int,
                      status_fd: int, seccomp_fd: int) -> dict[str, Any]:
        return {"host_fd": host_fd, "status_fd": status_fd, "keep_fds": [seccomp_fd],
                "uid": self.uid if self.as_root else None, "timeout_s": limits.timeout_s,
                "workspace_bytes": limits.workspace_mb * _MB, "tmp_bytes": limits.memory_mb * _MB,
                "max_files": limits.max_files, "argv": inner, "protected": sorted(PROTECTED)}

    def _tools(self) -> _Tools:
        """The programs this run needs.

        Raises:
            RunError: one is missing (`sandbox.unavailable`).
        """
        if not _executable(self.bwrap):
            raise RunError("sandbox.unavailable", "cannot sandbox code: bwrap not found",
                           hint=INSTALL_HINT, bwrap=self.bwrap)
        if self.as_root and not _executable(self.setpriv):
            raise RunError("sandbox.unavailable", "cannot sandbox code as root: no setpriv",
                           hint="install util-linux, which provides setpriv")
        return _Tools(str(self.bwrap), self.setpriv if self.as_root else None)

    def _outer(self, tools: _Tools, code_fd: int, stage_fd: int) -> list[str]:
        """The file system view, PID and network namespaces (see the module docstring)."""
        # The stage is PID 1 of the sandbox: the kernel drops every signal its processes
        # send it, which an unprivileged runtime's stage (same uid as the code) needs.
        args = ["--unshare-pid", "--as-pid-1", "--unshare-net", "--die-with-parent",
                "--clearenv"]
        if not self.as_root:
            # An unprivileged bwrap needs a user namespace to mount anything, and the stage
            # needs its capabilities there to mount the capped tmpfs.
            args += ["--unshare-user", "--cap-add", "ALL"]
        binds = _Binds()
        for path in _SYSTEM_DIRS:
            binds.system(path)
        # The programs that run inside the view must be in it. Sorted, so a prefix is bound
        # before any path inside it (which it then already shows).
        programs = [tools.bwrap] + ([tools.setpriv] if tools.setpriv else [])
        for path in sorted({*_python_roots(self.python), *programs}):
            binds.ro(path)
        for path in _ETC_FILES:
            if os.path.exists(path):
                binds.ro(path)
        # Only the nodes the inner bwrap's own /dev binds: a full `--dev` here would keep
        # an unprivileged stage from mounting its tmpfs.
        devices = ["--perms", "0755", "--dir", "/dev",
                   *(arg for name in _DEVICES for arg in ("--dev-bind", name, name))]
        return [*args, *binds.args,
                "--proc", "/proc", *devices, "--dir", stage.TMP, "--dir", WORKSPACE,
                "--perms", "0755", "--dir", os.path.dirname(SCRIPT),
                "--perms", "0444", "--ro-bind-data", str(code_fd), SCRIPT,
                "--perms", "0444", "--ro-bind-data", str(stage_fd), STAGE]

    def _drop(self, tools: _Tools) -> list[str]:
        """Root only: become the unprivileged sandbox uid with no capabilities left."""
        if tools.setpriv is None:
            return []
        ids = str(self.uid)
        return [tools.setpriv, "--reuid", ids, "--regid", ids, "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--nnp", "--"]

    def _inner(self, tools: _Tools, limits: SandboxLimits, seccomp_fd: int,
               read_only: tuple[str, ...] = ()) -> list[str]:
        """The remaining namespaces, the read-only remount, the filter and the bootstrap."""
        ids = str(self.uid)
        env = [arg for key, value in _ENV.items() for arg in ("--setenv", key, value)]
        frozen = [arg for name in read_only
                  for arg in ("--ro-bind", f"{WORKSPACE}/{name}", f"{WORKSPACE}/{name}")]
        return [
            tools.bwrap, "--unshare-user", "--disable-userns", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--uid", ids, "--gid", ids,
            "--die-with-parent", "--new-session", "--clearenv", *env,
            "--ro-bind", "/", "/", "--dev", "/dev", "--remount-ro", "/dev",
            "--bind", WORKSPACE, WORKSPACE, *frozen, "--bind", stage.TMP, stage.TMP,
            "--seccomp", str(seccomp_fd), "--chdir", WORKSPACE,
            "--", self.python, "-I", "-S", "-c", BOOTSTRAP, SCRIPT, *rlimit_args(limits),
        ]


@dataclass(frozen=True)
class _Tools:
    bwrap: str
    setpriv: str | None  # only when the runtime is root


def _memfd(fds: contextlib.ExitStack, name: str, data: bytes) -> int:
    """An anonymous file holding `data`, read from its start; closed with `fds`."""
    fd = os.memfd_create(name)
    fds.callback(os.close, fd)
    with open(fd, "wb", closefd=False) as out:
        out.write(data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _apply_status(outcome: Outcome, report: bytes, root: Path) -> Outcome:
    """The outcome as the stage reported it.

    Raises:
        UserError: the workspace does not fit the sandbox (`sandbox.workspace_too_large`).
        RunError: the stage failed, or ended without a report (`sandbox.start_failed`).
    """
    if not report:
        if outcome.timed_out:
            return outcome
        raise RunError("sandbox.start_failed", "the sandbox ended without a report",
                       hint="run the sandbox's probes (tests/runtime/test_sandbox_probes.py)",
                       stderr=outcome.stderr[-2000:].decode("utf-8", errors="replace"))
    status = marshal.loads(report)  # written by the stage, which no code can reach
    error = status["error"]
    if error and error["code"] == "sandbox.workspace_too_large":
        raise UserError(error["code"], error["message"],
                        hint="remove files from the workspace or raise SandboxLimits."
                             "workspace_mb / max_files", workspace=str(root))
    if error:
        raise RunError(error["code"], f"the sandbox failed: {error['message']}",
                       hint="check that bwrap runs by hand; the workspace is unchanged "
                            "unless the copy back failed", workspace=str(root))
    stderr = outcome.stderr
    if status["skipped"]:
        note = (f"\n[sandbox] not kept in the workspace (not a regular file, directory or "
                f"link, or deeper than {stage.MAX_DEPTH} levels): {status['skipped'][:10]}\n")
        stderr += note.encode()
    if status["timed_out"]:
        return dataclasses.replace(outcome, returncode=None, timed_out=True, stderr=stderr)
    return dataclasses.replace(outcome, stderr=stderr)


class _Binds:
    """bwrap arguments that show host paths read-only at the same place."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.bound: list[str] = []
        self.dirs: set[str] = set()

    def system(self, path: str) -> None:
        if os.path.islink(path):  # merged-/usr systems: /lib -> usr/lib
            self.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            self.args += ["--ro-bind", path, path]
            self.bound.append(path)

    def ro(self, path: str) -> None:
        if path == "/" or any(path == b or path.startswith(b + "/") for b in self.bound):
            return
        # bwrap copies the mode of parent directories it creates (0700 for /root), which
        # would hide the bound path from the unprivileged uid: create them 0755 first.
        parent = os.path.dirname(path)
        chain = []
        while parent not in ("/", "") and parent not in self.dirs:
            chain.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(chain):
            self.args += ["--perms", "0755", "--dir", directory]
            self.dirs.add(directory)
        self.args += ["--ro-bind", path, path]
        self.bound.append(path)


def _read_only_parts(root: Path) -> tuple[str, ...]:
    """Entries of the workspace the code may read but not change.

    `.git`: host processes (the git MCP server, git itself) read it as configuration and
    hooks, so code that could write it could run commands on the host.
    """
    return tuple(name for name in sorted(PROTECTED)
                 if os.path.isdir(root / name) and not os.path.islink(root / name))


def _executable(path: str | None) -> bool:
    return bool(path) and os.access(str(path), os.X_OK)


def _interpreter() -> str:
    """The interpreter the code runs with (outside any virtual environment, never bound)."""
    system = f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"
    if _executable(system):
        return system
    real = os.path.realpath(sys.executable)
    base = os.path.realpath(sys.base_exec_prefix)
    if real.startswith(base + os.sep):
        return real
    return os.path.join(base, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")


def _python_roots(python: str) -> set[str]:
    if python.startswith("/usr/"):
        return set()  # bound with the system
    return {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix),
            os.path.dirname(python)}


def _exit_code(returncode: int | None) -> int | None:
    # bwrap reports a child killed by signal N as exit status 128 + N; give it back the
    # subprocess convention (-N). A script that calls sys.exit(137) reads as SIGKILL too.
    if returncode is not None and 128 < returncode <= 128 + 64:
        return 128 - returncode
    return returncode


def _check_started(outcome: Outcome) -> None:
    """A failure of the sandbox itself is an error, never a result of the code."""
    if outcome.returncode == 1 and not outcome.stdout and outcome.stderr.startswith(
            (b"bwrap: ", b"setpriv: ")):
        message = outcome.stderr.decode("utf-8", errors="replace").strip()
        raise RunError("sandbox.start_failed", f"the sandbox failed to start: {message}",
                       hint="check that user namespaces are enabled "
                            "(sysctl user.max_user_namespaces > 0) and bwrap runs by hand")
