"""One batch, stage by stage: requests, builds, tasks, runs (scored and filtered), outputs.

Builds are validated and registered in the catalog as they land. Every unit of work has a
deterministic id and lands in an append-only journal under `work/` once it is finished; a
resumed batch skips what its journals hold, so a killed job loses at most the units in
flight and writes nothing twice. The final outputs are written from the journals in a
canonical order (never completion order), each file replaced atomically, so they are the
same bytes however often the batch was interrupted.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from a4a.generator.requests import Request, load_manifest, synthesize_requests
from a4a.runtime.batch.journal import Journal
from a4a.runtime.batch.lock import hold
from a4a.runtime.errors import LLMError
from a4a.runtime.loader import fsaccess
from a4a.synth import units
from a4a.synth.batch import Batch, run_ids
from a4a.synth.config import SynthConfig, SynthOptions, open_job
from a4a.synth.engines import make_engine

CPU_POLICIES = ("oracle", "fake:", "scripted:")
MAX_DRAWS = 5  # at most n * MAX_DRAWS requests are drawn to find n usable environments


def synthesize(out: str | Path, config: SynthConfig | None = None, *, resume: bool = False,
               options: SynthOptions | None = None) -> dict[str, Any]:
    """Run (or resume) a batch into `out`; returns its report (also written to report.json).

    The batch's `work/` folder is locked for the whole call (two processes never work on one
    batch); the report's `warnings` list journal lines that were unreadable and dropped.

    Raises:
        UserError: unusable settings or folder (see `open_job`), an unknown engine or model,
            `batch.locked` while another process works on the batch.
        LLMError: `llm.model_missing` for `--llm local` (or a model folder) with no model.
        A4AError: io.* when the disk refuses a write (read-only, full).
    """
    root = Path(out)
    if config is not None:
        check_model(config.llm)  # before the folder is made, so the same command can be re-run
    try:
        cfg = open_job(root, config, resume)
        with hold(root / "work"):
            # Again under the lock: another process may have started this batch meanwhile.
            return _synthesize(root, open_job(root, cfg, resume=True), options or SynthOptions())
    except OSError as err:
        raise fsaccess.os_error(err) from err


def _synthesize(root: Path, cfg: SynthConfig, opts: SynthOptions) -> dict[str, Any]:
    check_model(cfg.llm)  # a resumed batch's stored model
    engine = make_engine(opts.engine, opts.workers, opts.address)
    work = root / "work"
    batch = Batch(root, cfg, opts, engine, Journal(work / "builds.jsonl"),
                  Journal(work / "tasks.jsonl"), Journal(work / "runs.jsonl"),
                  Journal(work / "judged.jsonl") if cfg.judge else None)
    try:
        if opts.catalog:
            from a4a.catalog.store import Catalog

            batch.catalog = Catalog.open()
        requests, envs = _environments(batch)
        _timed(batch, "runs", lambda: _runs(batch, envs))
        if cfg.judge:
            from a4a.synth.judging import judge_runs

            _timed(batch, "judge", lambda: judge_runs(batch, envs))
    finally:
        engine.close()
        if batch.catalog is not None:
            batch.catalog.close()
    from a4a.synth.finish import finish

    return {**finish(batch, requests, envs), "warnings": batch.warnings()}


def check_model(llm: str) -> None:
    """Fail before any work when the runs need a local model that is not there.

    Raises:
        LLMError: `llm.model_missing`, with how to get the embedded model.
    """
    if llm != "local" and not Path(llm).is_dir():
        return
    from a4a.runtime.llm import models

    folder = models.model_dir() if llm == "local" else Path(llm)
    if (folder / "config.json").is_file():
        return
    hint = ("Run `a4a models pull` to fetch the embedded model (SmolLM2-135M-Instruct), or "
            "pick another --llm (oracle, openai:<model>).") if llm == "local" else (
            "Point --llm at a folder `a4a train` or `a4a models pull` wrote.")
    raise LLMError("llm.model_missing", f"--llm {llm}: no model at {folder}", hint,
                   path=str(folder))


def _timed(batch: Batch, stage: str, fn: Any) -> Any:
    start = time.perf_counter()
    try:
        return fn()
    finally:
        batch.session.seconds[stage] = batch.session.seconds.get(stage, 0.0) + (
            time.perf_counter() - start)


def _environments(batch: Batch) -> tuple[list[Request], list[dict[str, Any]]]:
    """Draw requests in rounds until `n` usable environments exist (or the draws run out).

    A usable environment is a valid framework with `tasks_per_env` tasks. Each round draws
    as many more requests as the usable rate so far says are needed; the chosen
    environments are the first `n` usable ones in request order, so the result does not
    depend on how the rounds fell.
    """
    cfg = batch.config
    if cfg.manifest:
        listed = load_manifest(Path(cfg.manifest), cfg.seed)
        _build_round(batch, listed, 0)
        return listed, _usable(batch, listed)
    requests: list[Request] = []
    usable: list[dict[str, Any]] = []
    cap = cfg.n * MAX_DRAWS
    while len(usable) < cfg.n and len(requests) < cap:
        rate = len(usable) / len(requests) if requests else 1.0
        want = math.ceil((cfg.n - len(usable)) / max(rate, 0.2))
        start = len(requests)
        requests = synthesize_requests(min(cap, start + want), cfg.seed)
        if len(requests) == start:
            break
        _build_round(batch, requests[start:], start)
        usable = _usable(batch, requests)
    return requests, usable[:cfg.n]


def _build_round(batch: Batch, requests: Sequence[Request], start: int) -> None:
    cfg, root = batch.config, str(batch.out)
    llm = (cfg.builder_llm, batch.options.base_url) if cfg.builder_llm else None
    jobs = [({**r.to_dict(), "index": start + i}, cfg.seed, root, llm)
            for i, r in enumerate(requests)
            if batch.build_of(r) is None]
    _timed(batch, "build", lambda: _collect(batch, "build", units.build_unit, jobs,
                                            lambda row: _register_build(batch, row)))
    built = [batch.build_of(r) for r in requests]
    todo = [(b, cfg.tasks_per_env, cfg.seed, root) for b in built if b and b["valid"]
            and batch.tasks_of(b) is None]
    _timed(batch, "tasks", lambda: _collect(batch, "tasks", units.tasks_unit, todo,
                                            batch.tasks.append))


def _collect(batch: Batch, stage: str, fn: Any, jobs: Sequence[tuple[Any, ...]],
             sink: Any, total: int | None = None) -> None:
    """Run `jobs` on the engine; journal each row as it arrives (a job may yield several)."""
    total = len(jobs) if total is None else total
    done = 0
    batch.tick(stage, 0, total)
    for result in batch.engine.map(fn, jobs):
        for row in result if isinstance(result, list) else [result]:
            sink(row)
            batch.session.add(stage)
            done += 1
        batch.tick(stage, done, total)


def _register_build(batch: Batch, row: dict[str, Any]) -> None:
    """Register a built framework in the catalog (unless turned off), then journal it."""
    entry = row.pop("entry", None)
    if entry is not None and batch.catalog is not None:
        batch.catalog.add(entry)
    batch.builds.append(row)


def _usable(batch: Batch, requests: Sequence[Request]) -> list[dict[str, Any]]:
    out = []
    for r in requests:
        b = batch.build_of(r)
        t = batch.tasks_of(b) if b and b["valid"] else None
        if b and t and len(t["tasks"]) >= batch.config.tasks_per_env:
            out.append({**b, "tasks": t["tasks"][:batch.config.tasks_per_env]})
    return out


def _runs(batch: Batch, envs: Sequence[dict[str, Any]]) -> None:
    pending = [(env, [t for rid, t in run_ids(batch, env) if rid not in batch.runs])
               for env in envs]
    pending = [(env, todo) for env, todo in pending if todo]
    cfg, root = batch.config, str(batch.out)
    if cfg.llm.startswith(CPU_POLICIES):
        jobs = [(env["path"], env["framework_id"], todo, root, cfg.llm, cfg.max_steps)
                for env, todo in pending]
        _collect(batch, "runs", units.run_chunk, jobs, batch.runs.append,
                 total=sum(len(todo) for _, todo in pending))
    else:
        asyncio.run(_llm_runs(batch, pending))


async def _llm_runs(batch: Batch, pending: Sequence[tuple[dict[str, Any], list[str]]]
                    ) -> None:
    """LLM-bound runs: one event loop, at most `concurrency` runs in flight."""
    make = _policy(batch.config.llm, batch.options.base_url)
    # One embedded (or local directory) model serves one request at a time: queueing more
    # runs behind it would only spend their wall-clock budgets waiting.
    local = batch.config.llm == "local" or Path(batch.config.llm).is_dir()
    limit = asyncio.Semaphore(1 if local else max(1, batch.options.concurrency))
    total = sum(len(todo) for _, todo in pending)
    done = 0
    batch.tick("runs", 0, total)

    loaded = {e["framework_id"]: units.Environment.load(batch.out / e["path"],
                                                        e["framework_id"])
              for e, _ in pending}

    async def one(env: dict[str, Any], task_id: str) -> None:
        nonlocal done
        async with limit:
            row = await units.run_task(loaded[env["framework_id"]], task_id, batch.config.llm,
                                       batch.config.max_steps, make)
        batch.runs.append(row)
        batch.session.add("runs")
        done += 1
        batch.tick("runs", done, total)

    await asyncio.gather(*(one(env, t) for env, todo in pending for t in todo))


def _policy(model: str, base_url: str | None) -> Any:
    """The per-task backend factory; one shared client for an OpenAI-compatible server."""
    if model.startswith("openai:"):
        from a4a.runtime.llm.resolve import resolve_llm

        shared = resolve_llm(model, base_url=base_url)  # its connection pool serves every run
        return lambda spec, task: shared
    from a4a.training.eval_run import policy

    return policy(model)
