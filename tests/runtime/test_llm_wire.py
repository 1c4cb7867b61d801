"""Chat-completions bodies to neutral responses: the odd shapes servers send."""

from __future__ import annotations

import json
from typing import Any

import pytest

from a4a.runtime.errors import LLMError
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.wire import parse_completion, parse_tool_call, token_data


def _body(message: dict[str, Any], **choice: Any) -> str:
    return json.dumps({"model": "m", "choices": [{"message": message, **choice}]})


@pytest.mark.parametrize("payload", [
    "[]", "not json", '{"choices": []}', '{"choices": [{"index": 0}]}',
    '{"error": {"message": "overloaded"}}', '{"choices": [1]}',
])
def test_unusable_bodies_are_retryable_bad_responses(payload: str) -> None:
    with pytest.raises(LLMError) as info:
        parse_completion(payload, "openai:m")
    assert (info.value.code, info.value.data["retryable"]) == ("llm.bad_response", True)


def test_missing_usage_and_finish_reason_have_defaults() -> None:
    out = parse_completion(_body({"role": "assistant", "content": "hi"}), "b")
    assert (out.message.content, out.finish_reason, out.usage.prompt_tokens) == ("hi", "stop", 0)


def test_content_parts_keep_their_text() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]
    assert parse_completion(_body({"content": parts}), "b").message.content == "ab"


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"a": 1}', ToolCall("c", "f", {"a": 1})),
    ({"a": 1}, ToolCall("c", "f", {"a": 1})),
    ("", ToolCall("c", "f", {})),
    (None, ToolCall("c", "f", {})),
    ("[1, 2]", ToolCall("c", "f", {}, raw="[1, 2]")),
    ('{"a": ', ToolCall("c", "f", {}, raw='{"a": ')),
])
def test_tool_call_arguments(arguments: Any, expected: ToolCall) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
    assert parse_tool_call(call, 0) == expected


def test_tool_calls_without_ids_get_positional_ones() -> None:
    assert parse_tool_call({"function": {"name": "f"}}, 3).id == "call_3"


def test_vllm_token_ids_field_wins() -> None:
    choice = {"token_ids": [5, 6], "logprobs": {"content": [
        {"token": "a", "logprob": -1.0}, {"token": "b", "logprob": -2.0}]}}
    assert token_data(choice) == ((5, 6), (-1.0, -2.0))


def test_mixed_tokens_give_no_ids() -> None:
    choice = {"logprobs": {"content": [{"token": "token_id:5", "logprob": -1.0},
                                       {"token": "x", "logprob": -2.0}]}}
    assert token_data(choice) == (None, (-1.0, -2.0))


def test_no_logprobs_give_nothing() -> None:
    assert token_data({"logprobs": None}) == (None, None)
