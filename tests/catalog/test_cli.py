"""`a4a catalog ...` and the registration in `a4a build`: exit codes and --json shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Cli:
    """Runs `a4a` in a fresh process against its own A4A_HOME."""

    def __init__(self, home: Path, cwd: Path) -> None:
        self.home, self.cwd = home, cwd

    def __call__(self, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "A4A_HOME": str(self.home), "COLUMNS": "160"}
        proc = subprocess.run([sys.executable, "-c", "from a4a.cli import main; main()", *args],
                              capture_output=True, text=True, cwd=self.cwd, env=env,
                              timeout=120, check=False)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stdout + proc.stderr
        return proc

    def json(self, *args: str, code: int = 0) -> Any:
        return json.loads(self(*args, "--json", code=code).stdout)


@pytest.fixture()
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", tmp_path)


def test_build_registers_unless_told_not_to(cli: Cli) -> None:
    built = cli.json("build", "a team that triages GitHub issues")
    assert built["catalog"] == str(cli.home / "catalog.db")
    cli("build", "route each support ticket to the right specialist", "--no-catalog")
    listed = cli.json("catalog", "list")
    assert [i["id"] for i in listed["items"]] == [built["id"]]
    assert listed["items"][0]["path"] == str(cli.cwd / "frameworks" / "triages-github-issues")
    assert "catalogued" in cli("build", "a team that triages GitHub issues", "--seed", "2").stdout


def test_list_search_show_similar_diff(cli: Cli) -> None:
    a = cli.json("build", "a team that triages GitHub issues", "-o", "a")["id"]
    b = cli.json("build", "a team that triages GitHub issues", "--seed", "5", "-o", "b")["id"]
    r = cli.json("build", "route each support ticket to the right specialist", "-o", "r")["id"]
    page = cli.json("catalog", "list", "--limit", "2")
    assert page["total"] == 3 and page["pages"] == 2 and len(page["items"]) == 2
    assert cli.json("catalog", "list", "--pattern", "routing")["items"][0]["id"] == r
    assert cli.json("catalog", "list", "--domain", "code_hosting")["total"] == 2
    assert cli.json("catalog", "list", "--tool", "solve_ticket")["total"] == 1
    assert cli.json("catalog", "list", "--min-agents", "3", "--no-cycle")["total"] == 3
    assert cli.json("catalog", "list", "--min-agents", "4")["total"] == 0
    assert cli.json("catalog", "list", "--has-cycle")["total"] == 0
    found = cli.json("catalog", "search", "support ticket")
    assert found["items"][0]["id"] == r and found["items"][0]["score"] is not None
    shown = cli.json("catalog", "show", r[:5])
    assert shown["entry"]["id"] == r and shown["available"] is True
    assert len(shown["entry"]["graph"]["nodes"]) == shown["entry"]["agents"]
    near = cli.json("catalog", "similar", a[:6])
    assert [s["id"] for s in near["same_shape"]] == [b]
    diff = cli.json("catalog", "diff", a[:6], b[:6])
    assert diff["same_shape"] is True and "framework.yaml" in {f["path"] for f in diff["files"]}
    text = cli("catalog", "list").stdout
    assert "triages-github-issues" in text and "page 1 of 1" in text
    assert "route-support-ticket-right" in cli("catalog", "show", r[:5]).stdout
    assert "same shape" in cli("catalog", "diff", a[:6], b[:6]).stdout


def test_add_remove_export_import_check(cli: Cli, tmp_path: Path) -> None:
    fw = cli.json("build", "a team that triages GitHub issues", "-o", "fw", "--no-catalog")
    added = cli.json("catalog", "add", "fw")
    assert added["frameworks"][0]["id"] == fw["id"] and added["frameworks"][0]["added"]
    assert cli.json("catalog", "add", "fw")["frameworks"][0]["added"] is False
    exported = cli.json("catalog", "export", str(tmp_path / "b.zip"))
    assert exported["added"] == [fw["id"]]
    assert cli.json("catalog", "remove", fw["id"][:8])["removed"] == fw["id"]
    assert cli.json("catalog", "list")["total"] == 0
    imported = cli.json("catalog", "import", str(tmp_path / "b.zip"))
    assert imported["added"] == [fw["id"]]
    entry = cli.json("catalog", "show", fw["id"])["entry"]
    assert entry["source"] == "import" and entry["path"].startswith(str(cli.home))
    check = cli.json("catalog", "check")
    assert check["ok"] is True and check["frameworks"] == 1


@pytest.mark.parametrize(("args", "code", "err"), [
    (["catalog", "show", "ffffffff"], 1, "catalog.not_found"),
    (["catalog", "diff", "ffff", "eeee"], 1, "catalog.not_found"),
    (["catalog", "remove", "  "], 2, "catalog.bad_id"),
    (["catalog", "add", "/no/such/dir"], 1, "catalog.not_framework"),
    (["catalog", "import", "/no/such/bundle.zip"], 1, "catalog.bundle_invalid"),
])
def test_errors_are_json_with_codes(cli: Cli, args: list[str], code: int, err: str) -> None:
    assert cli.json(*args, code=code)["error"]["code"] == err


def test_ambiguous_prefix_names_candidates(cli: Cli) -> None:
    cli("build", "a team that triages GitHub issues", "-o", "a")
    cli("build", "a team that triages GitHub issues", "--seed", "1", "-o", "b")
    error = cli.json("catalog", "show", "triages-github-issues", code=1)["error"]
    assert error["code"] == "catalog.ambiguous" and len(error["candidates"]) == 2


def test_serve_answers_on_loopback_until_stopped(cli: Cli) -> None:
    fid = cli.json("build", "a team that triages GitHub issues")["id"]
    env = {**os.environ, "A4A_HOME": str(cli.home)}
    with subprocess.Popen([sys.executable, "-c", "from a4a.cli import main; main()",
                           "catalog", "serve", "--port", "0"], stdout=subprocess.PIPE,
                          text=True, env=env, cwd=cli.cwd) as proc:
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            url = line.split(" at ")[1].split()[0]
            assert url.startswith("http://127.0.0.1:")
            with urllib.request.urlopen(url + "api/frameworks", timeout=10) as response:
                assert json.load(response)["items"][0]["id"] == fid
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_usage_errors_exit_2(cli: Cli) -> None:
    cli("catalog", "list", "--min-agents", "-1", code=2)
    cli("catalog", "frobnicate", code=2)
    assert "serve" in cli("catalog", "--help").stdout
