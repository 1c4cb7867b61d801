"""Bundles: export/import round trip, and hostile bundles that must land nothing outside."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import zipfile
from collections.abc import Callable
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
    _rejected_whole(bundle, tmp_path / "home")
    assert not list(tmp_path.rglob("evil.txt"))


def _rejected_whole(bundle: Path, home: Path) -> str:
    """Import `bundle` into a fresh catalog under `home`; it must fail and leave nothing."""
    dest = home / "frameworks"
    with Catalog(home / "catalog.db") as cat:
        with pytest.raises(CatalogError) as err:
            import_bundle(cat, bundle, dest)
        assert err.value.code == "catalog.bundle_invalid" and "Nothing was imported" in (
            err.value.hint)
        assert cat.count() == 0
    assert not dest.exists() or list(dest.iterdir()) == []
    return err.value.message


def test_oversized_member_is_refused(tmp_path: Path) -> None:
    fid = "00000000000000bb"
    bundle = _bundle(tmp_path / "big.zip", fid, {"framework.yaml": b"a" * 1_500_000}, None)
    assert "too large" in _rejected_whole(bundle, tmp_path / "home")


def _rewrite(src: Path, out: Path, change: Callable[[zipfile.ZipInfo, bytes], bytes]) -> Path:
    """A copy of the bundle `src` with each member's data passed through `change`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, change(info, zin.read(info)))
    return out


@pytest.mark.parametrize("case", ["one_bad_framework", "encrypted", "corrupt", "deep_manifest",
                                  "escaping_member"])
def test_a_bundle_with_one_bad_member_lands_nothing(tmp_path: Path, catalog: Catalog,
                                                     built: dict[str, Built], case: str) -> None:
    good = export_bundle(catalog.entries(), tmp_path / "good.zip")
    assert len(good.added) == len(built)
    victim = f"frameworks/{built['loop'].entry.id}/framework.yaml"
    bad = tmp_path / "bad.zip"
    if case == "one_bad_framework":  # the other frameworks are fine, and must not land either
        _rewrite(tmp_path / "good.zip", bad,
                 lambda i, d: d + b"# edited\n" if i.filename == victim else d)
    elif case == "deep_manifest":
        _rewrite(tmp_path / "good.zip", bad,
                 lambda i, d: b"[" * 100_000 if i.filename == "manifest.json" else d)
    elif case == "escaping_member":
        shutil.copy(tmp_path / "good.zip", bad)
        with zipfile.ZipFile(bad, "a") as zf:
            zf.writestr("frameworks/../../evil.txt", "owned")
    else:
        shutil.copy(tmp_path / "good.zip", bad)
        data = bytearray(bad.read_bytes())
        with zipfile.ZipFile(bad) as zf:
            info = zf.getinfo(victim)
        if case == "encrypted":  # the general-purpose flag's encryption bit, local and central
            data[info.header_offset + 6] |= 1
            central_name = data.index(victim.encode(), info.header_offset + 30 + len(victim))
            data[central_name - 46 + 8] |= 1
        else:  # flip bytes in the middle of the compressed data
            start = info.header_offset + 30 + len(info.filename) + 10
            data[start:start + 8] = bytes(b ^ 0xFF for b in data[start:start + 8])
        bad.write_bytes(bytes(data))
    message = _rejected_whole(bad, tmp_path / "other")
    assert str(bad) in message
    assert not list(tmp_path.rglob("evil.txt"))


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
