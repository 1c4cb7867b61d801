"""to_graph/from_graph and topology.json round-trip exactly; step bounds and terminals."""

from __future__ import annotations

import json

from a4a.generator.pipeline import compile_request
from a4a.runtime.graph.convert import from_graph, from_node_link, to_graph
from a4a.runtime.graph.flow import step_bound


def test_round_trip_over_the_benign_corpus(benign: list[str]) -> None:
    for text in benign[::3]:
        spec = compile_request(text).spec
        assert from_graph(to_graph(spec)) == spec
        files = compile_request(text).files
        assert from_node_link(json.loads(files["topology.json"])) == spec


def test_graph_has_one_node_per_agent_and_edge_per_spec_edge() -> None:
    spec = compile_request("a team that triages GitHub issues").spec
    g = to_graph(spec)
    assert sorted(g.nodes) == sorted(a.name for a in spec.agents)
    assert g.number_of_edges() == len(spec.edges)
    assert g.graph["entry"] == spec.entry


def test_step_bound_multiplies_loops_by_their_cap() -> None:
    spec = compile_request("a writer drafts the post until the editor approves it").spec
    loops = [e for e in spec.edges if e.kind == "loop"]
    assert loops and all(e.max_iterations for e in loops)
    cycle_cost = sum(a.max_iterations for a in spec.agents) * max(
        e.max_iterations or 1 for e in loops)
    assert step_bound(spec) == cycle_cost
    assert step_bound(spec) <= spec.limits.max_steps
