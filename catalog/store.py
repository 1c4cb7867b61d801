"""The catalog store: SQLite in WAL mode with an FTS5 index, safe for many processes at once.

Writers take the write lock up front (BEGIN IMMEDIATE) and wait up to the busy timeout, so
concurrent `a4a build` runs queue instead of failing; readers never block writers. One
`Catalog` object holds one connection: use one per thread.
"""

from __future__ import annotations

import heapq
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from a4a.catalog.entry import Entry
from a4a.catalog.query import Query, Sql, build_sql, fts_expression
from a4a.catalog.schema import COLUMNS, SCHEMA_VERSION, migrations
from a4a.catalog.shape import similarity
from a4a.runtime.errors import CatalogError, UserError

BUSY_TIMEOUT_S = 30.0
_SELECT = ", ".join(f"f.{c}" for c in COLUMNS)
_PREFIX_CHARS = frozenset("0123456789abcdef")


def catalog_home() -> Path:
    """$A4A_HOME, else $XDG_DATA_HOME/a4a, else ~/.local/share/a4a."""
    if os.environ.get("A4A_HOME"):
        return Path(os.environ["A4A_HOME"]).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "a4a"


@dataclass(frozen=True)
class Page:
    """One page of results: the entries, their bm25 scores when searched, and the total."""

    query: Query
    total: int
    items: list[Entry]
    scores: list[float | None]


