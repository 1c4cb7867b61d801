"""`evaluate_agent` in both of its forms: prompt/response pairs, or runs scored by their tasks.

The seed's form scores each response with the agent rewards against references shared by
every row (`expected_tools`, `success_markers`, `max_steps`) or given per row (the same keys
in the row override them):

    evaluate_agent(responses=[{"prompt": ..., "response": "<tool_call>..."}],
                   expected_tools=["search"], success_markers=["Done"], max_steps=5)

The environment form, `evaluate_agent(records, tasks)`, is `a4a.training.evaluate`'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training import evaluate, rewards

REFERENCES = ("expected_tools", "success_markers", "max_steps")


def evaluate_agent(records: Sequence[Any] | None = None,
                   tasks: Sequence[Mapping[str, Any]] | None = None, *,
                   responses: Sequence[Mapping[str, Any]] | None = None,
                   **references: Any) -> dict[str, Any]:
    """Agent metrics of prompt/response pairs, or of run records against their tasks.

    Args:
        records: Run records (the environment form, with `tasks`).
        tasks: The tasks the records ran.
        responses: Rows {prompt, response} (the seed's form); a response is text or a list of
            chat messages (its tool messages count tool errors).
        **references: `expected_tools`, `success_markers`, `max_steps`, and the reward
            columns `parser` or `tool_call_mode`.

    Returns:
        tool_use_accuracy (mean tool-use quality), task_success_rate (share completing),
        step_efficiency (mean efficiency), error_recovery_rate (of the responses that met a
        tool error, the share that completed; None when none did), samples.

    Raises:
        UserError: `eval.form` when neither or both forms are given; `eval.row` naming the
            row and field of a malformed response row.
    """
    if (responses is None) == (records is None):
        raise UserError("eval.form", "pass either responses=[...] or records and tasks",
                        "evaluate_agent(responses=[{prompt, response}], expected_tools=...) "
                        "or evaluate_agent(records, tasks).")
    if records is not None:
        if tasks is None:
            raise UserError("eval.form", "records need their tasks",
                            "Call evaluate_agent(records, tasks).")
        return evaluate.evaluate_agent(records, tasks)
    assert responses is not None
    rows = [_row(n, r) for n, r in enumerate(responses)]
    quality, done, eff, errored, recovered = [], [], [], 0, 0
    for row in rows:
        cols = {**references, **{k: row[k] for k in REFERENCES if k in row}}
        args = ([row["response"]],)
        q = rewards.tool_use_quality(*args, **cols)[0]
        c = rewards.task_completion(*args, **cols)[0]
        quality.append(q)
        done.append(c)
        eff.append(rewards.efficiency(*args, **cols)[0])
        if _met_tool_error(row["response"]):
            errored += 1
            recovered += c >= evaluate.SUCCESS
    n = len(rows)

    def mean(xs: list[float]) -> float:
        return round(sum(xs) / n, 6) if n else 0.0

    return {"tool_use_accuracy": mean(quality),
            "task_success_rate": mean([1.0 if c >= evaluate.SUCCESS else 0.0 for c in done]),
            "step_efficiency": mean(eff),
            "error_recovery_rate": round(recovered / errored, 6) if errored else None,
            "samples": n}


def _row(n: int, row: Any) -> Mapping[str, Any]:
    if not isinstance(row, Mapping):
        raise UserError("eval.row", f"response row {n} is a {type(row).__name__}, not an "
                        "object", "Each row is {\"prompt\": ..., \"response\": ...}.", row=n)
    if "response" not in row:
        raise UserError("eval.row", f"response row {n} has no field 'response'",
                        "Each row is {\"prompt\": ..., \"response\": ...}.", row=n,
                        field="response")
    if not isinstance(row["response"], str | list):
        raise UserError("eval.row", f"response row {n}: field 'response' is a "
                        f"{type(row['response']).__name__}", "A response is text or a list "
                        "of chat messages.", row=n, field="response")
    return row


def _met_tool_error(response: Any) -> bool:
    """Whether a message-list response holds a tool result that is an error."""
    if not isinstance(response, list):
        return False
    for m in response:
        if not isinstance(m, Mapping) or m.get("role") != "tool":
            continue
        text = str(m.get("content") or "")
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if (isinstance(body, dict) and "error" in body) or text.lower().startswith("error"):
            return True
    return False
