"""FrameworkSpec <-> networkx graph, exactly round-tripping.

Nodes are agents (attributes: the agent's fields); edges carry their fields plus their
position in the spec; everything else lives in the graph's attributes.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from a4a.runtime.ir.spec import AgentSpec, EdgeSpec, FrameworkSpec

_GRAPH_FIELDS = [f for f in FrameworkSpec.model_fields if f not in ("agents", "edges")]


def to_graph(spec: FrameworkSpec) -> nx.MultiDiGraph:
    """The framework as a MultiDiGraph (one node per agent, one edge per EdgeSpec)."""
    g = nx.MultiDiGraph()
    g.graph.update(spec.model_dump(mode="json", include=set(_GRAPH_FIELDS)))
    for agent in spec.agents:
        g.add_node(agent.name, **agent.model_dump(mode="json", exclude={"name"}))
    for i, edge in enumerate(spec.edges):
        data = edge.model_dump(mode="json", exclude={"source", "target"})
        g.add_edge(edge.source, edge.target, key=i, order=i, **data)
    return g


def from_graph(g: nx.MultiDiGraph) -> FrameworkSpec:
    """Rebuild the FrameworkSpec a graph was made from."""
    agents = [AgentSpec.model_validate({"name": n, **d}) for n, d in g.nodes(data=True)]
    rows: list[tuple[int, dict[str, Any]]] = []
    for s, t, d in g.edges(data=True):
        fields = {k: v for k, v in d.items() if k != "order"}
        rows.append((d["order"], {"source": s, "target": t, **fields}))
    edges = [EdgeSpec.model_validate(row) for _, row in sorted(rows, key=lambda r: r[0])]
    return FrameworkSpec.model_validate({**g.graph, "agents": agents, "edges": edges})


def to_node_link(spec: FrameworkSpec) -> dict[str, Any]:
    """The node-link JSON written to topology.json."""
    data: dict[str, Any] = nx.node_link_data(to_graph(spec), edges="edges")
    return data


def from_node_link(data: dict[str, Any]) -> FrameworkSpec:
    """Inverse of to_node_link."""
    return from_graph(nx.node_link_graph(data, directed=True, multigraph=True, edges="edges"))


def control_graph(spec: FrameworkSpec) -> nx.DiGraph:
    """Agents linked by control-flow edges (every kind but delegate)."""
    g = nx.DiGraph()
    g.add_nodes_from(a.name for a in spec.agents)
    g.add_edges_from((e.source, e.target) for e in spec.edges if e.kind != "delegate")
    return g


def delegate_graph(spec: FrameworkSpec) -> nx.DiGraph:
    """Agents linked by delegate (agent-as-tool) edges."""
    g = nx.DiGraph()
    g.add_nodes_from(a.name for a in spec.agents)
    g.add_edges_from((e.source, e.target) for e in spec.edges if e.kind == "delegate")
    return g
