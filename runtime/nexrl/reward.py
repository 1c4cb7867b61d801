"""The reward of a NexRL rollout of an exported workspace: the task's environment checker.

NexRL gives the evaluator the final answer and the agent's history. The world tool calls of
the history are replayed on a fresh World of the task's seed (world operations are
deterministic), which gives the run's world diff; then the checker of a4a's verifiable
environment scores the run (state, answer facts, tool accuracy, efficiency, composite).
"""

from __future__ import annotations

import json
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.world.engine import World, diff
from a4a.runtime.world.errors import WorldError
from a4a.runtime.world.rewards import score


def _plain(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)
    return dump(mode="json") if callable(dump) else item


def tool_calls(observation: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, arguments) of every tool call in a history (OpenAI, a4a or NexAU blocks)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for raw in observation:
        item = _plain(raw)
        if not isinstance(item, dict):
            continue
        for call in item.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call.get("function"), dict) else call
            args = fn.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = None
            if isinstance(args, dict):
                out.append((str(fn.get("name", "")), args))
        content = item.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_call") \
                    and isinstance(block.get("input"), dict):
                out.append((str(block.get("name", "")), block["input"]))
    return out


def score_observation(task: dict[str, Any], final_answer: str, observation: list[Any], *,
                      tools: dict[str, tuple[str, str]], packs: list[str]) -> dict[str, float]:
    """The rewards of a rollout: world calls replayed, then the task's checker.

    Args:
        task: the task row (a4a's task: query, plan, checker, world_seed).
        final_answer: the agent's answer.
        observation: the agent's history (messages in any of the shapes `tool_calls` reads).
        tools: tool name -> (pack, operation) of the exported world tools.
        packs: the domain packs of the world.
    """
    known = knowledge.domain_packs()
    world = World([known[p] for p in packs if p in known], seed=int(task.get("world_seed", 0)))
    before = world.snapshot()
    events = []
    for name, args in tool_calls(observation):
        if name not in tools:
            continue
        pack, op = tools[name]
        try:
            result: Any = world.call(pack, op, args)
            ok = True
        except WorldError as err:
            result, ok = {"error": {"code": err.code, "message": err.message}}, False
        events.append({"type": "tool_call", "name": name, "arguments": args, "ok": ok,
                       "result": result})
    record = {"final_answer": final_answer, "world_diff": diff(before, world.snapshot()),
              "events": events}
    return score(task, record)
