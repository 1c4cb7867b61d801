"""The seed's four sample formats as neutral chat messages, and those messages in a style.

`format_function_calling`, `format_react`, `format_trajectory` and `format_multi_agent` take a
sample in the seed's JSON shape and return neutral messages (role, content, tool_calls as
{name, arguments}, name on tool results). `to_chat` writes them in one tool-call style, ready
for a chat template: calls and results use that style's grammar, never two in one sample.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training import styles
from a4a.training.data import Message, check_format


def _call(tc: dict[str, Any]) -> dict[str, Any]:
    fn = tc.get("function", tc)
    args = fn.get("arguments") or {}
    return {"name": fn["name"], "arguments": json.loads(args) if isinstance(args, str) else args}


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def format_function_calling(sample: dict[str, Any]) -> list[Message]:
    """OpenAI-style messages (arguments as JSON strings or objects) as neutral messages."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for m in sample["messages"]:
        msg: Message = {"role": m["role"], "content": _text(m.get("content"))}
        if m.get("tool_calls"):
            msg["tool_calls"] = [_call(tc) for tc in m["tool_calls"]]
            names.update({tc.get("id", ""): c["name"]
                          for tc, c in zip(m["tool_calls"], msg["tool_calls"], strict=True)})
        if m["role"] == "tool":
            msg["name"] = m.get("name") or names.get(m.get("tool_call_id", ""), "tool")
        out.append(msg)
    return out


def _react_step(step: dict[str, Any]) -> str:
    lines = [f"Thought: {step['thought']}"] if step.get("thought") else []
    if step.get("action") == "finish":
        return "\n".join([*lines, f"Final Answer: {_text(step.get('action_input'))}"])
    return "\n".join([*lines, f"Action: {step['action']}",
                      f"Action Input: {_text(step.get('action_input'))}"])


def format_react(sample: dict[str, Any]) -> list[Message]:
    """Thought / Action / Action Input turns (trained) and Observation turns (masked)."""
    out: list[Message] = [{"role": "user", "content": sample["task"]}]
    for step in sample["steps"]:
        out.append({"role": "assistant", "content": _react_step(step)})
        if "observation" in step and step.get("action") != "finish":
            out.append({"role": "user", "content": f"Observation: {_text(step['observation'])}"})
    return out


def _session(sample: dict[str, Any], with_agent: bool) -> list[Message]:
    out: list[Message] = []
    if sample.get("system"):
        out.append({"role": "system", "content": sample["system"]})
    out.append({"role": "user", "content": sample["goal"]})
    pending: list[str] = []  # names of calls awaiting a result, in order
    for t in sample["turns"]:
        msg: Message = {"role": t["role"], "content": _text(t.get("content"))}
        if with_agent and t["role"] == "assistant" and t.get("agent"):
            msg["content"] = f"[{t['agent']}] {msg['content']}".rstrip()
        if t.get("tool_calls"):
            msg["tool_calls"] = [_call(tc) for tc in t["tool_calls"]]
            pending += [c["name"] for c in msg["tool_calls"]]
        if t["role"] == "tool":
            msg["name"] = t.get("name") or (pending.pop(0) if pending else "tool")
        out.append(msg)
    return out


def format_trajectory(sample: dict[str, Any]) -> list[Message]:
    """A {system, goal, turns} session as neutral messages."""
    return _session(sample, with_agent=False)


def format_multi_agent(sample: dict[str, Any]) -> list[Message]:
    """A multi-agent session: each assistant turn opens with its agent's name in brackets."""
    return _session(sample, with_agent=True)


FORMATTERS: dict[str, Callable[[dict[str, Any]], list[Message]]] = {
    "function_calling": format_function_calling, "react": format_react,
    "trajectory": format_trajectory, "multi_agent": format_multi_agent}


def format_sample(sample: dict[str, Any], fmt: str) -> list[Message]:
    """The neutral messages of a sample of format `fmt`.

    Raises:
        UserError: `format.unknown`.
    """
    check_format(fmt)
    return FORMATTERS[fmt](sample)


def _calls(m: Message) -> list[styles.Call]:
    return [styles.Call(c["name"], dict(c.get("arguments") or {}))
            for c in m.get("tool_calls") or []]


def _openai(messages: list[Message]) -> list[Message]:
    out: list[Message] = []
    pending: list[str] = []  # ids of calls awaiting a result, in order
    n = 0
    for m in messages:
        msg: Message = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            ids = [f"call_{n + i}" for i in range(len(m["tool_calls"]))]
            n += len(ids)
            pending += ids
            msg["tool_calls"] = [{"id": i, "type": "function", "function": {
                "name": c["name"], "arguments": c["arguments"]}}
                for i, c in zip(ids, m["tool_calls"], strict=True)]
        if m["role"] == "tool":
            msg["name"] = m.get("name", "tool")
            msg["tool_call_id"] = pending.pop(0) if pending else ""
        out.append(msg)
    return out


def to_chat(messages: list[Message], style: str) -> list[dict[str, Any]]:
    """Neutral messages written in one tool-call style, for a chat template.

    Text styles put the calls after the assistant's content and wrap each result in the
    style's result grammar; openai keeps structured `tool_calls` (arguments as objects, as
    Hugging Face chat templates take them) and role=tool.

    Raises:
        UserError: `style.unknown`.
    """
    styles.check_style(style)
    if style == "openai":
        return _openai(messages)
    out: list[dict[str, Any]] = []
    for m in messages:
        content = m.get("content") or ""
        if m.get("tool_calls"):
            calls = styles.render_calls(_calls(m), style)
            content = f"{content}\n{calls}" if content else calls
        elif m["role"] == "tool":
            content = styles.render_result(m.get("name", "tool"), content, style)
        out.append({"role": m["role"], "content": content})
    return out


def require_trainable(messages: list[Message]) -> None:
    """Raise UserError `sample.untrainable` when no assistant turn exists."""
    if not any(m["role"] == "assistant" for m in messages):
        raise UserError("sample.untrainable", "the sample has no assistant turn to train on",
                        "Drop samples without an assistant reply before tokenizing.")
