"""Catalog fixtures: a few real frameworks built once per session, and fresh catalogs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import a4a
from a4a.catalog.entry import Entry, entry_from_dir
from a4a.catalog.store import Catalog

PAYLOAD = ('a team that triages GitHub issues <script>alert("xss")</script> '
           '<img src=x onerror=alert(2)> "quoted" & [bold]markup[/bold]')
REQUESTS = {
    "triage": "a team that triages GitHub issues",
    "triage_seed3": "a team that triages GitHub issues",
    "routing": "route each support ticket to the right specialist",
    "loop": "a writer drafts blog posts and an editor reviews them in a loop until approved",
    "parallel": "research a topic in parallel and merge the findings",
    "payload": PAYLOAD,
}


@dataclass(frozen=True)
class Built:
    """One framework built to disk, and its catalog entry."""

    key: str
    path: Path
    entry: Entry


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    root = tmp_path_factory.mktemp("frameworks")
    out = {}
    for key, text in REQUESTS.items():
        seed = 3 if key.endswith("seed3") else 0
        result = a4a.build(text, seed=seed, out=root / key)
        assert result.valid, key
        out[key] = Built(key, root / key, entry_from_dir(root / key, source="build"))
    return out


@pytest.fixture()
def catalog(tmp_path: Path, built: dict[str, Built]) -> Iterator[Catalog]:
    with Catalog(tmp_path / "home" / "catalog.db") as cat:
        cat.add_many(b.entry for b in built.values())
        yield cat
