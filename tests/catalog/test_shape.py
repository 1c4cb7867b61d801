"""Shape: WL hashes ignore names but see roles and edge kinds; similarity, depth, cycles."""

from __future__ import annotations

from a4a.catalog import shape
from tests.catalog.conftest import Built

NODES = (("boss", "coordinator"), ("a", "specialist"), ("b", "reviewer"))
LINKS = (("boss", "a", "delegate"), ("boss", "b", "delegate"))


def _hash(nodes: tuple[shape.Node, ...], links: tuple[shape.Link, ...]) -> str:
    return shape.wl_hash(shape.labelled_graph(nodes, links))


def test_wl_hash_ignores_names_and_order() -> None:
    renamed = (("lead", "coordinator"), ("y", "reviewer"), ("x", "specialist"))
    links = (("lead", "y", "delegate"), ("lead", "x", "delegate"))
    assert _hash(NODES, LINKS) == _hash(renamed, links)


def test_wl_hash_sees_roles_and_edge_kinds() -> None:
    base = _hash(NODES, LINKS)
    assert _hash((("boss", "coordinator"), ("a", "specialist"), ("b", "specialist")),
                 LINKS) != base
    assert _hash(NODES, (("boss", "a", "delegate"), ("boss", "b", "handoff"))) != base
    assert _hash(NODES, (("boss", "a", "delegate"), ("b", "boss", "delegate"))) != base


def test_similarity_bounds() -> None:
    g = shape.wl_subtrees(shape.labelled_graph(NODES, LINKS))
    assert shape.similarity(g, g) == 1.0
    other = shape.wl_subtrees(shape.labelled_graph((("solo", "writer"),), ()))
    assert shape.similarity(g, other) == 0.0
    bigger = shape.wl_subtrees(shape.labelled_graph(
        (*NODES, ("c", "specialist")), (*LINKS, ("boss", "c", "delegate"))))
    assert 0.0 < shape.similarity(g, bigger) < 1.0


def test_depth_and_cycles() -> None:
    chain = (("a", "x"), ("b", "x"), ("c", "x"))
    assert shape.delegation_depth(chain, (("a", "b", "delegate"), ("b", "c", "delegate"))) == 2
    assert shape.delegation_depth(chain, (("a", "b", "sequence"),)) == 0
    assert shape.cycle_count(chain, (("a", "b", "sequence"), ("b", "a", "loop"))) == 1
    assert shape.cycle_count(chain, (("a", "a", "loop"),)) == 1
    # A delegation cycle (invalid, but the catalog still stores it) neither loops forever
    # nor counts as a control-flow cycle.
    cyc = (("a", "b", "delegate"), ("b", "a", "delegate"))
    assert shape.delegation_depth(chain, cyc) == 0 and shape.cycle_count(chain, cyc) == 0


def test_built_frameworks_have_the_expected_shape(built: dict[str, Built]) -> None:
    triage, loop = built["triage"].entry, built["loop"].entry
    assert triage.depth == 1 and triage.cycles == 0 and triage.pattern == "orchestrator_workers"
    assert loop.cycles >= 1
    assert len({b.entry.wl_hash for b in built.values()}) == len(built) - 2
