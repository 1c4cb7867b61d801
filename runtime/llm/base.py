"""Neutral message types and the one protocol every model backend implements.

Messages stay provider-neutral (tool-call arguments are objects, never JSON strings);
backends convert at the edge. A backend raises LLMError for infrastructure failures
(timeouts, HTTP 429/5xx): the runtime retries those with backoff and counts every attempt.
Model-behaviour problems (bad tool-call text, unknown tools) are not errors here: they come
back as ordinary responses and the agent loop turns them into observations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for; `arguments` is the parsed object (or raw text if invalid)."""

    id: str
    name: str
    arguments: dict[str, Any]
    raw: str | None = None  # the unparsed argument text when it was not valid JSON


@dataclass(frozen=True)
class Message:
    """One chat message in neutral form."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # tool name on tool messages


@dataclass(frozen=True)
class ToolSchema:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts of one call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class LLMRequest:
    """One model call.

    `tool_mode` says how tools reach the model: structured (`openai`), or described in the
    prompt and parsed from the text (`hermes`, `xml`, `react`).
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSchema, ...] = ()
    tool_mode: str = "openai"
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None
    agent: str = ""  # which agent is calling (for fakes, logs and trajectories)
    # Further wire parameters from the agent's llm_config (top_p, logprobs, extra_body, ...).
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LLMResponse:
    """What a backend returns: the assistant message plus usage and optional token data."""

    message: Message
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    model: str = ""
    token_ids: tuple[int, ...] | None = None
    logprobs: tuple[float, ...] | None = None
    prompt_token_ids: tuple[int, ...] | None = None  # when the server returns them


class LLM(Protocol):
    """A model backend. `complete` may raise LLMError (retryable when `.data['retryable']`)."""

    name: str

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request."""
        ...
