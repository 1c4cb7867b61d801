"""a4a.lock: the hashes of a framework's files, its id, and the pinned MCP tool schemas.

The lock is read and written through `fsaccess` only. It must be a regular file inside the
framework (a link out of it is refused unless trusted); it must be a mapping whose `files`
are plain relative paths (no `..`, nothing absolute: nothing outside the framework is ever
read or hashed because a lock names it); it is rewritten by replacing the file atomically,
never by writing through a symlink. The framework id is the hash of the file hashes, and
`current_id` recomputes it from the files as they are now, so a stale or forged id in a
lock is never taken on trust.

Errors: SpecError `lock.invalid` (not a mapping, entries a4a never writes), yaml.* and
file.* (see `yamlio.load_yaml_file`, `fsaccess.read_bytes`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.errors import SpecError
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

LOCK = "a4a.lock"
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Lock:
    """A parsed a4a.lock: the recorded id, the file hashes and the MCP pins."""

    framework_id: str
    files: dict[str, str]  # relative path -> sha256, every path plain and inside
    mcp: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)  # every key as read, kept when rewriting


def id_of(hashes: Mapping[str, str]) -> str:
    """The framework id of a set of file hashes (relative path -> sha256)."""
    lines = "\n".join(f"{p} {h}" for p, h in sorted(hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


def lock_data(files: Mapping[str, str]) -> dict[str, Any]:
    """The lock of a set of file texts: hashes of every file and the framework id."""
    hashes = {p: hashlib.sha256(t.encode()).hexdigest() for p, t in sorted(files.items())
              if p != LOCK}
    return {"framework_id": id_of(hashes), "files": hashes, "mcp": {}}


def parse_lock(data: Any, where: str) -> Lock:
    """A Lock from parsed YAML.

    Raises:
        SpecError: lock.invalid when it is not a mapping, or its files are not plain
            relative paths with sha256 hashes, or its id or pins have the wrong type.
    """
    if not isinstance(data, dict):
        raise _invalid(where, f"is a YAML {type(data).__name__}, not a mapping")
    files = data.get("files") or {}
    if not isinstance(files, dict):
        raise _invalid(where, "lists its files as something other than a mapping")
    for rel, digest in files.items():
        if not (isinstance(rel, str) and fsaccess.is_safe_rel(rel) and rel != LOCK):
            raise _invalid(where, f"lists {str(rel)[:200]!r}, which is not a plain path "
                           "inside the framework")
        if not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
            raise _invalid(where, f"gives {rel} a hash that is not a sha256")
    fid = data.get("framework_id", "")
    mcp = data.get("mcp") or {}
    if not isinstance(fid, str) or not isinstance(mcp, dict):
        raise _invalid(where, "has a framework_id or mcp section of the wrong type")
    return Lock(fid, dict(files), dict(mcp), dict(data))


def read_lock(root: Path, *, trusted: bool = False) -> Lock | None:
    """The lock of the framework at `root`, or None when it has none.

    Raises:
        SpecError: lock.invalid; yaml.* for bad YAML; file.* when it is not a regular file
            inside `root` (file.outside_root for a link out of it, unless `trusted`).
    """
    path = Path(root) / LOCK
    if not os.path.lexists(path):
        return None
    return parse_lock(load_yaml_file(path, root=Path(root), trusted=trusted), str(path))


def read_listed(root: Path, lock: Lock, *, trusted: bool = False
                ) -> dict[str, bytes | SpecError]:
    """Each file the lock lists: its bytes, or the SpecError that refused it.

    Every read is confined to `root` (unless `trusted`) and capped at fsaccess.MAX_BYTES.
    """
    out: dict[str, bytes | SpecError] = {}
    for rel in sorted(lock.files):
        try:
            out[rel] = fsaccess.read_bytes(rel, root=Path(root), trusted=trusted)
        except SpecError as err:
            out[rel] = err
    return out


def current_id(root: Path, lock: Lock, *, trusted: bool = False) -> str:
    """The framework id the files the lock lists hash to now (a missing file is left out).

    Raises:
        SpecError: file.* when a listed file exists but may not be read (not a regular
            file, too large, outside the framework).
    """
    hashes: dict[str, str] = {}
    for rel, data in read_listed(root, lock, trusted=trusted).items():
        if isinstance(data, SpecError):
            if data.code == "file.missing":
                continue
            raise data
        hashes[rel] = hashlib.sha256(data).hexdigest()
    return id_of(hashes)


def write_lock(root: Path, data: Mapping[str, Any]) -> None:
    """Replace the lock of the framework at `root` (atomically, never through a symlink).

    Raises:
        SpecError: file.outside_root when `root` resolves elsewhere than its folder says.
        A4AError: io.* when the file system refuses the write.
    """
    fsaccess.write_text(Path(root) / LOCK, dump_yaml(dict(data)), root=Path(root))


def _invalid(where: str, what: str) -> SpecError:
    return SpecError("lock.invalid", f"{where} {what}",
                     f"Rebuild the framework to rewrite its {LOCK}; a4a writes it, never a "
                     "person.", path=where)
