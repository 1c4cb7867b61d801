"""The sandbox API: limits, results, the fake, choosing a sandbox, exit codes and output."""

from __future__ import annotations

import math
import os
import stat
import threading
from pathlib import Path

import pytest

from a4a.runtime.errors import RunError, UserError
from a4a.runtime.sandbox import (
    CPU,
    DISK,
    FILE_SIZE,
    MEMORY,
    PROCESSES,
    TIMEOUT,
    BubblewrapSandbox,
    FakeSandbox,
    Sandbox,
    SandboxLimits,
    SandboxResult,
    UnsafeLocalSandbox,
    get_sandbox,
    scripted_result,
)
from a4a.runtime.sandbox.process import Outcome, to_result
from a4a.runtime.sandbox.seccomp import REFUSED, seccomp_program
from tests.runtime.sandbox_support import real_sandbox, wait_gone

LIMITS = SandboxLimits(timeout_s=20)


@pytest.fixture(params=["bubblewrap", "unsafe-local"])
def any_sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Both real sandboxes: behaviour that does not depend on isolation holds for each."""
    return real_sandbox() if request.param == "bubblewrap" else UnsafeLocalSandbox()


# -- data ---------------------------------------------------------------------------------

def test_limits_defaults() -> None:
    limits = SandboxLimits()
    assert (limits.timeout_s, limits.memory_mb, limits.cpu_s) == (10, 512, 10)
    assert (limits.max_output_bytes, limits.max_processes, limits.max_file_mb) == (65536, 64, 16)
    assert (limits.workspace_mb, limits.max_files) == (128, 4096)


@pytest.mark.parametrize("field", ["timeout_s", "memory_mb", "cpu_s", "max_output_bytes",
                                   "max_processes", "max_file_mb",
                                   "workspace_mb", "max_files"])
@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, True, "5"])
def test_limits_reject_non_positive_values(field: str, value: object) -> None:
    with pytest.raises(UserError) as info:
        SandboxLimits(**{field: value})  # type: ignore[arg-type]
    assert info.value.code == "sandbox.limits"
    assert info.value.hint
    assert info.value.data["fields"] == [field]


def test_limits_other_than_the_timeout_are_whole_numbers() -> None:
    assert SandboxLimits(timeout_s=0.5).timeout_s == 0.5
    with pytest.raises(UserError) as info:
        SandboxLimits(memory_mb=1.5)  # type: ignore[arg-type]
    assert info.value.data["fields"] == ["memory_mb"]


def test_result_ok() -> None:
    assert scripted_result("x").ok
    assert not scripted_result(exit_code=1).ok
    assert not scripted_result(exit_code=None, timed_out=True).ok


@pytest.mark.parametrize(("exit_code", "stderr", "limit"), [
    (-24, "", CPU),
    (-9, "", CPU),
    (1, "Traceback ...\nMemoryError\n", MEMORY),
    (1, "OSError: [Errno 27] File too large\n", FILE_SIZE),
    (1, "BlockingIOError: [Errno 11] Resource temporarily unavailable\n", PROCESSES),
    (1, "OSError: [Errno 28] No space left on device: 'f9'\n", DISK),
    (1, "ValueError: boom\n", None),
    (0, "MemoryError", None),
])
def test_limit_hit_is_read_from_how_the_code_ended(exit_code: int, stderr: str,
                                                   limit: str | None) -> None:
    outcome = Outcome(exit_code, b"", stderr.encode(), False, False, 0.0)
    assert to_result(outcome, exit_code).limit_hit == limit


def test_timeout_wins_over_everything_else() -> None:
    result = to_result(Outcome(None, b"", b"MemoryError", True, False, 0.0), None)
    assert (result.limit_hit, result.timed_out, result.exit_code) == (TIMEOUT, True, None)


@pytest.mark.parametrize("machine", sorted(REFUSED))
def test_seccomp_program_is_whole_instructions(machine: str) -> None:
    program = seccomp_program(machine)
    assert len(program) % 8 == 0
    # arch check, its deny, the load of the number, one check per call (+ x32), allow, deny
    extra = 1 if machine == "x86_64" else 0
    assert len(program) // 8 == 4 + len(REFUSED[machine]) + extra + 2


def test_seccomp_fails_closed_on_an_unknown_machine() -> None:
    with pytest.raises(RunError) as info:
        seccomp_program("riscv64")
    assert info.value.code == "sandbox.unavailable"
    assert info.value.hint


# -- the fake -------------------------------------------------------------------------------

def test_fake_returns_the_script_in_order_and_records_calls(workspace: Path) -> None:
    first, second = scripted_result("one"), scripted_result(exit_code=2, stderr="bad")
    fake = FakeSandbox([first, second])
    sandbox: Sandbox = fake
    assert sandbox.run_python("print(1)", workspace=workspace, limits=LIMITS) is first
    assert sandbox.run_python("print(2)", workspace=workspace, limits=SandboxLimits()) is second
    assert fake.codes == ["print(1)", "print(2)"]
    assert fake.calls[0].workspace == workspace
    assert fake.calls[0].limits is LIMITS
    fake.assert_consumed()


def test_fake_fails_loudly_when_the_script_runs_out(workspace: Path) -> None:
    fake = FakeSandbox([])
    with pytest.raises(RunError) as info:
        fake.run_python("x", workspace=workspace, limits=LIMITS)
    assert info.value.code == "sandbox.fake_exhausted"
    assert fake.codes == ["x"]


def test_fake_default_and_unused_script(workspace: Path) -> None:
    fallback = scripted_result("again")
    fake = FakeSandbox(default=fallback)
    assert fake.run_python("a", workspace=workspace, limits=LIMITS) is fallback
    assert fake.run_python("b", workspace=workspace, limits=LIMITS) is fallback
    left = FakeSandbox([scripted_result()])
    assert left.remaining == 1
    with pytest.raises(AssertionError):
        left.assert_consumed()


# -- choosing a sandbox ---------------------------------------------------------------------

def test_get_sandbox_fails_closed_without_bwrap(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RunError) as info:
        get_sandbox()
    assert info.value.code == "sandbox.unavailable"
    assert "bubblewrap" in info.value.hint
    assert "unsafe" in info.value.hint


def test_unsafe_sandbox_only_with_the_explicit_flag(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert isinstance(get_sandbox(allow_unsafe=True), UnsafeLocalSandbox)
    with pytest.raises(RunError):
        get_sandbox(allow_unsafe=False)


def test_get_sandbox_fails_closed_when_bwrap_does_not_work(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                      "exit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    with pytest.raises(RunError) as info:
        get_sandbox()
    assert info.value.code == "sandbox.unavailable"
    assert "No permissions" in info.value.message
    assert isinstance(get_sandbox(allow_unsafe=True), UnsafeLocalSandbox)


def test_get_sandbox_prefers_working_bubblewrap() -> None:
    sandbox = real_sandbox()
    assert sandbox.name == "bubblewrap"
    assert get_sandbox(allow_unsafe=True).name == "bubblewrap"


def test_bubblewrap_with_a_missing_program_refuses_to_run(workspace: Path) -> None:
    sandbox = BubblewrapSandbox(bwrap=str(workspace / "no-such-bwrap"))
    with pytest.raises(RunError) as info:
        sandbox.run_python("print(1)", workspace=workspace, limits=LIMITS)
    assert info.value.code == "sandbox.unavailable"
    assert "bubblewrap" in info.value.hint


def test_workspace_must_be_a_directory(any_sandbox: Sandbox, tmp_path: Path) -> None:
    for bad in (tmp_path / "missing", tmp_path / "file.txt"):
        if bad.name == "file.txt":
            bad.write_text("x")
        with pytest.raises(UserError) as info:
            any_sandbox.run_python("print(1)", workspace=bad, limits=LIMITS)
        assert info.value.code == "sandbox.workspace"


# -- behaviour common to both real sandboxes --------------------------------------------------

@pytest.mark.parametrize(("code", "exit_code"), [
    ("print('hi')", 0),
    ("import sys; sys.exit(3)", 3),
    ("raise ValueError('boom')", 1),
    ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", -15),
])
def test_exit_codes(any_sandbox: Sandbox, workspace: Path, code: str, exit_code: int) -> None:
    result = any_sandbox.run_python(code, workspace=workspace, limits=LIMITS)
    assert result.exit_code == exit_code
    assert not result.timed_out
    if exit_code == 1:
        assert "ValueError: boom" in result.stderr


def test_output_is_truncated_per_stream(any_sandbox: Sandbox, workspace: Path) -> None:
    code = "import sys\nprint('o' * 5000)\nprint('e' * 5000, file=sys.stderr)\n"
    result = any_sandbox.run_python(code, workspace=workspace,
                                    limits=SandboxLimits(timeout_s=20, max_output_bytes=100))
    assert result.truncated
    assert result.stdout == "o" * 100
    assert result.stderr == "e" * 100
    assert result.exit_code == 0


def test_output_under_the_cap_is_whole(any_sandbox: Sandbox, workspace: Path) -> None:
    code = "import sys\nsys.stdout.buffer.write(b'caf\\xc3\\xa9 \\xff')\n"
    result = any_sandbox.run_python(code, workspace=workspace, limits=LIMITS)
    assert result.stdout == "café \ufffd"
    assert not result.truncated


def test_stdin_is_empty(any_sandbox: Sandbox, workspace: Path) -> None:
    result = any_sandbox.run_python("input()", workspace=workspace, limits=LIMITS)
    assert result.exit_code == 1
    assert "EOFError" in result.stderr


def test_big_and_unicode_code_runs(any_sandbox: Sandbox, workspace: Path) -> None:
    code = "\n".join(f"v{i} = '{'é' * 20}'" for i in range(20000)) + "\nprint(len(v19999))\n"
    result = any_sandbox.run_python(code, workspace=workspace, limits=LIMITS)
    assert (result.exit_code, result.stdout) == (0, "20\n")


def test_workspace_holds_only_what_the_code_writes(any_sandbox: Sandbox,
                                                   workspace: Path) -> None:
    code = "import os\nprint(sorted(os.listdir('.')))\nopen('made.txt', 'w').write('x')\n"
    result = any_sandbox.run_python(code, workspace=workspace, limits=LIMITS)
    assert result.stdout == "[]\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["made.txt"]


def test_timeout_kills_the_whole_group(any_sandbox: Sandbox, workspace: Path) -> None:
    marker = f"7{os.getpid()}{threading.get_ident() % 1000}.25"
    code = ("import subprocess, time\n"
            f"subprocess.Popen(['/bin/sleep', '{marker}'])\n"
            "time.sleep(600)\n")
    result = any_sandbox.run_python(code, workspace=workspace,
                                    limits=SandboxLimits(timeout_s=1))
    assert result.timed_out
    assert result.exit_code is None
    assert result.limit_hit == TIMEOUT
    assert wait_gone(marker) == []


def test_memory_limit(any_sandbox: Sandbox, workspace: Path) -> None:
    result = any_sandbox.run_python("x = bytearray(400 * 1024 * 1024)", workspace=workspace,
                                    limits=SandboxLimits(timeout_s=20, memory_mb=128))
    assert result.exit_code == 1
    assert result.limit_hit == MEMORY


def test_concurrent_runs_stay_apart(tmp_path: Path) -> None:
    sandbox = real_sandbox()
    results: dict[int, SandboxResult] = {}

    def one(i: int) -> None:
        ws = tmp_path / f"ws{i}"
        ws.mkdir()
        code = f"import os\nopen('n.txt', 'w').write('{i}')\nprint(os.listdir('.'))\n"
        results[i] = sandbox.run_python(code, workspace=ws, limits=LIMITS)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert results[i].stdout == "['n.txt']\n"
        assert (tmp_path / f"ws{i}" / "n.txt").read_text() == str(i)
