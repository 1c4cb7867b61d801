"""Builtins answer every call with a result or a typed tool error, never an exception.

A hand-written config may give a builtin a looser schema than its own (`{"type": "object"}`
is what a NexAU tool YAML without `input_schema` becomes), so calls that pass the schema the
model sees can still lack what the builtin needs.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.ir.spec import ToolSpec
from a4a.runtime.sandbox import FakeSandbox
from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.builtins import BUILTINS
from a4a.runtime.tools.registry import bind

LOOSE = {"type": "object"}


def _call(implementation: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    tool = bind(ToolSpec(name="t", description="t", input_schema=LOOSE,
                         implementation=implementation))
    return asyncio.run(tool.call(args, ctx))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext("run", "agent", tmp_path, services={"sandbox": FakeSandbox()})


@pytest.mark.parametrize("name", sorted(BUILTINS))
@pytest.mark.parametrize("args", [{}, {"path": 3, "content": None, "expression": [1],
                                       "question": {"q": 1}, "code": 7}],
                         ids=["empty", "wrong-types"])
def test_a_builtin_never_raises_on_a_schema_valid_call(name: str, args: dict[str, Any],
                                                       ctx: ToolContext) -> None:
    out = _call(f"builtin:{name}", args, ctx)
    if not out.ok:
        assert out.error is not None and out.error.code and out.error.message


def test_read_file_without_a_path_is_a_typed_error(ctx: ToolContext) -> None:
    out = _call("builtin:read_file", {}, ctx)
    assert out.error is not None and out.error.code == "invalid_arguments"
    assert "path" in out.error.message


def test_sandbox_python_without_code_is_a_typed_error(ctx: ToolContext) -> None:
    out = _call("sandbox:python", {}, ctx)
    assert out.error is not None and out.error.code == "invalid_arguments"
    assert "code" in out.error.message


@pytest.mark.parametrize("rel", ["zero", "fifo", "folder", "link/x.txt"])
def test_read_file_refuses_what_is_not_a_plain_workspace_file(rel: str, ctx: ToolContext,
                                                             tmp_path: Path) -> None:
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path.parent)
    out = _call("builtin:read_file", {"path": rel}, ctx)
    assert out.error is not None and out.error.code in ("not_allowed", "file.not_regular")


def test_write_file_refuses_symlinks_and_git(ctx: ToolContext, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    (tmp_path / "out.txt").symlink_to(outside)
    for rel in ("out.txt", ".git/config", "../escape.txt", "/etc/passwd"):
        out = _call("builtin:write_file", {"path": rel, "content": "x"}, ctx)
        assert out.error is not None, rel
    assert not outside.exists()
    assert not (tmp_path.parent / "escape.txt").exists()
