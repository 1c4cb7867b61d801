"""Fixtures of the runtime tests: sandbox workspaces, loopback fake model servers, bounds."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models
from tests.runtime.sandbox_support import SECRET

ServerFactory = Callable[..., FakeOpenAIServer]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty directory for one sandboxed run."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A host file next to (never inside) the workspace, holding the canary secret."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


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


@pytest.fixture
def finishes() -> Callable[..., Any]:
    """`finishes(fn)`: `fn()`'s result, failing (not hanging) when it does not return in time."""

    def call(fn: Callable[[], Any], seconds: float = 60) -> Any:
        out: list[Any] = []
        worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
        worker.start()
        worker.join(seconds)
        assert out, f"it did not return in {seconds} s"
        return out[0]

    return call
