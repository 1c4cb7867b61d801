"""Trajectory records to training samples in the four seed formats, plus filters and splits.

A record is one run as `a4a run` writes it (see a4a.runtime.engine.trace.RunRecord). Samples
take an agent's perspective (what that agent was sent and replied, per turn) or the whole
system's (every agent's replies and every tool result, in event order).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError

FORMATS = ("function_calling", "react", "trajectory", "multi_agent")
Message = dict[str, Any]  # neutral: role, content, tool_calls [{id, name, arguments}], agent


def check_format(fmt: str) -> None:
    """Raise UserError `format.unknown` unless `fmt` is one of FORMATS."""
    if fmt not in FORMATS:
        raise UserError("format.unknown", f"unknown sample format {fmt!r}",
                        f"Use one of {', '.join(FORMATS)}.", format=fmt)


def _result_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _llm_calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in record.get("events", []) if e.get("type") == "llm_call"]


# The openings of the tool instructions a text-mode run appends to an agent's system prompt
# (a4a.runtime.llm._textprompts): dropped from samples, which write calls in their own style.
_TOOL_PROMPTS = ("\n\n# Tools\n\nYou may call one or more functions",
                 "\n\n# Tools\n\nTo use a tool, write exactly:",
                 "\n\n# Tools\n\nYou have access to the following tools:")


def strip_tool_prompt(system: str) -> str:
    """A system prompt without the text-mode tool instructions a run appended to it."""
    cut = max(system.rfind(p) for p in _TOOL_PROMPTS)
    return system[:cut] if cut >= 0 else system


def _sent(m: dict[str, Any]) -> Message:
    if m.get("role") == "system" and isinstance(m.get("content"), str):
        return {**m, "content": strip_tool_prompt(m["content"])}
    return dict(m)


def agent_conversations(record: dict[str, Any], agent: str) -> list[list[Message]]:
    """One conversation per turn of `agent`: the last model call's messages plus its reply.

    The last call of a turn (one span) was sent the whole turn so far, so nothing is lost.
    Tool instructions of a text mode are cut from the system prompt: the sample's style
    writes the calls, and one sample never holds two call grammars.
    """
    last: dict[str, dict[str, Any]] = {}
    for e in _llm_calls(record):
        if e.get("agent") == agent:
            last[e["span"]] = e  # dicts keep first-insertion order: turns stay in order
    return [[*(_sent(m) for m in e["messages"]), {**e["response"], "agent": agent}]
            for e in last.values()]


def system_conversation(record: dict[str, Any]) -> list[Message]:
    """The whole run as one conversation: every reply (with its agent) and every result."""
    out: list[Message] = [
        {"role": "system", "content": f"You are the multi-agent system {record['framework']}."},
        {"role": "user", "content": record["task"]}]
    for e in record.get("events", []):
        if e.get("type") == "llm_call":
            resp = dict(e["response"])
            resp["tool_calls"] = [{**c, "id": f"{e['span']}_{c['id']}"}
                                  for c in resp.get("tool_calls", [])]
            out.append({**resp, "agent": e["agent"]})
        elif e.get("type") == "tool_call":
            out.append({"role": "tool", "tool_call_id": f"{e['span']}_{e['id']}",
                        "name": e["name"], "content": _result_text(e.get("result"))})
    return out


def agents_of(record: dict[str, Any]) -> list[str]:
    """The agents that called a model in this run, in order of first call."""
    return list(dict.fromkeys(e["agent"] for e in _llm_calls(record)))


# ---- the four formats ---------------------------------------------------------------------


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                       (list, "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null"


def tools_of(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """OpenAI tool schemas inferred from the calls made (records do not store schemas)."""
    props: dict[str, dict[str, Any]] = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            p = props.setdefault(c["name"], {})
            for k, v in c.get("arguments", {}).items():
                p.setdefault(k, {"type": _json_type(v)})
    return [{"type": "function", "function": {
        "name": n, "description": f"The {n} tool.",
        "parameters": {"type": "object", "properties": p}}} for n, p in props.items()]


def _wire(m: Message) -> Message:
    out: Message = {"role": m["role"], "content": m.get("content") or ""}
    if m.get("tool_calls"):
        out["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c.get("arguments", {}),
                                                      ensure_ascii=False)}}
            for c in m["tool_calls"]]
    for key in ("tool_call_id", "name"):
        if m.get(key) and m["role"] == "tool":
            out[key] = m[key]
    return out


def _turns(msgs: list[Message], with_agent: bool) -> dict[str, Any]:
    system = "\n\n".join(m["content"] for m in msgs if m["role"] == "system")
    users = [m for m in msgs if m["role"] == "user"]
    goal = users[0]["content"] if users else ""
    turns: list[dict[str, Any]] = []
    for m in msgs:
        if m["role"] == "system" or (users and m is users[0]):
            continue
        turn: dict[str, Any] = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            turn["tool_calls"] = [{"name": c["name"], "arguments": c.get("arguments", {})}
                                  for c in m["tool_calls"]]
        if with_agent and m["role"] == "assistant":
            turn["agent"] = m.get("agent", "")
        turns.append(turn)
    return {"system": system, "goal": goal, "turns": turns}


def _react(msgs: list[Message]) -> dict[str, Any]:
    users = [m for m in msgs if m["role"] == "user"]
    results = {m.get("tool_call_id"): m["content"] for m in msgs if m["role"] == "tool"}
    steps: list[dict[str, Any]] = []
    for m in msgs:
        if m["role"] != "assistant":
            continue
        thought = m.get("content") or ""
        for c in m.get("tool_calls") or []:
            step = {"thought": thought, "action": c["name"],
                    "action_input": c.get("arguments", {})}
            if c["id"] in results:  # the last reply's calls may have no result recorded
                step["observation"] = results[c["id"]]
            steps.append(step)
            thought = ""
        if not m.get("tool_calls"):
            steps.append({"thought": "", "action": "finish", "action_input": thought})
    return {"task": users[0]["content"] if users else "", "steps": steps}


def to_format(msgs: list[Message], fmt: str) -> dict[str, Any]:
    """One neutral conversation as a sample of `fmt` (the seed's JSON shapes).

    Raises:
        UserError: `format.unknown`.
    """
    check_format(fmt)
    if fmt == "function_calling":
        return {"messages": [_wire(m) for m in msgs], "tools": tools_of(msgs)}
    if fmt == "react":
        return _react(msgs)
    return _turns(msgs, with_agent=fmt == "multi_agent")


def samples_from_record(record: dict[str, Any], fmt: str = "function_calling",
                        perspective: str = "system") -> list[dict[str, Any]]:
    """Training samples from one trajectory record.

    Args:
        record: A run as written to the trajectory JSONL.
        fmt: One of FORMATS.
        perspective: "system" for one sample of the whole run, an agent's name for one sample
            per turn of that agent, or "agents" for every agent's turns.

    Returns:
        Samples in the seed's JSON shape for `fmt`, each with a `meta` block.

    Raises:
        UserError: `format.unknown`; `perspective.unknown` for an agent not in the run.
    """
    check_format(fmt)
    if perspective == "system":
        convs = [("system", system_conversation(record))]
    else:
        names = agents_of(record) if perspective == "agents" else [perspective]
        if perspective not in ("agents", *agents_of(record)):
            raise UserError("perspective.unknown", f"no agent {perspective!r} in this run",
                            f"Use system, agents or one of {', '.join(agents_of(record))}.")
        convs = [(n, c) for n in names for c in agent_conversations(record, n)]
    meta = {k: record.get(k) for k in ("run_id", "framework_id", "framework", "task_id",
                                       "status")}
    meta["reward"] = (record.get("rewards") or {}).get("composite")
    return [{**to_format(c, fmt), "meta": {**meta, "perspective": who, "turn": i}}
            for i, (who, c) in enumerate(convs)]


# ---- reading, filtering, splitting --------------------------------------------------------


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file (blank lines skipped).

    Raises:
        UserError: `data.missing` when the file is absent; `data.invalid` for a bad line.
    """
    if not path.is_file():
        raise UserError("data.missing", f"no such file: {path}", "Pass a JSONL file of runs.")
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError as err:
                    raise UserError("data.invalid", f"{path}:{n} is not JSON ({err})",
                                    "Each line must be one JSON object.") from err


ROLES = ("system", "user", "assistant", "tool")


def _shape_problem(item: Any, fmt: str) -> tuple[str, str] | None:
    """(field, what is wrong) for the first malformed field of a sample, else None."""
    if not isinstance(item, dict):
        return "", f"is a {type(item).__name__}, not an object"
    key, inner = {"function_calling": ("messages", "role"), "react": ("steps", "action"),
                  "trajectory": ("turns", "role"), "multi_agent": ("turns", "role")}[fmt]
    head = {"react": "task", "trajectory": "goal", "multi_agent": "goal"}.get(fmt)
    if head and not isinstance(item.get(head), str):
        return head, "is missing or not a string"
    if not isinstance(item.get(key), list) or not item[key]:
        return key, "is missing or not a non-empty list"
    for n, part in enumerate(item[key]):
        where = f"{key}[{n}]"
        if not isinstance(part, dict):
            return where, "is not an object"
        if not isinstance(part.get(inner), str):
            return f"{where}.{inner}", "is missing or not a string"
        if inner == "role" and part["role"] not in ROLES:
            return f"{where}.role", f"is {part['role']!r}, not one of {', '.join(ROLES)}"
        for c, call in enumerate(part.get("tool_calls") or []):
            fn = call.get("function", call) if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                return f"{where}.tool_calls[{c}]", "has no function name"
    return None


def check_sample(item: Any, fmt: str, where: str) -> None:
    """Raise UserError `data.row` naming the row and field when `item` is not a `fmt` sample."""
    problem = _shape_problem(item, fmt)
    if problem is not None:
        field_name, what = problem
        raise UserError("data.row", f"{where}: field {field_name!r} {what}".replace(
            "field '' ", ""), f"A {fmt} sample is shaped as the seed shows: "
            f"{SHAPES[fmt]}.", row=where, field=field_name, format=fmt)


SHAPES = {"function_calling": '{"messages": [{"role": ..., "content": ...}]}',
          "react": '{"task": ..., "steps": [{"thought", "action", "action_input"}]}',
          "trajectory": '{"system", "goal": ..., "turns": [{"role": ..., "content": ...}]}',
          "multi_agent": '{"system", "goal": ..., "turns": [{"agent", "role", "content"}]}'}


def load_examples(path: Path, fmt: str) -> list[dict[str, Any]]:
    """Seed-format examples from a .json file (one object or a list) or a .jsonl file.

    Raises:
        UserError: `format.unknown`; `data.missing`; `data.invalid` for a line that is not
            JSON; `data.row` naming the row and field of a malformed example.
    """
    check_format(fmt)
    if path.suffix == ".json":
        if not path.is_file():
            raise UserError("data.missing", f"no such file: {path}", "Pass a JSON file.")
        loaded = json.loads(path.read_text(encoding="utf-8"))
        items = loaded if isinstance(loaded, list) else [loaded]
    else:
        items = list(read_jsonl(path))
    for n, item in enumerate(items, 1):
        check_sample(item, fmt, f"{path}: row {n}")
    return items


@dataclass
class FilterReport:
    """What a filter pass kept and why it dropped the rest."""

    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, reason: str) -> None:
        """Count one dropped item."""
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


