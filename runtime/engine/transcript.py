"""A readable transcript of a trajectory record (for `a4a trace show`)."""

from __future__ import annotations

import json
from typing import Any

_MAX = 400


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           sort_keys=True)
    return text if len(text) <= _MAX else text[:_MAX] + f"... ({len(text)} chars)"


def lines(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(style, text) lines: a header, then one line per event, indented by nesting."""
    out = [("bold", f"run {record['run_id']}  {record['framework']}  task {record['task_id']}  "
                    f"policy {record['policy']}  status {record['status']}"),
           ("dim", f"task: {_short(record['task'])}")]
    depth: dict[str, int] = {}
    for ev in record["events"]:
        kind = ev["type"]
        level = depth.get(ev.get("parent") or "", -1) + 1 if kind == "agent_start" else depth.get(
            ev.get("span") or "", 0)
        if kind == "agent_start":
            depth[ev["span"]] = level
        pad = "  " * level
        out.append(_event(kind, ev, pad))
    out.append(("bold", f"answer: {_short(record['final_answer'])}"))
    if record.get("world_diff"):
        out.append(("dim", f"world changes: {len(record['world_diff'])}"))
    return [line for line in out if line[1]]


def _event(kind: str, ev: dict[str, Any], pad: str) -> tuple[str, str]:
    if kind == "agent_start":
        return "cyan", f"{pad}> {ev['agent']} starts: {_short(ev['input'])}"
    if kind == "agent_end":
        return "cyan", f"{pad}< {ev['agent']} ends: {_short(ev['output'])}"
    if kind == "llm_call":
        resp = ev["response"]
        calls = ", ".join(f"{c['name']}({_short(c['arguments'])})"
                          for c in resp.get("tool_calls", []))
        text = _short(resp.get("content", "")) if resp.get("content") else ""
        return "white", f"{pad}  {ev['agent']}: {text}{' -> ' + calls if calls else ''}"
    if kind == "tool_call":
        style = "green" if ev["ok"] else "red"
        return style, f"{pad}  {ev['name']} = {_short(ev['result'])}"
    if kind == "transition":
        return "yellow", f"{pad}-- {ev['source']} -> {ev['target']}"
    if kind == "llm_error":
        return "red", f"{pad}  model error: {_short(ev['error'])}"
    return "dim", ""
