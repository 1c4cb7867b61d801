"""The batch's optional LLM-judge stage: review the runs the rules kept, journal the verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from a4a.synth.batch import Batch, run_ids

PER_CALL = 8  # runs handed to one judge_records call (each packs parts into requests)


def judge_runs(batch: Batch, envs: Sequence[dict[str, Any]]) -> None:
    """Judge every run the rules kept and no judge has seen yet (the judge is `config.judge`)."""
    from a4a.runtime.batch.judge import judge_records
    from a4a.runtime.llm.resolve import resolve_llm

    journal = batch.judged
    spec = batch.config.judge
    if journal is None or not spec:
        return
    rows = [batch.runs.get(rid) for env in envs for rid, _ in run_ids(batch, env)]
    todo = [r["record"] for r in rows if r and not r["verdict"]["reasons"]
            and r["id"] not in journal]
    llm = resolve_llm(spec, base_url=batch.options.base_url)
    batch.tick("judge", 0, len(todo))
    for start in range(0, len(todo), PER_CALL):
        part = todo[start:start + PER_CALL]
        reports = asyncio.run(judge_records(part, llm))
        for record in part:
            journal.append(reports[record["run_id"]].to_dict())
            batch.session.add("judge")
        batch.tick("judge", start + len(part), len(todo))
