"""The batch journal: append-only, deduplicated by id, and repaired after a torn write."""

from __future__ import annotations

from pathlib import Path

from a4a.runtime.batch.journal import Journal


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
