"""Fixtures for model backends: loopback fake servers, opted in past the real-call guard."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models

ServerFactory = Callable[..., FakeOpenAIServer]


@pytest.fixture
def fake_server() -> Iterator[ServerFactory]:
    """Start loopback fake servers (kwargs as FakeOpenAIServer's); calls to them are allowed."""
    started: list[FakeOpenAIServer] = []

    def start(**kwargs: Any) -> FakeOpenAIServer:
        server = FakeOpenAIServer(**kwargs).start()
        started.append(server)
        return server

    with allow_real_models():
        yield start
    for server in started:
        server.stop()
