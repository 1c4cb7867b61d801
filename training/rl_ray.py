"""Online RL rollouts as Ray tasks: one task per run, each its own runtime against the server.

The policy is served (an OpenAI-compatible server every node reaches); each Ray task runs one
rollout through `run_framework` and returns its record, so a cluster spreads the runs and the
trainer keeps the model. Ray is imported inside the functions; `ray_session` starts Ray only
when none is initialised (joining the cluster of RAY_ADDRESS, else a local instance with its
files in a temporary folder) and stops only what it started.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training.rollouts import Env, Plan, Server, backend, by_task, rollout


def _run(spec: Any, task: dict[str, Any], g: int, server: Server, plan: Plan
         ) -> dict[str, Any]:
    """One rollout in a Ray worker, with a backend of its own."""
    return asyncio.run(rollout(spec, task, g, backend(server), plan))


def collect_on_ray(envs: Sequence[Env], server: Server, plan: Plan
                   ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """`rollouts.collect` with every run a Ray task; (task, run records) per task."""
    import ray

    remote = ray.remote(_run)
    pairs = [(spec, task) for spec, tasks in envs for task in tasks]
    refs = [remote.remote(spec, task, g, server, plan) for spec, task in pairs
            for g in range(plan.group_size)]
    return by_task(pairs, ray.get(refs), plan.group_size)


@contextmanager
def ray_session() -> Iterator[None]:
    """Ray for the loop: the one initialised, else the RAY_ADDRESS cluster or a local one.

    Raises:
        UserError: `rl.ray_missing` without the ray package.
    """
    try:
        import ray
    except ImportError as err:
        raise UserError("rl.ray_missing", "Ray rollouts need the ray package",
                        "Install the extra: pip install 'a4a[ray]'.") from err
    if ray.is_initialized():
        yield
        return
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    address = os.environ.get("RAY_ADDRESS") or None
    tmp = None if address else tempfile.mkdtemp(prefix="a4a-ray-")
    opts: dict[str, Any] = {"address": address, "include_dashboard": False,
                            "log_to_driver": False}
    if tmp:
        opts["_temp_dir"] = tmp
    ray.init(**opts)
    try:
        yield
    finally:
        ray.shutdown()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
