"""Text tool-call modes in the agent loop: tools described in the prompt, calls parsed back.

Agents in `hermes`, `xml` or `react` mode (and structured-mode agents on a backend that
cannot take tools, like the embedded model) get their tools rendered into the system prompt;
replies are parsed into neutral tool calls, and malformed pieces become observations.
"""

from __future__ import annotations

from dataclasses import dataclass

from a4a.runtime.llm import textmodes
from a4a.runtime.llm.base import Message, ToolSchema


@dataclass(frozen=True)
class Reading:
    """A reply read in a text mode: the neutral message, parse errors, a final answer."""

    message: Message
    errors: tuple[str, ...]
    final: str | None


def mode_for(agent_mode: str, structured_ok: bool) -> str:
    """The mode an agent runs in on this backend."""
    if agent_mode in textmodes.MODES:
        return agent_mode
    return "openai" if structured_ok else "hermes"


def system_with_tools(system: str, schemas: tuple[ToolSchema, ...], mode: str) -> str:
    """The system prompt with the tools and the call grammar of a text mode appended."""
    if mode not in textmodes.MODES or not schemas:
        return system
    return f"{system}\n\n{textmodes.render_tools(schemas, mode)}"


def read(reply: Message, mode: str, schemas: tuple[ToolSchema, ...]) -> Reading:
    """Parse a text-mode reply into a neutral message."""
    if mode not in textmodes.MODES or reply.tool_calls:
        return Reading(reply, (), None)
    parsed = textmodes.parse(reply.content, mode, textmodes.schemas_of(schemas))
    message = Message("assistant", parsed.content if parsed.calls else reply.content,
                      parsed.calls)
    return Reading(message, parsed.errors, parsed.final)
