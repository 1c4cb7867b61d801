"""Verification by running: a fake model smoke-runs the framework, the oracle solves its tasks.

The smoke runs use the runtime's schema-filling fake (`SchemaLLM(explore=True)`): every
agent calls each of its tools with arguments valid for the tool's declared schema, routes
and handoffs lead to agents not yet entered, run after run, and loops go around to their
cap. They must end in a typed
status, enter every agent, and get a typed result from every tool, one the implementation
accepted. The oracle then replays each generated task's gold plan. Failures come back as
validator-style issues whose code and path say what to repair (see `attribution`).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec

TASKS = 6

# A smoke run may stop on a budget (the fake model does not aim for the goal), but an invalid
# framework or an internal error means the framework cannot run.
_TYPED = frozenset({"completed", "max_steps", "budget_exceeded:tokens", "budget_exceeded:time",
                    "budget_exceeded:depth"})
# Tool results that say the tool itself cannot run, whatever the arguments.
_BROKEN = frozenset({"tool_unavailable", "world_unavailable", "tool_failed", "internal"})


@dataclass(frozen=True)
class Verification:
    """What running the framework showed."""

    tasks: int
    solved: int
    smoke_status: str
    issues: list[Issue] = field(default_factory=list)
    entered: tuple[str, ...] = ()  # agents the smoke runs entered, in order
    tools_called: int = 0  # declared (agent, tool) pairs the smoke runs called
    smoke_runs: int = 0

    @property
    def ok(self) -> bool:
        """Every agent entered, every tool callable, every task solved, typed statuses."""
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        """As `--json` reports it."""
        return {"tasks": self.tasks, "oracle_solved": self.solved, "ok": self.ok,
                "smoke_status": self.smoke_status, "smoke_runs": self.smoke_runs,
                "agents_entered": list(self.entered), "tools_called": self.tools_called,
                "issues": [i.to_dict() for i in self.issues]}


@dataclass
class _Smoke:
    statuses: list[str] = field(default_factory=list)
    entered: dict[str, None] = field(default_factory=dict)  # an ordered set
    calls: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)


def verify(spec: FrameworkSpec, seed: int = 0, n: int = TASKS) -> Verification:
    """Smoke-run `spec` with the fake, then replay up to `n` generated tasks with the oracle."""
    from a4a.runtime.world.derived import is_derived
    from a4a.runtime.world.synthesis import candidates, synthesize

    made = synthesize(spec, n, seed)
    smoke = _smoke(spec, made[0].query if made else spec.description)
    issues = smoke.issues + _unreached(spec, smoke) + _uncallable(spec, smoke)
    # derived tasks (lookups, arithmetic) fit any flow: they say nothing of the pattern
    if not [t for t in made if not is_derived(t.template)] and candidates(spec):
        issues.append(Issue("verify.no_tasks", "patterns", "no task of the environment fits "
                            "the flow: each needs its agents in an order the topology cannot "
                            "carry", "Choose a pattern whose flow lets each task's calls "
                            "happen in order (an orchestrator delegating to workers, say)."))
    solved = 0
    for task in made:
        issue = _oracle(spec, task, smoke)
        solved += issue is None
        issues += [issue] if issue else []
    declared = sum((a.name, t) in smoke.calls for a in spec.agents for t in a.tool_names())
    return Verification(len(made), solved, smoke.statuses[0] if smoke.statuses else "",
                        issues, tuple(smoke.entered), declared, len(smoke.statuses))


def _smoke(spec: FrameworkSpec, query: str) -> _Smoke:
    """Run the exploring fake until every agent is entered or a run enters none anew."""
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.llm.fakes import SchemaLLM

    model, out = SchemaLLM(explore=True, withhold=frozenset({"exit_loop"})), _Smoke()
    for attempt in range(len(spec.agents)):
        options = RunOptions(task_id="smoke", policy="fake:schema", attempt=attempt)
        record = asyncio.run(run_framework(spec, query, model, options))
        out.statuses.append(record.status)
        before = len(out.entered)
        for e in record.events:
            if e["type"] == "agent_start":
                out.entered.setdefault(e["agent"])
            elif e["type"] == "tool_call":
                out.calls.setdefault((e["agent"], e["name"]), e)
        if record.status not in _TYPED:
            last = next((e["agent"] for e in reversed(record.events)
                         if e["type"] == "agent_start"), None)
            out.issues.append(Issue("verify.smoke_failed", _at(spec, last), f"a fake-model "
                                    f"run ended with status {record.status!r}: "
                                    f"{(record.error or {}).get('message', '')}"[:400],
                                    "Check the agent's prompt and tool schemas."))
            break
        if len(out.entered) == len(spec.agents) or len(out.entered) == before:
            break
    return out


def _unreached(spec: FrameworkSpec, smoke: _Smoke) -> list[Issue]:
    if smoke.issues:
        return []  # a run that broke says nothing about reachability
    return [Issue("verify.agent_unreached", f"agents[{i}]", f"no run entered agent {a.name!r}:"
                  f" control never reaches it from the entry {spec.entry!r}", "Wire it with an"
                  " edge from an agent the flow runs (a delegated agent's own control edges "
                  "are never followed): a delegate edge from its orchestrator, say.")
            for i, a in enumerate(spec.agents) if a.name not in smoke.entered]


def _uncallable(spec: FrameworkSpec, smoke: _Smoke) -> list[Issue]:
    """One issue per tool whose schema-valid call the implementation refused or failed."""
    out, seen = [], set()
    for i, agent in enumerate(spec.agents):
        for j, name in enumerate(agent.tool_names()):
            event = smoke.calls.get((agent.name, name))
            problem = _problem(spec, name, event) if event and name not in seen else None
            if problem and event:
                seen.add(name)
                out.append(Issue("verify.tool_uncallable", f"agents[{i}].tools[{j}]",
                                 f"tool {name!r} of agent {agent.name!r}: a call valid for "
                                 f"its declared schema, {json.dumps(event['arguments'])}, "
                                 f"{problem}"[:400], "Declare the tool with the input_schema "
                                 "of its implementation (the world operation or builtin)."))
    return out


def _problem(spec: FrameworkSpec, name: str, event: dict[str, Any]) -> str | None:
    """Why a smoke call shows the tool cannot run (None when it can)."""
    from a4a.runtime.tools.base import argument_problem

    tool = next(t for t in spec.tools if t.name == name)
    args = event["arguments"]
    if argument_problem(tool.input_schema, args) is not None:
        return None  # the fake could not fill this schema: nothing shown
    error = (event["result"] or {}).get("error") if isinstance(event["result"], dict) else None
    if error and error.get("code") in _BROKEN:
        return f"failed with {error['code']}: {error.get('message', '')}"
    own = _implementation_schema(tool.implementation)
    refusal = argument_problem(own, args) if own is not None else None
    return f"is refused by the implementation: {refusal}" if refusal else None


def _implementation_schema(implementation: str) -> dict[str, Any] | None:
    """The schema the implementation itself needs (world operation, builtin), if known."""
    from a4a.runtime import knowledge
    from a4a.runtime.ir.domain import input_schema
    from a4a.runtime.tools.builtins import BUILTINS

    kind, _, ref = implementation.partition(":")
    if kind == "world":
        pack_id, _, op_name = ref.partition(".")
        pack = knowledge.domain_packs().get(pack_id)
        op = pack.operation(op_name) if pack else None
        return input_schema(op) if op else None
    builtin = BUILTINS.get(ref) if kind == "builtin" else None
    if builtin is None:
        return None
    return builtin.requires if builtin.requires is not None else builtin.schema.parameters


def _oracle(spec: FrameworkSpec, task: Any, smoke: _Smoke) -> Issue | None:
    """None when the oracle solves `task`; else the issue its run points at."""
    from a4a.runtime.engine.oracle import OracleLLM
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.world.rewards import score

    gold = json.loads(task.to_json())
    options = RunOptions(task_id=task.id, seed=task.world_seed, policy="oracle")
    record = asyncio.run(run_framework(spec, task.query, OracleLLM(
        spec, gold["plan"], gold["checker"]["answer"]), options))
    rewards = score(gold, json.loads(record.to_json()))
    if rewards["state"] >= 1.0 and rewards["answer"] >= 1.0:
        return None
    return _gold_issue(spec, task, record.events, smoke, rewards)


def _gold_issue(spec: FrameworkSpec, task: Any, events: list[dict[str, Any]], smoke: _Smoke,
                rewards: dict[str, float]) -> Issue:
    """The failed task's cause: an owner no run reaches, a gold call failing, or the shape."""
    owners = list(dict.fromkeys(step["agent"] for step in task.plan))
    lost = next((o for o in owners if o not in smoke.entered), None)
    if lost is not None:
        return Issue("verify.gold_unreachable", _at(spec, lost), f"task {task.template}: its "
                     f"gold plan needs agent {lost!r}, which no run reaches", "Add an edge "
                     "that lets control reach it from the agents the flow runs.")
    failed = {(e["agent"], e["name"]) for e in events if e["type"] == "tool_call"
              and not e["ok"]}
    step = next((s for s in task.plan if (s["agent"], s["tool"]) in failed
                 and not s.get("expect_error")), None)
    if step is not None:
        return Issue("verify.gold_call_failed", _at(spec, step["agent"], step["tool"]),
                     f"task {task.template}: the gold call {step['tool']} of agent "
                     f"{step['agent']!r} failed", "Give the agent the tool its duty needs, "
                     "with the operation's own schema.")
    return Issue("verify.gold_shape", "patterns", f"task {task.template}: the gold plan "
                 f"through agents {owners} scored {rewards} though each was reached and its "
                 "calls succeeded", "Choose a pattern whose flow carries the task's calls in "
                 "order and brings the answer back.")


def _at(spec: FrameworkSpec, agent: str | None, tool: str | None = None) -> str:
    """The path of an agent (and one of its tools) in `spec`."""
    i = next((k for k, a in enumerate(spec.agents) if a.name == agent), None)
    if i is None:
        return "agents"
    names = spec.agents[i].tool_names()
    return f"agents[{i}].tools[{names.index(tool)}]" if tool in names else f"agents[{i}]"
