"""The store: registration, lookup by id prefix, filters, full-text search, removal."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from a4a.catalog.query import Query, fts_expression
from a4a.catalog.store import Catalog
from a4a.runtime.errors import CatalogError, UserError
from tests.catalog.conftest import Built


def test_adding_twice_keeps_one_entry_and_updates_the_path(catalog: Catalog,
                                                           built: dict[str, Built]) -> None:
    entry = built["triage"].entry
    n = catalog.count()
    moved = dataclasses.replace(entry, path="/somewhere/else")
    assert catalog.add(moved) is False
    assert catalog.count() == n
    got = catalog.get(entry.id)
    assert got is not None and got.path == "/somewhere/else"
    assert got.created == entry.created


def test_entry_round_trips_through_the_store(catalog: Catalog, built: dict[str, Built]) -> None:
    for b in built.values():
        assert catalog.get(b.entry.id) == b.entry


def test_resolve_by_unique_prefix_and_by_name(catalog: Catalog, built: dict[str, Built]) -> None:
    entry = built["routing"].entry
    assert catalog.resolve(entry.id[:6]).id == entry.id
    assert catalog.resolve(entry.id.upper()).id == entry.id
    assert catalog.resolve(entry.name).id == entry.id


def test_ambiguous_unknown_and_malformed_references(catalog: Catalog,
                                                    built: dict[str, Built]) -> None:
    base = built["routing"].entry
    catalog.add_many([dataclasses.replace(base, id=f"abcd00000000000{i}") for i in range(3)])
    with pytest.raises(CatalogError) as info:
        catalog.resolve("abcd")
    assert info.value.code == "catalog.ambiguous"
    assert len(info.value.data["candidates"]) == 3
    with pytest.raises(CatalogError) as info:
        catalog.resolve("ffffffffffffffff")
    assert info.value.code == "catalog.not_found"
    with pytest.raises(UserError):
        catalog.resolve("   ")
    # The same name twice is ambiguous too: a name is a convenience, the id is the key.
    with pytest.raises(CatalogError):
        catalog.resolve(base.name)


def test_structural_filters(catalog: Catalog, built: dict[str, Built]) -> None:
    def ids(**kw: object) -> set[str]:
        return {e.id for e in catalog.query(Query(**kw)).items}  # type: ignore[arg-type]

    routing, loop = built["routing"].entry, built["loop"].entry
    assert routing.id in ids(pattern="routing")
    assert ids(pattern="routing") == {e.id for e in (routing,)}
    assert ids(domain="customer_support") == {routing.id}
    assert ids(tool="close_issue") == {b.entry.id for k, b in built.items()
                                       if "close_issue" in b.entry.tool_names}
    assert loop.has_cycle and ids(has_cycle=True) == {loop.id}
    assert loop.id not in ids(has_cycle=False)
    assert all(e.agents >= 4 for e in catalog.query(Query(min_agents=4)).items)
    assert all(e.agents <= 2 for e in catalog.query(Query(max_agents=2)).items)
    assert ids(pattern="routing", domain="code_hosting") == set()


def test_search_ranks_by_bm25_and_combines_with_filters(catalog: Catalog,
                                                        built: dict[str, Built]) -> None:
    page = catalog.query(Query(text="support ticket specialist"))
    assert page.items[0].id == built["routing"].entry.id
    assert page.scores[0] is not None
    assert catalog.query(Query(text="triages", pattern="routing")).total == 0
    # The last word is a prefix while typing; stemming finds other forms.
    assert catalog.query(Query(text="triag")).total >= 2
    assert catalog.query(Query(text="triaging ")).total >= 2
    # Words that are not all present fall back to any of them.
    assert catalog.query(Query(text="ticket zebrafish ")).total >= 1


@pytest.mark.parametrize("text", ['"', 'NEAR(a b)', "*", "a OR", "-x", "^start", "col:umn",
                                  "'; DROP TABLE frameworks; --", "(((", "AND AND", "\x00",
                                  "🔥", "a" * 900])
def test_query_syntax_in_search_text_is_plain_words(catalog: Catalog, text: str) -> None:
    n = catalog.count()
    catalog.query(Query(text=text))
    assert catalog.count() == n and catalog.check() == []


def test_fts_expression_quotes_every_token() -> None:
    assert fts_expression('hello "world" OR x*') == '"hello" AND "world" AND "or" AND "x"'
    assert fts_expression("triag") == '"triag"*'
    assert fts_expression("  ") is None


def test_paging(catalog: Catalog) -> None:
    total = catalog.count()
    pages = [catalog.query(Query(limit=2, offset=o)).items for o in range(0, total, 2)]
    ids = [e.id for p in pages for e in p]
    assert len(ids) == len(set(ids)) == total
    created = [e.created for p in pages for e in p]
    assert created == sorted(created, reverse=True)


def test_a_bad_query_lists_every_problem(catalog: Catalog) -> None:
    with pytest.raises(UserError) as info:
        catalog.query(Query(limit=0, offset=-1, min_agents=-2))
    assert info.value.message.count(";") == 2


def test_remove_drops_the_entry_its_index_and_its_tags(catalog: Catalog,
                                                       built: dict[str, Built]) -> None:
    entry = built["routing"].entry
    catalog.remove(entry.id[:8])
    assert catalog.get(entry.id) is None
    assert catalog.query(Query(text="support ticket")).total == 0
    assert catalog.query(Query(domain="customer_support")).total == 0
    assert catalog.check() == []


def test_near_duplicates(catalog: Catalog, built: dict[str, Built]) -> None:
    a, b = built["triage"].entry, built["triage_seed3"].entry
    assert a.id != b.id and a.wl_hash == b.wl_hash
    same = {e.id for e in catalog.same_shape(a)}
    assert same == {b.id, built["payload"].entry.id}  # the payload asks for a triage team too
    near = catalog.similar(a, min_score=0.0)
    assert {e.id for e, s in near if s == 1.0} == same
    scores = [s for _, s in near]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)


def test_facets_count_patterns_and_domains(catalog: Catalog) -> None:
    facets = catalog.facets()
    assert sum(n for _, n in facets["pattern"]) == catalog.count()
    assert ("code_hosting", 3) in facets["domain"]


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    Catalog(tmp_path / "c.db").close()
    raw = sqlite3.connect(tmp_path / "c.db")
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(CatalogError) as info:
        Catalog(tmp_path / "c.db")
    assert info.value.code == "catalog.newer_schema"


def test_store_settings(tmp_path: Path) -> None:
    with Catalog(tmp_path / "c.db") as cat:
        mode = cat._db.execute("PRAGMA journal_mode").fetchone()[0]
        timeout = cat._db.execute("PRAGMA busy_timeout").fetchone()[0]
    assert mode == "wal" and timeout >= 10_000


def test_an_unwritable_home_is_a_catalog_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(CatalogError) as info:
        Catalog(tmp_path / "file" / "catalog.db")
    assert info.value.code == "catalog.db" and info.value.hint
