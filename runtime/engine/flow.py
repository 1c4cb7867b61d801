"""Orchestration: control moves along typed edges after each agent's turn.

sequence feeds the output on; route sends the task to the router's pick (the default when it
picks none; FINISH ends the run for routers on a cycle); handoff moves the conversation;
parallel runs every branch up to its join and gives the join all outputs; a capped dynamic
map runs one branch per item; loop edges are taken until the source calls exit_loop or the
cap is reached. Delegation happens inside the agent loop.
"""

from __future__ import annotations

import asyncio

from a4a.runtime.engine.agent import AgentResult, run_agent
from a4a.runtime.engine.control import FINISH, outgoing
from a4a.runtime.engine.state import RunContext, RunStatus, StopRun
from a4a.runtime.ir.spec import EdgeSpec

MAX_HOPS = 10_000  # a safety net under the step budget; caps and budgets end runs first


def _with(task: str, label: str, text: str) -> str:
    return f"{task}\n\n{label}:\n{text}" if text else task


async def run_flow(rt: RunContext, start: str, task: str, stop_at: str | None = None) -> str:
    """Run from `start` until control ends (or reaches `stop_at`); return the last output."""
    current, text_in, last = start, task, ""
    for _ in range(MAX_HOPS):
        agent = rt.spec.agent(current)
        if agent is None:
            raise StopRun(RunStatus.INVALID, f"no agent {current!r}")
        result = await run_agent(rt, agent, text_in)
        last = result.text
        step = await _next(rt, current, result)
        if step is None:
            rt.exhausted = result.exhausted
            return last
        current, text_in = step
        if current == stop_at:
            return last
        rt.recorder.add("transition", source=agent.name, target=current)
    raise StopRun(RunStatus.MAX_STEPS, "control moved too many times")


async def _next(rt: RunContext, name: str, result: AgentResult) -> tuple[str, str] | None:
    edges = outgoing(rt.spec, name)
    d = result.decision
    if d and d.tool == "route_to":
        target = str(d.args.get("target"))
        return None if target == FINISH else (target, _with(rt.task, f"{name} says",
                                                            str(d.args.get("reason", ""))))
    if d and d.tool == "handoff_to":
        return str(d.args["target"]), _with(rt.task, f"Handed over by {name}",
                                            str(d.args.get("message", result.text)))
    loops = [(i, e) for i, e in edges if e.kind == "loop"]
    if loops and not (d and d.tool == "exit_loop"):
        i, edge = loops[0]
        count = rt.loop_counts.get(i, 0)
        if count < (edge.max_iterations or 1):
            rt.loop_counts[i] = count + 1
            return edge.target, _with(rt.task, f"Feedback from {name} (round {count + 1})",
                                      result.text)
    return await _forward(rt, name, result, [e for _, e in edges if e.kind != "loop"])


async def _forward(rt: RunContext, name: str, result: AgentResult, edges: list[EdgeSpec]
                   ) -> tuple[str, str] | None:
    if not edges:
        return None
    kind = edges[0].kind
    if kind == "route":
        default = next((e for e in edges if e.default), edges[0])
        return default.target, rt.task
    if kind == "parallel":
        return await _fan_out(rt, name, result, edges)
    if kind == "handoff":
        return None  # handing off is the agent's choice; answering ends the run
    return edges[0].target, _with(rt.task, f"Input from {name}", result.text)


async def _fan_out(rt: RunContext, name: str, result: AgentResult, edges: list[EdgeSpec]
                   ) -> tuple[str, str] | None:
    join = edges[0].join
    cap = edges[0].max_iterations
    if cap and len(edges) == 1:  # a dynamic map over the items the source listed
        d = result.decision
        items = [str(x) for x in (d.args.get("items") if d and d.tool == "map_items" else None)
                 or [result.text]][:cap]
        starts = [(edges[0].target, _with(rt.task, "Item", item)) for item in items]
    else:
        text = _with(rt.task, f"Input from {name}", result.text)
        starts = [(e.target, text) for e in edges]
    outputs = await asyncio.gather(*(run_flow(rt, s, t, stop_at=join) for s, t in starts))
    if join is None:
        return None
    merged = "\n\n".join(f"[{s}] {o}" for (s, _), o in zip(starts, outputs, strict=True))
    return join, _with(rt.task, "Results of the parallel branches", merged)
