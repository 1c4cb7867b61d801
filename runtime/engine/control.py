"""Control tools the runtime gives agents for their outgoing edges.

route_to (routers), handoff_to (handoffs), exit_loop (sources of loop edges, which loop by
default until the exit condition holds or the cap is reached) and map_items (dynamic
fan-outs). Calling one ends the agent's turn; its arguments decide where control goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from a4a.runtime.ir.spec import EdgeSpec, FrameworkSpec
from a4a.runtime.llm.base import ToolSchema

FINISH = "FINISH"
CONTROL_TOOLS = frozenset({"route_to", "handoff_to", "exit_loop", "map_items"})


@dataclass(frozen=True)
class Decision:
    """A control tool call: which tool and its arguments."""

    tool: str
    args: dict[str, Any]


def outgoing(spec: FrameworkSpec, agent: str) -> list[tuple[int, EdgeSpec]]:
    """Control edges (not delegate) leaving an agent, with their indexes."""
    return [(i, e) for i, e in enumerate(spec.edges) if e.source == agent and e.kind != "delegate"]


def in_cycle(spec: FrameworkSpec, agent: str) -> bool:
    """Whether the agent sits on a control cycle (routers there may finish the run)."""
    g = nx.DiGraph()
    g.add_edges_from((e.source, e.target) for e in spec.edges if e.kind != "delegate")
    return agent in g and any(agent in c and (len(c) > 1 or g.has_edge(agent, agent))
                              for c in nx.strongly_connected_components(g))


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


def control_tools(spec: FrameworkSpec, agent: str) -> list[ToolSchema]:
    """The control tools of an agent, derived from its outgoing edges."""
    edges = [e for _, e in outgoing(spec, agent)]
    out: list[ToolSchema] = []
    routes = [e.target for e in edges if e.kind == "route"]
    if routes:
        targets = routes + ([FINISH] if in_cycle(spec, agent) else [])
        text = "; ".join(f"{e.target}: {e.condition or 'default'}" for e in edges
                         if e.kind == "route")
        out.append(ToolSchema("route_to", f"Send the work to one agent ({text}).",
                              _obj({"target": {"type": "string", "enum": targets},
                                    "reason": {"type": "string"}}, ["target"])))
    handoffs = [e.target for e in edges if e.kind == "handoff"]
    if handoffs:
        out.append(ToolSchema("handoff_to", "Hand the conversation to another agent.",
                              _obj({"target": {"type": "string", "enum": handoffs},
                                    "message": {"type": "string"}}, ["target"])))
    loops = [e for e in edges if e.kind == "loop"]
    if loops:
        cond = "; ".join(e.condition or "done" for e in loops)
        out.append(ToolSchema("exit_loop", f"Call when this holds: {cond}. Otherwise the work "
                              "goes around the loop again.",
                              _obj({"reason": {"type": "string"}}, [])))
    if any(e.kind == "parallel" and e.max_iterations for e in edges):
        out.append(ToolSchema("map_items", "List the items to process one by one in parallel.",
                              _obj({"items": {"type": "array", "items": {"type": "string"}}},
                                   ["items"])))
    return out
