"""The bubblewrap sandbox: code runs in fresh namespaces with a read-only system and no network.

Two bwrap processes are nested, because one cannot do both jobs when the runtime is root:

- the outer one builds the file system view (read-only /usr and Python prefix, a private
  /proc and /dev, the workspace, the script) and a new PID namespace. Run as root it needs
  no user namespace, so it can bind a Python prefix that lives under an unreadable /root;
- when the runtime is root, `setpriv` then drops to an unprivileged uid, because the kernel
  never enforces RLIMIT_NPROC on uid 0, not even inside a user namespace;
- the inner one, unprivileged, adds the user, network, IPC and UTS namespaces, forbids
  further user namespaces, makes everything but the workspace and a private /tmp read-only
  and starts the bootstrap that sets the rlimits.

The inner bwrap cannot mount its own /proc (the kernel refuses a procfs mount in a user
namespace while the outer /proc has read-only overmounts), so it reuses the outer one: the
code sees only the PIDs of its own sandbox. bwrap is always started with an empty
environment: PID 1 of the sandbox is bwrap itself and its environment is readable there.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from a4a.runtime.errors import RunError
from a4a.runtime.loader.fsaccess import PROTECTED
from a4a.runtime.sandbox.base import SandboxLimits, SandboxResult, check_workspace
from a4a.runtime.sandbox.ownership import Owners, hand_over, take_back
from a4a.runtime.sandbox.process import BOOTSTRAP, Outcome, rlimit_args, run_limited, to_result

# The uid the code runs as, inside and (when the runtime is root) outside: nobody.
SANDBOX_UID = 65534
WORKSPACE = "/workspace"
SCRIPT = "/sandbox/main.py"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The only host file under /etc the code sees: the loader cache, so ctypes finds libraries.
_ETC_FILES = ("/etc/ld.so.cache",)
_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
_MB = 1024 * 1024
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; `make test` "
                "does it), or allow unsafe local execution explicitly")


class BubblewrapSandbox:
    """Runs code under bubblewrap with the running interpreter's standard library.

    One run at a time per workspace: as root, a run lends the workspace to the sandbox uid
    and takes it back when it ends.

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
            UserError: the workspace is not a directory.
            RunError: bwrap (or setpriv, when root) is missing (`sandbox.unavailable`), or
                the sandbox failed to start (`sandbox.start_failed`).
        """
        root = check_workspace(workspace)
        tools = self._tools()
        code_fd = os.memfd_create("main.py")
        try:
            with open(code_fd, "wb", closefd=False) as script:
                script.write(code.encode("utf-8", errors="surrogateescape"))
            os.lseek(code_fd, 0, os.SEEK_SET)
            outcome = self._run(tools, root, limits, code_fd)
        finally:
            os.close(code_fd)
        _check_started(outcome)
        return to_result(outcome, _exit_code(outcome.returncode))

    def _run(self, tools: _Tools, root: Path, limits: SandboxLimits, code_fd: int) -> Outcome:
        argv = [*self._outer(tools, root, code_fd), *self._drop(tools),
                *self._inner(tools, limits, _read_only_parts(root))]
        owners = self._lend(root) if self.as_root else None
        try:
            # bwrap gets an empty environment: its own environment is readable in the sandbox.
            return run_limited(argv, env={}, cwd="/", timeout_s=limits.timeout_s,
                               max_output_bytes=limits.max_output_bytes, pass_fds=(code_fd,))
        finally:
            if owners is not None:
                take_back(root, owners)

    def _lend(self, root: Path) -> Owners:
        try:
            return hand_over(root, self.uid, self.uid)
        except OSError as err:
            raise RunError("sandbox.start_failed",
                           f"cannot lend the workspace to the sandbox user: {err}",
                           hint="use a workspace on a local file system that root may chown",
                           workspace=str(root)) from err

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

    def _outer(self, tools: _Tools, root: Path, code_fd: int) -> list[str]:
        """The file system view and PID namespace (see the module docstring)."""
        args = [tools.bwrap, "--unshare-pid", "--die-with-parent", "--clearenv"]
        if not self.as_root:
            args.append("--unshare-user")  # an unprivileged bwrap needs one to mount anything
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
        return [*args, *binds.args,
                "--proc", "/proc", "--dev", "/dev", "--dir", "/tmp",
                "--bind", str(root), WORKSPACE,
                "--perms", "0755", "--dir", os.path.dirname(SCRIPT),
                "--perms", "0444", "--ro-bind-data", str(code_fd), SCRIPT, "--"]

    def _drop(self, tools: _Tools) -> list[str]:
        """Root only: become the unprivileged sandbox uid with no capabilities left."""
        if tools.setpriv is None:
            return []
        ids = str(self.uid)
        return [tools.setpriv, "--reuid", ids, "--regid", ids, "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--nnp", "--"]

    def _inner(self, tools: _Tools, limits: SandboxLimits,
               read_only: tuple[str, ...] = ()) -> list[str]:
        """The remaining namespaces, the read-only remount and the bootstrap."""
        ids = str(self.uid)
        env = [arg for key, value in _ENV.items() for arg in ("--setenv", key, value)]
        frozen = [arg for name in read_only
                  for arg in ("--ro-bind", f"{WORKSPACE}/{name}", f"{WORKSPACE}/{name}")]
        return [
            tools.bwrap, "--unshare-user", "--disable-userns", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--uid", ids, "--gid", ids,
            "--die-with-parent", "--new-session", "--clearenv", *env,
            "--ro-bind", "/", "/", "--dev", "/dev", "--remount-ro", "/dev",
            "--bind", WORKSPACE, WORKSPACE, *frozen,
            "--perms", "1777", "--size", str(limits.memory_mb * _MB), "--tmpfs", "/tmp",
            "--chdir", WORKSPACE,
            "--", self.python, "-I", "-S", "-c", BOOTSTRAP, SCRIPT, *rlimit_args(limits),
        ]


@dataclass(frozen=True)
class _Tools:
    bwrap: str
    setpriv: str | None  # only when the runtime is root


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
    """The real interpreter binary (outside any virtual environment, which is not bound)."""
    real = os.path.realpath(sys.executable)
    base = os.path.realpath(sys.base_exec_prefix)
    if real.startswith(base + os.sep):
        return real
    return os.path.join(base, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")


def _python_roots(python: str) -> set[str]:
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
