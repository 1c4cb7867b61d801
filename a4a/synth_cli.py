"""`a4a synth`: many environments and their trajectories in one resumable batch."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from a4a.cli_support import JsonOpt, emit_json, guard

STAGES = {"build": "build + validate + register", "tasks": "generate tasks",
          "runs": "run + score + filter", "judge": "LLM judge"}


def synth(
    out: Annotated[Path, typer.Option("--out", "-o", help="The batch folder.")] = Path(
        "runs/synth"),
    n: Annotated[int | None, typer.Option(
        "--n", help="Environments to make (default 20).")] = None,
    tasks_per_env: Annotated[int | None, typer.Option(
        "--tasks-per-env", help="Tasks (and runs) per environment (default 5).")] = None,
    llm: Annotated[str | None, typer.Option(
        "--llm", help="Policy: oracle (default), local, openai:<model>, scripted:<file>, "
        "fake:schema.")] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Seed of requests, builds and tasks (default 0).")] = None,
    manifest: Annotated[Path | None, typer.Option(
        "--manifest", help="A YAML file listing the requests (`requests:`) to build.")] = None,
    fmt: Annotated[list[str] | None, typer.Option(
        "--format", help="Export format (repeatable; default function_calling).")] = None,
    style: Annotated[list[str] | None, typer.Option(
        "--style", help="Export tool-call style (repeatable; default openai).")] = None,
    eval_fraction: Annotated[float | None, typer.Option(
        "--eval-fraction", help="Share of frameworks held out for evaluation (default 0.1)."
    )] = None,
    max_steps: Annotated[int | None, typer.Option(
        "--max-steps", help="Cap each run's model calls.")] = None,
    judge: Annotated[str | None, typer.Option(
        "--judge", help="Also review kept runs with an LLM judge, e.g. openai:<model>.")
    ] = None,
    builder_llm: Annotated[str | None, typer.Option(
        "--builder-llm", help="Build the frameworks with the LLM-backed builders, e.g. "
        "openai:<model> (served at --base-url).")] = None,
    engine: Annotated[str, typer.Option("--engine", help="local or ray.")] = "local",
    workers: Annotated[int | None, typer.Option(
        "--workers", help="Processes (or Ray CPUs); default: all cores.")] = None,
    concurrency: Annotated[int, typer.Option(
        "--concurrency", help="Model-bound runs in flight at once.")] = 32,
    address: Annotated[str | None, typer.Option(
        "--address", help="Ray cluster address (with --engine ray).")] = None,
    base_url: Annotated[str | None, typer.Option(
        "--base-url", help="OpenAI-compatible server for openai:<model>.")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the batch in --out (its settings are kept).")] = False,
    no_catalog: Annotated[bool, typer.Option(
        "--no-catalog", help="Do not register the frameworks in the catalog.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Synthesize environments, run their tasks, filter and export the trajectories."""
    def run() -> int:
        import os

        from a4a.synth import SynthOptions, synthesize
        from a4a.synth.config import settings

        given = {"n": n, "tasks_per_env": tasks_per_env, "llm": llm, "seed": seed,
                 "manifest": str(manifest.resolve()) if manifest else None,
                 "formats": tuple(fmt) if fmt else None,
                 "styles": tuple(style) if style else None, "eval_fraction": eval_fraction,
                 "max_steps": max_steps, "judge": judge, "builder_llm": builder_llm}
        chosen = {k: v for k, v in given.items() if v is not None}
        # --resume alone keeps the batch's stored settings; any setting given is checked.
        config = settings(out, chosen) if chosen or not resume else None
        with _progress(not as_json) as tick:
            options = SynthOptions(engine=engine, workers=workers or os.cpu_count() or 1,
                                   concurrency=concurrency, address=address,
                                   catalog=not no_catalog, base_url=base_url, progress=tick)
            report = synthesize(out, config, resume=resume, options=options)
        if as_json:
            emit_json({"out": str(out), **report})
        else:
            _summary(out, report)
        return 0

    guard(as_json, run)


@contextmanager
def _progress(show: bool) -> Iterator[Any]:
    """A progress bar per stage on stderr (no refresh thread: it is redrawn on each tick)."""
    if not show:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from a4a.render import console

    bars: dict[str, Any] = {}
    with Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console(stderr=True),
                  auto_refresh=False, transient=False) as progress:
        def tick(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(STAGES.get(stage, stage), total=total)
            progress.update(bars[stage], completed=done, total=max(total, done))
            progress.refresh()

        yield tick


def _summary(out: Path, report: dict[str, Any]) -> None:
    req, runs, filt = report["requests"], report["runs"], report["filter"]
    wanted = report["config"]["n"]
    for line in report.get("warnings", []):
        typer.echo(f"warning: {line}", err=True)
    if not report["config"]["manifest"] and req["environments"] < wanted:
        typer.echo(f"warning: only {req['environments']} of {wanted} environments after "
                   f"{req['drawn']} requests (see requests.yaml for why)", err=True)
    typer.echo(f"{req['environments']} environments ({req['valid']}/{req['drawn']} requests "
               f"valid), {runs['total']} runs, mean reward {runs['reward_mean']}, "
               f"kept {filt['kept']}, dropped {filt['dropped']}")
    typer.echo(f"report: {out / 'report.md'}")
    typer.echo(f"trajectories: {out / 'trajectories.jsonl'}; exports: {out / 'export'}")
