"""RetryingLLM: backoff on retryable failures only, and a ledger the server agrees with."""

from __future__ import annotations

import asyncio
import random

import pytest

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message
from a4a.runtime.llm.fakes import FunctionLLM
from a4a.runtime.llm.fakeserver import FaultPlan
from a4a.runtime.llm.openai_backend import OpenAIBackend
from a4a.runtime.llm.retry import CallLedger, RetryingLLM, RetryPolicy

from .conftest import ServerFactory

REQUEST = LLMRequest((Message("user", "hi"),))


class _Sleeps:
    """A sleep that records its waits and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _flaky(codes: list[str | None], retryable: bool = True) -> FunctionLLM:
    """Fails with each code in turn (None answers), then answers."""
    def answer(request: LLMRequest) -> LLMResponse:
        code = codes.pop(0) if codes else None
        if code:
            raise LLMError(code, "injected", "", retryable=retryable)
        return LLMResponse(Message("assistant", "ok"))
    return FunctionLLM(answer)


def test_recovers_after_transient_failures() -> None:
    sleeps = _Sleeps()
    inner = _flaky(["llm.rate_limited", "llm.server_error"])
    llm = RetryingLLM(inner, RetryPolicy(jitter=0), sleep=sleeps)
    assert asyncio.run(llm.complete(REQUEST)).message.content == "ok"
    assert inner.calls == 3 and sleeps.waits == [0.5, 1.0]
    ledger = llm.ledger
    assert (ledger.attempts, ledger.successes, ledger.retries, ledger.gave_up) == (3, 1, 2, 0)
    assert ledger.failures == {"llm.rate_limited": 1, "llm.server_error": 1}


def test_non_retryable_errors_are_not_retried() -> None:
    inner = _flaky(["llm.bad_request"], retryable=False)
    llm = RetryingLLM(inner, sleep=_Sleeps())
    with pytest.raises(LLMError) as info:
        asyncio.run(llm.complete(REQUEST))
    assert info.value.code == "llm.bad_request" and inner.calls == 1
    assert (llm.ledger.attempts, llm.ledger.gave_up, llm.ledger.retries) == (1, 1, 0)


def test_the_last_error_is_raised_after_max_attempts() -> None:
    sleeps = _Sleeps()
    inner = _flaky(["llm.timeout"] * 10)
    llm = RetryingLLM(inner, RetryPolicy(max_attempts=4, jitter=0, max_delay_s=1.5),
                      sleep=sleeps)
    with pytest.raises(LLMError) as info:
        asyncio.run(llm.complete(REQUEST))
    assert (info.value.code, info.value.data["attempts"]) == ("llm.timeout", 4)
    assert inner.calls == llm.ledger.attempts == 4
    assert sleeps.waits == [0.5, 1.0, 1.5]  # capped at max_delay_s


def test_unexpected_errors_are_ledgered_and_propagate() -> None:
    def boom(request: LLMRequest) -> LLMResponse:
        raise KeyError("bug")
    llm = RetryingLLM(FunctionLLM(boom), sleep=_Sleeps())
    with pytest.raises(KeyError):
        asyncio.run(llm.complete(REQUEST))
    assert llm.ledger.attempts == 1 and llm.ledger.failures == {"unexpected.KeyError": 1}


def test_delay_jitter_and_retry_after() -> None:
    policy = RetryPolicy(base_delay_s=1, max_delay_s=8, jitter=0.5)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [1, 2, 4, 8, 8]
    assert (policy.delay(2, draw=0.0), policy.delay(2, draw=1.0)) == (1.0, 3.0)
    assert policy.delay(1, retry_after_s=5) == 5
    assert policy.delay(1, retry_after_s=60) == 8


@pytest.mark.parametrize("kwargs", [{"max_attempts": 0}, {"base_delay_s": -1},
                                    {"jitter": 2.0}])
def test_bad_policies_are_user_errors(kwargs: dict[str, float]) -> None:
    with pytest.raises(UserError) as info:
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
    assert info.value.code == "retry.bad_policy"


def test_ledger_matches_the_server_count(fake_server: ServerFactory) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: "rate_limit", 2: "server_error",
                                                    3: "malformed"}))
    ledger = CallLedger()

    async def go() -> LLMResponse:
        async with OpenAIBackend("m", base_url=server.base_url, api_key="k") as backend:
            return await RetryingLLM(backend, ledger=ledger, sleep=_Sleeps()).complete(REQUEST)

    assert asyncio.run(go()).message.content == "echo: hi"
    assert ledger.attempts == server.stats.requests == 4
    assert ledger.failures == {"llm.rate_limited": 1, "llm.server_error": 1,
                               "llm.bad_response": 1}


def test_ledger_matches_the_server_under_random_faults(fake_server: ServerFactory) -> None:
    plan = FaultPlan(rates={"rate_limit": 0.15, "server_error": 0.1, "empty_choices": 0.05},
                     seed=3)
    server = fake_server(latency_s=0.01, faults=plan)
    ledger = CallLedger()

    async def go() -> list[LLMResponse]:
        async with OpenAIBackend("m", base_url=server.base_url, api_key="k",
                                 max_concurrency=16) as backend:
            llm = RetryingLLM(backend, RetryPolicy(max_attempts=12), ledger,
                              sleep=_Sleeps(), rng=random.Random(0))
            return await asyncio.gather(*(llm.complete(REQUEST) for _ in range(60)))

    assert len(asyncio.run(go())) == 60
    assert ledger.attempts == server.stats.requests
    assert ledger.successes == 60 and ledger.failed == sum(server.stats.faults.values()) > 0


def test_non_retryable_server_errors_cost_one_request(fake_server: ServerFactory) -> None:
    server = fake_server(script=[])
    ledger = CallLedger()

    async def go() -> None:
        async with OpenAIBackend("m", base_url=server.base_url, api_key="k") as backend:
            await RetryingLLM(backend, ledger=ledger, sleep=_Sleeps()).complete(REQUEST)

    with pytest.raises(LLMError, match="HTTP 400"):
        asyncio.run(go())
    assert ledger.attempts == server.stats.requests == 1
