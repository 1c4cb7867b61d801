"""NexAU's shell, code and background-task tools, run only in the sandbox.

Commands run as `bash -c` inside the sandbox (a4a.runtime.sandbox): the workspace mounted at
WORKDIR, no network, rlimits and a wall-clock kill. Without a working sandbox the call fails
closed (`sandbox.unavailable`) unless the run allowed unsafe execution explicitly.

A background command cannot outlive its sandbox run, so `is_background` runs it to its end
(within the same limits) and files the result under a pid that BackgroundTaskManage reads.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from a4a.runtime.errors import A4AError
from a4a.runtime.sandbox import SandboxLimits, SandboxResult
from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.common import WORKDIR, Failure, arg, folder, ok, relative, text_arg

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
_SHELL = """import subprocess, sys
done = subprocess.run(["/bin/bash", "-c", {command!r}], cwd={cwd!r},
                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(done.stdout)
sys.stdout.flush()
sys.exit(done.returncode if done.returncode >= 0 else 128 - done.returncode)
"""


@dataclass
class Task:
    """A background command and how it ended."""

    pid: int
    command: str
    result: SandboxResult


def limits(timeout_s: float) -> SandboxLimits:
    """The sandbox limits of one command."""
    wall = min(max(timeout_s, 1.0), MAX_TIMEOUT_S)
    return SandboxLimits(timeout_s=wall, cpu_s=int(wall), max_output_bytes=200_000)


async def run_sandboxed(ctx: ToolContext, code: str, timeout_s: float) -> SandboxResult:
    """Run Python `code` in the run's sandbox; raises Failure when there is none."""
    from a4a.runtime.sandbox import get_sandbox

    try:
        sandbox = ctx.services.get("sandbox") or get_sandbox(
            allow_unsafe=bool(ctx.services.get("allow_unsafe")))
        return await asyncio.to_thread(sandbox.run_python, code, workspace=ctx.workspace,
                                       limits=limits(timeout_s))
    except A4AError as err:
        raise Failure(err.code, err.message, err.hint) from err
    except OSError as err:
        raise Failure("SANDBOX_FAILED", f"the sandbox could not run the command: {err}",
                      "Try again later.") from err


def _timeout(args: dict[str, Any]) -> float:
    ms = arg(args, "timeout_ms", "timeout")
    return float(ms) / 1000 if isinstance(ms, int | float) and ms > 0 else DEFAULT_TIMEOUT_S


def _summary(result: SandboxResult) -> str:
    parts = []
    if result.timed_out:
        parts.append(f"Timeout: the command was killed after {result.duration_s:.1f} s.")
    output = (result.stdout + result.stderr).strip("\n")
    parts.append(f"Output: {output or '(empty)'}")
    if result.truncated:
        parts.append("(output truncated)")
    if result.exit_code not in (0, None):
        parts.append(f"Exit Code: {result.exit_code}")
    return "\n".join(parts)


async def run_shell_command(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Run a bash command in the sandbox (NexAU's run_shell_command)."""
    command = text_arg(args, "command")
    if not command.strip():
        raise Failure("INVALID_COMMAND", "Command cannot be empty.", "Pass a command.")
    rel = relative(text_arg(args, "dir_path", "directory", required=False) or ".",
                   allow_root=True)
    folder(ctx, rel)
    cwd = f"{WORKDIR}/{rel}" if rel else WORKDIR
    code = _SHELL.format(command=command, cwd=cwd)
    if arg(args, "is_background") is True:
        return await _background(ctx, command, code, _timeout(args))
    result = await run_sandboxed(ctx, code, _timeout(args))
    if result.timed_out:
        return Failure("SHELL_EXECUTE_ERROR", _summary(result),
                       "Run a shorter command, or raise its timeout.").outcome()
    return ok(_summary(result), exit_code=result.exit_code,
              duration_ms=int(result.duration_s * 1000))


def _tasks(ctx: ToolContext) -> dict[int, Task]:
    tasks: dict[int, Task] = ctx.services.setdefault("background_tasks", {})
    return tasks


async def _background(ctx: ToolContext, command: str, code: str, timeout_s: float
                      ) -> ToolOutcome:
    result = await run_sandboxed(ctx, code, timeout_s)
    tasks = _tasks(ctx)
    pid = 1000 + len(tasks)
    tasks[pid] = Task(pid, command, result)
    return ok(f"Background task started (pid: {pid}). It ran to its end in the sandbox; use "
              f"BackgroundTaskManage with action='status' and pid={pid} to read its output.",
              backgroundPids=[pid])


def background_tasks(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Status / kill / list of background tasks (NexAU's BackgroundTaskManage)."""
    action = text_arg(args, "action")
    tasks = _tasks(ctx)
    if action == "list":
        if not tasks:
            return ok("No background tasks.")
        rows = [f"pid {t.pid}: {_status(t)} - {t.command[:120]}" for t in tasks.values()]
        return ok("\n".join(rows))
    if action not in ("status", "kill"):
        raise Failure("INVALID_ARGUMENTS", f"unknown action {action!r}",
                      "Use status, kill or list.")
    pid = arg(args, "pid")
    task = tasks.get(pid) if isinstance(pid, int) else None
    if task is None:
        raise Failure("TASK_NOT_FOUND", f"no background task with pid {pid}",
                      "Use action='list' to see the tasks.")
    if action == "kill":
        del tasks[task.pid]
        return ok(f"Background task {task.pid} had already finished; it was removed.")
    return ok(f"Status: {_status(task)}\n{_summary(task.result)}",
              exit_code=task.result.exit_code)


def _status(task: Task) -> str:
    return "success" if task.result.exit_code == 0 and not task.result.timed_out else "error"


async def run_code(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Run Python code in the sandbox (NexAU's run_code_tool)."""
    code = text_arg(args, "code_block", "code")
    result = await run_sandboxed(ctx, code, _timeout(args))
    return ok(_summary(result), stdout=result.stdout, stderr=result.stderr,
              exit_code=result.exit_code, timed_out=result.timed_out)
