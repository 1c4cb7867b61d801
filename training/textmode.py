"""Training samples written exactly as a backend without tool calling reads its prompts.

The embedded model gets tools as text: the agent loop appends the tool instructions of a text
mode to each system prompt, the model writes calls as text and reads results as user turns
(see a4a.runtime.llm.local.chat_messages). A model fine-tuned to run there must be trained on
that same rendering, so these samples keep the instructions that `training.data` strips.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import Message, ToolCall, ToolSchema


def agent_tools(spec: FrameworkSpec) -> dict[str, tuple[ToolSchema, ...]]:
    """Each agent's tools as the runtime offers them: its own, its sub-agents, control tools.

    MCP tools are left out: they exist only while a run holds its server sessions.
    """
    from a4a.runtime.engine.agent import tool_schemas

    bare = SimpleNamespace(spec=spec, tools={}, mcp_servers={})  # what tool_schemas reads
    return {a.name: tuple(tool_schemas(bare, a)) for a in spec.agents}  # type: ignore[arg-type]


def agent_modes(spec: FrameworkSpec) -> dict[str, str]:
    """The text mode each agent runs in on a backend without structured tool calling."""
    from a4a.runtime.engine.textcalls import mode_for

    return {a.name: mode_for(a.tool_call_mode, False) for a in spec.agents}


def _message(m: dict[str, Any]) -> Message:
    calls = tuple(ToolCall(c["id"], c["name"], c.get("arguments", {}), c.get("raw"))
                  for c in m.get("tool_calls") or [])
    return Message(m["role"], m.get("content") or "", calls, m.get("tool_call_id"),
                   m.get("name"))


def text_mode_chat(messages: list[dict[str, Any]], reply: dict[str, Any],
                   tools: tuple[ToolSchema, ...], mode: str) -> list[dict[str, str]]:
    """One agent turn (recorded messages and reply) as the chat a text-mode backend reads.

    The tool instructions of `mode` go after the system prompt when it lacks them (a run with
    structured tools recorded it without); calls become `mode` text; results, user turns.
    """
    from a4a.runtime.engine.textcalls import system_with_tools
    from a4a.runtime.llm.local import chat_messages

    sent = [_message(m) for m in [*messages, reply]]
    if sent and sent[0].role == "system" and "\n\n# Tools\n\n" not in sent[0].content:
        sent[0] = Message("system", system_with_tools(sent[0].content, tools, mode))
    return chat_messages(tuple(sent), mode)


def text_mode_samples(record: dict[str, Any], spec: FrameworkSpec) -> list[dict[str, Any]]:
    """One function_calling sample per agent turn of `record`, rendered as a text-mode run.

    The last model call of each turn (span) was sent the whole turn, so it alone is kept.
    Samples carry no structured `tool_calls`: the calls are already text in the assistant
    turns, so any text style (hermes, ...) writes them unchanged when tokenizing.
    """
    tools, modes = agent_tools(spec), agent_modes(spec)
    last: dict[str, dict[str, Any]] = {}
    for e in record.get("events", []):
        if e.get("type") == "llm_call":
            last[e["span"]] = e
    meta = {k: record.get(k) for k in ("run_id", "framework_id", "framework", "task_id",
                                       "status")}
    return [{"messages": text_mode_chat(e["messages"], e["response"], tools.get(e["agent"], ()),
                                        modes.get(e["agent"], "hermes")),
             "tools": [], "meta": {**meta, "perspective": e["agent"], "turn": i}}
            for i, e in enumerate(last.values())]
