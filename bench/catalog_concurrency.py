"""Concurrent writers: N processes add entries to one catalog for S seconds, then we count.

Each worker adds its own entries one transaction at a time, and every 5th add also re-adds
one of 50 ids shared by all workers (so the same framework arrives from several processes
at once). A worker records an id only after its add returned, i.e. after the commit.
Afterwards: lost = recorded ids missing from the catalog, duplicated = rows beyond one per
id (in the table and in the full-text index), plus SQLite's and FTS5's integrity checks.

Usage: python bench/catalog_concurrency.py [--procs 4] [--seconds 30] [--db PATH] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import multiprocessing
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from a4a.catalog.entry import Entry, entry_from_spec
from a4a.catalog.store import Catalog
from a4a.runtime.errors import CatalogError

REQUESTS = ["a team that triages GitHub issues", "route each support ticket to the right "
            "specialist", "research a topic in parallel and merge the findings"]


def _fid(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def worker(n: int, db: str, start_at: float, seconds: float, out: str,
           bases: list[Entry]) -> None:
    """Add entries until the deadline; write the committed ids and the error count."""
    committed: list[str] = []
    errors = 0
    with Catalog(Path(db)) as cat:
        time.sleep(max(0.0, start_at - time.time()))
        i = 0
        while time.time() < start_at + seconds:
            i += 1
            ids = [_fid(f"worker {n} entry {i}")]
            if i % 5 == 0:
                ids.append(_fid(f"shared {i % 50}"))
            for fid in ids:
                entry = dataclasses.replace(bases[i % len(bases)], id=fid, name=f"w{n}-{i}",
                                            created=time.time())
                try:
                    cat.add(entry)
                except CatalogError:
                    errors += 1
                    continue
                committed.append(fid)
    Path(out).write_text(json.dumps({"committed": committed, "errors": errors}))


def run(procs: int, seconds: float, db: Path) -> dict[str, Any]:
    """Run the workers against `db` and check what the catalog holds afterwards."""
    from a4a.generator.pipeline import compile_request

    compiled = [compile_request(t) for t in REQUESTS]
    bases = [entry_from_spec(c.spec, c.framework_id, c.issues, source="synthetic", path=None)
             for c in compiled]
    ctx = multiprocessing.get_context("spawn")  # no SQLite handle crosses a fork
    with tempfile.TemporaryDirectory() as tmp:
        outs = [str(Path(tmp) / f"w{n}.json") for n in range(procs)]
        start_at = time.time() + 3.0  # past every worker's imports
        ps = [ctx.Process(target=worker, args=(n, str(db), start_at, seconds, outs[n], bases))
              for n in range(procs)]
        for p in ps:
            p.start()
        for p in ps:
            p.join()
        results = [json.loads(Path(o).read_text()) for o in outs]
    committed = [fid for r in results for fid in r["committed"]]
    return _verify(db, committed, sum(r["errors"] for r in results), procs, seconds,
                   [p.exitcode for p in ps])


def _verify(db: Path, committed: list[str], errors: int, procs: int, seconds: float,
            exits: list[int | None]) -> dict[str, Any]:
    expected = set(committed)
    raw = sqlite3.connect(db)
    ids = [r[0] for r in raw.execute("SELECT id FROM frameworks")]
    fts_rows = raw.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]
    raw.close()
    with Catalog(db) as cat:
        problems = cat.check()
    stored = set(ids)
    return {
        "procs": procs, "seconds": seconds, "adds": len(committed),
        "adds_per_s": round(len(committed) / seconds),
        "distinct_ids": len(expected), "rows": len(ids),
        "lost": len(expected - stored), "unexpected": len(stored - expected),
        "duplicated": (len(ids) - len(stored)) + abs(fts_rows - len(ids)),
        "errors": errors, "worker_exit_codes": exits,
        "integrity": "ok" if not problems else problems,
    }


def main() -> None:
    """Run the benchmark and print its figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.procs, args.seconds, args.db or Path(tmp) / "catalog.db")
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>18}: {value}")


if __name__ == "__main__":
    main()
