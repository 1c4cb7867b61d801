"""Property test: thousands of random mutations of valid frameworks never crash the
validator; every invalid result is rejected with coded, located issues; mutations that
leave dangling references are always rejected."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a4a.generator.pipeline import compile_request
from a4a.runtime.graph.issues import errors
from a4a.runtime.graph.validate import validate_data
from a4a.runtime.ir.spec import EDGE_KINDS

REQUESTS = [
    "a team that triages GitHub issues",
    "route each support ticket to the right specialist",
    "writers draft a blog post until the editor approves it",
    "three analysts vote on the sentiment of each review",
    "a planner plans first then an executor books the trips",
    "a company with support, sales and finance teams each with a lead",
    "two agents debate the migration with a judge deciding",
    "agents work in parallel on flights and hotels then combine",
]
BASES = [compile_request(r).spec.model_dump(mode="json") for r in REQUESTS]
NAMES = st.sampled_from(["ghost", "lead", "x", "", "a b", "orchestrator", "router"])
VALUES = st.one_of(st.none(), st.integers(-3, 500), st.text(max_size=8), st.booleans(),
                   st.lists(st.integers(), max_size=2))


def _pick(draw: Any, items: list[Any]) -> int:
    return draw(st.integers(0, len(items) - 1))


@st.composite
def mutated(  # noqa: C901 - one branch per mutation kind, flat on purpose
    draw: Any,
) -> tuple[dict[str, Any], str]:
    doc = copy.deepcopy(BASES[draw(st.integers(0, len(BASES) - 1))])
    kind = draw(st.sampled_from(
        ["drop_agent", "rename_agent", "edge_kind", "retarget", "drop_edge", "dup_edge",
         "edge_field", "entry", "add_edge", "drop_tool", "field_type", "limits"]))
    agents, edges = doc["agents"], doc["edges"]
    if kind == "drop_agent" and len(agents) > 1:
        agents.pop(_pick(draw, agents))
    elif kind == "rename_agent":
        agents[_pick(draw, agents)]["name"] = draw(NAMES)
    elif kind == "edge_kind" and edges:
        edges[_pick(draw, edges)]["kind"] = draw(st.sampled_from(EDGE_KINDS))
    elif kind == "retarget" and edges:
        edges[_pick(draw, edges)][draw(st.sampled_from(["source", "target"]))] = draw(
            st.one_of(NAMES, st.sampled_from([a["name"] for a in agents])))
    elif kind == "drop_edge" and edges:
        edges.pop(_pick(draw, edges))
    elif kind == "dup_edge" and edges:
        edges.append(copy.deepcopy(edges[_pick(draw, edges)]))
    elif kind == "edge_field" and edges:
        field = draw(st.sampled_from(["max_iterations", "condition", "default", "join"]))
        edges[_pick(draw, edges)][field] = draw(VALUES)
    elif kind == "entry":
        doc["entry"] = draw(st.one_of(NAMES, st.sampled_from([a["name"] for a in agents])))
    elif kind == "add_edge":
        names = [a["name"] for a in agents]
        edges.append({"source": draw(st.sampled_from(names)), "target":
                      draw(st.sampled_from(names)), "kind": draw(st.sampled_from(EDGE_KINDS))})
    elif kind == "drop_tool" and doc["tools"]:
        doc["tools"].pop(_pick(draw, doc["tools"]))
    elif kind == "field_type":
        target = agents[_pick(draw, agents)]
        target[draw(st.sampled_from(["max_iterations", "tools", "role", "name"]))] = draw(VALUES)
    elif kind == "limits":
        doc["limits"][draw(st.sampled_from(["max_steps", "max_depth"]))] = draw(VALUES)
    return doc, kind


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutations_never_crash_and_rejections_are_located(case: tuple[dict[str, Any], str]
                                                          ) -> None:
    doc, kind = case
    spec, issues = validate_data(doc)
    for issue in issues:
        assert issue.code and issue.message and issue.hint
    bad = errors(issues)
    for issue in bad:
        assert issue.path, issue
    if spec is None:
        assert bad, "schema failure without an error issue"
        return
    names = {a.name for a in spec.agents}
    dangling = (spec.entry not in names
                or any(e.source not in names or e.target not in names for e in spec.edges)
                or any(t not in {x.name for x in spec.tools}
                       for a in spec.agents for t in a.tool_names()))
    if dangling:
        assert bad, f"{kind}: dangling reference accepted"
