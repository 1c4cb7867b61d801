"""Prompt templates (Jinja) rendered under a budget, in a worker process.

A prompt template comes from a config that a user, a bundle or a model may have written, so
it is never rendered in the caller's process: `render` sends it to `templating_worker.py`,
an isolated interpreter with capped memory, a sandboxed environment (StrictUndefined; no
`lipsum`, `cycler`, `joiner` or `namespace`; `range`, repetition and powers capped) and the
output capped while it streams. Each render has a wall-clock bound in the worker; a worker
that overruns it (plus a grace) is killed, and the next render starts a fresh one. One
worker serves the process, started on first use.

>>> render("Hello {{ name }}", {"name": "clerk"})
'Hello clerk'

Errors (SpecError, `.hint` says the fix): `prompt.render` (bad syntax, an undefined
variable, an operation the sandbox refuses or that fails), `prompt.too_large` (the output
cap), `prompt.budget` (the time, memory, range or power caps, or a worker that died).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from a4a.runtime.errors import SpecError

MAX_OUTPUT = 200_000  # characters of one rendered prompt
TIMEOUT_S = 2.0  # wall clock of one render
_GRACE_S = 3.0  # past the worker's own alarm, before it is killed
_START_S = 60.0  # an interpreter importing jinja2 on a loaded machine
WORKER = Path(__file__).with_name("templating_worker.py")
_HINTS = {
    "prompt.render": "Fix the template: use only the variables a4a provides and operations "
                     "the sandbox allows.",
    "prompt.too_large": f"Keep the rendered prompt under {MAX_OUTPUT} characters.",
    "prompt.budget": "Simplify the template: no long or nested loops, huge ranges or "
                     "deep recursion.",
}


def render(source: str, context: Mapping[str, Any], *, max_output: int = MAX_OUTPUT,
           timeout_s: float = TIMEOUT_S, lenient: bool = False) -> str:
    """`source` rendered with `context` (JSON-like values) under the caps above.

    `lenient` renders as NexAU does: unknown variables render empty and blocks are trimmed;
    otherwise an undefined variable is an error (StrictUndefined).

    Raises:
        SpecError: prompt.render, prompt.too_large or prompt.budget.
    """
    reply = _ask({"source": source, "context": dict(context), "max_output": max_output,
                  "timeout_s": timeout_s, "lenient": lenient}, timeout_s + _GRACE_S)
    if isinstance(reply.get("text"), str):
        return str(reply["text"])
    code = str(reply.get("code", "prompt.budget"))
    raise SpecError(code, str(reply.get("message", "the template did not render")),
                    _HINTS.get(code, _HINTS["prompt.budget"]))


class _Worker:
    """One worker process and the half-read line of its replies."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/", bufsize=0,
            env={"PATH": os.defpath, "LANG": "C.UTF-8"})
        if self.proc.stdin is None or self.proc.stdout is None:
            raise OSError("the template worker has no pipes")
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.pending = b""
        try:
            ready = json.loads(self.line(_START_S)).get("ready") is True
        except (OSError, EOFError, TimeoutError, ValueError, AttributeError):
            ready = False
        if not ready:
            self.close()
            raise OSError("the template worker did not start")

    def ask(self, request: dict[str, Any], deadline_s: float) -> dict[str, Any]:
        view = memoryview(json.dumps(request).encode() + b"\n")
        while view:  # a raw pipe may take part of a large request at a time
            view = view[self.stdin.write(view) or 0:]
        reply = json.loads(self.line(deadline_s))
        return reply if isinstance(reply, dict) else {}

    def line(self, timeout_s: float) -> bytes:
        """The next reply line; TimeoutError past `timeout_s`, EOFError when it died."""
        end = time.monotonic() + timeout_s
        while b"\n" not in self.pending:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("the template worker did not answer")
            if select.select([self.stdout], [], [], left)[0]:
                chunk = os.read(self.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError("the template worker died")
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.stdin.close()
        self.stdout.close()


_lock = threading.Lock()
_worker: _Worker | None = None
_inherited: list[_Worker] = []  # a parent's worker seen after fork: never touched


def _ask(request: dict[str, Any], deadline_s: float) -> dict[str, Any]:
    global _worker
    with _lock:
        while True:
            if _worker is not None and _worker.proc.poll() is not None:
                _worker.close()  # it died while idle
                _worker = None
            worker = _worker
            fresh = worker is None
            try:
                if worker is None:
                    worker = _worker = _Worker()
                return worker.ask(request, deadline_s)
            except (OSError, EOFError, TimeoutError, ValueError) as err:
                if _worker is not None:
                    _worker.close()
                _worker = None
                if fresh or isinstance(err, TimeoutError):
                    what = "did not finish in time" if isinstance(err, TimeoutError) else (
                        f"could not be rendered ({err})")
                    return {"code": "prompt.budget", "message": f"the template {what}"}
                # else the worker had died while idle: once more, on a fresh one


def worker_pid() -> int | None:
    """The process id of this process's template worker, when one is running."""
    worker = _worker
    return worker.proc.pid if worker is not None and worker.proc.poll() is None else None


def _after_fork() -> None:
    global _lock, _worker
    if _worker is not None:
        _inherited.append(_worker)
    _worker, _lock = None, threading.Lock()


def _shutdown() -> None:
    if _worker is not None:
        _worker.close()


os.register_at_fork(after_in_child=_after_fork)
atexit.register(_shutdown)
