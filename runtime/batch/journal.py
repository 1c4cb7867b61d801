"""An append-only JSONL journal of finished units of work, deduplicated by unit id.

Each line is one JSON object with an `id`; every append is flushed and fsynced, so a killed
process loses at most the line it was writing. Opening a journal drops such a torn last line
(the file is cut back to its last newline), so the next append starts on a clean line and the
lost unit is simply done again. A line in the middle that is not a record (a disk error, an
edit) is dropped the same way: the file is rewritten without it, `dropped` names its line
numbers for the caller to warn about, and its unit is done again. Reading keeps the first
record of each id: a unit recorded twice counts once. A file system that refuses a write
(read-only, full) is an A4AError with an `io.*` code, never a bare OSError.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from a4a.runtime.loader import fsaccess


class Journal:
    """Finished units of one kind (builds, task sets, runs), keyed by id."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the journal at `path`, repairing torn and unreadable lines.

        Raises:
            A4AError: io.read_only, io.disk_full, io.denied, io.failed.
        """
        self.path = path
        self._records: dict[str, dict[str, Any]] = {}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.torn = _repair(path)
            good, self.dropped = _read(path)
        except OSError as err:
            raise fsaccess.os_error(err, path) from err
        if self.dropped:  # rewritten without them, so the next append is not behind a bad line
            fsaccess.write_text(path, "".join(line + "\n" for line, _ in good))
        for _, rec in good:
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
        """Record a finished unit; False (and nothing written) when its id is there already.

        Raises:
            A4AError: io.* when the file system refuses the write.
        """
        if record["id"] in self._records:
            return False
        line = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        fsaccess.append_line(self.path, line)
        self._records[record["id"]] = record
        return True


def _repair(path: Path) -> int:
    """Cut a torn last line (no newline: the writer died mid-line); returns bytes cut."""
    if not path.exists():
        return 0
    with path.open("rb") as fh:
        data = fh.read()
    if not data or data.endswith(b"\n"):
        return 0  # nothing to cut: a read-only journal can still be read
    keep = data.rfind(b"\n") + 1
    with path.open("rb+") as fh:
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
    return len(data) - keep


def _read(path: Path) -> tuple[list[tuple[str, dict[str, Any]]], list[int]]:
    """(line, record) of every record line, and the numbers (from 1) of lines that are not."""
    if not path.exists():
        return [], []
    good: list[tuple[str, dict[str, Any]]] = []
    bad: list[int] = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            line = raw.strip()
            if line:
                rec = _record(line)
                if rec is None:
                    bad.append(number)
                else:
                    good.append((line.decode("utf-8"), rec))
    return good, bad


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("id"), str) else None
