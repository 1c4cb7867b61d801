"""What every `a4a` command shares: one JSON printer, one error exit, the --json option.

Below cli.py and its sub-apps, so each sub-app uses it without importing the top-level app.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, NoReturn

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def emit_json(obj: Any) -> None:
    """Print `obj` as the one JSON object of a --json run."""
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def fail(err: Exception, as_json: bool) -> NoReturn:
    """Leave with the error's code, message and hint; unknown errors become `internal`."""
    from a4a.runtime.errors import A4AError

    if not isinstance(err, A4AError):
        if os.environ.get("A4A_DEBUG"):
            raise err
        err = A4AError("internal", f"internal error: {type(err).__name__}: {err}",
                       "Re-run with A4A_DEBUG=1 and report the traceback.")
    if as_json:
        emit_json({"error": err.to_dict()})
    else:
        from a4a.render import console

        c = console(stderr=True)
        c.print(f"[bold red]error[/] [red]{err.code}[/]: {err.message}", markup=True,
                highlight=False)
        if err.hint:
            c.print(f"[dim]hint:[/] {err.hint}", markup=True, highlight=False)
    raise typer.Exit(getattr(err, "exit_code", 1))


def guard(as_json: bool, fn: Callable[[], int]) -> None:
    """Run a command body and exit with its code; every error leaves through `fail`."""
    try:
        code = fn()
    except typer.Exit:
        raise
    except Exception as err:  # every error leaves through fail: no traceback for users
        fail(err, as_json)
    raise typer.Exit(code)
