"""Catalog queries as values, and the SQL they become.

User text never reaches SQL or the FTS5 query language as syntax: it is cut into word
tokens, each quoted as an FTS5 string, and filters are bound parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.errors import UserError

MAX_LIMIT = 1000
MAX_TOKENS = 16
# bm25 column weights: a hit in the name counts most, then agents/tools/domains, then the
# request text (long and wordy, so each word says less).
BM25 = "bm25(fts, 8.0, 1.0, 3.0)"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Query:
    """A catalog query: optional full text plus structural filters, one page of results."""

    text: str = ""
    pattern: str | None = None
    domain: str | None = None
    tool: str | None = None
    mcp: str | None = None
    min_agents: int | None = None
    max_agents: int | None = None
    has_cycle: bool | None = None
    valid: bool | None = None
    limit: int = 20
    offset: int = 0

    def problems(self) -> list[str]:
        """Every reason the query cannot run (empty when it can)."""
        out = []
        if not 1 <= self.limit <= MAX_LIMIT:
            out.append(f"limit must be between 1 and {MAX_LIMIT}")
        if self.offset < 0:
            out.append("offset must not be negative")
        for name in ("min_agents", "max_agents"):
            value = getattr(self, name)
            if value is not None and value < 0:
                out.append(f"{name} must not be negative")
        if len(self.text) > 1000:
            out.append("search text is longer than 1000 characters")
        return out

    def check(self) -> None:
        """Raise UserError listing every problem, if any."""
        problems = self.problems()
        if problems:
            raise UserError("catalog.bad_query", "; ".join(problems),
                            "Fix the listed options and search again.")


@dataclass(frozen=True)
class Sql:
    """A statement for the page, one for the total, and their shared parameters."""

    select: str
    count: str
    args: list[Any] = field(default_factory=list)


def fts_expression(text: str, any_term: bool = False) -> str | None:
    """The FTS5 query for user text: quoted word tokens, AND-ed (or OR-ed), last one a prefix.

    None when the text holds no word. The last token matches as a prefix (`triag` finds
    `triage`) so that search-as-you-type works; quoting makes FTS5 operators plain words.
    """
    tokens = _WORD.findall(text.lower())[:MAX_TOKENS]
    if not tokens:
        return None
    quoted = [f'"{t}"' for t in tokens]
    if not text[-1:].isspace() and len(tokens[-1]) >= 3:
        quoted[-1] += "*"
    return (" OR " if any_term else " AND ").join(quoted)


def _filters(q: Query) -> tuple[list[str], list[Any]]:
    conds: list[str] = []
    args: list[Any] = []
    if q.pattern:
        conds.append("f.pattern = ?")
        args.append(q.pattern)
    for kind, value in (("domain", q.domain), ("tool", q.tool), ("mcp", q.mcp)):
        if value:
            conds.append("f.rowid IN (SELECT fid FROM tags WHERE kind = ? AND value = ?)")
            args += [kind, value]
    if q.min_agents is not None:
        conds.append("f.agents >= ?")
        args.append(q.min_agents)
    if q.max_agents is not None:
        conds.append("f.agents <= ?")
        args.append(q.max_agents)
    if q.has_cycle is not None:
        conds.append("f.cycles > 0" if q.has_cycle else "f.cycles = 0")
    if q.valid is not None:
        conds.append("f.valid = ?")
        args.append(int(q.valid))
    return conds, args


def build_sql(q: Query, columns: str, match: str | None) -> Sql:
    """The page and total statements for `q`; `match` is its FTS5 expression, if any.

    The page is picked by rowid (and score) alone, then joined to its columns: sorting
    thousands of matches with their full rows would cost more than the ranking itself.
    """
    conds, args = _filters(q)
    if match is None:
        where = f"WHERE {' AND '.join(conds)}" if conds else ""
        inner = (f"SELECT f.rowid AS rid, NULL AS score FROM frameworks f {where} "
                 "ORDER BY f.created DESC, f.rowid DESC LIMIT ? OFFSET ?")
        order = "f.created DESC, f.rowid DESC"
        count = f"SELECT count(*) FROM frameworks f {where}"
    else:
        where = " AND ".join(["fts MATCH ?", *conds])
        # CROSS JOIN pins the FTS index as the outer loop: SQLite would otherwise walk a
        # filter index and re-run the MATCH for every row it finds.
        source = "fts CROSS JOIN frameworks f ON f.rowid = fts.rowid" if conds else "fts"
        inner = (f"SELECT fts.rowid AS rid, {BM25} AS score FROM {source} WHERE {where} "
                 "ORDER BY score LIMIT ? OFFSET ?")
        order = "s.score"
        count = f"SELECT count(*) FROM {source} WHERE {where}"
        args = [match, *args]
    select = (f"SELECT {columns}, s.score FROM ({inner}) s "
              f"CROSS JOIN frameworks f ON f.rowid = s.rid ORDER BY {order}")
    return Sql(select=select, count=count, args=args)