def filter_records(records: Iterable[dict[str, Any]], *, statuses: tuple[str, ...] | None = (
        "completed",), min_reward: float | None = None, report: FilterReport | None = None
                   ) -> Iterator[dict[str, Any]]:
    """Records whose status is in `statuses` and whose composite reward is >= `min_reward`.

    A record without a composite reward fails any reward threshold.
    """
    report = report if report is not None else FilterReport()
    for r in records:
        reward = (r.get("rewards") or {}).get("composite")
        if statuses is not None and r.get("status") not in statuses:
            report.drop(f"status:{r.get('status')}")
        elif min_reward is not None and (reward is None or reward < min_reward):
            report.drop("reward")
        else:
            report.kept += 1
            yield r


def content_hash(sample: dict[str, Any]) -> str:
    """A hash of a sample's content (its `meta` block left out)."""
    body = {k: v for k, v in sample.items() if k != "meta"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def dedup(samples: Iterable[dict[str, Any]], report: FilterReport | None = None
          ) -> Iterator[dict[str, Any]]:
    """Samples with content not seen before, in order."""
    seen: set[str] = set()
    for s in samples:
        h = content_hash(s)
        if h in seen:
            if report is not None:
                report.drop("duplicate")
            continue
        seen.add(h)
        yield s


def is_held_out(framework_id: str, eval_fraction: float = 0.1, salt: str = "a4a") -> bool:
    """Whether a framework falls in the held-out split (stable across runs and machines)."""
    digest = hashlib.sha256(f"{salt}|{framework_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < eval_fraction


def split_records(records: Iterable[dict[str, Any]], eval_fraction: float = 0.1,
                  salt: str = "a4a") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(train, held_out): whole frameworks go to one side, chosen by a hash of their id."""
    train: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []
    for r in records:
        (held if is_held_out(r["framework_id"], eval_fraction, salt) else train).append(r)
    return train, held
