"""The catalog reads framework files confined and bounded: `add`, `show` and `export`."""

from __future__ import annotations

import dataclasses
import shutil
import zipfile
from pathlib import Path

import pytest

from a4a.catalog.bundle import export_bundle
from a4a.catalog.detail import directory_detail
from a4a.catalog.entry import entry_from_dir
from a4a.catalog.files import read_framework_files
from a4a.runtime.errors import CatalogError
from a4a.runtime.loader.files import LOCK
from tests.catalog.conftest import Built


@pytest.fixture
def copy(tmp_path: Path, built: dict[str, Built]) -> Path:
    root = tmp_path / "fw"
    shutil.copytree(built["triage"].path, root)
    return root


def test_a_lock_linked_from_outside_is_not_read(copy: Path, tmp_path: Path,
                                                built: dict[str, Built]) -> None:
    outside = tmp_path / "outside.lock"
    outside.write_bytes((copy / LOCK).read_bytes())
    (copy / LOCK).unlink()
    (copy / LOCK).symlink_to(outside)
    with pytest.raises(CatalogError) as err:
        read_framework_files(copy)
    assert err.value.code == "catalog.bad_lock" and "outside" in err.value.message
    entry = dataclasses.replace(built["triage"].entry, path=str(copy))
    report = export_bundle([entry], tmp_path / "b.zip")
    assert list(report.skipped) == [entry.id]
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        assert not [n for n in zf.namelist() if n.startswith("frameworks/")]


def test_a_sparse_huge_file_is_refused_by_its_size(copy: Path,
                                                   built: dict[str, Built]) -> None:
    with (copy / "topology.json").open("wb") as fh:
        fh.truncate(64 << 20)
    assert "topology.json" not in read_framework_files(copy)
    entry = entry_from_dir(copy)
    assert not entry.valid
    detail = directory_detail(dataclasses.replace(built["triage"].entry, path=str(copy)))
    assert "file.too_large" in {i["code"] for i in detail["issues"]}
