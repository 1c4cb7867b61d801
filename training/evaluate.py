"""Agent metrics over scored runs, and evaluation of a model on a framework's held-out tasks.

Every metric is computed from the structured record: rewards from the task's checker, tool
errors from `tool_call` events (`ok` false), format validity from `llm_call` events and the
observations that follow them. Nothing is read out of free text.

Format validity: a model reply (one `llm_call` event) is invalid when the runtime could not
read a tool call in it, which shows in the events of the same agent span as either
(a) a `tool_call` event, before that span's next `llm_call`, whose error code is `invalid_json`
(a structured call with unparseable arguments), or
(b) that span's next `llm_call` sending, as its last message, the unreadable-call observation
(a text-mode call that could not be parsed).
A malformed piece next to well-formed calls in one text reply is dropped by the runtime without
an observation, and the unreadable last reply of a span has no next call to show it: neither
counts against validity.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from a4a.runtime.engine.agent import UNREADABLE_CALL
from a4a.runtime.errors import UserError
from a4a.runtime.world.rewards import score

SUCCESS = 1.0 - 1e-9  # composite at or above this is a solved task


def as_dict(record: Any) -> dict[str, Any]:
    """A run record as a plain dict (RunRecord objects go through their JSON form)."""
    if isinstance(record, Mapping):
        return dict(record)
    return dict(json.loads(record.to_json()))


def reply_validity(record: Mapping[str, Any]) -> list[bool]:
    """One flag per model reply of the run: whether its tool calls could be read."""
    events = list(record.get("events") or [])
    out = []
    for j, event in enumerate(events):
        if event["type"] != "llm_call":
            continue
        out.append(not _unreadable_after(events, j, event.get("span")))
    return out


def _unreadable_after(events: list[dict[str, Any]], j: int, span: Any) -> bool:
    for later in events[j + 1:]:
        if later.get("span") != span:
            continue
        if later["type"] == "tool_call" and _error_code(later) == "invalid_json":
            return True
        if later["type"] == "llm_call":
            sent = later.get("messages") or []
            last = sent[-1] if sent else {}
            return last.get("role") == "user" and str(last.get("content", "")).startswith(
                UNREADABLE_CALL)
    return False


def _error_code(event: Mapping[str, Any]) -> str | None:
    result = event.get("result")
    if isinstance(result, dict) and isinstance(result.get("error"), dict):
        return str(result["error"].get("code"))
    return None


def hit_tool_error(record: Mapping[str, Any]) -> bool:
    """Whether the run met a structured tool error (a `tool_call` event with `ok` false)."""
    return any(e["type"] == "tool_call" and e.get("ok") is False
               for e in record.get("events") or [])


def pair(records: Sequence[Any], tasks: Sequence[Mapping[str, Any]]
         ) -> list[tuple[dict[str, Any], Mapping[str, Any]]]:
    """Each record with its task: by position when the lists line up, else by `task_id`.

    Raises:
        UserError: `eval.no_task` for a record whose task is not among `tasks`.
    """
    rows = [as_dict(r) for r in records]
    if len(rows) == len(tasks) and all(
            r["task_id"] == t["id"] for r, t in zip(rows, tasks, strict=True)):
        return list(zip(rows, tasks, strict=True))
    by_id = {t["id"]: t for t in tasks}
    out = []
    for record in rows:
        if record["task_id"] not in by_id:
            raise UserError("eval.no_task", f"no task {record['task_id']!r} for run "
                            f"{record.get('run_id')}", "Pass the tasks the runs were made for.")
        out.append((record, by_id[record["task_id"]]))
    return out


def evaluate_agent(records: Sequence[Any], tasks: Sequence[Mapping[str, Any]]
                   ) -> dict[str, Any]:
    """Agent metrics of runs scored against their tasks (see `pair`).

    Returns:
        tool_use_accuracy (mean AST tool accuracy), task_success_rate (share with composite
        1), step_efficiency (mean efficiency), error_recovery_rate (of the runs that met a tool
        error, the share whose checker still passed: world state and answer both right; the
        failed call itself costs process reward, so composite 1 is out of reach after one),
        format_validity (share of readable model replies; None without replies),
        mean_composite, runs, runs_with_errors.

    Raises:
        UserError: `eval.no_task` for a record whose task is not among `tasks`.
    """
    scores, recovered, errored, valid = [], 0, 0, []
    for record, task in pair(records, tasks):
        s = score(dict(task), record)
        scores.append(s)
        valid += reply_validity(record)
        if hit_tool_error(record):
            errored += 1
            recovered += s["state"] == 1.0 and s["answer"] == 1.0
    n = len(scores)

    def mean(key: str) -> float:
        return round(sum(s[key] for s in scores) / n, 6) if n else 0.0

    return {"tool_use_accuracy": mean("tool"),
            "task_success_rate": round(sum(s["composite"] >= SUCCESS for s in scores) / n, 6)
            if n else 0.0,
            "step_efficiency": mean("efficiency"),
            "error_recovery_rate": round(recovered / errored, 6) if errored else None,
            "format_validity": round(sum(valid) / len(valid), 6) if valid else None,
            "mean_composite": mean("composite"), "runs": n, "runs_with_errors": errored}

