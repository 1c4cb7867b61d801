"""Multi-turn online RL through a4a's own runtime: rollouts on environment tasks, checker rewards.

Each update runs every task of the frameworks' environments `group_size` times through the real
runtime (`run_framework`) with the policy being trained as the model: in-process (`PolicyLLM`
around the LoRA-wrapped transformers model) or an OpenAI-compatible server that returns token
ids and logprobs (vLLM with `--return-tokens-as-token-ids`, or the loopback fake server). Each
run is scored by its task's checker (`score(...)["composite"]`, the environment's
agent_composite); advantages are group-relative over the runs of a task. Each model call of a
run becomes a training row (prompt ids, the model's completion ids, the sampler's logprobs);
when a call's prompt extends the previous call's prompt and completion token for token, the
two join one sequence and the tokens between them (tool results, template) are masked out.
The update is `rl.train_step` on the LoRA adapter; `rl.dump` writes one JSON line per row.
torch, transformers and peft are imported inside the functions.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.llm.base import Message
from a4a.training.policy_llm import PolicyLLM, prompt_ids
from a4a.training.rl import Rollout, dump, group_advantages, train_step
from a4a.training.rollouts import Env, Plan, Server, backend, collect

Sync = Callable[[Any, int], None]  # after each update: (trained net, update number)


def run_rows(record: dict[str, Any], tokenizer: Any | None) -> list[Rollout]:
    """The training rows of one run: its model calls, chained where the prompts extend.

    A call without prompt ids (a server that does not return them) has its prompt rendered
    with `tokenizer`'s chat template (tagged `retokenized`).

    Raises:
        UserError: `rl.no_tokens` for a model call without token ids and logprobs (or
            without prompt ids and no tokenizer to render them).
    """
    rows: list[Rollout] = []
    for n, event in enumerate(record.get("events") or []):
        if event.get("type") != "llm_call":
            continue
        prompt, ids, logprobs, source = _call_tokens(record, n, event, tokenizer)
        last = rows[-1] if rows else None
        if last is not None and last.tags["span"] == event.get("span") and \
                prompt[:len(last.prompt_ids) + len(last.completion_ids)] == \
                last.prompt_ids + last.completion_ids:
            gap = prompt[len(last.prompt_ids) + len(last.completion_ids):]
            last.completion_ids += gap + ids
            last.mask += [0] * len(gap) + [1] * len(ids)
            last.old_logprobs += [0.0] * len(gap) + logprobs
            last.tags["calls"].append(n)
            continue
        rows.append(Rollout(prompt, ids, 0.0, logprobs, [1] * len(ids), tags={
            "span": event.get("span"), "agent": event.get("agent"), "calls": [n],
            "prompt": source}))
    return rows


def _call_tokens(record: dict[str, Any], n: int, event: dict[str, Any], tokenizer: Any | None
                 ) -> tuple[list[int], list[int], list[float], str]:
    ids, logprobs = event.get("token_ids") or [], event.get("logprobs") or []
    prompt, source = event.get("prompt_token_ids"), "recorded"
    if not prompt and ids and tokenizer is not None:
        from a4a.runtime.llm.base import ToolCall

        messages = tuple(Message(m["role"], m.get("content") or "", tuple(
            ToolCall(c.get("id", ""), c["name"], c.get("arguments") or {})
            for c in m.get("tool_calls") or ()), m.get("tool_call_id"), m.get("name"))
            for m in event.get("messages") or [])
        prompt, source = prompt_ids(tokenizer, messages, "hermes"), "retokenized"
    if not ids or not prompt or len(logprobs) != len(ids):
        raise UserError("rl.no_tokens", f"run {record.get('run_id')}: event {n} has no token "
                        "ids and logprobs of equal length", "Use a backend that returns them "
                        "(the in-process policy; vLLM with logprobs and token ids).",
                        run=record.get("run_id"), event=n)
    return list(prompt), list(ids), [float(x) for x in logprobs], source


def score_group(task: dict[str, Any], records: Sequence[dict[str, Any]], tokenizer: Any | None,
                weights: dict[str, float] | None = None) -> tuple[list[float], list[Rollout]]:
    """Each run's checker reward; and the runs' rows, with their run's reward and advantage."""
    from a4a.runtime.world.rewards import score

    rewards = [float(score(task, r, weights)["composite"]) for r in records]
    out = []
    for g, (record, reward, adv) in enumerate(zip(records, rewards, group_advantages(rewards),
                                                   strict=True)):
        for row in run_rows(record, tokenizer):
            row.reward, row.advantage = reward, adv
            row.tags.update(task=task["id"], run=record.get("run_id"), rollout=g,
                            status=record.get("status"))
            out.append(row)
    return rewards, out


