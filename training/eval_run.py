"""Run a model on frameworks' held-out tasks through the runtime and score the runs.

Model specs: `oracle` (each task's gold plan, a reference ceiling), `local` (the embedded
model), a path to a local transformers model directory (for example a merged fine-tune), or
any other spec the runtime resolves (`scripted:<file>`, `fake:schema`, `openai:<model>`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import LLM
from a4a.training.evaluate import as_dict, evaluate_agent

Policy = Callable[[FrameworkSpec, dict[str, Any]], LLM]


def held_out_tasks(framework: Path, n: int, seed: int = 0) -> list[dict[str, Any]]:
    """The first `n` tasks of environment/tasks.jsonl, else `n` synthesized with `seed`.

    Raises:
        UserError: `path.not_framework` for a directory without framework.yaml.
    """
    file = framework / "environment" / "tasks.jsonl"
    if file.is_file():
        rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        return rows[:n]
    from a4a.runtime.world.synthesis import synthesize

    return [asdict(t) for t in synthesize(load_framework(framework), n, seed)]


def load_framework(framework: Path) -> FrameworkSpec:
    """The spec of a framework directory.

    Raises:
        UserError: `path.not_framework` for a directory without framework.yaml.
    """
    if not (framework / "framework.yaml").is_file():
        raise UserError("path.not_framework", f"{framework} has no framework.yaml",
                        "Point at a framework directory built by `a4a build`.")
    from a4a.runtime.loader.files import load_spec

    return load_spec(framework / "framework.yaml")


def policy(model: str) -> Policy:
    """The per-task backend factory for a model spec (see the module docstring)."""
    if model == "oracle":
        from a4a.runtime.engine.oracle import OracleLLM

        return lambda spec, task: OracleLLM(spec, task["plan"], task["checker"]["answer"])
    if model == "local" or Path(model).is_dir():
        from a4a.runtime.llm.local import LocalLLM

        # One loaded model serves every task; a directory is a fine-tuned or merged model.
        shared = LocalLLM(model_dir=None if model == "local" else Path(model))
        return lambda spec, task: shared
    from a4a.runtime.llm.resolve import resolve_llm

    resolve_llm(model)  # an unknown spec fails before any task runs
    return lambda spec, task: resolve_llm(model)  # fresh per task: fakes carry state


def run_tasks(spec: FrameworkSpec, tasks: Sequence[dict[str, Any]], make: Policy,
              label: str, max_steps: int | None = None) -> list[dict[str, Any]]:
    """Run each task once with a fresh backend from `make`; the records as dicts."""
    from a4a.runtime.engine.run import RunOptions, run_framework

    out = []
    for task in tasks:
        options = RunOptions(task_id=task["id"], seed=task["world_seed"], policy=label,
                             max_steps=max_steps)
        record = asyncio.run(run_framework(spec, task["query"], make(spec, task), options))
        out.append(as_dict(record))
    return out


def evaluate_frameworks(model: str, frameworks: Sequence[Path], n: int = 10, seed: int = 0,
                        max_steps: int | None = None, make: Policy | None = None
                        ) -> dict[str, Any]:
    """Metrics per framework and over all of them for `model` on held-out tasks.

    Args:
        model: A model spec (see the module docstring); names the policy in the records.
        frameworks: Framework directories.
        n: Tasks per framework.
        seed: The synthesis seed where a framework has no environment/tasks.jsonl.
        max_steps: Cap each run's model calls below the framework's limit.
        make: A backend factory to use instead of resolving `model` (tests pass fakes).

    Raises:
        UserError: A directory that is not a framework, a framework without tasks, or an
            unknown model spec.
    """
    make = make or policy(model)
    rows, records_all, tasks_all = [], [], []
    for folder in frameworks:
        spec, tasks = load_framework(folder), held_out_tasks(folder, n, seed)
        if not tasks:
            raise UserError("eval.no_tasks", f"no task could be made for {folder}",
                            "Its tools cover no domain pack; check `a4a tasks` on it.")
        records = run_tasks(spec, tasks, make, model, max_steps)
        rows.append({"framework": spec.name, "path": str(folder),
                     **evaluate_agent(records, tasks)})
        records_all += records
        tasks_all += tasks
    return {"model": model, "frameworks": rows, "overall": evaluate_agent(records_all, tasks_all)}
