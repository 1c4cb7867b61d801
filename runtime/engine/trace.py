"""Trajectories: the ordered events of one run, recorded neutrally and written as JSONL.

Clock and ids are injected so a recorded run compares byte for byte with a golden file.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from a4a.runtime.llm.base import LLMResponse, Message


class Clock(Protocol):
    """Time source."""

    def now(self) -> float:
        """Seconds."""
        ...


class SystemClock:
    """Wall-clock time."""

    def now(self) -> float:
        """Seconds since the epoch."""
        return time.time()

    def iso(self) -> str:
        """ISO-8601 UTC."""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.now()))


@dataclass
class FixedClock:
    """A deterministic clock: every reading advances by `step` seconds."""

    start: float = 1_767_225_600.0  # 2026-01-01T00:00:00Z
    step: float = 0.001
    _t: float = field(default=0.0, init=False)

    def now(self) -> float:
        """The next tick."""
        self._t += self.step
        return round(self.start + self._t, 6)

    def iso(self) -> str:
        """ISO-8601 UTC of the next tick."""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.now()))


def run_id(framework_id: str, task_id: str, seed: int, policy: str, attempt: int = 0) -> str:
    """Deterministic run id from what defines the run (and which repeat it is)."""
    key = f"{framework_id}|{task_id}|{seed}|{policy}{f'|{attempt}' if attempt else ''}".encode()
    return hashlib.sha256(key).hexdigest()[:16]


def message_dict(m: Message) -> dict[str, Any]:
    """A message as JSON (arguments stay objects)."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments,
                              **({"raw": c.raw} if c.raw is not None else {})}
                             for c in m.tool_calls]
    if m.tool_call_id:
        out["tool_call_id"] = m.tool_call_id
    if m.name:
        out["name"] = m.name
    return out


@dataclass
class Recorder:
    """Collects the events of one run, with deterministic span ids and injected time."""

    clock: Clock
    events: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {
        "llm_calls": 0, "tool_calls": 0, "tool_errors": 0, "prompt_tokens": 0,
        "completion_tokens": 0})
    _next: int = 0

    def span(self) -> str:
        """A new span id."""
        self._next += 1
        return f"s{self._next}"

    def add(self, kind: str, **data: Any) -> dict[str, Any]:
        """Append an event."""
        event = {"seq": len(self.events), "type": kind, "t": self.clock.now(), **data}
        self.events.append(event)
        return event

    def llm(self, agent: str, span: str, parent: str | None, sent: tuple[Message, ...],
            resp: LLMResponse, tools: tuple[str, ...] = ()) -> None:
        """Record one model call.

        `tools` are the names of the tools offered; their schemas are in the span's
        agent_start event.
        """
        self.counts["llm_calls"] += 1
        self.counts["prompt_tokens"] += resp.usage.prompt_tokens
        self.counts["completion_tokens"] += resp.usage.completion_tokens
        extra: dict[str, Any] = {}
        if resp.token_ids is not None:
            extra["token_ids"] = list(resp.token_ids)
        if resp.logprobs is not None:
            extra["logprobs"] = list(resp.logprobs)
        if resp.prompt_token_ids is not None:
            extra["prompt_token_ids"] = list(resp.prompt_token_ids)
        # Usage holds flat ints: a shallow copy equals asdict without its per-call deep copy.
        self.add("llm_call", agent=agent, span=span, parent=parent,
                 messages=[message_dict(m) for m in sent],
                 response=message_dict(resp.message), finish_reason=resp.finish_reason,
                 usage=dict(vars(resp.usage)), tools=list(tools), model=resp.model, **extra)


@dataclass(frozen=True)
class RunRecord:
    """One run, as written to the trajectory JSONL."""

    run_id: str
    framework_id: str
    framework: str
    task_id: str
    task: str
    policy: str
    seed: int
    status: str
    final_answer: str
    counts: dict[str, int]
    events: list[dict[str, Any]]
    world_diff: list[dict[str, Any]]
    started: float
    ended: float
    error: dict[str, Any] | None = None
    rewards: dict[str, float] | None = None
    mcp: dict[str, Any] | None = None  # schema hashes of the MCP tools bound in this run

    def to_json(self) -> str:
        """One JSONL line (sorted keys, so equal runs give equal bytes)."""
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))


def append(path: Path, record: RunRecord) -> None:
    """Append a record, flushed and fsynced so a crash loses at most the record in flight."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(record.to_json() + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read(path: Path) -> list[dict[str, Any]]:
    """Every record of a trajectory file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
