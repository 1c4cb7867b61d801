"""Bounded, confined file access: what it reads and writes, and what it refuses."""

from __future__ import annotations

import errno
import os
import socket
import threading
from pathlib import Path

import pytest

from a4a.runtime.errors import A4AError, SpecError
from a4a.runtime.loader import fsaccess


def _code(fn: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(A4AError) as info:
        fn(*args, **kwargs)  # type: ignore[operator]
    return info.value.code


def test_reads_a_regular_file_inside_its_root(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("x: 1\n")
    assert fsaccess.read_text("a.yaml", root=tmp_path) == "x: 1\n"
    assert fsaccess.read_bytes(tmp_path / "a.yaml") == b"x: 1\n"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused(device: str) -> None:
    assert _code(fsaccess.read_bytes, device) == "file.not_regular"


def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.append(
        _code(fsaccess.read_bytes, fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert result == ["file.not_regular"]


def test_a_directory_and_a_socket_are_refused(tmp_path: Path) -> None:
    assert _code(fsaccess.read_bytes, tmp_path) == "file.not_regular"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s.yaml"))
    try:
        assert _code(fsaccess.read_bytes, tmp_path / "s.yaml") == "file.not_regular"
    finally:
        sock.close()


def test_a_sparse_huge_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "topology.json"
    with big.open("wb") as fh:
        fh.truncate(4 << 30)  # 4 GiB of holes: no disk used, but it reads as 4 GiB
    with pytest.raises(SpecError) as info:
        fsaccess.read_bytes(big, max_bytes=1000)
    err = info.value
    assert err.code == "file.too_large"
    assert str(4 << 30) in err.message


def test_symlinks_and_dotdot_out_of_the_root_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("secret")
    (root / "link.yaml").symlink_to(outside)
    (root / "inner.yaml").write_text("ok")
    (root / "alias.yaml").symlink_to(root / "inner.yaml")
    assert _code(fsaccess.read_text, "link.yaml", root=root) == "file.outside_root"
    assert _code(fsaccess.read_text, "../outside.txt", root=root) == "file.outside_root"
    assert _code(fsaccess.read_text, str(outside), root=root) == "file.outside_root"
    assert fsaccess.read_text("alias.yaml", root=root) == "ok"  # a link that stays inside
    assert fsaccess.read_text("link.yaml", root=root, trusted=True) == "secret"


def test_write_text_replaces_a_symlink_instead_of_writing_through_it(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    root = tmp_path / "fw"
    root.mkdir()
    (root / "a4a.lock").symlink_to(target)
    fsaccess.write_text(root / "a4a.lock", "new\n", root=root)
    assert target.read_text() == "keep"
    assert not (root / "a4a.lock").is_symlink()
    assert (root / "a4a.lock").read_text() == "new\n"
    assert sorted(p.name for p in root.iterdir()) == ["a4a.lock"]


def test_write_text_outside_its_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "fw"
    root.mkdir()
    (root / "sub").symlink_to(tmp_path)
    assert _code(fsaccess.write_text, root / "sub" / "x.txt", "x", root=root) == (
        "file.outside_root")
    assert not (tmp_path / "x.txt").exists()


def test_append_line_never_follows_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target.jsonl"
    target.write_text("")
    (tmp_path / "journal.jsonl").symlink_to(target)
    assert _code(fsaccess.append_line, tmp_path / "journal.jsonl", "{}") == "io.failed"
    assert target.read_text() == ""
    fsaccess.append_line(tmp_path / "plain.jsonl", '{"id": 1}')
    assert (tmp_path / "plain.jsonl").read_text() == '{"id": 1}\n'


def test_workspace_write_makes_folders_and_refuses_escapes(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    fsaccess.workspace_write(ws, "a/b/c.txt", b"hello")
    assert (ws / "a/b/c.txt").read_bytes() == b"hello"
    assert fsaccess.workspace_read(ws, "a/b/c.txt") == b"hello"
    (ws / "out").symlink_to(outside)
    (ws / "file").symlink_to(outside / "f.txt")
    assert _code(fsaccess.workspace_write, ws, "out/x.txt", b"x") == "file.symlink"
    assert _code(fsaccess.workspace_write, ws, "file", b"x") == "file.symlink"
    assert _code(fsaccess.workspace_write, ws, "../x.txt", b"x") == "file.outside_root"
    assert _code(fsaccess.workspace_write, ws, "/etc/x", b"x") == "file.outside_root"
    assert _code(fsaccess.workspace_read, ws, "out/f.txt") == "file.symlink"
    assert list(outside.iterdir()) == []


def test_workspace_write_never_touches_a_git_folder(tmp_path: Path) -> None:
    assert _code(fsaccess.workspace_write, tmp_path, ".git/hooks/pre-commit",
                 b"#!/bin/sh\n") == "file.protected"
    assert _code(fsaccess.workspace_write, tmp_path, "sub/.git/config", b"") == (
        "file.protected")
    assert not (tmp_path / ".git").exists()


def test_workspace_read_refuses_devices_links_and_big_files(tmp_path: Path) -> None:
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "big").write_bytes(b"x" * 2000)
    assert _code(fsaccess.workspace_read, tmp_path, "zero") == "file.symlink"
    assert _code(fsaccess.workspace_read, tmp_path, "big", max_bytes=1000) == "file.too_large"
    assert _code(fsaccess.workspace_read, tmp_path, "nothing") == "file.missing"


@pytest.mark.parametrize(("number", "code"), [(errno.EROFS, "io.read_only"),
                                              (errno.ENOSPC, "io.disk_full"),
                                              (errno.EDQUOT, "io.disk_full"),
                                              (errno.EACCES, "io.denied"),
                                              (errno.EIO, "io.failed")])
def test_os_errors_become_coded_errors(number: int, code: str) -> None:
    err = fsaccess.os_error(OSError(number, os.strerror(number)), "/out/x.jsonl")
    assert err.code == code
    assert "/out/x.jsonl" in err.message and err.hint


def test_safe_relative_paths() -> None:
    assert fsaccess.is_safe_rel("agents/a.yaml")
    for bad in ("../etc/shadow", "/etc/shadow", "a/../b", ".hidden", "a\\b", "", "a//b"):
        assert not fsaccess.is_safe_rel(bad), bad
