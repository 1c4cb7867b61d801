"""A batch under faults: a bad journal line, a second process, a full disk, a missing model."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from a4a.runtime.errors import A4AError, LLMError, UserError
from a4a.synth import SynthConfig, SynthOptions, synthesize
from tests.a4a.synth_support import journal_ids, outputs
from tests.a4a.test_cli import a4a

CONFIG = SynthConfig(n=1, tasks_per_env=3, seed=1)
OPTIONS = SynthOptions(workers=1, catalog=False)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "batch"
    synthesize(out, CONFIG, options=OPTIONS)
    return out


@pytest.fixture()
def batch(finished: Path, tmp_path: Path) -> Path:
    shutil.copytree(finished, tmp_path / "batch")
    return tmp_path / "batch"


def test_a_bad_journal_line_is_dropped_its_unit_run_again_and_a_warning_given(
        batch: Path) -> None:
    before = outputs(batch)
    runs = batch / "work" / "runs.jsonl"
    lines = runs.read_text(encoding="utf-8").splitlines(keepends=True)
    lost = journal_ids(batch, "runs.jsonl")[1]
    lines[1] = '{"id": "' + lost[:8] + "\x00garbage\n"  # the second of three lines
    runs.write_text("".join(lines), encoding="utf-8")
    rep = synthesize(batch, resume=True, options=OPTIONS)
    assert rep["throughput"]["runs"]["units"] == 1
    assert len(rep["warnings"]) == 1 and "runs.jsonl" in rep["warnings"][0]
    assert "line(s) 2 dropped" in rep["warnings"][0]
    assert journal_ids(batch, "runs.jsonl")[-1] == lost
    assert outputs(batch) == before
    again = synthesize(batch, resume=True, options=OPTIONS)
    assert again["warnings"] == []


_HOLD = ("import sys, time; from pathlib import Path; from a4a.runtime.batch.lock import hold\n"
         "with hold(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)\n")


def test_a_batch_another_process_works_on_is_refused_untouched(batch: Path) -> None:
    journals = {n: journal_ids(batch, n) for n in ("builds.jsonl", "tasks.jsonl", "runs.jsonl")}
    (batch / "work" / "runs.jsonl").write_text("", encoding="utf-8")  # runs to be redone
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(batch / "work")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(UserError) as err:
            synthesize(batch, resume=True, options=OPTIONS)
        assert err.value.code == "batch.locked" and err.value.data["pid"] == str(holder.pid)
        assert journal_ids(batch, "runs.jsonl") == []
    finally:
        holder.kill()
        holder.communicate()
    rep = synthesize(batch, resume=True, options=OPTIONS)  # the lock went with its holder
    assert rep["throughput"]["runs"]["units"] == 3
    assert sorted(journal_ids(batch, "runs.jsonl")) == sorted(journals["runs.jsonl"])


def test_a_full_disk_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(A4AError) as err:
        synthesize(tmp_path / "b", CONFIG, options=OPTIONS)
    assert err.value.code == "io.disk_full" and "Free disk space" in err.value.hint


def test_local_without_the_model_says_how_to_get_it_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4A_HOME", str(tmp_path / "empty-home"))
    with pytest.raises(LLMError) as err:
        synthesize(tmp_path / "b", SynthConfig(n=1, tasks_per_env=1, llm="local"),
                   options=OPTIONS)
    assert err.value.code == "llm.model_missing" and "a4a models pull" in err.value.hint
    assert not (tmp_path / "b").exists()  # so the same command can simply be run again


def test_the_cli_prints_the_hint_for_a_missing_local_model(tmp_path: Path) -> None:
    proc = a4a("synth", "--n", "1", "--llm", "local", "--out", str(tmp_path / "b"),
               "--no-catalog", "--json", env={"A4A_HOME": str(tmp_path / "empty-home")})
    error = json.loads(proc.stdout)["error"]
    assert proc.returncode == 1 and error["code"] == "llm.model_missing"
    assert "a4a models pull" in error["hint"]


def test_files_a_writer_killed_mid_file_left_are_gone_after_a_resume(batch: Path) -> None:
    before = outputs(batch)
    (batch / "report.json").unlink()  # the kill came while the outputs were being written
    left = [batch / "export" / ".runs.train.jsonl.4242.tmp",
            batch / "export" / "function_calling.hermes.train.jsonl.tmp",
            batch / ".trajectories.jsonl.4242.tmp"]
    for path in left:
        path.write_bytes(b"")
    synthesize(batch, resume=True, options=OPTIONS)
    assert not any(p.exists() for p in left)
    assert outputs(batch) == before
