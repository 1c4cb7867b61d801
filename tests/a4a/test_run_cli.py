"""`a4a run` and `a4a trace show` end to end, with fakes and with the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.a4a.test_cli import NEXAU, a4a, as_json


@pytest.fixture(scope="module")
def triage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fw") / "triage"
    assert a4a("build", "a team that triages GitHub issues", "-o", str(out)).returncode == 0
    return out


def test_run_json_and_trajectory(triage: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    proc = a4a("run", str(triage), "Label the open bugs.", "--llm", "fake:schema", "--out",
               str(runs), "--json")
    data = as_json(proc)
    assert {"run_id", "status", "final_answer", "trajectory", "llm_calls", "tool_calls",
            "tool_errors"} <= set(data)
    assert proc.returncode == (0 if data["status"] == "completed" else 1)
    record = json.loads(runs.read_text().splitlines()[0])
    assert record["run_id"] == data["run_id"] and record["events"]
    again = a4a("run", str(triage), "Label the open bugs.", "--llm", "fake:schema", "--out",
                str(runs), "--json")
    assert as_json(again)["run_id"] == data["run_id"], "run ids are deterministic"
    assert len(runs.read_text().splitlines()) == 2


def test_scripted_run_and_transcript(triage: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("orchestrator:\n  - tool_calls:\n      - name: triager\n"
                      "        arguments: {message: list the open issues}\n"
                      "  - content: Two issues are open.\n"
                      "triager:\n  - tool_calls:\n      - name: list_issues\n"
                      "        arguments: {state: open}\n  - content: ISS-001 and ISS-002\n")
    runs = tmp_path / "runs.jsonl"
    proc = a4a("run", str(triage), "What is open?", "--llm", f"scripted:{script}", "--out",
               str(runs), "--json")
    assert proc.returncode == 0, proc.stdout
    assert as_json(proc)["final_answer"] == "Two issues are open."
    shown = a4a("trace", "show", str(runs))
    assert shown.returncode == 0
    for text in ("triager starts", "list_issues", "Two issues are open."):
        assert text in shown.stdout, shown.stdout


def test_run_errors_are_clean(triage: Path) -> None:
    bad = a4a("run", str(triage), "x", "--llm", "nonsense", "--json")
    assert bad.returncode == 2 and as_json(bad)["error"]["code"] == "llm.unknown_spec"
    missing = a4a("trace", "show", "/no/such.jsonl", "--json")
    assert missing.returncode == 2


def test_local_without_the_model_says_how_to_get_it(triage: Path, tmp_path: Path) -> None:
    env = {"A4A_ALLOW_LOCAL_LLM": "1", "A4A_HOME": str(tmp_path / "empty-home")}
    runs = str(tmp_path / "runs.jsonl")
    proc = a4a("run", str(triage), "Triage it.", "--llm", "local", "--out", runs, env=env)
    assert proc.returncode == 1 and "llm.model_missing" in proc.stdout
    assert "hint:" in proc.stdout and "a4a models pull" in proc.stdout
    error = as_json(a4a("run", str(triage), "Triage it.", "--llm", "local", "--out", runs,
                        "--json", env=env))["error"]
    assert error["code"] == "llm.model_missing" and "a4a models pull" in error["hint"]


@pytest.mark.slow
def test_triage_runs_on_the_embedded_model(triage: Path, tmp_path: Path) -> None:
    runs = tmp_path / "local.jsonl"
    env = {"A4A_ALLOW_LOCAL_LLM": "1"}
    proc = a4a("run", str(triage), "Triage the newest open issue.", "--llm", "local",
               "--max-steps", "2", "--out", str(runs), "--json", env=env)
    data = as_json(proc)
    assert data["status"] in {"completed", "max_steps"}, data
    record = json.loads(runs.read_text())
    calls = [e for e in record["events"] if e["type"] == "llm_call"]
    assert calls and all(c["token_ids"] and len(c["token_ids"]) == len(c["logprobs"])
                         for c in calls)


@pytest.mark.slow
def test_nexau_example_runs_on_the_embedded_model(tmp_path: Path) -> None:
    runs = tmp_path / "nexau.jsonl"
    proc = a4a("run", str(NEXAU), "What is new in quantum computing?", "--llm", "local",
               "--max-steps", "2", "--out", str(runs), "--json",
               env={"A4A_ALLOW_LOCAL_LLM": "1"})
    data = as_json(proc)
    assert data["status"] in {"completed", "max_steps"}, data
    record = json.loads(runs.read_text())
    errors = [e for e in record["events"] if e["type"] == "tool_call" and not e["ok"]]
    assert all(e["result"]["error"]["code"] in {"network_disabled", "invalid_arguments",
                                                "unknown_tool"} for e in errors)



def test_tasks_file_is_byte_identical_per_seed_and_tasks_run_scored(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    assert a4a("build", "a team that triages GitHub issues", "-o", str(out),
               "--no-catalog").returncode == 0
    first = a4a("tasks", str(out), "--n", "6", "--seed", "3", "--json")
    assert first.returncode == 0, first.stdout
    text = (out / "environment" / "tasks.jsonl").read_bytes()
    assert a4a("tasks", str(out), "--n", "6", "--seed", "3").returncode == 0
    assert (out / "environment" / "tasks.jsonl").read_bytes() == text
    ids = [t["id"] for t in as_json(first)["tasks"]]
    assert len(ids) == len(set(ids)) > 0
    proc = a4a("run", str(out), "--task", ids[0], "--llm", "oracle", "--out",
               str(tmp_path / "r.jsonl"), "--json")
    data = as_json(proc)
    assert proc.returncode == 0 and data["task_id"] == ids[0]
    assert data["rewards"]["composite"] == 1.0
    rep = as_json(a4a("run", str(out), "--task", ids[0], "--llm", "oracle", "--repeat", "3",
                      "--out", str(tmp_path / "r.jsonl"), "--json"))
    assert rep["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    noop = tmp_path / "noop.yaml"
    noop.write_text("- content: no idea\n" * 10)
    weak = as_json(a4a("run", str(out), "--task", ids[0], "--llm", f"scripted:{noop}",
                       "--out", str(tmp_path / "r.jsonl"), "--json"))
    assert weak["rewards"]["composite"] < 1.0
