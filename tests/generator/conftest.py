"""Fixtures of the LLM-builder tests: loopback servers, one DSPy cache, a model per test."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start loopback servers answering with a DraftModel; model calls to them are allowed."""
    started: list[FakeOpenAIServer] = []

    def start(model: Any) -> FakeOpenAIServer:
        started.append(FakeOpenAIServer(responder=model.responder).start())
        return started[-1]

    with allow_real_models():
        yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One DSPy cache for the module: opening one costs seconds."""
    return tmp_path_factory.mktemp("dspy-cache")


@pytest.fixture
def llm(request: pytest.FixtureRequest) -> str:
    """A model name of this test alone, so no test answers from another's cache entries."""
    return f"openai:fake-{zlib.crc32(request.node.name.encode())}"
