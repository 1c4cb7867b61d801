"""Control-flow checks: reachability, termination, cycles, routes, fan-outs, depth, steps."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import networkx as nx

from a4a.runtime.graph.convert import control_graph, delegate_graph
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import EdgeSpec, FrameworkSpec


def _out(spec: FrameworkSpec) -> dict[str, list[tuple[int, EdgeSpec]]]:
    out: dict[str, list[tuple[int, EdgeSpec]]] = defaultdict(list)
    for i, e in enumerate(spec.edges):
        out[e.source].append((i, e))
    return out


def terminals(spec: FrameworkSpec) -> set[str]:
    """Agents where a run may finish: no forward control edge leaves them, or a stop tool."""
    out = _out(spec)
    return {
        a.name
        for a in spec.agents
        if a.stop_tools
        or all(e.kind in ("delegate", "loop") for _, e in out.get(a.name, []))
    }


def check_reachability(spec: FrameworkSpec) -> Iterator[Issue]:
    """Every agent is reachable from the entry and can reach a terminal."""
    names = {a.name for a in spec.agents}
    if spec.entry not in names:
        return
    g = nx.MultiDiGraph()
    g.add_nodes_from(names)
    g.add_edges_from((e.source, e.target) for e in spec.edges
                     if e.source in names and e.target in names)
    seen = nx.descendants(g, spec.entry) | {spec.entry}
    ctrl = control_graph(spec)
    ends = terminals(spec)
    for i, a in enumerate(spec.agents):
        if a.name not in seen:
            yield Issue("agent.unreachable", f"agents[{i}]", f"agent {a.name!r} is not reachable "
                        f"from the entry {spec.entry!r}", "Add an edge to it or remove it.")
        elif not ends & (nx.descendants(ctrl, a.name) | {a.name}):
            yield Issue("agent.no_terminal", f"agents[{i}]", f"from agent {a.name!r} no path "
                        "reaches an agent where the run can finish",
                        "Add an exit edge, a loop exit condition or a stop tool.")


def check_cycles(spec: FrameworkSpec) -> Iterator[Issue]:
    """Each control cycle has an iteration cap and a conditional exit; delegation is acyclic."""
    ctrl = control_graph(spec)
    ends = terminals(spec)
    for comp in nx.strongly_connected_components(ctrl):
        members = set(comp)
        inside = [(i, e) for i, e in enumerate(spec.edges)
                  if e.kind != "delegate" and e.source in members and e.target in members]
        if len(members) == 1 and not inside:
            continue
        where = f"edges[{inside[0][0]}]"
        label = ", ".join(sorted(members))
        if not any(e.max_iterations for _, e in inside):
            yield Issue("cycle.no_cap", where, f"the cycle through {label} has no iteration cap",
                        "Set max_iterations on one of its edges (usually the loop back edge).")
        leaves = any(e.kind != "delegate" and e.source in members and e.target not in members
                     for e in spec.edges)
        conditional = any(e.condition for _, e in inside if e.kind == "loop")
        if not (leaves or conditional or members & ends):
            yield Issue("cycle.no_exit", where, f"the cycle through {label} has no exit",
                        "Give the loop edge an exit condition or add an edge out of the cycle.")
    dg = delegate_graph(spec)
    for cycle in _delegate_cycles(dg):
        idx = next(i for i, e in enumerate(spec.edges)
                   if e.kind == "delegate" and e.source == cycle[0])
        yield Issue("delegate.cycle", f"edges[{idx}]", "agents delegate to each other in a "
                    f"cycle: {' -> '.join([*cycle, cycle[0]])}",
                    "Delegation (agent-as-tool) must form a tree; use a loop edge for iteration.")


def _delegate_cycles(dg: nx.DiGraph) -> list[list[str]]:
    return [sorted(c) for c in nx.strongly_connected_components(dg)
            if len(c) > 1 or dg.has_edge(next(iter(c)), next(iter(c)))]


def check_edges(spec: FrameworkSpec) -> Iterator[Issue]:
    """Per-kind edge rules: loops, routes, fan-outs, unambiguous successors."""
    for i, e in enumerate(spec.edges):
        if e.kind == "loop" and not e.max_iterations:
            yield Issue("loop.missing_cap", f"edges[{i}]", f"loop edge {e.source}->{e.target} "
                        "has no max_iterations", "Set max_iterations (for example 3).")
        if e.kind == "loop" and not e.condition:
            yield Issue("loop.missing_condition", f"edges[{i}]", f"loop edge {e.source}->"
                        f"{e.target} has no exit condition", "Set condition (e.g. 'approved').")
        if e.default and e.kind != "route":
            yield Issue("edge.default_not_route", f"edges[{i}].default", "only route edges can "
                        "be the default", "Remove `default` or make the edge a route.")
        if e.join and e.kind != "parallel":
            yield Issue("edge.join_not_parallel", f"edges[{i}].join", "only parallel edges name "
                        "a join", "Remove `join` or make the edge parallel.")
    for source, rows in _out(spec).items():
        yield from _check_successors(spec, source, rows)


def _check_successors(spec: FrameworkSpec, source: str, rows: list[tuple[int, EdgeSpec]]
                      ) -> Iterator[Issue]:
    kinds = {e.kind for _, e in rows} - {"delegate", "loop"}
    first = f"edges[{rows[0][0]}]"
    if len(kinds) > 1:
        yield Issue("edge.kind_conflict", first, f"agent {source!r} has outgoing edges of "
                    f"several control kinds: {', '.join(sorted(kinds))}",
                    "Use one kind of control edge out of an agent.")
    seq = [i for i, e in rows if e.kind == "sequence"]
    if len(seq) > 1:
        yield Issue("sequence.fanout", f"edges[{seq[1]}]", f"agent {source!r} has "
                    f"{len(seq)} sequence successors", "Use parallel edges to fan out.")
    routes = [(i, e) for i, e in rows if e.kind == "route"]
    if routes:
        defaults = [i for i, e in routes if e.default]
        if len(defaults) != 1:
            yield Issue("route.default_count", f"edges[{routes[0][0]}]", f"router {source!r} "
                        f"has {len(defaults)} default routes", "Mark exactly one route default.")
        for i, e in routes:
            if not e.default and not e.condition:
                yield Issue("route.missing_condition", f"edges[{i}]", f"route {source}->"
                            f"{e.target} has no condition", "Say when the route is taken.")
    branches = [(i, e) for i, e in rows if e.kind == "parallel"]
    if branches:
        yield from _check_fanout(spec, source, branches)


def _check_fanout(spec: FrameworkSpec, source: str, branches: list[tuple[int, EdgeSpec]]
                  ) -> Iterator[Issue]:
    at = f"edges[{branches[0][0]}]"
    if len(branches) < 2 and not branches[0][1].max_iterations:
        yield Issue("parallel.single_branch", at, f"fan-out from {source!r} has one branch",
                    "Add branches, or set max_iterations to map over a runtime list.")
    joins = {e.join for _, e in branches}
    if len(joins) > 1:
        yield Issue("parallel.join_mismatch", at, f"branches from {source!r} name different "
                    "joins", "Give every branch of a fan-out the same join.")
        return
    join = joins.pop()
    ctrl = control_graph(spec)
    ends = terminals(spec)
    if join is None:
        if any(e.target not in ends for _, e in branches):
            yield Issue("parallel.no_join", at, f"fan-out from {source!r} has no join and not "
                        "every branch is terminal", "Set `join` on the parallel edges.")
    elif join not in ctrl:
        yield Issue("parallel.join_unknown", at, f"join {join!r} is not an agent",
                    "Name an existing agent as the join.")
    else:
        for i, e in branches:
            if e.target in ctrl and not nx.has_path(ctrl, e.target, join):
                yield Issue("parallel.no_join", f"edges[{i}]", f"branch {e.target!r} never "
                            f"reaches the join {join!r}", "Add a sequence edge to the join.")


def check_depth_and_steps(spec: FrameworkSpec) -> Iterator[Issue]:
    """Delegation depth within limits; worst-case steps within limits.max_steps."""
    dg = delegate_graph(spec)
    if _delegate_cycles(dg):
        return
    depth = nx.dag_longest_path_length(dg) if dg.number_of_edges() else 0
    if depth > spec.limits.max_depth:
        yield Issue("depth.exceeded", "limits.max_depth", f"delegation is {depth} levels deep, "
                    f"over the limit of {spec.limits.max_depth}",
                    "Flatten the hierarchy or raise limits.max_depth.")
    if spec.entry in dg:
        bound = step_bound(spec, dg)
        if bound > spec.limits.max_steps:
            yield Issue("steps.bound_exceeded", "limits.max_steps", f"a run can take up to "
                        f"{bound} steps, over limits.max_steps={spec.limits.max_steps}",
                        "Lower max_iterations or loop caps, or raise limits.max_steps.")


def step_bound(spec: FrameworkSpec, dg: nx.DiGraph | None = None) -> int:
    """Worst-case LLM steps of one run, computed on the condensation of the control graph."""
    dg = dg if dg is not None else delegate_graph(spec)
    own = {a.name: a.max_iterations for a in spec.agents}
    weight: dict[str, int] = {}
    for name in reversed(list(nx.topological_sort(dg))):
        weight[name] = own[name] + sum(weight[c] for c in dg.successors(name))
    ctrl = control_graph(spec)
    cond = nx.condensation(ctrl)
    caps: dict[int, int] = defaultdict(lambda: 1)
    for e in spec.edges:
        if e.kind != "delegate" and e.max_iterations:
            c = cond.graph["mapping"][e.source]
            if c == cond.graph["mapping"][e.target]:
                caps[c] = max(caps[c], e.max_iterations)
    for c, data in cond.nodes(data=True):
        data["w"] = sum(weight[m] for m in data["members"]) * caps[c]
    start = cond.graph["mapping"][spec.entry]
    best: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        best[c] = cond.nodes[c]["w"] + max((best[s] for s in cond.successors(c)), default=0)
    return best[start]
