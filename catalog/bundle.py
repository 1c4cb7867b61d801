"""Portable catalog bundles: a zip of framework directories plus a manifest.

Layout: `manifest.json` (format, and per framework its id, source and creation time) and
`frameworks/<id>/<file>` for every file its a4a.lock lists. Import trusts nothing in a
bundle: every file must be listed by its lock and match its hash, the id is recomputed from
the files, sizes are capped before reading, and files are written one by one (never
`extractall`); the entry is then derived afresh from the files. A bundle is imported whole or
not at all: one bad member (encrypted, corrupt, nested too deep, a name that escapes, a
mismatch) rejects it with nothing written or registered.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import zipfile
import zlib
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
MAX_MEMBERS = 100_000
# What zipfile raises for a member it cannot read: corrupt data or CRC (BadZipFile, zlib.error,
# EOFError), encryption (RuntimeError), an unknown compression (NotImplementedError); and
# what JSON raises for a manifest that is not JSON or nested too deep.
_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError,
               ValueError, RecursionError)


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
    """Unpack the frameworks of `bundle` under `dest/<id>/` and register them: all or none.

    Every framework is checked and unpacked into a staging folder under `dest` first; only
    when all pass are they moved into place and registered.

    Raises:
        CatalogError: `catalog.bundle_invalid` when the file is not a bundle or any member
            fails a check (encrypted, corrupt, too large, too deep, a path that escapes, a
            hash or id that does not match); nothing is then written or registered.
        A4AError: io.* when the file system refuses a write.
    """
    report = BundleReport(str(bundle))
    try:
        zf = zipfile.ZipFile(bundle)
    except (OSError, zipfile.BadZipFile, ValueError) as err:
        raise _invalid(f"{bundle} is not a bundle: {err}") from err
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".import-", dir=dest))
    try:
        with zf:
            _check_members(zf, bundle)
            entries = [_stage(zf, item, staging, bundle) for item in _manifest(zf, bundle)]
        for entry in entries:
            final = dest / entry.id
            if final.exists():  # an earlier import of the same files: replaced whole
                os.replace(final, staging / f".old-{entry.id}")
            os.replace(staging / entry.id, final)
            entry = dataclasses.replace(entry, path=str(final.resolve()))
            (report.added if catalog.add(entry) else report.existing).append(entry.id)
    except OSError as err:
        raise fsaccess.os_error(err) from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _invalid(message: str) -> CatalogError:
    return CatalogError("catalog.bundle_invalid", message, "Nothing was imported. Re-export "
                        "the frameworks from a trusted catalog with `a4a catalog export`.")


def _check_members(zf: zipfile.ZipFile, bundle: Path) -> None:
    """Refuse the bundle whole for an encrypted member, one too many, or an unsafe name."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _invalid(f"{bundle} has {len(infos)} members (at most {MAX_MEMBERS})")
    for info in infos:
        name = info.filename
        if info.flag_bits & 0x1:
            raise _invalid(f"{bundle}: {name} is encrypted")
        rel = name.removeprefix("frameworks/").partition("/")[2]
        framework_file = name.startswith("frameworks/") and (is_safe_rel(rel) or info.is_dir())
        if (name != "manifest.json" and not framework_file) or ".." in name.split("/"):
            raise _invalid(f"{bundle}: member {name[:200]!r} is not a framework file")


def _stage(zf: zipfile.ZipFile, item: dict[str, Any], staging: Path, bundle: Path) -> Entry:
    """Check framework `item` and unpack it under `staging`; its entry (path to be moved)."""
    fid = item["id"]
    try:
        files = _framework_files(zf, fid)
        write_files(staging / fid, files)
        return entry_from_dir(staging / fid, source="import", created=item["created"])
    except _UNREADABLE as err:
        raise _invalid(f"{bundle}: framework {fid} cannot be read ({err})") from err
    except A4AError as err:
        if err.code.startswith("io."):
            raise
        raise _invalid(f"{bundle}: framework {fid}: {err.message}") from err


def _manifest(zf: zipfile.ZipFile, bundle: Path) -> list[dict[str, Any]]:
    bad = _invalid(f"{bundle} has no usable manifest.json")
    try:
        info = zf.getinfo("manifest.json")
        if info.file_size > MAX_MANIFEST_BYTES:
            raise bad
        data = json.loads(zf.read(info))
    except (KeyError, *_UNREADABLE) as err:
        raise bad from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(
            data.get("frameworks"), list):
        raise bad
    out = []
    seen: set[str] = set()
    for item in data["frameworks"]:
        if (isinstance(item, dict) and isinstance(item.get("id"), str)
                and FRAMEWORK_ID.fullmatch(item["id"]) and item["id"] not in seen):
            seen.add(item["id"])
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

