"""Bounded, confined file access: how a4a reads and writes files it did not write itself.

Every read of a file a user, a bundle or a model could have placed (framework and agent
configs, prompts, skills, locks, catalog files, workspace files) goes through here:

- `read_bytes(path, root=..., max_bytes=...)` / `read_text(...)`: the path (a relative one
  is taken against `root`), symlinks resolved, must lie inside `root` (unless `trusted`);
  only a regular file is read (never a directory, device, FIFO or socket: it is opened
  non-blocking, so a FIFO cannot hang the read); its size is checked before reading (the
  apparent size, so a sparse file counts in full) and the read stops at `max_bytes`
  whatever the size said.
- `confine(root, ref)`: `ref` (relative to `root`, or absolute) resolved inside `root`.
- `write_text(path, text, root=...)`: atomic (a temporary file beside it, then a rename),
  never through a symlink: the temporary is made with O_CREAT | O_EXCL | O_NOFOLLOW, and
  the rename replaces a link at `path` instead of writing where it points.
- `append_line(path, line)`: O_APPEND | O_NOFOLLOW, flushed and fsynced.
- `workspace_read(ws, rel, ...)` / `workspace_write(ws, rel, data)`: a run's workspace,
  walked one directory at a time with O_NOFOLLOW (a symlink planted anywhere on the way is
  refused, not followed), never into a version-control folder (`.git`), which host
  processes such as the git MCP server trust.
- `is_safe_rel(rel)`: a plain relative path as a4a writes them (for lock entries).

Errors: SpecError (`file.missing`, `file.not_regular`, `file.too_large`,
`file.outside_root`, `file.unreadable`, `file.not_utf8`, `file.symlink`, `file.protected`);
`os_error(err, path)` turns an OSError of a write into an A4AError that says what happened
(`io.read_only`, `io.disk_full`, `io.denied`, `io.failed`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from a4a.runtime.errors import A4AError, SpecError

MAX_BYTES = 1_000_000
# Folders of a workspace that host processes read as configuration: never written by tools.
PROTECTED = frozenset({".git"})
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 16


def is_safe_rel(rel: str) -> bool:
    """Whether `rel` is a plain relative path (no `..`, no absolute path, no odd characters)."""
    return 0 < len(rel) <= 200 and all(_SEGMENT.fullmatch(p) for p in rel.split("/"))


def confine(root: Path, ref: str | Path, *, trusted: bool = False) -> Path:
    """`ref` resolved (symlinks followed) against `root`; it must stay inside `root`.

    Raises:
        SpecError: `file.outside_root` when the resolved path leaves `root` and not `trusted`.
    """
    base = Path(root).resolve()
    path = (base / ref).resolve()
    if not trusted and not path.is_relative_to(base):
        raise _err("file.outside_root", f"{ref} resolves outside {base}",
                   "Keep referenced files inside the config's folder, or run with --trust "
                   "for a config you have read.", path)
    return path


def read_bytes(path: str | Path, *, root: Path | None = None, max_bytes: int = MAX_BYTES,
               trusted: bool = False) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, inside `root` unless `trusted`.

    Raises:
        SpecError: file.missing, file.unreadable, file.outside_root, file.not_regular,
            file.too_large.
    """
    target = confine(root, path, trusted=trusted) if root is not None else Path(path)
    try:
        fd = os.open(target, _READ)
    except FileNotFoundError as err:
        raise _err("file.missing", f"{path} does not exist", "Check the path.", path) from err
    except OSError as err:  # ENXIO: a socket; ELOOP; EACCES
        code = "file.not_regular" if err.errno == errno.ENXIO else "file.unreadable"
        raise _err(code, f"{path}: cannot open ({err.strerror})", "Point at a readable "
                   "regular file.", path) from err
    try:
        if root is not None and not trusted:
            _recheck(fd, Path(root).resolve(), path)
        return _read_fd(fd, path, max_bytes)
    finally:
        os.close(fd)


def read_text(path: str | Path, *, root: Path | None = None, max_bytes: int = MAX_BYTES,
              trusted: bool = False) -> str:
    """`read_bytes` decoded as UTF-8.

    Raises:
        SpecError: as `read_bytes`, and file.not_utf8.
    """
    return _utf8(read_bytes(path, root=root, max_bytes=max_bytes, trusted=trusted), path)


def _recheck(fd: int, base: Path, shown: str | Path) -> None:
    """What was opened is still inside `base` (a link swapped in after resolving is caught)."""
    try:
        real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return  # no /proc: the resolution before opening stands
    if not real.is_relative_to(base):
        raise _err("file.outside_root", f"{shown} resolves outside {base}",
                   "Keep referenced files inside the config's folder.", shown)


def _read_fd(fd: int, shown: str | Path, max_bytes: int) -> bytes:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise _err("file.not_regular", f"{shown} is not a regular file",
                   "Point at a regular file (not a directory, device, FIFO or socket).", shown)
    if st.st_size > max_bytes:
        raise _err("file.too_large", f"{shown}: {st.st_size} bytes exceeds the "
                   f"{max_bytes}-byte cap", "Use a smaller file.", shown)
    chunks: list[bytes] = []
    size = 0
    while size <= max_bytes:
        chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > max_bytes:  # it grew since fstat
        raise _err("file.too_large", f"{shown} exceeds the {max_bytes}-byte cap",
                   "Use a smaller file.", shown)
    return b"".join(chunks)


