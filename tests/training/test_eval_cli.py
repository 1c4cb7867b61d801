"""`a4a eval` end to end: the oracle solves every task, a no-op model none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a4a.training.eval_run import evaluate_frameworks, held_out_tasks
from tests.a4a.test_cli import a4a, as_json

METRICS = {"tool_use_accuracy", "task_success_rate", "step_efficiency", "error_recovery_rate",
           "format_validity", "mean_composite", "runs", "runs_with_errors"}


@pytest.fixture(scope="module")
def triage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fw") / "triage"
    assert a4a("build", "a team that triages GitHub issues", "-o", str(out)).returncode == 0
    return out


@pytest.fixture()
def noop(tmp_path: Path) -> Path:
    script = tmp_path / "noop.yaml"
    script.write_text("'*':\n" + "  - content: I cannot help with that.\n" * 50)
    return script


def test_oracle_and_noop_differ_predictably(triage: Path, noop: Path) -> None:
    oracle = as_json(a4a("eval", "--model", "oracle", str(triage), "--tasks", "3", "--json"))
    plans = [t["plan"] for t in held_out_tasks(triage, 3)]
    assert all(plans), "every held-out task needs tool calls"
    row = oracle["frameworks"][0]
    assert set(row) == METRICS | {"framework", "path"}
    assert (row["runs"], row["task_success_rate"], row["tool_use_accuracy"],
            row["step_efficiency"], row["format_validity"]) == (3, 1.0, 1.0, 1.0, 1.0)
    assert oracle["overall"]["runs"] == 3
    none = as_json(a4a("eval", "--model", f"scripted:{noop}", str(triage), "--tasks", "3",
                       "--json"))["overall"]
    assert (none["task_success_rate"], none["tool_use_accuracy"], none["step_efficiency"],
            none["format_validity"], none["error_recovery_rate"]) == (0.0, 0.0, 0.0, 1.0, None)


def test_table_and_tasks_file(triage: Path, tmp_path: Path) -> None:
    proc = a4a("eval", "--model", "oracle", str(triage), "--tasks", "2")
    assert proc.returncode == 0, proc.stderr
    assert "task success rate" in proc.stdout and "overall" in proc.stdout
    # A framework's environment/tasks.jsonl is used as it is.
    assert a4a("tasks", str(triage), "--n", "2").returncode == 0
    ids = [json.loads(x)["id"] for x in (triage / "environment" / "tasks.jsonl").read_text(
        ).splitlines()]
    assert [t["id"] for t in held_out_tasks(triage, 5)] == ids


def test_eval_errors_are_clean(tmp_path: Path) -> None:
    proc = a4a("eval", "--model", "oracle", str(tmp_path), "--json")
    assert proc.returncode == 2 and as_json(proc)["error"]["code"] == "path.not_framework"


def test_python_api_with_an_injected_policy(triage: Path) -> None:
    from a4a.runtime.llm.base import LLMResponse, Message, Usage
    from a4a.runtime.llm.fakes import FunctionLLM

    def silent(request: object) -> LLMResponse:
        return LLMResponse(Message("assistant", "no"), Usage(), "stop", "fn")

    report = evaluate_frameworks("silent", [triage], n=2,
                                 make=lambda spec, task: FunctionLLM(silent))
    assert report["overall"]["runs"] == 2 and report["overall"]["task_success_rate"] == 0.0


@pytest.mark.slow
def test_eval_on_the_embedded_model(triage: Path) -> None:
    proc = a4a("eval", "--model", "local", str(triage), "--tasks", "1", "--max-steps", "2",
               "--json", env={"A4A_ALLOW_LOCAL_LLM": "1"})
    assert proc.returncode == 0, proc.stderr
    overall = as_json(proc)["overall"]
    assert overall["runs"] == 1
    for key in ("tool_use_accuracy", "task_success_rate", "step_efficiency", "mean_composite"):
        assert 0.0 <= overall[key] <= 1.0
