"""NexAU's code agents do real work in the sandbox: read a file, patch it, run its tests with
the shell tool, complete the task. The configs are the corpus's, unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock, RunRecord
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.loader.nexau import load_agent_config
from tests.conftest import DATA
from tests.runtime.sandbox_support import real_sandbox

EXAMPLES = DATA / "nexau_corpus" / "nexau" / "examples"
CALC = "def add(a, b):\n    return a - b\n"
TESTS = ("import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
         "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\n"
         "if __name__ == '__main__':\n    unittest.main()\n")
PATCH = ("*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n"
         "+    return a + b\n*** End Patch")


def _call(i: int, name: str, **args: object) -> Step:
    return Step(tool_calls=(ToolCall(f"c{i}", name, dict(args)),))


def _run(config: Path, agent: str, edit: Step, workspace: Path) -> RunRecord:
    real_sandbox()
    (workspace / "calc.py").write_text(CALC)
    (workspace / "test_calc.py").write_text(TESTS)
    llm = ScriptedLLM({agent: [
        _call(1, "read_file", file_path="/workspace/calc.py"),
        edit,
        _call(3, "run_shell_command", command="python3 -m unittest -v test_calc 2>&1",
              description="run the tests"),
        _call(4, "complete_task", result="add() fixed; the tests pass."),
    ]})
    record = asyncio.run(run_framework(load_agent_config(config), "Fix calc.add and prove it.",
                                       llm, RunOptions(clock=FixedClock(), workspace=workspace)))
    llm.assert_consumed()
    return record


def _check(record: RunRecord, workspace: Path) -> None:
    assert record.status == "completed", record.error
    assert record.final_answer == "add() fixed; the tests pass."
    calls = {e["name"]: e for e in record.events if e["type"] == "tool_call"}
    assert all(e["ok"] for e in calls.values()), calls
    assert "1| def add(a, b):" in calls["read_file"]["result"]["content"]
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    shell = calls["run_shell_command"]["result"]
    assert shell["exit_code"] == 0 and "OK" in shell["content"], shell


def test_code_agent_reads_replaces_tests_and_completes(tmp_path: Path) -> None:
    edit = _call(2, "replace", file_path="calc.py", instruction="add, not subtract",
                 old_string="    return a - b", new_string="    return a + b")
    record = _run(EXAMPLES / "code_agent" / "code_agent.yaml", "nexau_code_agent", edit,
                  tmp_path)
    _check(record, tmp_path)


def test_cc_agent_patches_with_apply_patch_under_its_permissions(tmp_path: Path) -> None:
    record = _run(EXAMPLES / "cc_agent" / "cc_agent.yaml", "nexau_cc_agent",
                  _call(2, "apply_patch", input=PATCH), tmp_path)
    _check(record, tmp_path)
    asked = [e for e in record.events if e["type"] == "permission"]
    # cc_agent's write and shell tools "ask"; with nobody to ask, a4a allows and records it
    assert {e["tool"] for e in asked} == {"apply_patch", "run_shell_command"}
    assert all(e["decision"] == "allow" for e in asked)


def test_a_failing_test_shows_in_the_shell_result(tmp_path: Path) -> None:
    edit = _call(2, "write_file", file_path="notes.md", content="looked at calc.py\n")
    record = _run(EXAMPLES / "code_agent" / "code_agent.yaml", "nexau_code_agent", edit,
                  tmp_path)
    shell = next(e for e in record.events if e["type"] == "tool_call"
                 and e["name"] == "run_shell_command")
    assert shell["result"]["exit_code"] == 1 and "FAILED" in shell["result"]["content"]
    assert "Exit Code: 1" in shell["result"]["content"]
    assert (tmp_path / "notes.md").read_text() == "looked at calc.py\n"
