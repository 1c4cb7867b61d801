"""The stage: the trusted first process inside the outer sandbox (standard library only).

It runs privileged in the outer namespaces as their PID 1 (so no process of the code can
signal it, and it reaps their orphans), before and after the code:

1. mounts the workspace and /tmp as tmpfs capped in bytes and in inodes;
2. copies the host workspace in, through a directory descriptor the runtime passed (the
   host directory is never mounted, so no host path shows in the sandbox's mountinfo);
3. runs the unprivileged rest of the chain (setpriv, the inner bwrap, the code) with every
   descriptor but the seccomp filter's closed, and kills it at the wall-clock limit;
4. kills whatever the code left running, then makes the host workspace a copy of the tmpfs
   (protected entries such as `.git` excepted), never following a link;
5. writes its status to the runtime and exits with the code's exit status.

Configuration and status cross as `marshal` data (plain dicts, lists, strings and numbers):
importing json would add a third to the stage's start, and both ends run the same Python version.

The runtime never imports it: it is copied into the sandbox and run by its interpreter.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import marshal
import os
import select
import signal
import stat
import sys
import time
from typing import Any

WORKSPACE = "/workspace"
TMP = "/tmp"
# Deeper directories of the code are not copied back (and a host workspace with one is
# refused), which bounds the copy's recursion and path lengths.
MAX_DEPTH = 64
_MS_NOSUID, _MS_NODEV = 2, 4
_PR_SET_DUMPABLE, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 4, 47, 4
_CHUNK = 1 << 20
_REAP_S = 5.0


class StageError(Exception):
    """A failure of the stage, reported to the runtime as `code` and `message`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Copy:
    """One tree copy: who owns the new entries, and what was met on the way.

    A plain class: importing dataclasses would add a fifth to the stage's start.
    """

    def __init__(self, *, uid: int | None, strict: bool, root_fd: int) -> None:
        self.uid = uid
        self.strict = strict  # copying in: anything that cannot be copied is an error
        self.root_fd = root_fd
        self.links: dict[tuple[int, int], str] = {}
        self.skipped: list[str] = []


def main(argv: list[str]) -> int:
    """Run the stage with the configuration read from descriptor `argv[1]`."""
    libc = ctypes.CDLL(None, use_errno=True)
    # Not dumpable: no process of the code may ptrace the stage or open its descriptors.
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    config = _read_config(int(argv[1]))
    status: dict[str, Any] = {"timed_out": False, "error": None, "skipped": []}
    returncode = 1
    try:
        host_fd, ws_fd = _prepare(libc, config)
        returncode, status["timed_out"] = _run(libc, config)
        _kill_all()
        status["skipped"] = sync_back(ws_fd, host_fd, set(config["protected"]))
    except StageError as err:
        status["error"] = {"code": err.code, "message": err.message}
    except OSError as err:
        status["error"] = {"code": "sandbox.stage_failed", "message": str(err)}
    os.write(config["status_fd"], marshal.dumps(status))
    return returncode if returncode >= 0 else 128 - returncode


def _read_config(fd: int) -> dict[str, Any]:
    chunks = []
    while chunk := os.read(fd, _CHUNK):
        chunks.append(chunk)
    os.close(fd)
    config: dict[str, Any] = marshal.loads(b"".join(chunks))
    return config


def _prepare(libc: ctypes.CDLL, config: dict[str, Any]) -> tuple[int, int]:
    uid = config["uid"]
    _mount_tmpfs(libc, WORKSPACE, config["workspace_bytes"], config["max_files"], uid, 0o755)
    _mount_tmpfs(libc, TMP, config["tmp_bytes"], config["max_files"], uid, 0o1777)
    host_fd = config["host_fd"]
    ws_fd = os.open(WORKSPACE, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        copy_tree(host_fd, ws_fd, _Copy(uid=uid, strict=True, root_fd=ws_fd))
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EFBIG):
            raise StageError("sandbox.workspace_too_large",
                             f"the workspace does not fit the sandbox's disk "
                             f"({config['workspace_bytes'] >> 20} MiB, "
                             f"{config['max_files']} files): {err}") from err
        raise StageError("sandbox.workspace_copy", f"cannot copy the workspace in: {err}") from err
    return host_fd, ws_fd


def _mount_tmpfs(libc: ctypes.CDLL, target: str, size: int, inodes: int, uid: int | None,
                 mode: int) -> None:
    owner = uid if uid is not None else os.getuid()
    options = f"size={size},nr_inodes={inodes},mode={mode:o},uid={owner},gid={owner}"
    if libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                  options.encode()) != 0:
        err = ctypes.get_errno()
        raise StageError("sandbox.start_failed",
                         f"cannot mount the capped tmpfs on {target}: {os.strerror(err)}")


def _run(libc: ctypes.CDLL, config: dict[str, Any]) -> tuple[int, bool]:
    """Run the unprivileged chain; its exit status, and whether the deadline passed."""
    # Capabilities the stage got as ambient ones (unprivileged runtime) must not survive
    # into the chain: the inner bwrap has to start as an ordinary user.
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    # posix_spawn, not subprocess, whose imports would double the stage's start: so every
    # descriptor but the standard streams and the filter's is made close-on-exec first.
    keep = {0, 1, 2, *config["keep_fds"]}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.set_inheritable(fd, False)
    for fd in config["keep_fds"]:
        os.set_inheritable(fd, True)
    argv = config["argv"]
    pid = os.posix_spawn(argv[0], argv, {})
    exited = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([exited], [], [], config["timeout_s"])
    finally:
        os.close(exited)
    if not ready:
        _kill_all()  # reaps the chain too
        return 0, True
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), False


