"""The shape of a framework: Weisfeiler-Lehman hashes, structural similarity, depth and cycles.

Shape ignores names, prompts and tools: two frameworks have the same shape when their agent
graphs are isomorphic with equal roles on the nodes and equal edge kinds on the edges.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import networkx as nx

from a4a.runtime.ir.spec import FrameworkSpec

ITERATIONS = 3
Node = tuple[str, str]
Link = tuple[str, str, str]


def topology(spec: FrameworkSpec) -> tuple[tuple[Node, ...], tuple[Link, ...]]:
    """Agents as (name, role) and edges as (source, target, kind), in spec order."""
    nodes = tuple((a.name, a.role) for a in spec.agents)
    links = tuple((e.source, e.target, e.kind) for e in spec.edges)
    return nodes, links


def labelled_graph(nodes: Sequence[Node], links: Sequence[Link]) -> nx.DiGraph:
    """A DiGraph with node attr `role` and edge attr `kind`.

    Parallel edges between one pair (a delegate and a loop, say) fold into one edge whose
    kind lists both, sorted, so the label does not depend on edge order.
    """
    g = nx.DiGraph()
    for name, role in nodes:
        g.add_node(name, role=role)
    kinds: dict[tuple[str, str], set[str]] = {}
    for source, target, kind in links:
        kinds.setdefault((source, target), set()).add(kind)
    for (source, target), ks in kinds.items():
        g.add_edge(source, target, kind="+".join(sorted(ks)))
    return g


def wl_hash(g: nx.DiGraph) -> str:
    """The Weisfeiler-Lehman graph hash of networkx (role on nodes, kind on edges)."""
    with warnings.catch_warnings():
        # networkx >= 3.5 warns that directed hashes changed in 3.5; pyproject requires
        # 3.5+, so every stored hash comes from the same algorithm.
        warnings.simplefilter("ignore", UserWarning)
        return str(nx.weisfeiler_lehman_graph_hash(g, edge_attr="kind", node_attr="role",
                                                   iterations=ITERATIONS))


def wl_subtrees(g: nx.DiGraph) -> tuple[str, ...]:
    """The set of WL subtree hashes of every node at every depth 0..ITERATIONS, sorted.

    Each hash names a rooted neighbourhood: a node's role, then the roles and edge kinds
    around it, up to ITERATIONS hops out. 8 hex digits keep the stored text short; a chance
    collision only nudges a similarity score.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        per_node = nx.weisfeiler_lehman_subgraph_hashes(
            g, edge_attr="kind", node_attr="role", iterations=ITERATIONS, digest_size=4,
            include_initial_labels=True)
    return tuple(sorted({h for hashes in per_node.values() for h in hashes}))


def similarity(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard index of two sets of WL subtree hashes, in [0, 1].

    Why this measure: pattern plus counts would call every orchestrator with three workers
    alike, whatever their roles and wiring; the WL subtrees see roles, edge kinds and who
    connects to whom, stay blind to names and prompts, and cost one set intersection per
    candidate. 1.0 means the same set of rooted neighbourhoods (almost always the same
    shape), 0.0 means none in common.
    """
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def delegation_depth(nodes: Sequence[Node], links: Sequence[Link]) -> int:
    """Longest chain of delegate edges (0 without delegation); cycles count once."""
    g = nx.DiGraph()
    g.add_nodes_from(n for n, _ in nodes)
    g.add_edges_from((s, t) for s, t, k in links if k == "delegate")
    if not g.number_of_edges():
        return 0
    # An invalid framework may delegate in a cycle: measure its condensation instead.
    dag = g if nx.is_directed_acyclic_graph(g) else nx.condensation(g)
    return int(nx.dag_longest_path_length(dag))


def cycle_count(nodes: Sequence[Node], links: Sequence[Link]) -> int:
    """Strongly connected components of the control graph that loop (size > 1 or self-edge)."""
    g = nx.DiGraph()
    g.add_nodes_from(n for n, _ in nodes)
    g.add_edges_from((s, t) for s, t, k in links if k != "delegate")
    return sum(1 for comp in nx.strongly_connected_components(g)
               if len(comp) > 1 or any(g.has_edge(n, n) for n in comp))