def environments(frameworks: Sequence[str | Path], tasks: int, seed: int = 0) -> list[Env]:
    """(spec, its first `tasks` tasks) per framework: tasks.jsonl, else synthesized.

    Raises:
        UserError: `path.not_framework`; `rl.no_tasks` for a framework without tasks.
    """
    from a4a.training.eval_run import held_out_tasks, load_framework

    out = []
    for folder in map(Path, frameworks):
        spec, made = load_framework(folder), held_out_tasks(folder, tasks, seed)
        if not made:
            raise UserError("rl.no_tasks", f"no task could be made for {folder}",
                            "Its tools cover no domain pack; check `a4a tasks` on it.")
        out.append((spec, made))
    return out


def train_online(model: Any, frameworks: Sequence[str | Path], *, tokenizer: Any = None,
                 server: Server | None = None, updates: int = 4, group_size: int = 4,
                 tasks: int = 4, max_calls: int | None = 4, max_new_tokens: int = 48,
                 temperature: float = 1.0, learning_rate: float = 1e-4, clip: float = 0.2,
                 seed: int = 0, lora_r: int = 8, lora_alpha: int = 16,
                 lora_dropout: float = 0.0, target_modules: list[str] | None = None,
                 weights: dict[str, float] | None = None, output_dir: str | Path =
                 "runs/online_rl", sync: Sync | None = None, on_ray: bool = False
                 ) -> dict[str, Any]:
    """Online GRPO on the frameworks' tasks (see the module docstring); the run's report.

    Args:
        model: A local model directory, `local` (the embedded SmolLM2) or a model object.
        frameworks: Framework directories with environments (`a4a build`, `a4a tasks`).
        tokenizer: The model's tokenizer (read from the model's directory when None).
        server: Sample from this server instead of in-process (the trainer keeps the model).
        updates: Rollout-and-update rounds.
        group_size: Runs per task per update (the group of the relative advantage).
        tasks: Tasks per framework.
        max_calls: Cap on the model calls of a run (None: the framework's limit).
        max_new_tokens: Cap on the tokens of a model call.
        temperature: Sampling temperature (the trainer's logprobs use the same).
        learning_rate: AdamW's learning rate (no weight decay: no signal, no change).
        clip: PPO's ratio clip.
        seed: Seeds the rollouts, the adapter's initialisation and task synthesis.
        lora_r: LoRA rank.
        lora_alpha: LoRA alpha.
        lora_dropout: LoRA dropout.
        target_modules: LoRA target modules (peft's default for the model when None).
        weights: The checker's composite weights (state, answer, process).
        output_dir: Where `debug.jsonl`, the adapter (`final/`) and the report go.
        sync: Called after each update with the net, e.g. to load the adapter into the server.
        on_ray: Run the server rollouts as Ray tasks (the cluster `ray.init` finds, else a
            local one); the in-process policy cannot leave this process.

    Returns:
        steps, rollouts, rewards (mean checker reward per update), first_reward,
        final_reward, seconds (per update), checkpoint, dump, output_dir.

    Raises:
        UserError: a model that is not local, a directory that is not a framework, a
            framework without tasks, model calls without token ids (`rl.no_tokens`),
            `rl.config` for a temperature that does not sample or fewer than 2 runs a group.
    """
    if on_ray and server is None:
        raise UserError("rl.config", "Ray rollouts need a server: the in-process policy stays "
                        "in this process", "Pass server=Server(base_url, model), or drop on_ray.")
    if temperature <= 0 or group_size < 2:
        raise UserError("rl.config", f"temperature {temperature} and group size {group_size}: "
                        "group-relative advantages need sampled runs, at least two a task",
                        "Use a temperature above 0 and num_generations of 2 or more.")
    import torch

    from a4a.training.loop import resolve_model

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    path = resolve_model(model)
    net, tokenizer = _policy(path, tokenizer, lora_r, lora_alpha, lora_dropout, target_modules)
    envs = environments(frameworks, tasks, seed)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    debug = out / "debug.jsonl"
    debug.unlink(missing_ok=True)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad],
                            lr=float(learning_rate), weight_decay=0.0)
    history: list[dict[str, Any]] = []
    with ExitStack() as stack:
        if on_ray:
            from a4a.training.rl_ray import ray_session

            stack.enter_context(ray_session())
        for update in range(updates):
            start = time.perf_counter()
            plan = Plan(update, group_size, temperature, max_new_tokens, max_calls, seed)
            runs = _rollouts(envs, plan, server, net, tokenizer, on_ray)
            scored = [score_group(task, records, tokenizer, weights) for task, records in runs]
            history.append(_update(net, opt, scored, update, clip, temperature, debug))
            history[-1]["seconds"] = round(time.perf_counter() - start, 3)
            if server is not None and server.lora_name:
                load_adapter(server, net, out / "adapters", update)
            if sync is not None:
                sync(net, update)
    return _report(net, history, out, debug)


