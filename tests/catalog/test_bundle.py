"""Bundles: export/import round trip, and hostile bundles that must land nothing outside."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from a4a.catalog.bundle import FORMAT, export_bundle, import_bundle
from a4a.catalog.store import Catalog
from a4a.runtime.errors import CatalogError
from tests.catalog.conftest import Built


def test_round_trip(tmp_path: Path, catalog: Catalog, built: dict[str, Built]) -> None:
    gone = built["parallel"].entry
    catalog.add(dataclasses.replace(gone, id="0123456789abcdef", path=str(tmp_path / "nope")))
    report = export_bundle(catalog.entries(), tmp_path / "b.zip")
    assert list(report.skipped) == ["0123456789abcdef"]
    assert "no a4a.lock" in report.skipped["0123456789abcdef"]
    with Catalog(tmp_path / "other" / "catalog.db") as other:
        back = import_bundle(other, tmp_path / "b.zip", tmp_path / "other" / "frameworks")
        assert sorted(back.added) == sorted(b.entry.id for b in built.values())
        for b in built.values():
            entry = other.get(b.entry.id)
            assert entry is not None and entry.source == "import" and entry.valid
            assert entry.wl_hash == b.entry.wl_hash and entry.created == b.entry.created
            copied = Path(entry.path or "")
            assert copied.parent == tmp_path / "other" / "frameworks"
            assert (copied / "framework.yaml").read_text() == (
                b.path / "framework.yaml").read_text()
        again = import_bundle(other, tmp_path / "b.zip", tmp_path / "other" / "frameworks")
        assert again.added == [] and len(again.existing) == len(built)


def _bundle(path: Path, fid: str, files: dict[str, bytes], lock_files: dict[str, str] | None
            ) -> Path:
    listed = lock_files if lock_files is not None else {
        rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    lock = "files:\n" + "".join(f"  {json.dumps(k)}: {v}\n" for k, v in listed.items())
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": FORMAT, "frameworks": [
            {"id": fid, "created": 1.0}]}))
        zf.writestr(f"frameworks/{fid}/a4a.lock", lock)
        for rel, data in files.items():
            zf.writestr(f"frameworks/{fid}/{rel}", data)
    return path


@pytest.mark.parametrize("case", ["traversal", "absolute", "hash", "id", "not_utf8"])
def test_hostile_bundles_land_nothing(tmp_path: Path, case: str) -> None:
    fid = "00000000000000aa"
    evil = b"owned"
    files = {"framework.yaml": b"name: x\n"}
    lock = None
    if case == "traversal":
        files = {"../../evil.txt": evil}
    elif case == "absolute":
        files = {"/tmp/evil.txt": evil}
    elif case == "hash":
        lock = {"framework.yaml": "0" * 64}
    elif case == "not_utf8":
        files = {"framework.yaml": b"\xff\xfe"}
    bundle = _bundle(tmp_path / "evil.zip", fid, files, lock)
    dest = tmp_path / "home" / "frameworks"
    with Catalog(tmp_path / "home" / "catalog.db") as cat:
        report = import_bundle(cat, bundle, dest)
        assert report.added == [] and fid in report.skipped
        assert cat.count() == 0
    assert not list(tmp_path.rglob("evil.txt"))
    assert not (dest / fid).exists()


def test_oversized_member_is_refused(tmp_path: Path) -> None:
    fid = "00000000000000bb"
    bundle = _bundle(tmp_path / "big.zip", fid, {"framework.yaml": b"a" * 1_500_000}, None)
    with Catalog(tmp_path / "c.db") as cat:
        assert "too large" in import_bundle(cat, bundle, tmp_path / "d").skipped[fid]


@pytest.mark.parametrize("content", [b"not a zip", None])
def test_not_a_bundle(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "x.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("hello.txt", "no manifest")
    else:
        path.write_bytes(content)
    with Catalog(tmp_path / "c.db") as cat, pytest.raises(CatalogError) as info:
        import_bundle(cat, path, tmp_path / "d")
    assert info.value.code == "catalog.bundle_invalid"
