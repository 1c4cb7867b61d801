"""The real-call guard: tests fail closed; loopback servers only by explicit opt-in."""

from __future__ import annotations

import asyncio

import pytest

from a4a.runtime.errors import LLMError
from a4a.runtime.llm.base import LLMRequest, Message
from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import (
    LOOPBACK_ENV,
    allow_real_models,
    block_real_models,
    ensure_real_calls_allowed,
    is_loopback_url,
    real_calls_blocked,
)
from a4a.runtime.llm.openai_backend import OpenAIBackend

REQUEST = LLMRequest((Message("user", "hi"),))


def _call(url: str) -> str:
    async def go() -> str:
        async with OpenAIBackend("m", base_url=url, api_key="k") as backend:
            return (await backend.complete(REQUEST)).message.content
    return asyncio.run(go())


def test_tests_run_blocked() -> None:
    assert real_calls_blocked()


def test_a_real_call_is_blocked_by_default_and_never_sent() -> None:
    with FakeOpenAIServer() as server:
        with pytest.raises(LLMError) as info:
            _call(server.base_url)
        assert server.stats.requests == 0
    assert (info.value.code, info.value.data["retryable"]) == ("llm.blocked", False)
    assert "allow_real_models" in info.value.hint


def test_loopback_servers_need_an_opt_in() -> None:
    with FakeOpenAIServer() as server, allow_real_models():
        assert _call(server.base_url) == "echo: hi"


def test_the_loopback_opt_in_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LOOPBACK_ENV, "1")
    with FakeOpenAIServer() as server:
        assert _call(server.base_url) == "echo: hi"


def test_a_loopback_opt_in_never_admits_other_hosts() -> None:
    with allow_real_models(), pytest.raises(LLMError, match="blocked"):
        ensure_real_calls_allowed("openai:m", base_url="https://api.openai.com/v1")
    with allow_real_models(), pytest.raises(LLMError, match="blocked"):
        ensure_real_calls_allowed("local")  # in-process models are not loopback servers


def test_a_full_opt_in_admits_any_backend() -> None:
    with allow_real_models(loopback_only=False):
        ensure_real_calls_allowed("local")
        ensure_real_calls_allowed("openai:m", base_url="https://api.openai.com/v1")
    with pytest.raises(LLMError):
        ensure_real_calls_allowed("local")  # the opt-in ends with its block


def test_block_without_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A4A_BLOCK_REAL_LLM")
    ensure_real_calls_allowed("local")
    block_real_models()
    try:
        with pytest.raises(LLMError):
            ensure_real_calls_allowed("local")
    finally:
        block_real_models(False)
    assert not real_calls_blocked()


@pytest.mark.parametrize(("url", "loopback"), [
    ("http://127.0.0.1:8000/v1", True), ("http://127.8.0.1/v1", True),
    ("http://localhost:1/v1", True), ("http://[::1]:80/v1", True),
    ("https://api.openai.com/v1", False), ("http://10.0.0.1/v1", False),
    ("http://127.0.0.1.evil.example/v1", False), (None, False), ("", False),
])
def test_loopback_urls(url: str | None, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback
