"""NexAU's builtin tools as a4a implements them: NexAU's arguments and result shapes, the
workspace as the only place they touch, failures as structured errors."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.sandbox import FakeSandbox, scripted_result
from a4a.runtime.tools import nexau
from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.patch import PatchError, apply_hunks, parse_patch


def _ctx(ws: Path, **services: Any) -> ToolContext:
    return ToolContext("run", "agent", ws, {}, False, services)


ALIASES = {"multiedit_tool": "multiedit", "BackgroundTaskManage": "background_tasks",
           "run_code_tool": "run_code"}


def call(name: str, ctx: ToolContext, **args: Any) -> ToolOutcome:
    """The builtin's own function (a config's tool YAML gives the model-facing schema)."""
    tool = nexau.builtins()[f"nexau_{ALIASES.get(name, name)}"]
    out = tool.fn(args, ctx)
    assert not isinstance(out, ToolOutcome)
    return asyncio.run(out)


def content(out: ToolOutcome) -> str:
    assert out.ok, out.error
    return str(out.content["content"])


@pytest.mark.parametrize(("binding", "builtin"), [
    ("nexau.archs.tool.builtin.file_tools:read_file", "nexau_read_file"),
    ("nexau.archs.tool.builtin:read_file", "nexau_read_file"),
    ("nexau.archs.tool.builtin.file_tools.apply_patch:apply_patch", "nexau_apply_patch"),
    ("nexau.archs.tool.builtin.web_tools:google_web_search", "nexau_web_search"),
    ("nexau.archs.tool.builtin.web_tool:web_search", "nexau_web_search"),  # before #203
    ("nexau.archs.tool.builtin.web_tool:web_read", "nexau_web_fetch"),
    ("nexau.archs.tool.builtin.todo_write:todo_write", "nexau_write_todos"),
    ("nexau.archs.tool.builtin.file_tools.file_write_tool:file_write_tool", "nexau_write_file"),
    ("nexau.archs.tool.builtin.multiedit_tool:multiedit_tool", "nexau_multiedit"),
    ("nexau.archs.tool.builtin.run_code_tool:run_code_tool", "nexau_run_code"),
    ("nexau.archs.tool.builtin:background_task_manage_tool", "nexau_background_tasks"),
    ("nexau.archs.tool.builtin.session_tools:ask_user", "nexau_ask_user"),
])
def test_current_and_historical_bindings_map(binding: str, builtin: str) -> None:
    assert nexau.binding_target(binding) == builtin
    assert nexau.binding_target("nexau.archs.tool.builtin.file_tools:list_files") is None


def test_read_file_numbers_lines_and_pages(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 6)))
    ctx = _ctx(tmp_path)
    assert content(call("read_file", ctx, file_path="a.txt")).startswith("1| line 1\n2| line 2")
    page = content(call("read_file", ctx, file_path="/workspace/a.txt", offset=1, limit=2))
    assert "Showing lines 2-3 of 5" in page and page.endswith("2| line 2\n3| line 3")
    missing = call("read_file", ctx, file_path="nope.txt")
    assert missing.error and missing.error.code == "file_not_found"


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "~/x", "/workspace/../x"])
def test_paths_outside_the_workspace_are_refused(tmp_path: Path, path: str) -> None:
    out = call("read_file", _ctx(tmp_path), file_path=path)
    assert out.error and out.error.code == "path_not_in_workspace"


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("/etc/hostname")
    out = call("read_file", _ctx(tmp_path), file_path="link")
    assert out.error and out.error.code == "path_not_in_workspace"
    wrote = call("write_file", _ctx(tmp_path), file_path="link", content="x")
    assert wrote.error and os.path.islink(tmp_path / "link")


def test_write_replace_and_multiedit(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    assert "created" in content(call("write_file", ctx, file_path="d/f.py", content="a = 1\n"))
    assert content(call("replace", ctx, file_path="d/f.py", instruction="bump",
                        old_string="a = 1", new_string="a = 2"))
    twice = call("replace", ctx, file_path="d/f.py", old_string="a", new_string="b",
                 expected_replacements=3)
    assert twice.error and twice.error.code == "edit_expected_occurrence_mismatch"
    content(call("multiedit_tool", ctx, file_path="d/f.py", edits=[
        {"old_string": "a = 2", "new_string": "b = 2"},
        {"old_string": "b", "new_string": "c"}]))
    assert (tmp_path / "d/f.py").read_text() == "c = 2\n"
    failed = call("multiedit_tool", ctx, file_path="d/f.py", edits=[
        {"old_string": "c", "new_string": "d"}, {"old_string": "zzz", "new_string": "y"}])
    assert failed.error and (tmp_path / "d/f.py").read_text() == "c = 2\n", "all or none"


def test_replace_matches_up_to_indentation(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("def f():\n        return 1\n")
    content(call("replace", _ctx(tmp_path), file_path="f.py", old_string="return 1",
                 new_string="return 2"))
    assert (tmp_path / "f.py").read_text() == "def f():\n        return 2\n"


def test_apply_patch_adds_updates_moves_and_deletes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    (tmp_path / "old.txt").write_text("bye\n")
    patch = ("*** Begin Patch\n*** Add File: new/b.py\n+print('b')\n"
             "*** Update File: a.py\n*** Move to: c.py\n@@\n x = 1\n-y = 2\n+y = 20\n z = 3\n"
             "*** Delete File: old.txt\n*** End Patch")
    text = content(call("apply_patch", _ctx(tmp_path), input=patch))
    assert "A /workspace/new/b.py" in text and "M /workspace/c.py" in text
    assert (tmp_path / "new/b.py").read_text() == "print('b')\n"
    assert (tmp_path / "c.py").read_text() == "x = 1\ny = 20\nz = 3\n"
    assert not (tmp_path / "a.py").exists() and not (tmp_path / "old.txt").exists()


def test_a_patch_that_does_not_fit_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    patch = ("*** Begin Patch\n*** Add File: b.py\n+b\n*** Update File: a.py\n@@\n-x = 9\n"
             "+x = 2\n*** End Patch")
    out = call("apply_patch", _ctx(tmp_path), input=patch)
    assert out.error and out.error.code == "invalid_patch"
    assert not (tmp_path / "b.py").exists() and (tmp_path / "a.py").read_text() == "x = 1\n"
    with pytest.raises(PatchError):
        parse_patch("no envelope")
    assert apply_hunks("a\nb\n", parse_patch(
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch"
    )[0].hunks, "f") == "a\nc\n"


def test_listing_glob_and_search(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.py").write_text("def alpha():\n    pass\n")
    (tmp_path / "src/b.txt").write_text("alpha beta\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text("alpha\n")
    ctx = _ctx(tmp_path)
    listing = content(call("list_directory", ctx, dir_path="/workspace"))
    assert "[DIR] src" in listing
    assert "/workspace/src/a.py" in content(call("glob", ctx, pattern="**/*.py"))
    found = content(call("search_file_content", ctx, pattern=r"def \w+", include="*.py"))
    assert "File: /workspace/src/a.py\nL1: def alpha():" in found and "b.txt" not in found
    assert ".git" not in content(call("search_file_content", ctx, pattern="alpha"))
    many = content(call("read_many_files", ctx, include=["src/"]))
    assert "--- /workspace/src/a.py ---" in many and many.endswith("--- END REFERENCE CONTENT ---")
    bad = call("search_file_content", ctx, pattern="(")
    assert bad.error and bad.error.code == "invalid_pattern"


def test_read_visual_file_returns_the_image(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    (tmp_path / "i.png").write_bytes(png)
    out = call("read_visual_file", _ctx(tmp_path), file_path="i.png")
    assert out.ok and base64.b64decode(out.content["image"]["data"]) == png
    text = call("read_file", _ctx(tmp_path), file_path="i.png")
    assert text.error and text.error.code == "use_read_visual_file"


def test_session_tools_use_the_shared_storage_and_the_human(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    todos = content(call("write_todos", ctx, todos=[
        {"description": "read", "status": "completed"},
        {"content": "patch", "id": "2", "status": "in_progress"}]))  # older TodoWrite items
    assert "2. [in_progress] patch" in todos and len(ctx.storage["todos"]) == 2
    assert content(call("save_memory", ctx, fact="the tests use unittest")).endswith(
        "(1 facts saved)")
    assert ctx.storage["memories"] == ["the tests use unittest"]
    assert content(call("complete_task", ctx, result="done")) == "done"
    rejected = call("ask_user", ctx, questions=[{"question": "Go?", "header": "Go"}])
    assert "Go: rejected" in content(rejected)
    human = _ctx(tmp_path, human=lambda q: "yes, go")
    assert "Go: yes, go" in content(call("ask_user", human, questions=[
        {"question": "Go?", "header": "Go"}]))


def test_shell_and_code_go_to_the_sandbox(tmp_path: Path) -> None:
    fake = FakeSandbox([scripted_result("hi\n"), scripted_result("", exit_code=2),
                        scripted_result("42\n")])
    ctx = _ctx(tmp_path, sandbox=fake)
    assert content(call("run_shell_command", ctx, command="echo hi")) == "Output: hi"
    failed = call("run_shell_command", ctx, command="false")
    assert "Exit Code: 2" in content(failed) and failed.content["exit_code"] == 2
    assert "'echo hi'" in fake.codes[0] and "cwd='/workspace'" in fake.codes[0]
    assert content(call("run_code_tool", ctx, code_block="print(6*7)")) == "Output: 42"
    assert fake.codes[2] == "print(6*7)"
    outside = call("run_shell_command", ctx, command="ls", dir_path="/etc")
    assert outside.error and outside.error.code == "path_not_in_workspace"


def test_background_tasks_are_listed_read_and_removed(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, sandbox=FakeSandbox([scripted_result("served\n")]))
    started = call("run_shell_command", ctx, command="serve", is_background=True)
    pid = started.content["backgroundPids"][0]
    assert f"pid {pid}: success - serve" in content(call("BackgroundTaskManage", ctx,
                                                          action="list"))
    assert "served" in content(call("BackgroundTaskManage", ctx, action="status", pid=pid))
    content(call("BackgroundTaskManage", ctx, action="kill", pid=pid))
    gone = call("BackgroundTaskManage", ctx, action="status", pid=pid)
    assert gone.error and gone.error.code == "task_not_found"


def test_without_a_sandbox_code_fails_closed(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    out = call("run_shell_command", _ctx(tmp_path), command="id")
    assert out.error and out.error.code == "sandbox.unavailable"


def test_web_tools_are_off_without_the_network(tmp_path: Path) -> None:
    for name, args in (("web_fetch", {"url": "https://example.com"}),
                       ("web_search", {"query": "x"})):
        out = call(name, _ctx(tmp_path), **args)
        assert out.error and out.error.code == "network_disabled"