def write_text(path: str | Path, text: str, *, root: Path | None = None) -> None:
    """Replace `path` with `text` atomically, never writing through a symlink.

    Raises:
        SpecError: file.outside_root when `path`'s folder resolves outside `root`.
        A4AError: io.* when the file system refuses the write (see `os_error`).
    """
    target = Path(path)
    folder = target.parent.resolve()
    if root is not None:
        confine(root, folder)
    final = folder / target.name
    tmp = folder / f".{target.name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644)
        try:
            _write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, final)  # replaces a link at `final`, never its target
    except OSError as err:
        _unlink_quietly(tmp)
        raise os_error(err, final) from err


def append_line(path: str | Path, line: str) -> None:
    """Append `line` and a newline to `path` (created 0644), fsynced; never through a symlink.

    Raises:
        A4AError: io.* when the file system refuses the write (a symlink: io.failed).
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
        try:
            _write_all(fd, (line + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as err:
        raise os_error(err, Path(path)) from err


def workspace_read(workspace: Path, rel: str, *, max_bytes: int = MAX_BYTES) -> bytes:
    """A regular file of the workspace, reached without following any symlink.

    Raises:
        SpecError: file.outside_root (an absolute path or `..`), file.symlink, file.missing,
            file.not_regular, file.too_large, file.unreadable.
    """
    parts = _parts(rel)
    fd = _walk(workspace, parts[:-1], rel, create=False)
    try:
        try:
            leaf = os.open(parts[-1], _READ | os.O_NOFOLLOW, dir_fd=fd)
        except OSError as err:
            raise _leaf_error(err, rel) from err
    finally:
        os.close(fd)
    try:
        return _read_fd(leaf, rel, max_bytes)
    finally:
        os.close(leaf)


def workspace_write(workspace: Path, rel: str, data: bytes) -> None:
    """Write `data` to the workspace file `rel` (folders made), never through a symlink.

    Raises:
        SpecError: file.outside_root, file.symlink, file.protected (a `.git` folder),
            file.not_regular.
        A4AError: io.* when the file system refuses the write.
    """
    parts = _parts(rel)
    if any(p in PROTECTED for p in parts):
        raise _err("file.protected", f"{rel} is inside a version-control folder",
                   "Write elsewhere in the workspace; .git is managed by the host.", rel)
    fd = _walk(workspace, parts[:-1], rel, create=True)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK \
            | os.O_CLOEXEC
        try:
            leaf = os.open(parts[-1], flags, 0o644, dir_fd=fd)
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise _leaf_error(err, rel) from err
            raise os_error(err, Path(rel)) from err
    finally:
        os.close(fd)
    try:
        if not stat.S_ISREG(os.fstat(leaf).st_mode):
            raise _err("file.not_regular", f"{rel} is not a regular file",
                       "Write to a regular file.", rel)
        _write_all(leaf, data)
    except OSError as err:
        raise os_error(err, Path(rel)) from err
    finally:
        os.close(leaf)


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or rel.startswith("/") or ".." in parts or "\0" in rel:
        raise _err("file.outside_root", f"{rel!r} is not a path inside the workspace",
                   "Use a relative path inside the workspace.", rel)
    return parts


def _walk(workspace: Path, folders: list[str], rel: str, *, create: bool) -> int:
    """A descriptor of the folder `folders` under `workspace`, no symlink followed."""
    fd = os.open(workspace, _DIR)
    for name in folders:
        try:
            if create:
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
            nxt = os.open(name, _DIR, dir_fd=fd)
        except OSError as err:
            os.close(fd)
            raise _leaf_error(err, rel) from err
        os.close(fd)
        fd = nxt
    return fd


def _leaf_error(err: OSError, rel: str) -> SpecError:
    if err.errno == errno.ENOENT:
        return _err("file.missing", f"no file {rel!r}", "List the files to see what exists.",
                    rel)
    if err.errno in (errno.ELOOP, errno.ENOTDIR):
        return _err("file.symlink", f"{rel!r} goes through a symlink or a non-folder",
                    "Use plain files and folders of the workspace.", rel)
    if err.errno in (errno.EISDIR, errno.ENXIO):
        return _err("file.not_regular", f"{rel!r} is not a regular file",
                    "Point at a regular file.", rel)
    return _err("file.unreadable", f"{rel!r}: {err.strerror}", "Check the path.", rel)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _utf8(data: bytes, shown: str | Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _err("file.not_utf8", f"{shown} is not UTF-8 text", "Save it as UTF-8.",
                   shown) from err


def _err(code: str, message: str, hint: str, path: str | Path) -> SpecError:
    return SpecError(code, message, hint, path=str(path))


_OS_CODES = {errno.EROFS: ("io.read_only", "is on a read-only file system",
                           "Write to a folder on a writable file system."),
             errno.ENOSPC: ("io.disk_full", "cannot be written: no space left on the device",
                            "Free disk space or write elsewhere, then run again."),
             errno.EDQUOT: ("io.disk_full", "cannot be written: disk quota exceeded",
                            "Free disk space or write elsewhere, then run again."),
             errno.EACCES: ("io.denied", "cannot be written: permission denied",
                            "Write to a folder you own."),
             errno.EPERM: ("io.denied", "cannot be written: operation not permitted",
                           "Write to a folder you own."),
             errno.ELOOP: ("io.failed", "is a symlink, which a4a never writes through",
                           "Remove the link and run again.")}


def os_error(err: OSError, path: str | Path | None = None) -> A4AError:
    """An A4AError with a stable code for an OSError of a file write (`io.read_only`, ...)."""
    where = str(path if path is not None else err.filename or "a file")
    code, what, hint = _OS_CODES.get(err.errno or 0, (
        "io.failed", f"cannot be written ({err.strerror})", "Check the path and the disk."))
    return A4AError(code, f"{where} {what}", hint, path=where, errno=err.errno)
