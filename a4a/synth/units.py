"""The units of work of a batch: build one framework, make its tasks, run a framework's tasks.

Each is a plain function of plain arguments returning JSON-ready rows, so a process pool or a
Ray cluster runs the same code with the same results. Unit ids are deterministic: a build is
named by its request text and seed, a task set by its framework, size and seed, and a run by
`run_id(framework, task, seed, policy)`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import A4AError


def unit_id(kind: str, *parts: object) -> str:
    """Deterministic id of a unit of work from what defines it."""
    return hashlib.sha256("|".join([kind, *map(str, parts)]).encode()).hexdigest()[:16]


def build_id(text: str, seed: int) -> str:
    """Id of the build of a request."""
    return unit_id("build", text, seed)


def tasks_id(framework_id: str, n: int, seed: int) -> str:
    """Id of a framework's task set."""
    return unit_id("tasks", framework_id, n, seed)


def keep(row: dict[str, Any]) -> bool:
    """Whether a run row passed every quality rule (and the judge, when one ran)."""
    judged = row.get("judge") or {}
    return not row["verdict"]["reasons"] and judged.get("keep", True)


def build_unit(request: dict[str, Any], seed: int, root: str,
               llm: tuple[str, str | None] | None = None) -> dict[str, Any]:
    """Compile and validate one request into `root/frameworks/<name>-<id>`; one build row.

    With `llm` (model spec, base URL) the LLM-backed builders build it, and the row carries
    their report (`builder`). A refused or unusable request is a row with an `error`, not
    an exception. The catalog entry of a written framework rides along (`entry`) for the
    caller to register.
    """
    from a4a.generator.pipeline import compile_request
    from a4a.runtime.loader.files import write_files

    row: dict[str, Any] = {"id": build_id(request["text"], seed),
                           "request": request["id"], "index": request["index"]}
    try:
        if llm is None:
            compiled = compile_request(request["text"], seed=seed)
        else:
            from a4a.api import llm_compile

            compiled, row["builder"] = llm_compile(request["text"], seed, llm[0], llm[1])
    except A4AError as err:
        return {**row, "valid": False, "error": err.code}
    fid, spec = compiled.framework_id, compiled.spec
    rel = f"frameworks/{spec.name}-{fid[:8]}"
    target = Path(root) / rel
    write_files(target, compiled.files)
    errors = [i.code for i in compiled.issues if i.severity == "error"]
    entry = _entry(compiled, target)
    return {**row, "framework_id": fid, "name": spec.name, "path": rel, "valid": not errors,
            "errors": errors, "pattern": spec.pattern, "domains": list(compiled.intent.domains),
            "agents": len(spec.agents), "tools": len(spec.tools), "edges": len(spec.edges),
            "nodes": len(entry.nodes), "wl_hash": entry.wl_hash, "entry": entry}


def _entry(compiled: Any, target: Path) -> Any:
    from a4a.catalog.entry import entry_from_spec

    return entry_from_spec(compiled.spec, compiled.framework_id, compiled.issues,
                           source="synth", path=target, created=0.0)


def tasks_unit(build: dict[str, Any], n: int, seed: int, root: str) -> dict[str, Any]:
    """Synthesize up to `n` tasks into the framework's environment/tasks.jsonl; one row."""
    from a4a.api import tasks

    made = tasks(Path(root) / build["path"], n, seed)
    return {"id": tasks_id(build["framework_id"], n, seed),
            "framework_id": build["framework_id"], "path": build["path"],
            "tasks": [[t.id, t.world_seed] for t in made]}


def run_chunk(path: str, framework_id: str, task_ids: list[str], root: str, policy: str,
              max_steps: int | None = None) -> list[dict[str, Any]]:
    """Run tasks of one framework with a CPU-bound policy (oracle, fakes); one row each."""
    from a4a.training.eval_run import policy as make_policy

    env = Environment.load(Path(root) / path, framework_id)
    make = make_policy(policy)
    return asyncio.run(_run_all(env, task_ids, policy, max_steps, make))


async def _run_all(env: Environment, task_ids: list[str], policy: str, max_steps: int | None,
                   make: Callable[..., Any]) -> list[dict[str, Any]]:
    return [await run_task(env, t, policy, max_steps, make) for t in task_ids]


@dataclass(frozen=True)
class Environment:
    """A built framework and its tasks, loaded once for all of its runs."""

    framework_id: str
    spec: Any
    tasks: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, folder: Path, framework_id: str) -> Environment:
        """Read the framework directory and its environment/tasks.jsonl."""
        from a4a.training.eval_run import load_framework

        lines = (folder / "environment" / "tasks.jsonl").read_text("utf-8").splitlines()
        tasks = {t["id"]: t for t in map(json.loads, lines)}
        return cls(framework_id, load_framework(folder), tasks)


async def run_task(env: Environment, task_id: str, policy: str, max_steps: int | None,
                   make: Callable[..., Any]) -> dict[str, Any]:
    """Run, score and judge one task; the row holds the trajectory record and the verdict."""
    from a4a.runtime.batch.quality import judge
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.engine.trace import FixedClock
    from a4a.runtime.world.rewards import score

    task = env.tasks[task_id]
    options = RunOptions(task_id=task["id"], seed=task["world_seed"], policy=policy,
                         framework_id=env.framework_id, clock=FixedClock(),
                         max_steps=max_steps)
    record = await run_framework(env.spec, task["query"], make(env.spec, task), options)
    data = json.loads(record.to_json())
    data["rewards"] = score(task, data)
    verdict = judge(data, task)
    return {"id": data["run_id"], "framework_id": env.framework_id, "task_id": task_id,
            "difficulty": task["difficulty"], "record": data,
            "verdict": {"reasons": list(verdict.reasons), "tags": list(verdict.tags)}}
