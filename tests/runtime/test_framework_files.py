"""Framework files are read and written confined and bounded: loader, lock, validate, run."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import a4a
from a4a import api
from a4a.runtime.errors import A4AError, SpecError
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, PatternNode, Provenance
from a4a.runtime.loader.files import LOCK, lock_data, render_files, write_files
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

Finishes = Callable[..., Any]


def _spec() -> FrameworkSpec:
    agent = AgentSpec(name="clerk", system_prompt="Answer briefly.")
    return FrameworkSpec(name="desk", description="d", pattern="single_agent",
                         patterns=PatternNode(pattern="single_agent"), entry="clerk",
                         agents=[agent], provenance=Provenance(a4a_version="0", builder="hand"))


@pytest.fixture
def framework(tmp_path: Path) -> Path:
    root = tmp_path / "fw"
    write_files(root, render_files(_spec(), "# desk\n"))
    return root


def _codes(path: Path, **kwargs: Any) -> set[str]:
    return {i.code for i in a4a.validate(path, **kwargs).issues}


def _script(tmp_path: Path) -> str:
    script = tmp_path / "script.yaml"
    script.write_text("clerk:\n  - content: done\n")
    return f"scripted:{script}"


def test_a_fifo_framework_yaml_is_refused_without_hanging(framework: Path,
                                                          finishes: Finishes) -> None:
    (framework / "framework.yaml").unlink()
    os.mkfifo(framework / "framework.yaml")
    report = finishes(lambda: a4a.validate(framework))
    assert {i.code for i in report.issues} == {"file.not_regular"}


def test_a_framework_yaml_linked_from_outside_needs_trust(framework: Path,
                                                          tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes((framework / "framework.yaml").read_bytes())
    (framework / "framework.yaml").unlink()
    (framework / "framework.yaml").symlink_to(outside)
    assert _codes(framework) == {"file.outside_root"}
    with pytest.raises(SpecError) as err:
        a4a.load(framework)
    assert err.value.code == "file.outside_root" and "--trust" in err.value.hint
    assert a4a.load(framework, trusted=True).name == "desk"


def test_a_sparse_huge_projection_is_refused_by_its_size(framework: Path) -> None:
    with (framework / "topology.json").open("wb") as fh:
        fh.truncate(64 << 20)  # holes: no disk used, but it reads as 64 MiB
    report = a4a.validate(framework)
    assert "file.too_large" in {i.code for i in report.issues if i.path == "topology.json"}


def test_validate_never_hashes_a_path_outside_the_framework(framework: Path,
                                                            tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("hunter2\n")
    reports = []
    for guess in ("hunter2\n", "letmein\n"):  # a right and a wrong guess at its content
        lock = load_yaml_file(framework / LOCK)
        lock["files"]["../secret"] = hashlib.sha256(guess.encode()).hexdigest()
        (framework / LOCK).write_text(dump_yaml(lock))
        reports.append([i.to_dict() for i in a4a.validate(framework).issues])
    assert reports[0] == reports[1], "the report must not tell a right guess from a wrong one"
    assert [i["code"] for i in reports[0]] == ["lock.invalid"]


@pytest.mark.parametrize("text", ["- framework_id: x\n", "just text\n",
                                  "files: [framework.yaml]\n", "files:\n  /etc/passwd: x\n"])
def test_a_malformed_lock_is_a_typed_error(framework: Path, tmp_path: Path,
                                           text: str) -> None:
    (framework / LOCK).write_text(text)
    assert "lock.invalid" in _codes(framework)
    with pytest.raises(SpecError) as err:
        a4a.run(framework, "hi", _script(tmp_path))
    assert err.value.code == "lock.invalid" and err.value.hint


def test_a_run_records_the_id_its_files_hash_to(framework: Path, tmp_path: Path) -> None:
    real = load_yaml_file(framework / LOCK)["framework_id"]
    forged = {**load_yaml_file(framework / LOCK), "framework_id": "0123456789abcdef"}
    (framework / LOCK).write_text(dump_yaml(forged))
    record = a4a.run(framework, "hi", _script(tmp_path))
    assert record.status == "completed" and record.framework_id == real
    (framework / "README.md").write_text("# edited\n")
    edited = a4a.run(framework, "hi", _script(tmp_path))
    files = {rel: (framework / rel).read_text() for rel in forged["files"]}
    assert edited.framework_id == lock_data(files)["framework_id"] != real
    assert edited.run_id != record.run_id


def test_a_lock_link_is_never_written_through(tmp_path: Path) -> None:
    from a4a.runtime.ir.spec import McpServer

    agent = AgentSpec(name="clerk", system_prompt="Tell the time.",
                      mcp_servers=[McpServer(name="time", id="time")])
    spec = _spec().model_copy(update={"agents": [agent]})
    root = tmp_path / "fw"
    write_files(root, render_files(spec, "# clock\n"))
    target = tmp_path / "outside.lock"
    target.write_bytes((root / LOCK).read_bytes())
    before = target.read_bytes()
    (root / LOCK).unlink()
    (root / LOCK).symlink_to(target)
    record = a4a.run(root, "time?", _script(tmp_path), trusted=True)
    assert record.status == "completed" and record.mcp
    assert target.read_bytes() == before, "the first bind wrote through the link"
    assert not (root / LOCK).is_symlink()
    assert "get_current_time" in load_yaml_file(root / LOCK)["mcp"]["time"]
    (root / LOCK).unlink()
    (root / LOCK).symlink_to(target)
    with pytest.raises(SpecError) as err:  # untrusted, a lock linked from outside is not read
        a4a.run(root, "time?", _script(tmp_path))
    assert err.value.code == "file.outside_root" and target.read_bytes() == before


def test_writing_a_framework_never_reaches_outside_it(framework: Path,
                                                      tmp_path: Path) -> None:
    outside = tmp_path / "mine"
    outside.mkdir()
    (outside / "notes.yaml").write_text("keep: me\n")
    (framework / "agents" / "clerk.yaml").unlink()
    (framework / "agents").rmdir()
    (framework / "agents").symlink_to(outside)
    with pytest.raises(A4AError) as err:
        write_files(framework, render_files(_spec(), "# desk\n"))
    assert err.value.code == "file.outside_root"
    assert [p.name for p in outside.iterdir()] == ["notes.yaml"]


def test_a_task_file_that_is_a_fifo_is_refused(framework: Path, finishes: Finishes) -> None:
    (framework / "environment").mkdir()
    os.mkfifo(framework / "environment" / "tasks.jsonl")

    def find() -> str:
        try:
            api.find_task(framework, "t1")
        except A4AError as err:
            return err.code
        return "found"

    assert finishes(find) == "file.not_regular"


def test_a_task_file_with_a_bad_line_is_a_typed_error(framework: Path) -> None:
    (framework / "environment").mkdir()
    (framework / "environment" / "tasks.jsonl").write_text('{"id": "t1"}\nnot json\n')
    with pytest.raises(SpecError) as err:
        api.find_task(framework, "t1")
    assert err.value.code == "tasks.invalid" and err.value.hint
