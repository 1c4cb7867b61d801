"""Safe access to the files of a framework directory: only what its a4a.lock lists, only inside.

Every file the catalog reads from a framework (the CLI, the web UI, bundles) is one its lock
lists, read through `fsaccess` (a regular file inside the framework after resolving links,
size-capped) and never a hard link (a second name of a file that may live anywhere on the
same disk), so an id, a URL or a bundle can never name a file outside the framework.
"""

from __future__ import annotations

import os
from pathlib import Path

from a4a.runtime.errors import CatalogError, SpecError
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.fsaccess import is_safe_rel as is_safe_rel
from a4a.runtime.loader.lock import LOCK
from a4a.runtime.loader.lock import read_lock as read_lock_file

MAX_FILE_BYTES = 1_000_000


def read_lock(root: Path) -> dict[str, str]:
    """The files a framework's a4a.lock lists, relative path -> sha256.

    Raises CatalogError when there is no usable lock (entries it lists that are not plain
    relative paths make the whole lock unusable: a lock is written by a4a, never by hand).
    """
    path = root / LOCK
    try:
        lock = read_lock_file(root)
    except SpecError as err:
        raise CatalogError("catalog.bad_lock", f"{path}: {err.message}",
                           "Rebuild the framework to rewrite its lock.") from err
    if lock is None:
        raise CatalogError("catalog.no_lock", f"{root} has no {LOCK}",
                           "Point at a directory written by `a4a build`.")
    return dict(lock.files)


def read_text(root: Path, rel: str, listed: dict[str, str]) -> str | None:
    """Text of a listed file (None when absent, unreadable, not UTF-8 or over the size cap).

    Read through `fsaccess`: a regular file inside the framework, its size checked first;
    a file with more than one name (a hard link) counts as absent, checked before and after.
    """
    if rel not in listed or not is_safe_rel(rel):
        return None
    try:
        path = fsaccess.confine(root, rel)
        before = _single_name(path)
        text = fsaccess.read_text(path, root=root, max_bytes=MAX_FILE_BYTES)
    except (SpecError, OSError):
        return None
    return text if before is not None and before == _single_name(path) else None


def _single_name(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a file with one name, else None (a hard link, or gone)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st.st_nlink == 1 else None


def read_framework_files(root: Path) -> dict[str, str]:
    """Every file the lock lists that can be read, by relative path (the lock itself excluded).

    Raises CatalogError when the lock is missing or unusable.
    """
    listed = read_lock(root)
    out: dict[str, str] = {}
    for rel in sorted(listed):
        text = read_text(root, rel, listed)
        if text is not None:
            out[rel] = text
    return out
