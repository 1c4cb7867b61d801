"""A fault-injecting model over thousands of runs: no crash, every run in a typed status."""

from __future__ import annotations

import asyncio
from collections import Counter

from a4a.generator.pipeline import compile_request
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.state import RunStatus
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.llm.faults import BEHAVIOURS, FaultLLM

SPECS = [compile_request(r).spec for r in (
    "a single agent that answers helpdesk tickets",
    "a team that triages GitHub issues",
    "route each support ticket to the right specialist",
    "writers draft a blog post until the editor approves it",
    "agents work in parallel on flights and hotels then combine the results",
)]
TYPED = {s.value for s in RunStatus}
RUNS = 10_000


async def _no_wait(seconds: float) -> None:
    """Backoff without waiting: the test counts attempts, not time."""


async def _many(n: int) -> tuple[Counter[str], Counter[str], int, int]:
    statuses: Counter[str] = Counter()
    drawn: Counter[str] = Counter()
    requests = ledger = 0
    for i in range(n):
        llm = FaultLLM(seed=i)
        record = await run_framework(SPECS[i % len(SPECS)], "do the task", llm,
                                     RunOptions(task_id=str(i), clock=FixedClock(),
                                                sleep=_no_wait))
        statuses[record.status] += 1
        drawn.update(llm.drawn)
        requests += llm.requests
        ledger += record.counts["llm_attempts"]
    return statuses, drawn, requests, ledger


def test_ten_thousand_faulty_runs_end_in_typed_statuses() -> None:
    statuses, drawn, requests, ledger = asyncio.run(_many(RUNS))
    assert sum(statuses.values()) == RUNS
    assert set(statuses) <= TYPED, statuses
    assert statuses[RunStatus.INTERNAL.value] == 0
    assert set(drawn) == set(BEHAVIOURS)
    assert requests == ledger, "the model saw exactly the attempts the runtime's ledger counts"
