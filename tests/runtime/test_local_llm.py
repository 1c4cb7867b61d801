"""The embedded backend: message rendering and guards (fast), the real model (slow)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from a4a.runtime.errors import LLMError
from a4a.runtime.llm import models
from a4a.runtime.llm.base import LLMRequest, Message, ToolCall
from a4a.runtime.llm.local import LocalLLM, chat_messages

HISTORY = (
    Message("system", "You triage issues."),
    Message("user", "Find crash reports."),
    Message("assistant", "Searching.", (ToolCall("c0", "search", {"q": "crash"}),
                                        ToolCall("c1", "count", {}))),
    Message("tool", "3 issues", tool_call_id="c0", name="search"),
    Message("tool", "3", tool_call_id="c1", name="count"),
    Message("assistant", "There are 3."),
)


def test_chat_messages_write_calls_and_results_as_text() -> None:
    turns = chat_messages(HISTORY, "react")
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user", "assistant"]
    assert turns[2]["content"] == ('Searching.\nAction: search\nAction Input: {"q": "crash"}\n'
                                   "Action: count\nAction Input: {}")
    assert turns[3]["content"] == "Observation: 3 issues\nObservation: 3"
    xml = chat_messages(HISTORY, "xml")
    assert "<use_parallel_tool_calls>" in xml[2]["content"]
    assert xml[3]["content"].count("<tool_result>") == 2
    # A structured mode has no text form on this model: hermes stands in.
    assert "<tool_response>" in chat_messages(HISTORY, "openai")[3]["content"]


def test_blocked_unless_the_local_model_is_allowed(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("A4A_BLOCK_REAL_LLM", "1")
    monkeypatch.delenv("A4A_ALLOW_LOCAL_LLM", raising=False)
    llm = LocalLLM(tmp_path)
    with pytest.raises(LLMError) as err:
        llm.generate(LLMRequest((Message("user", "hi"),)))
    assert err.value.code == "llm.blocked" and "A4A_ALLOW_LOCAL_LLM" in err.value.hint
    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    with pytest.raises(LLMError) as err:  # allowed now: it gets as far as the missing cache
        asyncio.run(llm.complete(LLMRequest((Message("user", "hi"),))))
    assert err.value.code == "llm.model_missing" and "a4a models pull" in err.value.hint


def test_default_cache_follows_a4a_home(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    monkeypatch.setenv("A4A_HOME", str(tmp_path))
    assert LocalLLM().model_dir == tmp_path / "models" / models.MODEL_NAME


def _unavailable(reason: str) -> None:
    """CI must have the model (`make test` installs and pulls it); elsewhere, skip."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def llm() -> Iterator[LocalLLM]:
    try:
        import torch  # noqa: F401
    except ImportError:
        _unavailable("torch is not installed: `make train` installs the train extra")
    if models.read_manifest(models.model_dir()) is None:
        _unavailable("the embedded model is not cached: run `a4a models pull`")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("A4A_BLOCK_REAL_LLM", "1")
        mp.setenv("A4A_ALLOW_LOCAL_LLM", "1")
        model = LocalLLM(max_new_tokens=12, seed=5)
        model.load()
        print(f"\ncached load of {models.MODEL_NAME}: {model.load_seconds:.3f} s")
        yield model


REQUEST = LLMRequest((Message("system", "You are terse."),
                      Message("user", "Name three colours.")))


@pytest.mark.slow
def test_greedy_output_is_repeatable_with_token_data(llm: LocalLLM,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    first = asyncio.run(llm.complete(REQUEST))
    second = llm.generate(REQUEST)
    assert first.message.content and first.message.content == second.message.content
    assert first.token_ids == second.token_ids and first.logprobs == second.logprobs
    assert first.token_ids is not None and first.logprobs is not None
    assert len(first.token_ids) == len(first.logprobs) == first.usage.completion_tokens
    assert all(lp <= 0.0 for lp in first.logprobs)
    assert first.usage.prompt_tokens > 10 and first.message.tool_calls == ()
    assert first.finish_reason in ("stop", "length") and first.model.startswith("local:")
    assert torch.get_num_threads() == 1


@pytest.mark.slow
def test_seeded_sampling_is_repeatable(llm: LocalLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    hot = LLMRequest(REQUEST.messages, temperature=1.0, seed=11)
    texts = {llm.generate(hot).message.content for _ in range(2)}
    assert len(texts) == 1
    others = {llm.generate(LLMRequest(REQUEST.messages, temperature=1.0, seed=s,
                                      max_tokens=4)).token_ids for s in range(3)}
    assert len(others) > 1  # the seed, not luck, made them equal


@pytest.mark.slow
def test_stop_strings_and_length_limit(llm: LocalLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    full = llm.generate(LLMRequest(REQUEST.messages, max_tokens=12))
    words = full.message.content.split()
    assert len(words) >= 3, full.message.content
    stop = words[2]
    cut = llm.generate(LLMRequest(REQUEST.messages, max_tokens=12, stop=(stop,)))
    assert cut.message.content == full.message.content[:full.message.content.index(stop)]
    assert cut.finish_reason == "stop"
    short = llm.generate(LLMRequest(REQUEST.messages, max_tokens=2))
    assert (short.finish_reason, short.usage.completion_tokens) == ("length", 2)
