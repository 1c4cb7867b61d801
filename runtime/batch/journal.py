"""An append-only JSONL journal of finished units of work, deduplicated by unit id.

Each line is one JSON object with an `id`; every append is flushed and fsynced, so a killed
process loses at most the line it was writing. Opening a journal drops such a torn last line
(the file is cut back to its last newline), so the next append starts on a clean line and the
lost unit is simply done again. Reading keeps the first record of each id: a unit recorded
twice counts once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Journal:
    """Finished units of one kind (builds, task sets, runs), keyed by id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.torn = _repair(path)
        self._records: dict[str, dict[str, Any]] = {}
        for rec in _lines(path):
            self._records.setdefault(rec["id"], rec)

    def __contains__(self, unit_id: object) -> bool:
        return unit_id in self._records

    def __len__(self) -> int:
        return len(self._records)

    def get(self, unit_id: str) -> dict[str, Any] | None:
        """The record of a finished unit, or None."""
        return self._records.get(unit_id)

    def records(self) -> list[dict[str, Any]]:
        """Every finished unit, in the order it was first recorded."""
        return list(self._records.values())

    def append(self, record: dict[str, Any]) -> bool:
        """Record a finished unit; False (and nothing written) when its id is there already."""
        if record["id"] in self._records:
            return False
        line = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._records[record["id"]] = record
        return True


def _repair(path: Path) -> int:
    """Cut a torn last line (no newline: the writer died mid-line); returns bytes cut."""
    if not path.exists():
        return 0
    size = path.stat().st_size
    with path.open("rb+") as fh:
        if size == 0:
            return 0
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return 0
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)
