"""Run state: typed statuses, budgets and the context every agent of a run shares."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from a4a.runtime.engine.trace import Clock, Recorder
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import LLM, Message
from a4a.runtime.tools.base import Tool, ToolContext


class RunStatus(StrEnum):
    """How a run ended: exactly one of these."""

    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    BUDGET_TOKENS = "budget_exceeded:tokens"
    BUDGET_TIME = "budget_exceeded:time"
    BUDGET_DEPTH = "budget_exceeded:depth"
    LLM_ERROR = "error:llm"
    TOOL_ABORT = "error:aborted"
    INVALID = "error:invalid_framework"
    INTERNAL = "error:internal"


class StopRun(Exception):
    """Ends the whole run with a status (raised by budgets and fatal failures)."""

    def __init__(self, status: RunStatus, message: str, **data: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.data = data


@dataclass
class Budget:
    """Run-wide budgets: LLM steps, tokens, wall clock (via the injected clock), depth."""

    max_steps: int
    max_tokens: int
    timeout_s: float
    max_depth: int
    clock: Clock
    steps: int = 0
    tokens: int = 0
    started: float = 0.0

    def start(self) -> None:
        """Mark the run's start time."""
        self.started = self.clock.now()

    def step(self) -> None:
        """Count one LLM step; raise StopRun when a budget is spent."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise StopRun(RunStatus.MAX_STEPS, f"the run used its {self.max_steps} steps")
        if self.clock.now() - self.started > self.timeout_s:
            raise StopRun(RunStatus.BUDGET_TIME, f"the run passed {self.timeout_s} s")

    def spend(self, tokens: int) -> None:
        """Count tokens; raise StopRun past the token budget."""
        self.tokens += tokens
        if self.tokens > self.max_tokens:
            raise StopRun(RunStatus.BUDGET_TOKENS, f"the run used over {self.max_tokens} tokens")

    def enter(self, depth: int) -> None:
        """Check the delegation depth."""
        if depth > self.max_depth:
            raise StopRun(RunStatus.BUDGET_DEPTH, f"delegation deeper than {self.max_depth}")


@dataclass
class RunContext:
    """What every agent of one run shares: model, tools, recorder, budgets, storage."""

    spec: FrameworkSpec
    llm: LLM
    tools: dict[str, Tool]
    recorder: Recorder
    budget: Budget
    tool_ctx: ToolContext
    task: str
    loop_counts: dict[int, int] = field(default_factory=dict)
    exhausted: bool = False  # the agent whose output ended the run hit its step cap
    mcp_servers: dict[str, set[str]] = field(default_factory=dict)  # agent -> its servers
    structured_tools: bool = True  # False: the backend cannot take tools (use a text mode)
    prompt_context: dict[str, Any] = field(default_factory=dict)  # the run's template values
    finished: dict[str, tuple[str, list[Message]]] = field(default_factory=dict)  # resumable
    locks: dict[str, Any] = field(default_factory=dict)  # tools that run one call at a time
    # One tool implementation at a time per run, in the order the calls reach it: parallel
    # branches whose tools really wait (the sandbox, MCP servers) still record their events,
    # mutate the world and see the shared tool context in one order, whatever finishes first.
    tool_turn: asyncio.Lock = field(default_factory=asyncio.Lock)
