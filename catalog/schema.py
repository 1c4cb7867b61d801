"""The catalog's SQL schema and its migrations, keyed by SQLite's `user_version`.

A new version appends a step to `_STEPS` (ALTER TABLE, new tables): run statistics, for
example, arrive as version 2 without touching existing rows.
"""

from __future__ import annotations

SCHEMA_VERSION = 1

# Columns read back into an Entry, in Entry field order where names match.
COLUMNS = (
    "id", "name", "request", "pattern", "pattern_tree", "domains", "agents", "edges", "tools",
    "depth", "cycles", "tool_names", "mcp_servers", "valid", "errors", "warnings", "wl_hash",
    "subtrees", "graph", "created", "source", "path", "seed", "a4a_version",
)

_V1 = [
    """CREATE TABLE frameworks (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        request TEXT NOT NULL,
        keywords TEXT NOT NULL,
        pattern TEXT NOT NULL,
        pattern_tree TEXT NOT NULL,
        domains TEXT NOT NULL,
        agents INTEGER NOT NULL,
        edges INTEGER NOT NULL,
        tools INTEGER NOT NULL,
        depth INTEGER NOT NULL,
        cycles INTEGER NOT NULL,
        tool_names TEXT NOT NULL,
        mcp_servers TEXT NOT NULL,
        valid INTEGER NOT NULL,
        errors INTEGER NOT NULL,
        warnings INTEGER NOT NULL,
        wl_hash TEXT NOT NULL,
        subtrees TEXT NOT NULL,
        n_subtrees INTEGER NOT NULL,
        graph TEXT NOT NULL,
        created REAL NOT NULL,
        source TEXT NOT NULL,
        path TEXT,
        seed INTEGER,
        a4a_version TEXT
    )""",
    "CREATE INDEX frameworks_created ON frameworks (created)",
    "CREATE INDEX frameworks_pattern ON frameworks (pattern, created)",
    "CREATE INDEX frameworks_agents ON frameworks (agents)",
    "CREATE INDEX frameworks_wl ON frameworks (wl_hash)",
    "CREATE INDEX frameworks_name ON frameworks (name)",
    "CREATE INDEX frameworks_shape ON frameworks (n_subtrees)",
    # Many-valued filters (domains, tools, MCP servers): one row per value. No index on fid:
    # it would cost a third of the ingest time; removal deletes by the full key instead.
    """CREATE TABLE tags (
        kind TEXT NOT NULL, value TEXT NOT NULL, fid INTEGER NOT NULL,
        PRIMARY KEY (kind, value, fid)
    ) WITHOUT ROWID""",
    # External-content FTS5 over the frameworks table; the triggers keep it in step.
    """CREATE VIRTUAL TABLE fts USING fts5 (
        name, request, keywords, content='frameworks', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2', prefix='3'
    )""",
    """CREATE TRIGGER frameworks_ai AFTER INSERT ON frameworks BEGIN
        INSERT INTO fts (rowid, name, request, keywords)
        VALUES (new.rowid, new.name, new.request, new.keywords);
    END""",
    """CREATE TRIGGER frameworks_ad AFTER DELETE ON frameworks BEGIN
        INSERT INTO fts (fts, rowid, name, request, keywords)
        VALUES ('delete', old.rowid, old.name, old.request, old.keywords);
    END""",
    """CREATE TRIGGER frameworks_au AFTER UPDATE OF name, request, keywords ON frameworks BEGIN
        INSERT INTO fts (fts, rowid, name, request, keywords)
        VALUES ('delete', old.rowid, old.name, old.request, old.keywords);
        INSERT INTO fts (rowid, name, request, keywords)
        VALUES (new.rowid, new.name, new.request, new.keywords);
    END""",
]

_STEPS: dict[int, list[str]] = {1: _V1}


def migrations(current: int) -> list[str]:
    """The statements that take a database from version `current` to SCHEMA_VERSION."""
    return [s for v in range(current + 1, SCHEMA_VERSION + 1) for s in _STEPS[v]]
