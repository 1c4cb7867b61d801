"""A trajectory as the span trees of NexAU's InMemoryTracer, which NexRL's rollout worker reads.

`to_spans(record)` gives `dump_traces()`'s shape: a list of root spans, each
`{id, name, type, parent_id, start_time, end_time, duration_ms, inputs, outputs,
attributes, error, children}`. A top-level agent run is an AGENT root; its model calls are
LLM children (`inputs.messages` and `inputs.tools` in the OpenAI wire format,
`outputs.choices[0]` with the message, finish reason and, when the backend returned them,
`logprobs.content[].token` as token ids, plus `outputs.nexrl_train` with the prompt and
response token ids and logprobs); its tool calls are TOOL children (`Tool: <name>`), and a
sub-agent run is a SUB_AGENT span under the tool call that started it, as in NexAU.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.llm.base import Message, ToolCall, ToolSchema
from a4a.runtime.llm.wire import message_to_wire, tool_to_wire

FORMATS = ("nexrl",)
LLM_SPAN = "OpenAI chat.completions.create"


def _message(data: dict[str, Any]) -> Message:
    calls = tuple(ToolCall(str(c.get("id", "")), str(c.get("name", "")),
                           dict(c.get("arguments") or {})) for c in data.get("tool_calls") or [])
    return Message(data.get("role", "user"), str(data.get("content") or ""), calls,
                   data.get("tool_call_id"), data.get("name"))


def _span(rid: str, sid: str, name: str, kind: str, parent: str | None, start: float,
          end: float, inputs: dict[str, Any], outputs: dict[str, Any],
          attributes: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    return {"id": f"{rid}:{sid}", "name": name, "type": kind,
            "parent_id": f"{rid}:{parent}" if parent else None, "start_time": start,
            "end_time": end, "duration_ms": round((end - start) * 1000, 3), "inputs": inputs,
            "outputs": outputs, "attributes": attributes, "error": error, "children": []}


def _llm(rid: str, n: int, event: dict[str, Any], schemas: dict[str, ToolSchema],
         parent: str, model: str) -> dict[str, Any]:
    offered = [tool_to_wire(schemas[t]) for t in event.get("tools") or [] if t in schemas]
    choice: dict[str, Any] = {"index": 0, "finish_reason": event.get("finish_reason", "stop"),
                              "message": message_to_wire(_message(event["response"]))}
    outputs: dict[str, Any] = {"choices": [choice], "usage": event.get("usage") or {}}
    ids, logprobs = event.get("token_ids"), event.get("logprobs")
    if ids is not None:
        lps = logprobs if logprobs is not None and len(logprobs) == len(ids) else [0.0] * len(
            ids)
        choice["logprobs"] = {"content": [{"token": str(i), "logprob": lp}
                                          for i, lp in zip(ids, lps, strict=True)]}
        outputs["nexrl_train"] = {"prompt_tokens": event.get("prompt_token_ids") or [],
                                  "response_tokens": list(ids),
                                  "response_logprobs": list(lps)}
    inputs = {"model": event.get("model") or model, "messages": [message_to_wire(_message(m))
                                           for m in event["messages"]], "tools": offered}
    t = float(event.get("t", 0.0))
    return _span(rid, f"llm{n}", LLM_SPAN, "LLM", parent, t, t, inputs, outputs,
                 {"agent_name": event.get("agent")})


def _tool(rid: str, event: dict[str, Any], parent: str) -> dict[str, Any]:
    end = float(event.get("t", 0.0))
    start = end - float(event.get("latency") or 0.0)
    result = event.get("result")
    error = None if event.get("ok") else json.dumps(result, ensure_ascii=False)
    return _span(rid, f"{event['span']}.{event['id']}", f"Tool: {event['name']}", "TOOL",
                 parent, start, end, {"parameters": event.get("arguments") or {},
                                      "tool_call_id": event["id"]},
                 {"result": result}, {"agent_name": event.get("agent")}, error)


def to_spans(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The run as the list of root spans `InMemoryTracer.dump_traces()` returns."""
    rid = str(record.get("run_id", "run"))
    model = str(record.get("policy", ""))
    events = record.get("events") or []
    starts = {e["span"]: e for e in events if e["type"] == "agent_start"}
    ends = {e["span"]: e for e in events if e["type"] == "agent_end"}
    schemas = {s: {t["name"]: ToolSchema(t["name"], t.get("description", ""),
                                         t.get("parameters") or {})
                   for t in e.get("tools") or []} for s, e in starts.items()}
    nodes: dict[str, dict[str, Any]] = {}
    for sid, start in starts.items():
        end = ends.get(sid, start)
        nodes[sid] = _span(rid, sid, str(start["agent"]),
                           "SUB_AGENT" if start.get("parent") else "AGENT", start.get("parent"),
                           float(start.get("t", 0.0)), float(end.get("t", 0.0)),
                           {"message": start.get("input", "")},
                           {"result": end.get("output", "")},
                           {"agent_name": start["agent"], "run_id": rid})
    pending: dict[str, list[str]] = {}  # caller span -> sub-agent spans not yet placed
    n = 0
    for e in events:
        if e["type"] == "agent_start" and e.get("parent") in nodes:
            pending.setdefault(e["parent"], []).append(e["span"])
        elif e["type"] == "llm_call" and e.get("span") in nodes:
            n += 1
            nodes[e["span"]]["children"].append(
                _llm(rid, n, e, schemas.get(e["span"], {}), e["span"], model))
        elif e["type"] == "tool_call" and e.get("span") in nodes:
            tool = _tool(rid, e, e["span"])
            child = _sub_run(e, pending.get(e["span"], []), nodes)
            if child is not None:
                child["parent_id"] = tool["id"]
                tool["children"].append(child)
            nodes[e["span"]]["children"].append(tool)
    return [node for sid, node in nodes.items() if not starts[sid].get("parent")]


def _sub_run(event: dict[str, Any], waiting: list[str], nodes: dict[str, dict[str, Any]]
             ) -> dict[str, Any] | None:
    """The sub-agent span a delegating tool call ran (NexAU's Agent tool names its id)."""
    result = event.get("result") if isinstance(event.get("result"), dict) else {}
    wanted = result.get("sub_agent_id") if isinstance(result, dict) else None
    if wanted is None and isinstance(result, dict) and "agent" in result:
        wanted = next((s for s in waiting if nodes[s]["name"] == result["agent"]), None)
    if wanted in waiting:
        waiting.remove(wanted)
        return nodes[wanted]
    return None


def export_file(path: Path, out: Path, *, fmt: str = "nexrl", run_id: str | None = None
                ) -> int:
    """Write each run of a trajectory file as one JSON line `{run_id, ..., traces}`."""
    from a4a.runtime.engine.trace import read
    from a4a.runtime.loader import fsaccess

    if fmt not in FORMATS:
        raise UserError("export.format", f"unknown span format {fmt!r}",
                        f"Use one of {', '.join(FORMATS)}.")
    if not path.is_file():
        raise UserError("path.missing", f"{path} does not exist", "Check the path.")
    lines = []
    for record in read(path):
        if run_id in (None, record.get("run_id")):
            lines.append(json.dumps({"run_id": record.get("run_id"), "task": record.get("task"),
                                     "final_answer": record.get("final_answer"),
                                     "status": record.get("status"),
                                     "traces": to_spans(record)}, ensure_ascii=False))
    fsaccess.write_text(out, "".join(line + "\n" for line in lines))
    return len(lines)
