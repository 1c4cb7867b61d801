"""Rewards of a run against its task's checker: verifiable, no judge.

- state: the run's world diff equals the expected diff (1 or 0); for a read-only task (no
  change expected) leaving the world alone proves nothing, so state also needs the answer;
- answer: the share of answer facts found in the final answer;
- tool: AST-level accuracy of the calls against the gold plan (BFCL style: name, arguments,
  types and values, in order, as a subsequence);
- efficiency: how close the number of calls is to the gold length (min/max of the two; 0 for a
  run that made no call where calls were needed);
- composite: 0.4 state + 0.4 answer + 0.2 process by default (weights configurable), where
  process = tool accuracy x efficiency, so a skipped or wrong call always costs reward even
  when it did not change the world; a task without gold calls (an arithmetic question for
  agents that only reason) shows its process only in the answer, so there process needs it;
- pass^k over repeated runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

DEFAULT_WEIGHTS = {"state": 0.4, "answer": 0.4, "process": 0.2}


def _canon(diff: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(d, sort_keys=True) for d in diff)


def tool_calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The world-tool calls of a run (control and delegation calls excluded)."""
    return [e for e in record["events"] if e["type"] == "tool_call"
            and e["name"] not in ("route_to", "handoff_to", "exit_loop", "map_items")
            and not (isinstance(e.get("result"), dict) and "agent" in e["result"])]


def _same(gold: dict[str, Any], call: dict[str, Any]) -> bool:
    if call["name"] != gold["tool"]:
        return False
    args = call.get("arguments") or {}
    return all(k in args and type(args[k]) is type(v) and args[k] == v
               for k, v in gold["args"].items())


def tool_accuracy(plan: list[dict[str, Any]], calls: list[dict[str, Any]]) -> float:
    """Share of gold calls matched in order by the run's calls (a subsequence match)."""
    if not plan:
        return 1.0
    i = 0
    for call in calls:
        if i < len(plan) and _same(plan[i], call):
            i += 1
    return i / len(plan)


def score(task: dict[str, Any], record: dict[str, Any],
          weights: dict[str, float] | None = None) -> dict[str, float]:
    """All rewards of one run."""
    w = weights or DEFAULT_WEIGHTS
    checker = task["checker"]
    facts = checker["answer"]
    text = (record.get("final_answer") or "").lower()
    answer = sum(1 for f in facts if f.lower() in text) / len(facts) if facts else 1.0
    same = _canon(record["world_diff"]) == _canon(checker["expected_diff"])
    state = 1.0 if same and (checker["expected_diff"] or answer == 1.0) else 0.0
    calls = tool_calls(record)
    gold = len(task["plan"])
    efficiency = min(gold, len(calls)) / max(gold, len(calls)) if calls or gold else 1.0
    tool = tool_accuracy(task["plan"], calls)
    if not gold and answer < 1.0:
        tool = 0.0
    composite = w["state"] * state + w["answer"] * answer + w["process"] * tool * efficiency
    return {"state": state, "answer": round(answer, 6), "tool": round(tool, 6),
            "efficiency": round(efficiency, 6), "composite": round(composite, 6)}


def pass_hat_k(composites: Sequence[float], k: int) -> float:
    """pass^k: the chance that k runs drawn from these all succeed (composite == 1)."""
    n, c = len(composites), sum(1 for x in composites if x >= 1.0 - 1e-9)
    if k > n:
        raise ValueError("k exceeds the number of runs")
    from math import comb

    return comb(c, k) / comb(n, k)
