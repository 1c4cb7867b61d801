"""The batch journal (append-only, deduplicated, repaired after torn or bad lines, typed disk
errors) and the batch lock."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from a4a.runtime.batch.journal import Journal
from a4a.runtime.batch.lock import hold
from a4a.runtime.errors import A4AError, UserError


def test_append_dedups_by_id_and_survives_reopening(tmp_path: Path) -> None:
    j = Journal(tmp_path / "w" / "runs.jsonl")
    assert j.append({"id": "a", "v": 1}) and j.append({"id": "b", "v": 2})
    assert not j.append({"id": "a", "v": 9})
    again = Journal(tmp_path / "w" / "runs.jsonl")
    assert [r["v"] for r in again.records()] == [1, 2] and "a" in again and len(again) == 2
    assert (tmp_path / "w" / "runs.jsonl").read_text().count("\n") == 2


def test_a_torn_last_line_is_cut_and_the_next_append_starts_clean(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    Journal(path).append({"id": "a"})
    with path.open("a") as fh:
        fh.write('{"id": "b", "half')  # the writer was killed mid-line
    j = Journal(path)
    assert j.torn == len('{"id": "b", "half') and "b" not in j
    j.append({"id": "b"})
    assert [r["id"] for r in Journal(path).records()] == ["a", "b"]


def test_a_duplicate_line_on_disk_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"id":"a","v":1}\n{"id":"a","v":2}\n', encoding="utf-8")
    j = Journal(path)
    assert len(j) == 1 and j.get("a") == {"id": "a", "v": 1}


def test_a_bad_line_in_the_middle_is_dropped_and_the_file_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"id":"a"}\n{"id": "b", "ha\n[1, 2]\n{"no_id":1}\n\xff\xfe\n{"id":"c"}\n')
    j = Journal(path)
    assert [r["id"] for r in j.records()] == ["a", "c"] and j.dropped == [2, 3, 4, 5]
    assert path.read_text() == '{"id":"a"}\n{"id":"c"}\n'
    assert j.append({"id": "b"})  # the dropped unit is done again
    again = Journal(path)
    assert [r["id"] for r in again.records()] == ["a", "c", "b"] and again.dropped == []


def test_a_full_disk_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    j = Journal(tmp_path / "runs.jsonl")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(A4AError) as err:
        j.append({"id": "a"})
    assert err.value.code == "io.disk_full" and "Free disk space" in err.value.hint


def test_a_read_only_disk_is_a_typed_error(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "mkdir", read_only)
    with pytest.raises(A4AError) as err:
        Journal(tmp_path / "new" / "runs.jsonl")
    assert err.value.code == "io.read_only"


def test_the_batch_lock_admits_one_holder(tmp_path: Path) -> None:
    with hold(tmp_path / "work"):
        with pytest.raises(UserError) as err, hold(tmp_path / "work"):
            pass
        assert err.value.code == "batch.locked" and err.value.data["pid"] == str(os.getpid())
    with hold(tmp_path / "work"):  # released when the holder let go
        pass
