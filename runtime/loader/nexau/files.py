"""Reading the files a NexAU config references: confined to the config's root, bounded.

Every read goes through fsaccess: regular files only (a directory, FIFO or device such as
/dev/zero is a typed error, never a hang), size capped before reading, and the resolved path
inside the config's folder unless the run trusts the config (`--trust`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import SpecError
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.yamlio import MAX_BYTES, load_yaml_text


@dataclass(frozen=True)
class Access:
    """Where a config tree may read: its root folder, or anywhere when trusted."""

    root: Path
    trusted: bool = False

    def path(self, base: Path, ref: str) -> Path:
        """`ref` (relative to `base`, or absolute) as a path, symlinks not yet resolved."""
        return base / ref

    def read_text(self, path: Path, max_bytes: int = MAX_BYTES) -> str:
        """The text of a regular file inside the root (SpecError file.* otherwise)."""
        return fsaccess.read_text(path, root=self.root, trusted=self.trusted,
                                  max_bytes=max_bytes)

    def read_yaml(self, path: Path) -> Any:
        """A YAML file inside the root, parsed with a4a's safe loader and caps."""
        data = fsaccess.read_bytes(path, root=self.root, trusted=self.trusted,
                                   max_bytes=MAX_BYTES)
        return load_yaml_text(data, str(path))

    def is_dir(self, path: Path) -> bool:
        """Whether `path` is a folder inside the root (no error either way)."""
        try:
            target = fsaccess.confine(self.root, path, trusted=self.trusted)
        except SpecError:
            return False
        return target.is_dir()
