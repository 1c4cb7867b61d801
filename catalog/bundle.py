"""Portable catalog bundles: a zip of framework directories plus a manifest.

Layout: `manifest.json` (format, and per framework its id, source and creation time) and
`frameworks/<id>/<file>` for every file its a4a.lock lists. Import trusts nothing in a
bundle: every file must be listed by its lock and match its hash, the id is recomputed from
the files, sizes are capped before reading, and files are written one by one under the
destination (never `extractall`); the entry is then derived afresh from the files.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.catalog.entry import FRAMEWORK_ID, Entry, entry_from_dir
from a4a.catalog.files import MAX_FILE_BYTES, is_safe_rel, read_framework_files
from a4a.catalog.store import Catalog
from a4a.runtime.errors import A4AError, CatalogError
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.files import LOCK, lock_data, write_files
from a4a.runtime.loader.yamlio import load_yaml_text

FORMAT = "a4a-catalog-bundle/1"
MAX_FRAMEWORK_BYTES = 20_000_000
MAX_MANIFEST_BYTES = 50_000_000


@dataclass
class BundleReport:
    """What an export or import did: ids written or added, and those skipped, with why."""

    path: str
    added: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"path": self.path, "added": self.added, "existing": self.existing,
                "skipped": self.skipped}


def export_bundle(entries: Iterable[Entry], out: Path) -> BundleReport:
    """Write `entries` (those whose directories still exist) into the zip `out`."""
    report = BundleReport(str(out))
    manifest: list[dict[str, Any]] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for e in entries:
            try:
                files = read_framework_files(Path(e.path)) if e.path else None
                lock = fsaccess.read_text(LOCK, root=Path(e.path or "")) if files else ""
            except A4AError as err:
                report.skipped[e.id] = err.message
                continue
            if not files:
                report.skipped[e.id] = "it has no directory"
                continue
            for rel, text in {**files, LOCK: lock}.items():
                zf.writestr(f"frameworks/{e.id}/{rel}", text)
            manifest.append({"id": e.id, "source": e.source, "created": e.created})
            report.added.append(e.id)
        zf.writestr("manifest.json", json.dumps({"format": FORMAT, "frameworks": manifest},
                                                indent=1))
    return report


def import_bundle(catalog: Catalog, bundle: Path, dest: Path) -> BundleReport:
    """Unpack the frameworks of `bundle` under `dest/<id>/` and register them.

    Raises CatalogError when the file is not a bundle; a framework that fails a check is
    skipped and reported, the others still land.
    """
    report = BundleReport(str(bundle))
    try:
        zf = zipfile.ZipFile(bundle)
    except (OSError, zipfile.BadZipFile) as err:
        raise CatalogError("catalog.bundle_invalid", f"{bundle} is not a bundle: {err}",
                           "Pass a file written by `a4a catalog export`.") from err
    with zf:
        for item in _manifest(zf, bundle):
            fid = item["id"]
            try:
                files = _framework_files(zf, fid)
                root = dest / fid
                write_files(root, files)
                entry = entry_from_dir(root, source="import", created=item["created"])
            except A4AError as err:
                report.skipped[fid] = err.message
                continue
            (report.added if catalog.add(entry) else report.existing).append(fid)
    return report


def _manifest(zf: zipfile.ZipFile, bundle: Path) -> list[dict[str, Any]]:
    bad = CatalogError("catalog.bundle_invalid", f"{bundle} has no usable manifest.json",
                       "Pass a file written by `a4a catalog export`.")
    try:
        info = zf.getinfo("manifest.json")
        if info.file_size > MAX_MANIFEST_BYTES:
            raise bad
        data = json.loads(zf.read(info))
    except (KeyError, ValueError, zipfile.BadZipFile) as err:
        raise bad from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(
            data.get("frameworks"), list):
        raise bad
    out = []
    for item in data["frameworks"]:
        if (isinstance(item, dict) and isinstance(item.get("id"), str)
                and FRAMEWORK_ID.fullmatch(item["id"])):
            created = item.get("created")
            if not isinstance(created, int | float) or not 0 <= created < 1e11:
                created = None  # then the import time stands in
            out.append({"id": item["id"], "created": created})
    return out


def _framework_files(zf: zipfile.ZipFile, fid: str) -> dict[str, str]:
    """The files of framework `fid` in the bundle, every one checked against its lock."""
    prefix = f"frameworks/{fid}/"
    lock_text = _member(zf, prefix + LOCK)
    lock = load_yaml_text(lock_text, f"{fid}/{LOCK}")
    listed = lock.get("files") if isinstance(lock, dict) else None
    if not isinstance(listed, dict) or not all(isinstance(k, str) and is_safe_rel(k)
                                               and k != LOCK for k in listed):
        raise CatalogError("catalog.bundle_invalid", f"{fid}: its lock lists unsafe paths",
                           "Re-export the framework from a trusted catalog.")
    files: dict[str, str] = {}
    total = 0
    for rel, digest in listed.items():
        text = _member(zf, prefix + rel)
        total += len(text)
        if total > MAX_FRAMEWORK_BYTES or hashlib.sha256(text).hexdigest() != digest:
            raise CatalogError("catalog.bundle_invalid", f"{fid}: {rel} does not match its "
                               "lock", "Re-export the framework from a trusted catalog.")
        files[rel] = _utf8(text, f"{fid}/{rel}")
    if lock_data(files)["framework_id"] != fid:
        raise CatalogError("catalog.bundle_invalid", f"{fid}: the files hash to another id",
                           "Re-export the framework from a trusted catalog.")
    return {**files, LOCK: _utf8(lock_text, f"{fid}/{LOCK}")}


def _utf8(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CatalogError("catalog.bundle_invalid", f"{name} is not UTF-8 text",
                           "Re-export the framework from a trusted catalog.") from err


def _member(zf: zipfile.ZipFile, name: str) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError as err:
        raise CatalogError("catalog.bundle_invalid", f"the bundle lacks {name}",
                           "Re-export the framework from a trusted catalog.") from err
    if info.file_size > MAX_FILE_BYTES or info.is_dir():
        raise CatalogError("catalog.bundle_invalid", f"{name} is too large or not a file",
                           "Re-export the framework from a trusted catalog.")
    with zf.open(info) as fh:
        data = fh.read(MAX_FILE_BYTES + 1)  # the header's size can lie; the read cannot
    if len(data) > MAX_FILE_BYTES:
        raise CatalogError("catalog.bundle_invalid", f"{name} is too large",
                           "Re-export the framework from a trusted catalog.")
    return data