def _policy(path: Any, tokenizer: Any, r: int, alpha: int, dropout: float,
            targets: list[str] | None) -> tuple[Any, Any]:
    """The model wrapped in a fresh LoRA adapter, and its tokenizer."""
    import peft
    import transformers

    from a4a.training.loop import quiet_peft

    net = path
    if isinstance(path, str | Path):
        net = transformers.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True)
        tokenizer = tokenizer or transformers.AutoTokenizer.from_pretrained(
            str(path), local_files_only=True)
    if tokenizer is None:
        raise UserError("rl.no_tokenizer", "a model object needs its tokenizer",
                        "Pass tokenizer=..., or pass the model's directory.")
    lora = peft.LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, task_type="CAUSAL_LM",
                           target_modules=targets)
    with quiet_peft():
        return peft.get_peft_model(net, lora), tokenizer


def _rollouts(envs: Sequence[Env], plan: Plan, server: Server | None, net: Any,
              tokenizer: Any, on_ray: bool) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """This update's runs: in-process, or from the server's latest adapter (on Ray or here)."""
    if server is None:
        return asyncio.run(collect(envs, PolicyLLM(net.eval(), tokenizer, plan.max_new_tokens),
                                   plan))
    served = _served(server, plan.update)
    if on_ray:
        from a4a.training.rl_ray import collect_on_ray

        return collect_on_ray(envs, served, plan)
    return asyncio.run(collect(envs, backend(served), plan))


def _served(server: Server, update: int) -> Server:
    """The server as this update samples it: the adapter of the update before, once loaded."""
    if not server.lora_name or not update:
        return server
    return replace(server, model=f"{server.lora_name}-{update - 1}")


def load_adapter(server: Server, net: Any, folder: Path, update: int) -> None:
    """Save the adapter of `update` and load it into the server; unload the one before.

    Raises:
        UserError: `rl.adapter_sync` when the server refuses or cannot be reached.
    """
    import urllib.error
    import urllib.request

    path = folder / f"update-{update}"
    net.save_pretrained(str(path))
    calls = [("load_lora_adapter", {"lora_name": f"{server.lora_name}-{update}",
                                    "lora_path": str(path.resolve())})]
    if update:
        calls.append(("unload_lora_adapter", {"lora_name": f"{server.lora_name}-{update - 1}"}))
    root = (server.admin_url or server.base_url).rstrip("/")
    for route, body in calls:
        request = urllib.request.Request(f"{root}/{route}", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as resp:
                resp.read()
        except (urllib.error.URLError, OSError) as err:
            raise UserError("rl.adapter_sync", f"{root}/{route}: {err}", "Start vLLM with "
                            "--enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, on a "
                            "machine that reads the adapter folder.", route=route) from err


def _update(net: Any, opt: Any, scored: list[tuple[list[float], list[Rollout]]],
            update: int, clip: float, temperature: float, debug: Path) -> dict[str, Any]:
    """One step on the rows of every run, and the dump; the update's figures."""
    rewards = [x for run_rewards, _ in scored for x in run_rewards]
    groups = [rows for _, rows in scored if rows]
    keep: list[list[float]] = []
    net.train()
    stats = train_step(net, opt, groups, clip, temperature, keep) if groups else {
        "loss": 0.0, "tokens": 0.0}
    net.eval()
    dump(debug, groups, update, keep)
    return {"update": update, "runs": len(rewards),
            "mean_reward": round(sum(rewards) / len(rewards), 6),
            "rows": sum(map(len, groups)),
            "calls": sum(len(r.tags["calls"]) for g in groups for r in g),
            "loss": round(stats["loss"], 6), "tokens": int(stats["tokens"])}


def _report(net: Any, history: list[dict[str, Any]], out: Path, debug: Path) -> dict[str, Any]:
    """Save the adapter and the report; the report."""
    final = out / "final"
    net.save_pretrained(str(final))
    means = [h["mean_reward"] for h in history]
    report = {"steps": len(history), "rollouts": sum(h["runs"] for h in history),
              "rewards": means, "first_reward": means[0] if means else 0.0,
              "final_reward": means[-1] if means else 0.0,
              "seconds": [h["seconds"] for h in history], "history": history,
              "checkpoint": str(final), "dump": str(debug), "output_dir": str(out)}
    (out / "online_rl_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return report
