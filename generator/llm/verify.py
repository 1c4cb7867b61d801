"""Verification by running: the oracle solves generated tasks, a fake model smoke-runs.

Failures come back as validator-style issues whose path names the builder stage to repair
(`agents` for a tool or prompt problem, `edges` for a missing route), so the repair loop can
feed them to the model like any other issue.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec

TASKS = 6


@dataclass(frozen=True)
class Verification:
    """What running the framework showed."""

    tasks: int
    solved: int
    smoke_status: str
    issues: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every task solved with reward 1.0 and the smoke run ended with a typed status."""
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        """As `--json` reports it."""
        return {"tasks": self.tasks, "oracle_solved": self.solved, "ok": self.ok,
                "smoke_status": self.smoke_status,
                "issues": [i.to_dict() for i in self.issues]}


def verify(spec: FrameworkSpec, seed: int = 0, n: int = TASKS) -> Verification:
    """Generate up to `n` tasks, replay each gold plan with the oracle, smoke-run a fake."""
    from a4a.runtime.world.synthesis import synthesize

    made = synthesize(spec, n, seed)
    issues: list[Issue] = []
    solved = 0
    for task in made:
        rewards = _oracle(spec, task)
        if rewards["state"] >= 1.0 and rewards["answer"] >= 1.0:
            solved += 1
            continue
        owners = sorted({step["agent"] for step in task.plan})
        issues.append(Issue(
            "verify.oracle_failed", "agents", f"task {task.template}: the gold plan through "
            f"agents {owners} scored {rewards}", "Give each agent the tools its duty needs and "
            "keep the edges that let control reach them."))
    status = _smoke(spec, made[0].query if made else spec.description)
    if status not in _TYPED:
        issues.append(Issue("verify.smoke_failed", "agents", f"a fake-model run ended with "
                            f"status {status!r}", "Check prompts and tool schemas."))
    return Verification(len(made), solved, status, issues)


# A smoke run may stop on a budget (the fake model does not aim for the goal), but an invalid
# framework or an internal error means the framework cannot run.
_TYPED = frozenset({"completed", "max_steps", "budget_exceeded:tokens", "budget_exceeded:time",
                    "budget_exceeded:depth"})


def _oracle(spec: FrameworkSpec, task: Any) -> dict[str, float]:
    from a4a.runtime.engine.oracle import OracleLLM
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.world.rewards import score

    gold = json.loads(task.to_json())
    options = RunOptions(task_id=task.id, seed=task.world_seed, policy="oracle")
    record = asyncio.run(run_framework(spec, task.query, OracleLLM(
        spec, gold["plan"], gold["checker"]["answer"]), options))
    rewards: dict[str, float] = score(gold, json.loads(record.to_json()))
    return rewards


def _smoke(spec: FrameworkSpec, query: str) -> str:
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.llm.fakes import SchemaLLM

    options = RunOptions(task_id="smoke", policy="fake:schema", max_steps=40)
    return str(asyncio.run(run_framework(spec, query, SchemaLLM(), options)).status)
