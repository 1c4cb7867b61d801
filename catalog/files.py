"""Safe access to the files of a framework directory: only what its a4a.lock lists, only inside.

Every file the catalog reads from a framework (the CLI, the web UI, bundles) is one its lock
lists, read through `fsaccess` (a regular file inside the framework, size-capped), so an
id, a URL or a bundle can never name a file outside the framework.
"""

from __future__ import annotations

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

    Read through `fsaccess`: a regular file inside the framework, its size checked first.
    """
    if rel not in listed or not is_safe_rel(rel):
        return None
    try:
        return fsaccess.read_text(rel, root=root, max_bytes=MAX_FILE_BYTES)
    except SpecError:
        return None


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
