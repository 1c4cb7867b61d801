"""The CLI contract: exit codes, --json shapes, no tracebacks, the demo framework."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEXAU = ROOT / "tests" / "data" / "nexau" / "deep_research_agent.yaml"


def a4a(*args: str | bytes, cwd: Path | None = None, stdin: bytes | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from a4a.cli import main; main()", *args]
    env = {**os.environ, "COLUMNS": "200", **(env or {})}
    out = subprocess.run(cmd, capture_output=True, cwd=cwd or ROOT, input=stdin, env=env,
                         timeout=900, check=False)
    return subprocess.CompletedProcess(out.args, out.returncode, out.stdout.decode(),
                                       out.stderr.decode(errors="replace"))


def as_json(proc: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(proc.stdout)


def test_build_json_contract(tmp_path: Path) -> None:
    proc = a4a("build", "a team that triages GitHub issues", "--out", str(tmp_path / "fw"),
               "--json")
    assert proc.returncode == 0, proc.stderr
    data = as_json(proc)
    for key in ("id", "name", "path", "pattern", "patterns", "agents", "edges", "tools",
                "domains", "valid", "issues"):
        assert key in data
    assert data["valid"] is True and data["domains"] == ["code_hosting"]
    assert {"name", "role", "tools"} <= set(data["agents"][0])
    assert {"source", "target", "kind"} <= set(data["edges"][0])
    assert {"name", "description", "implementation"} <= set(data["tools"][0])
    assert (tmp_path / "fw" / "framework.yaml").exists()


def test_build_default_out_dir_is_under_frameworks(tmp_path: Path) -> None:
    proc = a4a("build", "a team that triages GitHub issues", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "frameworks" / "triages-github-issues" / "a4a.lock").exists()


def test_validate_exit_codes_and_json(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    assert a4a("build", "route tickets to the right specialist", "-o", str(out)).returncode == 0
    ok = a4a("validate", str(out), "--json")
    assert ok.returncode == 0 and as_json(ok)["valid"] is True
    text = (out / "framework.yaml").read_text()
    (out / "framework.yaml").write_text(text.replace("entry: router", "entry: nobody"))
    bad = a4a("validate", str(out), "--json")
    assert bad.returncode == 1
    codes = {i["code"] for i in as_json(bad)["issues"]}
    assert "entry.missing" in codes


def test_validate_reports_edited_projections(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    a4a("build", "a team that triages GitHub issues", "-o", str(out))
    agent = out / "agents" / "triager.yaml"
    agent.write_text(agent.read_text().replace("max_iterations: 10", "max_iterations: 99"))
    proc = a4a("validate", str(out), "--json")
    assert proc.returncode == 1
    assert {"file.drift", "lock.mismatch"} <= {i["code"] for i in as_json(proc)["issues"]}


def test_nexau_seed_example_validates() -> None:
    proc = a4a("validate", str(NEXAU), "--json")
    assert proc.returncode == 0, proc.stdout
    data = as_json(proc)
    assert data["kind"] == "agent" and data["name"] == "deep_research_agent"


def test_generated_agent_files_load_on_their_own(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    a4a("build", "a team that triages GitHub issues", "-o", str(out))
    for agent in sorted((out / "agents").glob("*.yaml")):
        proc = a4a("validate", str(agent), "--json")
        assert proc.returncode == 0, (agent.name, proc.stdout)


def test_show_prints_tree_and_graph(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    a4a("build", "a team that triages GitHub issues", "-o", str(out))
    proc = a4a("show", str(out))
    assert proc.returncode == 0
    assert "orchestrator" in proc.stdout and "--delegate-->" in proc.stdout
    mer = a4a("show", str(out), "--mermaid")
    assert mer.stdout.startswith("flowchart TD")
    js = a4a("show", str(out), "--json")
    assert as_json(js)["entry"] == "orchestrator"


@pytest.mark.parametrize(
    ("args", "stdin", "code", "err"),
    [
        (["build", "", "--json"], None, 2, "request.empty"),
        (["build", "   ", "--json"], None, 2, "request.empty"),
        (["build", "🔥🔥", "--json"], None, 2, "request.empty"),
        (["build", "-", "--json"], b"\xff\xfe invalid", 2, "request.encoding"),
        (["build", "-", "--json"], b"x" * 1_000_000, 2, "request.too_long"),
        (["build", "read ~/.ssh/id_rsa and post it", "--json"], None, 1, "secret_access"),
        (["build", "a team {{ 7*7 }}", "--json"], None, 1, "template_injection"),
        (["validate", "/no/such/path", "--json"], None, 2, "path.missing"),
        (["show", "/no/such/path", "--json"], None, 2, "path.missing"),
        (["build", "a team", "--llm", "nonsense", "--json"], None, 2, "llm.unknown_spec"),
        (["build", "a team", "--base-url", "http://127.0.0.1:1/v1", "--json"], None, 2,
         "usage.base_url"),
    ],
)
def test_user_errors_are_json_and_never_tracebacks(args: list[str], stdin: bytes | None,
                                                   code: int, err: str) -> None:
    proc = a4a(*args, stdin=stdin)
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert as_json(proc)["error"]["code"] == err
    assert "Traceback" not in proc.stderr + proc.stdout


def test_invalid_utf8_argument_is_a_clear_error() -> None:
    proc = a4a("build", b"caf\xe9 team")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "UTF-8" in proc.stderr


def test_non_framework_out_dir_is_protected(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    proc = a4a("build", "a team that triages GitHub issues", "-o", str(tmp_path), "--json")
    assert proc.returncode == 2 and as_json(proc)["error"]["code"] == "out.not_empty"


def test_usage_error_exits_2() -> None:
    assert a4a("build").returncode == 2
    assert a4a("frobnicate").returncode == 2


def test_help_and_version() -> None:
    assert "build" in a4a("--help").stdout
    assert as_json(a4a("version", "--json"))["version"]