class Catalog:
    """The catalog database at `path` (created on first use)."""

    def __init__(self, path: Path, timeout: float = BUSY_TIMEOUT_S) -> None:
        self.path = path
        with _db_errors(f"open the catalog at {path}"):
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
            self._configure()

    @classmethod
    def open(cls, home: Path | None = None) -> Catalog:
        """The catalog under `home` (default: catalog_home())."""
        return cls((home or catalog_home()) / "catalog.db")

    def _configure(self) -> None:
        db = self._db
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode=WAL")  # persistent: set once per database file
        # NORMAL in WAL mode never corrupts; at worst an OS crash loses the last commits.
        for pragma in ("synchronous=NORMAL", "temp_store=MEMORY", "cache_size=-32000",
                       "mmap_size=268435456"):
            db.execute(f"PRAGMA {pragma}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise CatalogError("catalog.newer_schema", f"{self.path} has schema {version}, "
                               f"this a4a knows up to {SCHEMA_VERSION}",
                               "Upgrade a4a, or point A4A_HOME at another directory.")
        if version < SCHEMA_VERSION:
            with self._write():
                # Another process may have migrated while this one waited for the lock.
                current = db.execute("PRAGMA user_version").fetchone()[0]
                for statement in migrations(current):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with _db_errors("write to the catalog"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def add(self, entry: Entry) -> bool:
        """Store `entry`; False when its id was already there (then only its path is updated)."""
        with self._write() as db:
            return _insert(db, entry)

    def add_many(self, entries: Iterable[Entry], batch: int = 1000) -> int:
        """Store entries, `batch` per transaction; returns how many were new."""
        added = 0
        chunk: list[Entry] = []
        for entry in entries:
            chunk.append(entry)
            if len(chunk) >= batch:
                added += self._add_chunk(chunk)
                chunk = []
        return added + (self._add_chunk(chunk) if chunk else 0)

    def _add_chunk(self, chunk: list[Entry]) -> int:
        with self._write() as db:
            return sum(_insert(db, e) for e in chunk)

    def remove(self, ref: str) -> Entry:
        """Remove the entry `ref` names (id prefix or name); returns it."""
        entry = self.resolve(ref)
        with self._write() as db:
            row = db.execute("SELECT rowid FROM frameworks WHERE id = ?", (entry.id,)).fetchone()
            if row:
                db.executemany("DELETE FROM tags WHERE kind = ? AND value = ? AND fid = ?",
                               [(k, v, row[0]) for k, v in _tags(entry)])
                db.execute("DELETE FROM frameworks WHERE rowid = ?", (row[0],))
        return entry

    def get(self, framework_id: str) -> Entry | None:
        """The entry with exactly this id, if any."""
        rows = self._rows(f"SELECT {_SELECT} FROM frameworks f WHERE f.id = ?", [framework_id])
        return _entry(rows[0]) if rows else None

    def resolve(self, ref: str) -> Entry:
        """The one entry whose id starts with `ref` or, failing that, whose name is `ref`.

        Raises UserError for an empty or overlong reference, CatalogError when nothing or
        more than one entry matches.
        """
        ref = ref.strip()
        if ref and set(ref.lower()) <= _PREFIX_CHARS:
            ref = ref.lower()
        if not ref or len(ref) > 64:
            raise UserError("catalog.bad_id", f"{ref[:64]!r} is not a framework id or name",
                            "Pass an id (or a unique prefix of one) from `a4a catalog list`.")
        rows: list[tuple[Any, ...]] = []
        if set(ref) <= _PREFIX_CHARS:
            rows = self._rows(f"SELECT {_SELECT} FROM frameworks f WHERE f.id >= ? AND "
                              "f.id < ? ORDER BY f.id LIMIT 6", [ref, ref + "g"])
        if not rows:
            rows = self._rows(f"SELECT {_SELECT} FROM frameworks f WHERE f.name = ? "
                              "ORDER BY f.created DESC LIMIT 6", [ref])
        if not rows:
            raise CatalogError("catalog.not_found", f"no framework matches {ref!r}",
                               "List the catalog with `a4a catalog list`.")
        if len(rows) > 1:
            ids = [r[0] for r in rows]
            many = f"{len(ids)}" if len(ids) <= 5 else "more than 5"
            raise CatalogError("catalog.ambiguous", f"{ref!r} matches {many} frameworks: "
                               f"{', '.join(ids[:5])}", "Pass an id, or more of its digits.",
                               candidates=ids[:5])
        return _entry(rows[0])

    def query(self, q: Query) -> Page:
        """One page of entries matching `q`: bm25-ranked with text, newest first without.

        When every word of the text together finds nothing, any word is enough.
        Raises UserError for an unusable query.
        """
        q.check()
        match = fts_expression(q.text)
        page = self._page(q, build_sql(q, _SELECT, match))
        if page.total == 0 and match and " AND " in match:
            page = self._page(q, build_sql(q, _SELECT, fts_expression(q.text, any_term=True)))
        return page

    def _page(self, q: Query, sql: Sql) -> Page:
        rows = self._rows(sql.select, [*sql.args, q.limit, q.offset])
        total = self._rows(sql.count, sql.args)[0][0]
        return Page(q, int(total), [_entry(r) for r in rows], [r[-1] for r in rows])

    def same_shape(self, entry: Entry, limit: int = 20) -> list[Entry]:
        """Other entries with the same Weisfeiler-Lehman graph hash, newest first."""
        rows = self._rows(f"SELECT {_SELECT} FROM frameworks f WHERE f.wl_hash = ? AND "
                          "f.id != ? ORDER BY f.created DESC LIMIT ?",
                          [entry.wl_hash, entry.id, limit])
        return [_entry(r) for r in rows]

    def similar(self, entry: Entry, limit: int = 10, min_score: float = 0.5
                ) -> list[tuple[Entry, float]]:
        """The entries most alike in structure (see shape.similarity), best first.

        Jaccard >= s needs the smaller set to be at least s times the larger, so only
        entries whose subtree count lies in that window are scored.
        """
        n = len(entry.subtrees)
        lo, hi = (int(n * min_score), int(n / min_score) + 1) if min_score > 0 else (0, 1 << 62)
        rows = self._rows("SELECT f.rowid, f.subtrees FROM frameworks f WHERE f.n_subtrees "
                          "BETWEEN ? AND ? AND f.id != ?", [lo, hi, entry.id])
        mine = set(entry.subtrees)
        scored = ((similarity(mine, text.split()), rowid) for rowid, text in rows)
        best = heapq.nlargest(limit, (s for s in scored if s[0] >= min_score))
        out = []
        for score, rowid in best:
            row = self._rows(f"SELECT {_SELECT} FROM frameworks f WHERE f.rowid = ?", [rowid])
            out.append((_entry(row[0]), round(score, 3)))
        return out

    def facets(self) -> dict[str, list[tuple[str, int]]]:
        """Counts per pattern and per domain, most common first (for filter menus)."""
        patterns = self._rows("SELECT pattern, count(*) AS n FROM frameworks "
                              "GROUP BY pattern ORDER BY n DESC, pattern", [])
        domains = self._rows("SELECT value, count(*) AS n FROM tags WHERE kind = 'domain' "
                             "GROUP BY value ORDER BY n DESC, value", [])
        return {"pattern": [(str(p), int(n)) for p, n in patterns],
                "domain": [(str(d), int(n)) for d, n in domains]}

    def count(self) -> int:
        """How many entries the catalog holds."""
        return int(self._rows("SELECT count(*) FROM frameworks", [])[0][0])

    def entries(self, batch: int = 500) -> Iterator[Entry]:
        """Every entry, oldest first."""
        last = -1
        while True:
            rows = self._rows(f"SELECT {_SELECT}, f.rowid FROM frameworks f WHERE f.rowid > ? "
                              "ORDER BY f.rowid LIMIT ?", [last, batch])
            if not rows:
                return
            yield from (_entry(r) for r in rows)
            last = rows[-1][-1]

    def check(self) -> list[str]:
        """Problems found by SQLite's integrity check, the FTS5 index check and tag links."""
        problems = [str(r[0]) for r in self._rows("PRAGMA integrity_check", [])
                    if r[0] != "ok"]
        try:
            self._rows("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)", [])
        except CatalogError as err:
            problems.append(f"full-text index: {err.message}")
        orphans = self._rows("SELECT count(*) FROM tags WHERE fid NOT IN "
                             "(SELECT rowid FROM frameworks)", [])[0][0]
        if orphans:
            problems.append(f"{orphans} tag rows point at no framework")
        return problems

    def _rows(self, sql: str, args: list[Any]) -> list[tuple[Any, ...]]:
        with _db_errors("read the catalog"):
            return self._db.execute(sql, args).fetchall()


@contextmanager
def _db_errors(doing: str) -> Iterator[None]:
    """Turn sqlite3 errors into CatalogError with a hint."""
    try:
        yield
    except sqlite3.OperationalError as err:
        if "locked" in str(err) or "busy" in str(err):
            raise CatalogError("catalog.busy", f"could not {doing}: the database stayed locked",
                               "Another a4a process is writing; retry in a moment.") from err
        raise CatalogError("catalog.db", f"could not {doing}: {err}",
                           "Check that A4A_HOME points at a writable directory.") from err
    except (sqlite3.Error, OSError) as err:
        raise CatalogError("catalog.db", f"could not {doing}: {err}",
                           "Check A4A_HOME; move a damaged catalog.db aside to start afresh."
                           ) from err


def _insert(db: sqlite3.Connection, e: Entry) -> bool:
    values = _row(e)
    cur = db.execute(f"INSERT INTO frameworks ({', '.join(values)}) VALUES "
                     f"({', '.join('?' * len(values))}) ON CONFLICT(id) DO NOTHING",
                     list(values.values()))
    if cur.rowcount == 0:
        # Same id, same content: the framework was written again, maybe somewhere else.
        if e.path:
            db.execute("UPDATE frameworks SET path = ? WHERE id = ? AND path IS NOT ?",
                       (e.path, e.id, e.path))
        return False
    db.executemany("INSERT OR IGNORE INTO tags (kind, value, fid) VALUES (?, ?, ?)",
                   [(k, v, cur.lastrowid) for k, v in _tags(e)])
    return True


def _tags(e: Entry) -> list[tuple[str, str]]:
    return [("domain", d) for d in e.domains] + [("tool", t) for t in e.tool_names] + [
        ("mcp", m) for m in e.mcp_servers]


def _row(e: Entry) -> dict[str, Any]:
    graph = {"entry": e.entry_agent, "nodes": e.nodes, "links": e.links}
    return {
        "id": e.id, "name": e.name, "request": e.request, "pattern": e.pattern,
        "pattern_tree": e.pattern_tree, "domains": " ".join(e.domains), "agents": e.agents,
        "edges": e.edges, "tools": e.tools, "depth": e.depth, "cycles": e.cycles,
        "tool_names": " ".join(e.tool_names), "mcp_servers": " ".join(e.mcp_servers),
        "valid": int(e.valid), "errors": e.errors, "warnings": e.warnings,
        "wl_hash": e.wl_hash, "subtrees": " ".join(e.subtrees), "graph": json.dumps(graph),
        "created": e.created, "source": e.source, "path": e.path, "seed": e.seed,
        "a4a_version": e.a4a_version, "keywords": e.keywords(),
        "n_subtrees": len(e.subtrees),
    }


def _entry(row: tuple[Any, ...]) -> Entry:
    d = dict(zip(COLUMNS, row, strict=False))
    graph = json.loads(d.pop("graph"))
    for key in ("domains", "tool_names", "mcp_servers", "subtrees"):
        d[key] = tuple(d[key].split())
    d["valid"] = bool(d["valid"])
    return Entry(**d, entry_agent=graph["entry"],
                 nodes=tuple((n, r) for n, r in graph["nodes"]),
                 links=tuple((s, t, k) for s, t, k in graph["links"]))
