"""Retries of infrastructure failures, with backoff, and a ledger of every attempt.

Backends never retry on their own; RetryingLLM is the one place that does, and it records
each attempt so a run can prove that the server saw exactly the requests its ledger shows.
Only LLMErrors whose `.data['retryable']` is true are retried; the last one is re-raised.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.base import LLM, LLMRequest, LLMResponse

Sleep = Callable[[float], Awaitable[object]]


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: attempt n waits base * 2**(n-1), capped, then jittered.

    Attributes:
        max_attempts: attempts in all, the first one included.
        base_delay_s: the wait after the first failure.
        max_delay_s: the cap on any wait, a server's Retry-After included.
        jitter: the fraction by which a wait is spread at random (0.2: 80% to 120%), so
            many rollouts failing together do not retry together.
    """

    max_attempts: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.base_delay_s < 0 or self.max_delay_s < 0 \
                or not 0 <= self.jitter <= 1:
            raise UserError("retry.bad_policy", f"invalid retry policy {self}",
                            "Use max_attempts >= 1, delays >= 0 and jitter in [0, 1].")

    def delay(self, failures: int, draw: float = 0.5, retry_after_s: float | None = None) -> float:
        """Seconds to wait after `failures` failed attempts.

        Args:
            failures: failed attempts so far (1 after the first failure).
            draw: a uniform number in [0, 1) that places the wait within the jitter band.
            retry_after_s: the server's Retry-After, honoured up to `max_delay_s`.
        """
        backoff = min(self.max_delay_s, self.base_delay_s * 2.0 ** max(0, failures - 1))
        wait = backoff * (1 + self.jitter * (2 * draw - 1))
        if retry_after_s is not None:
            wait = max(wait, retry_after_s)
        return min(self.max_delay_s, wait)


@dataclass
class CallLedger:
    """Every model call attempt the runtime made: the count the server must agree with."""

    attempts: int = 0
    successes: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    gave_up: int = 0

    @property
    def failed(self) -> int:
        """Failed attempts of any code."""
        return sum(self.failures.values())


class RetryingLLM:
    """Wraps a backend: retries retryable LLMErrors with backoff, ledgering every attempt.

    Args:
        inner: the backend that makes one attempt per call.
        policy: how often and how long to back off.
        ledger: where attempts are counted (share one across wrappers to count a run).
        sleep: the wait function (inject a fake one to make tests instant).
        rng: the source of jitter draws (seed it to make waits reproducible).
    """

    def __init__(self, inner: LLM, policy: RetryPolicy | None = None,
                 ledger: CallLedger | None = None, *, sleep: Sleep = asyncio.sleep,
                 rng: random.Random | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.policy = policy or RetryPolicy()
        self.ledger = ledger if ledger is not None else CallLedger()
        self._sleep = sleep
        self._rng = rng or random.Random()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer the request, retrying retryable failures.

        Raises:
            LLMError: a non-retryable failure at once, or the last failure once
                `policy.max_attempts` attempts have failed (with `attempts` in `.data`).
        """
        failures = 0
        while True:
            self.ledger.attempts += 1
            try:
                response = await self.inner.complete(request)
            except LLMError as err:
                self.ledger.failures[err.code] += 1
                failures += 1
                if not err.data.get("retryable") or failures >= self.policy.max_attempts:
                    self.ledger.gave_up += 1
                    err.data["attempts"] = failures
                    raise
                self.ledger.retries += 1
                await self._sleep(self.policy.delay(failures, self._rng.random(),
                                                    err.data.get("retry_after_s")))
                continue
            except BaseException as err:
                # A cancelled or crashed attempt still counts: the request may have been sent.
                self.ledger.failures[f"unexpected.{type(err).__name__}"] += 1
                raise
            self.ledger.successes += 1
            return response
