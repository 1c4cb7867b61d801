"""A batch's state: its journals, options and engine, and what this invocation did to it.

Below the stages (job, judging, finish) that all work on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.generator.requests import Request
from a4a.runtime.batch.journal import Journal
from a4a.runtime.engine.trace import run_id
from a4a.synth import units
from a4a.synth.config import SynthConfig, SynthOptions
from a4a.synth.engines import Engine


@dataclass
class Session:
    """What this invocation did: units run per stage and the wall time each stage took."""

    done: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, n: int = 1) -> None:
        """Count finished units of `stage`."""
        self.done[stage] = self.done.get(stage, 0) + n


@dataclass
class Batch:
    """A batch's state on disk and what this invocation is doing to it."""

    out: Path
    config: SynthConfig
    options: SynthOptions
    engine: Engine
    builds: Journal
    tasks: Journal
    runs: Journal
    judged: Journal | None = None
    catalog: Any = None
    session: Session = field(default_factory=Session)
    _rounds: dict[str, tuple[int, int]] = field(default_factory=dict)

    def build_of(self, request: Request) -> dict[str, Any] | None:
        """The journaled build of a request, if it is done."""
        return self.builds.get(units.build_id(request.text, self.config.seed))

    def tasks_of(self, build: dict[str, Any]) -> dict[str, Any] | None:
        """The journaled task set of a built framework, if it is done."""
        return self.tasks.get(self.tasks_id(build))

    def tasks_id(self, build: dict[str, Any]) -> str:
        """Id of a built framework's task set in this batch."""
        return units.tasks_id(build["framework_id"], self.config.tasks_per_env,
                              self.config.seed)

    def warnings(self) -> list[str]:
        """What opening the journals repaired: lines dropped, whose units ran again."""
        return [f"{j.path}: unreadable line(s) {', '.join(map(str, j.dropped))} dropped; "
                "their units were done again"
                for j in (self.builds, self.tasks, self.runs, self.judged)
                if j is not None and j.dropped]

    def tick(self, stage: str, done: int, total: int) -> None:
        """Report progress, summed over the rounds of a stage."""
        base, last = self._rounds.get(stage, (0, 0))
        if done == 0:
            base, last = base + last, total
            self._rounds[stage] = (base, last)
        if self.options.progress:
            self.options.progress(stage, base + done, base + total)


def run_ids(batch: Batch, env: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(run id, task id) of an environment's runs, in task order."""
    for task_id, world_seed in env["tasks"]:
        yield run_id(env["framework_id"], task_id, world_seed, batch.config.llm), task_id
