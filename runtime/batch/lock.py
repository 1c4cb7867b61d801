"""An advisory lock on a batch's work folder, so two processes never work on one batch at once.

`hold(folder)` takes an exclusive `flock` on `folder/lock` without waiting (the file created
0644, never through a symlink) and writes the holder's pid into it. The kernel drops the
lock when its holder exits, however it exits, so a killed batch never leaves a stale lock.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from a4a.runtime.errors import UserError
from a4a.runtime.loader import fsaccess

LOCK = "lock"


@contextmanager
def hold(folder: Path) -> Iterator[None]:
    """Hold the lock of `folder` for the block.

    Raises:
        UserError: `batch.locked` while another process holds it (its pid in `.data`).
        A4AError: io.* when the folder or the lock file cannot be written.
    """
    import fcntl

    path = folder / LOCK
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise fsaccess.os_error(err, path) from err
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise UserError("batch.locked", f"{folder} is in use by another process (pid "
                            f"{holder})", "Wait for that batch to finish (or stop it), then "
                            "run again with --resume.", pid=holder) from err
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
