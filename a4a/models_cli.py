"""`a4a models`: fetch and list the embedded model's weights.

Only typer is imported here; torch and transformers load inside `pull`, and only when a
conversion is needed, so `a4a --help` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from a4a.cli_support import JsonOpt, emit_json, guard

if TYPE_CHECKING:
    from a4a.runtime.llm.models import PullResult

app = typer.Typer(
    name="models", add_completion=False, no_args_is_help=True, rich_markup_mode=None,
    help="The embedded model (SmolLM2-135M-Instruct): pull its weights, list the cache.")


def _pull_showing_progress() -> PullResult:
    from a4a.render import console
    from a4a.runtime.llm import models

    err = console(stderr=True)
    with err.status("checking the model cache") as status:

        def progress(stage: str) -> None:
            status.update(stage)
            err.print(f"[dim]models:[/] {stage}", markup=True, highlight=False)

        return models.pull(progress=progress)


@app.command()
def pull(as_json: JsonOpt = False) -> None:
    """Download and convert the embedded model into the cache; a no-op when it is there."""
    def run() -> int:
        from a4a.runtime.llm import models

        result = models.pull() if as_json else _pull_showing_progress()
        if as_json:
            emit_json(result.to_dict())
            return 0
        size = sum(result.manifest["files"].values()) / 1e6
        done = "pulled" if result.pulled else "already cached:"
        typer.echo(f"{done} {result.name} at {result.path} ({size:.0f} MB)")
        return 0

    guard(as_json, run)


@app.command("list")
def list_models(as_json: JsonOpt = False) -> None:
    """List the models a4a knows and whether each is cached."""
    def run() -> int:
        from a4a.runtime.llm import models

        rows = models.list_models()
        if as_json:
            emit_json({"models": rows})
            return 0
        for row in rows:
            state = f"{row['size_bytes'] / 1e6:.0f} MB" if row["installed"] else "not pulled"
            typer.echo(f"{row['name']}  {state}  {row['path']}  (from {row['source']})")
        return 0

    guard(as_json, run)
