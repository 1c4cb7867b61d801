"""Safe access to the files of a framework directory: only what its a4a.lock lists, only inside.

Every file the catalog reads from a framework (the CLI, the web UI, bundles) goes through
`safe_path`, so an id, a URL or a bundle can never name a file outside the framework.
"""

from __future__ import annotations

import re
from pathlib import Path

from a4a.runtime.errors import CatalogError, SpecError
from a4a.runtime.loader.files import LOCK
from a4a.runtime.loader.yamlio import load_yaml_file

MAX_FILE_BYTES = 1_000_000
# A path segment as a4a writes them: it cannot start with a dot, so `.` and `..` never pass,
# and backslashes, colons and NULs never appear.
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def is_safe_rel(rel: str) -> bool:
    """Whether `rel` is a plain relative path (no `..`, no absolute path, no odd characters)."""
    return 0 < len(rel) <= 200 and all(_SEGMENT.fullmatch(p) for p in rel.split("/"))


def read_lock(root: Path) -> dict[str, str]:
    """The files a framework's a4a.lock lists, relative path -> sha256.

    Raises CatalogError when there is no usable lock (entries it lists that are not plain
    relative paths make the whole lock unusable: a lock is written by a4a, never by hand).
    """
    path = root / LOCK
    if not path.is_file():
        raise CatalogError("catalog.no_lock", f"{root} has no {LOCK}",
                           "Point at a directory written by `a4a build`.")
    try:
        data = load_yaml_file(path)
    except SpecError as err:
        raise CatalogError("catalog.bad_lock", f"{path}: {err.message}",
                           "Rebuild the framework to rewrite its lock.") from err
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(
            isinstance(k, str) and is_safe_rel(k) and k != LOCK
            and isinstance(v, str) and _SHA256.fullmatch(v) for k, v in files.items()):
        raise CatalogError("catalog.bad_lock", f"{path} does not list files as a4a writes them",
                           "Rebuild the framework to rewrite its lock.")
    return dict(files)


def safe_path(root: Path, rel: str, listed: dict[str, str]) -> Path | None:
    """The file `rel` of the framework at `root`, or None when it may not be read.

    It may be read only when the lock lists it and it resolves (symlinks followed) to a
    regular file inside the framework directory.
    """
    if rel not in listed or not is_safe_rel(rel):
        return None
    base = root.resolve()
    path = (base / rel).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        return None
    return path


def read_text(root: Path, rel: str, listed: dict[str, str]) -> str | None:
    """Text of a listed file (None when absent, unreadable, not UTF-8 or over the size cap)."""
    path = safe_path(root, rel, listed)
    if path is None or path.stat().st_size > MAX_FILE_BYTES:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
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
