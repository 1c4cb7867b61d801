"""Rollouts of online RL: a task's group of runs through a4a's runtime, sampled as a plan says.

Below the loop (`online_rl`) and its Ray variant (`rl_ray`), which both collect runs this way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from a4a.runtime.llm.base import LLM
from a4a.training.policy_llm import Sampling, seed_of

Env = tuple[Any, list[dict[str, Any]]]  # (FrameworkSpec, its tasks)


@dataclass(frozen=True)
class Server:
    """An OpenAI-compatible server that serves the policy and returns token ids and logprobs.

    With `lora_name`, each update's adapter is saved and loaded into the server as
    `{lora_name}-{update}` (vLLM's runtime LoRA endpoints, `/load_lora_adapter` and
    `/unload_lora_adapter` under `admin_url`, default `base_url`; the server runs with
    `--enable-lora` and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and must read the saved folder),
    and the next rollouts sample from it: the server samples the policy being trained.
    """

    base_url: str
    model: str
    extra_body: dict[str, Any] | None = None  # vLLM: {"return_token_ids": true}
    max_concurrency: int = 16
    lora_name: str | None = None
    admin_url: str | None = None


@dataclass(frozen=True)
class Plan:
    """How one update's rollouts are sampled."""

    update: int
    group_size: int
    temperature: float
    max_new_tokens: int
    max_calls: int | None
    seed: int


async def rollout(spec: Any, task: dict[str, Any], g: int, llm: LLM, plan: Plan
                  ) -> dict[str, Any]:
    """Run `g` of a task's group through the runtime, sampled as `plan` says; its record."""
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.engine.trace import FixedClock
    from a4a.training.evaluate import as_dict

    options = RunOptions(task_id=task["id"], seed=task["world_seed"], policy="online_rl",
                         clock=FixedClock(), max_steps=plan.max_calls,
                         attempt=plan.update * plan.group_size + g)
    model = Sampling(llm, plan.temperature, plan.max_new_tokens,
                     seed_of(plan.seed, plan.update, task["id"], g))
    return as_dict(await run_framework(spec, task["query"], model, options))


async def collect(envs: Sequence[Env], llm: LLM, plan: Plan, concurrency: int = 8
                  ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Run each task `group_size` times through the runtime; (task, run records) per task."""
    gate = asyncio.Semaphore(concurrency)

    async def one(spec: Any, task: dict[str, Any], g: int) -> dict[str, Any]:
        async with gate:
            return await rollout(spec, task, g, llm, plan)

    pairs = [(spec, task) for spec, tasks in envs for task in tasks]
    runs = await asyncio.gather(*(one(spec, task, g) for spec, task in pairs
                                  for g in range(plan.group_size)))
    return by_task(pairs, runs, plan.group_size)


def by_task(pairs: Sequence[tuple[Any, dict[str, Any]]], runs: Sequence[dict[str, Any]],
            group_size: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Runs listed task by task (`group_size` each) as (task, its runs)."""
    return [(task, list(runs[i * group_size:(i + 1) * group_size]))
            for i, (_, task) in enumerate(pairs)]


def backend(server: Server) -> LLM:
    """The runtime's OpenAI backend for the server, asking for token ids and logprobs."""
    from a4a.runtime.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(server.model, base_url=server.base_url, api_key="EMPTY",
                         capture_tokens=True, extra_body=server.extra_body,
                         max_concurrency=server.max_concurrency)
