"""Fixtures of the runtime tests: an empty sandbox workspace and a host file outside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime.sandbox_support import SECRET


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
