"""Run a framework on a task: bind tools and world, run the flow, return the RunRecord.

Every run ends in exactly one RunStatus; nothing a model or tool does raises out of here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from a4a.runtime.engine.flow import run_flow
from a4a.runtime.engine.mcp_bind import agent_servers, mcp_tools
from a4a.runtime.engine.state import Budget, RunContext, RunStatus, StopRun
from a4a.runtime.engine.trace import Clock, Recorder, RunRecord, SystemClock, run_id
from a4a.runtime.errors import A4AError
from a4a.runtime.graph.issues import Issue, errors
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import LLM
from a4a.runtime.llm.retry import CallLedger, RetryingLLM, RetryPolicy
from a4a.runtime.tools.base import ToolContext
from a4a.runtime.tools.registry import bind_all, world_for
from a4a.runtime.world.engine import diff


@dataclass
class RunOptions:
    """How to run: identity of the run, seams (clock, human) and permissions."""

    task_id: str = "adhoc"
    seed: int = 0
    policy: str = "unknown"
    framework_id: str = ""
    clock: Clock = field(default_factory=SystemClock)
    workspace: Path | None = None
    network: bool = False
    trusted: bool = False
    human: Callable[[str], str] | None = None
    allow_unsafe: bool = False  # run code tools without a sandbox (explicit opt-in only)
    structured_tools: bool | None = None  # None: ask the backend (`structured_tools` attr)
    max_steps: int | None = None  # a tighter step budget than the framework's limit
    attempt: int = 0  # which repeat of the same run (pass^k); part of the run id
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # backoff waits (tests: no-op)
    sandbox: Any = None  # a Sandbox to use instead of the default (tests pass a fake)
    mcp_pins: dict[str, Any] | None = None  # a4a.lock `mcp:`; a changed schema aborts
    context: dict[str, Any] = field(default_factory=dict)  # template values of the prompts
    allow_private_network: bool = False  # web tools may reach loopback/private hosts (tests)


async def run_framework(spec: FrameworkSpec, task: str, llm: LLM,
                        options: RunOptions | None = None) -> RunRecord:
    """Run `spec` on `task` with `llm`; always returns a record with a typed status."""
    opts = options or RunOptions()
    recorder = Recorder(opts.clock)
    started = opts.clock.now()
    rid = run_id(opts.framework_id or spec.name, opts.task_id, opts.seed, opts.policy,
                 opts.attempt)
    world = world_for(spec, opts.seed)
    before = world.snapshot() if world else {}
    status, answer, error = RunStatus.COMPLETED, "", None
    ctx = ToolContext(rid, spec.entry, opts.workspace, _global_storage(spec), opts.network,
                      {"world": world, "clock": opts.clock, "human": opts.human,
                       "sandbox": opts.sandbox, "allow_unsafe": opts.allow_unsafe,
                       "web_allow_private": opts.allow_private_network})
    pins: dict[str, Any] = {}
    if opts.structured_tools is None:
        opts = replace(opts, structured_tools=bool(getattr(llm, "structured_tools", True)))
    ledger = CallLedger()
    model = RetryingLLM(llm, opts.retry, ledger, sleep=opts.sleep)
    try:
        rt = _context(spec, task, model, opts, recorder, ctx)
        rt.budget.start()
        async with mcp_tools(spec, ctx, trusted=opts.trusted, pinned=opts.mcp_pins,
                             skipped=lambda event: recorder.add("mcp_skipped", **event)) as (
                remote, pins):
            rt.tools.update(remote)
            rt.mcp_servers = agent_servers(spec) if remote else {}
            answer = await run_flow(rt, spec.entry, task)
        if rt.exhausted:
            status = RunStatus.MAX_STEPS
            error = {"message": "the last agent used all its steps without answering"}
    except StopRun as stop:
        status = stop.status
        error = {"message": stop.message, **stop.data}
    except A4AError as err:
        status = RunStatus.INVALID if err.code.startswith(("spec", "binding")) else (
            RunStatus.TOOL_ABORT)
        error = err.to_dict()
    except Exception as err:  # a bug must still end the run in a typed status
        status = RunStatus.INTERNAL
        error = {"message": f"{type(err).__name__}: {err}"}
    finally:
        ctx.cleanup()
    recorder.counts.update(llm_attempts=ledger.attempts, llm_retries=ledger.retries)
    recorder.add("run_end", status=str(status), answer=answer)
    return RunRecord(
        run_id=rid, framework_id=opts.framework_id, framework=spec.name, task_id=opts.task_id,
        task=task, policy=opts.policy, seed=opts.seed, status=str(status), final_answer=answer,
        counts=dict(recorder.counts), events=recorder.events,
        world_diff=diff(before, world.snapshot()) if world else [], started=started,
        ended=opts.clock.now(), error=error, mcp=pins or None,
    )


def _context(spec: FrameworkSpec, task: str, llm: LLM, opts: RunOptions, recorder: Recorder,
             ctx: ToolContext) -> RunContext:
    problems = _problems(spec)
    if problems:
        raise StopRun(RunStatus.INVALID, f"the framework is invalid: {problems[0]}",
                      issues=[p.to_dict() for p in problems])
    lim = spec.limits
    steps = min(lim.max_steps, opts.max_steps or lim.max_steps)
    budget = Budget(steps, lim.max_tokens, lim.timeout_s, lim.max_depth, opts.clock)
    return RunContext(spec, llm, bind_all(spec, trusted=opts.trusted), recorder, budget, ctx,
                      task, structured_tools=opts.structured_tools is not False,
                      prompt_context=dict(opts.context))


def _global_storage(spec: FrameworkSpec) -> dict[str, Any]:
    """The run's shared storage, seeded from the agents' NexAU `global_storage` (entry first)."""
    storage: dict[str, Any] = {}
    for agent in reversed(spec.agents):
        if agent.nexau is not None:
            storage.update(agent.nexau.global_storage)
    return storage


_CHECKED: dict[int, tuple[FrameworkSpec, list[Issue]]] = {}


def _problems(spec: FrameworkSpec) -> list[Issue]:
    """Validation errors, remembered per spec object (batches run one spec many times)."""
    hit = _CHECKED.get(id(spec))
    if hit is None or hit[0] is not spec:
        if len(_CHECKED) > 256:
            _CHECKED.clear()
        hit = (spec, errors(validate(spec)))
        _CHECKED[id(spec)] = hit
    return hit[1]
