"""Neutral messages to the chat-completions wire format and back, as pure functions.

On the wire tool-call arguments are JSON text; in a4a they are objects. Text that is not a
JSON object is kept in `ToolCall.raw` with empty arguments so the agent loop can tell the
model. Token ids come from vLLM's `token_ids` field or its `token_id:N` logprob tokens.
"""

from __future__ import annotations

import json
from typing import Any

from a4a.runtime.errors import LLMError
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall, ToolSchema, Usage

TOKEN_ID_PREFIX = "token_id:"


def request_body(request: LLMRequest, *, capture_tokens: bool = False) -> dict[str, Any]:
    """The chat-completions parameters for a request (everything but the model name)."""
    body: dict[str, Any] = {"messages": [message_to_wire(m) for m in request.messages]}
    # Text tool modes describe the tools in the prompt; only `openai` mode sends them.
    if request.tools and request.tool_mode == "openai":
        body["tools"] = [tool_to_wire(t) for t in request.tools]
    optional = {"temperature": request.temperature, "max_tokens": request.max_tokens,
                "seed": request.seed, "stop": list(request.stop) or None}
    body.update({k: v for k, v in optional.items() if v is not None})
    if capture_tokens:
        body["logprobs"] = True
    options = dict(request.options)
    extra = options.pop("extra_body", None)
    body.update(options)
    if isinstance(extra, dict):  # as the official client sends extra_body: merged at the top
        body.update(extra)
    return body


def message_to_wire(message: Message) -> dict[str, Any]:
    """One neutral message as a chat-completions message."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "",
                "content": message.content}
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        # The parsed arguments are sent, not `raw`: servers that render chat templates
        # (vLLM) reject a history holding invalid JSON, and the tool result says what failed.
        out["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls]
        out["content"] = message.content or None
    return out


def tool_to_wire(tool: ToolSchema) -> dict[str, Any]:
    """One tool schema as a chat-completions function tool."""
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def parse_completion(payload: bytes | str, backend: str) -> LLMResponse:
    """Read a chat-completions response body into an LLMResponse.

    Raises:
        LLMError: `llm.bad_response` (retryable) when the body is not a usable completion.
    """
    try:
        data = json.loads(payload)
        choice = _first_choice(data)
        message = choice["message"]
        calls = tuple(parse_tool_call(c, i) for i, c in enumerate(message.get("tool_calls") or []))
        token_ids, logprobs = token_data(choice)
        usage = data.get("usage") or {}
        prompt_ids = data.get("prompt_token_ids") or choice.get("prompt_token_ids")
        return LLMResponse(
            Message("assistant", _text(message.get("content")), calls),
            Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
            str(choice.get("finish_reason") or "stop"), str(data.get("model") or ""),
            token_ids, logprobs,
            tuple(prompt_ids) if isinstance(prompt_ids, list) and all(
                isinstance(i, int) for i in prompt_ids) else None)
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise LLMError("llm.bad_response", f"{backend} returned an unusable completion: {err}",
                       "Check that the base URL points at an OpenAI-compatible /v1 server; "
                       "the call is retried.", retryable=True, backend=backend) from err


def _first_choice(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise TypeError("the body is not a JSON object")
    if data.get("error"):
        raise ValueError(f"the body holds an error: {data['error']}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the completion has no choices")
    if not isinstance(choices[0].get("message"), dict):
        raise ValueError("the first choice has no message")
    return choices[0]


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def parse_tool_call(call: dict[str, Any], index: int) -> ToolCall:
    """A wire tool call as a neutral ToolCall; invalid argument text is kept in `raw`."""
    function = call.get("function") or {}
    text = function.get("arguments")
    call_id = str(call.get("id") or f"call_{index}")
    name = str(function.get("name") or "")
    if isinstance(text, dict):  # some servers send the object itself
        return ToolCall(call_id, name, text)
    if text is None or text == "":
        return ToolCall(call_id, name, {})
    try:
        arguments = json.loads(text)
    except (ValueError, TypeError):
        arguments = None
    if isinstance(arguments, dict):
        return ToolCall(call_id, name, arguments)
    return ToolCall(call_id, name, {}, raw=str(text))


def token_data(choice: dict[str, Any]) -> tuple[tuple[int, ...] | None, tuple[float, ...] | None]:
    """Completion token ids and logprobs of a choice, each None when the server sent none."""
    entries = (choice.get("logprobs") or {}).get("content") or []
    logprobs = tuple(float(e["logprob"]) for e in entries) or None
    ids = choice.get("token_ids")  # vLLM with `return_token_ids`
    if isinstance(ids, list) and ids and all(isinstance(i, int) for i in ids):
        return tuple(ids), logprobs
    tokens = [str(e.get("token") or "") for e in entries]
    if tokens and all(t.startswith(TOKEN_ID_PREFIX) for t in tokens):
        try:
            return tuple(int(t[len(TOKEN_ID_PREFIX):]) for t in tokens), logprobs
        except ValueError:
            pass  # not ids after all: keep the logprobs only
    return None, logprobs