def _kill_all() -> None:
    """Kill every process of the sandbox but the stage (its PID 1), and reap them."""
    me = os.getpid()
    deadline = time.monotonic() + _REAP_S
    while time.monotonic() < deadline:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        if not [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]:
            return
        time.sleep(0.005)
    raise StageError("sandbox.kill_failed", "processes of the code outlived the run")


def sync_back(ws_fd: int, host_fd: int, protected: set[str]) -> list[str]:
    """Make the host workspace a copy of the sandbox's; returns what was not copied."""
    for name in os.listdir(host_fd):
        if name in protected:
            continue
        st = os.stat(name, dir_fd=host_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            _remove_tree(name, host_fd)
        else:
            os.unlink(name, dir_fd=host_fd)
    copy = _Copy(uid=None, strict=False, root_fd=host_fd)
    try:
        copy_tree(ws_fd, host_fd, copy, skip=protected)
    except OSError as err:
        raise StageError("sandbox.workspace_copy",
                         f"cannot copy the workspace back: {err}") from err
    return copy.skipped


def _remove_tree(name: str, parent: int) -> None:
    """Remove directory `name` of `parent` and all in it, never following a link."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                 dir_fd=parent)
    try:
        for entry in os.listdir(fd):
            st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                _remove_tree(entry, fd)
            else:
                os.unlink(entry, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def copy_tree(src: int, dst: int, copy: _Copy, *, rel: str = "", depth: int = 0,
              skip: set[str] | frozenset[str] = frozenset()) -> None:
    """Copy the entries of directory `src` into `dst`, links as links, holes as holes.

    Raises:
        OSError: a copy failed; with `copy.strict`, also an entry it cannot copy (EPERM).
    """
    with os.scandir(src) as entries:
        names = sorted(entry.name for entry in entries if entry.name not in skip)
    for name in names:
        st = os.stat(name, dir_fd=src, follow_symlinks=False)
        path = f"{rel}{name}"
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(name, dir_fd=src), name, dir_fd=dst)
            _own(name, dst, copy.uid)
        elif stat.S_ISDIR(st.st_mode) and depth < MAX_DEPTH:
            _copy_dir(name, src, dst, copy, st, path, depth)
        elif stat.S_ISREG(st.st_mode):
            _copy_or_link(name, src, dst, copy, st, path)
        elif copy.strict:
            raise OSError(errno.EPERM, "not a regular file, directory or link (or too deep)",
                          path)
        else:
            copy.skipped.append(path)


def _copy_dir(name: str, src: int, dst: int, copy: _Copy, st: os.stat_result, path: str,
              depth: int) -> None:
    os.mkdir(name, 0o700, dir_fd=dst)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    sub_src = os.open(name, flags, dir_fd=src)
    sub_dst = os.open(name, flags, dir_fd=dst)
    try:
        copy_tree(sub_src, sub_dst, copy, rel=path + "/", depth=depth + 1)
        os.fchmod(sub_dst, stat.S_IMODE(st.st_mode) & 0o777 | 0o700)
        if copy.uid is not None:
            os.fchown(sub_dst, copy.uid, copy.uid)
    finally:
        os.close(sub_src)
        os.close(sub_dst)


def _copy_or_link(name: str, src: int, dst: int, copy: _Copy, st: os.stat_result,
                  path: str) -> None:
    # A hard link stays one file: copying each name would multiply its bytes on the host.
    key = (st.st_dev, st.st_ino)
    first = copy.links.get(key) if st.st_nlink > 1 else None
    if first is not None:
        os.link(first, path, src_dir_fd=copy.root_fd, dst_dir_fd=copy.root_fd,
                follow_symlinks=False)
        return
    in_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=src)
    try:
        out_fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600, dir_fd=dst)
        try:
            copy_data(in_fd, out_fd)
            os.fchmod(out_fd, stat.S_IMODE(st.st_mode) & 0o777)  # never setuid or setgid
            if copy.uid is not None:
                os.fchown(out_fd, copy.uid, copy.uid)
        finally:
            os.close(out_fd)
    finally:
        os.close(in_fd)
    if st.st_nlink > 1:
        copy.links[key] = path


def copy_data(in_fd: int, out_fd: int) -> None:
    """Copy the data of `in_fd` to `out_fd`, skipping holes, then set the length."""
    size = os.fstat(in_fd).st_size
    pos = 0
    while pos < size:
        try:
            start = os.lseek(in_fd, pos, os.SEEK_DATA)
        except OSError as err:
            if err.errno == errno.ENXIO:  # only a hole is left
                break
            raise
        end = os.lseek(in_fd, start, os.SEEK_HOLE)
        while start < end:
            chunk = os.pread(in_fd, min(_CHUNK, end - start), start)
            if not chunk:
                break
            os.pwrite(out_fd, chunk, start)
            start += len(chunk)
        pos = end
    os.ftruncate(out_fd, size)


def _own(name: str, dir_fd: int, uid: int | None) -> None:
    if uid is not None:
        os.chown(name, uid, uid, dir_fd=dir_fd, follow_symlinks=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
