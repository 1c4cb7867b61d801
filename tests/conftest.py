"""Shared fixtures: the request corpora and a guard that keeps tests offline."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

DATA = Path(__file__).parent / "data"
# Keep the template cache out of the user's home (set before any test module imports a4a).
os.environ.setdefault("A4A_CACHE_DIR", tempfile.mkdtemp(prefix="a4a-test-cache-"))
# Real model calls fail closed, here and in every subprocess a test starts. Tests that talk
# to a loopback fake server opt in with a4a.runtime.llm.guard.allow_real_models().
os.environ["A4A_BLOCK_REAL_LLM"] = "1"
os.environ.pop("A4A_ALLOW_LOOPBACK_LLM", None)
# Every build a test runs registers into this throwaway catalog, never the user's. The
# embedded model's cache is shared from the real home so the slow tests find it.
_REAL_HOME = Path(os.environ.get("A4A_HOME") or Path.home() / ".local" / "share" / "a4a")
os.environ["A4A_HOME"] = tempfile.mkdtemp(prefix="a4a-test-home-")
(_REAL_HOME / "models").mkdir(parents=True, exist_ok=True)
(Path(os.environ["A4A_HOME"]) / "models").symlink_to(_REAL_HOME / "models")


def load_data(name: str) -> Any:
    """A YAML file from tests/data (test data is trusted; parsed with safe_load)."""
    return yaml.safe_load((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: any connection attempt to a non-loopback host is an error."""
    real = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else str(address)
        if isinstance(host, str) and not host.startswith(("127.", "::1", "localhost", "/")):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
def benign() -> list[str]:
    """The benign request corpus."""
    return load_data("requests_benign.yaml")["requests"]


@pytest.fixture(scope="session")
def labelled() -> list[dict[str, Any]]:
    """Requests with expected pattern, domains and agent-count range."""
    return load_data("requests_labelled.yaml")["cases"]


@pytest.fixture(scope="session")
def malicious() -> list[dict[str, Any]]:
    """The red-team corpus."""
    return load_data("requests_malicious.yaml")["requests"]
