"""`a4a export`: trajectory JSONL to conversational training JSONL. Imports lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from a4a.cli_support import JsonOpt, emit_json, guard


def export(
    runs: Annotated[Path, typer.Argument(help="Trajectory JSONL written by `a4a run` (with "
                                         "--nexrl: a framework directory).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The JSONL file to write.")
                   ] = None,
    nexrl: Annotated[Path | None, typer.Option(
        "--nexrl", help="Write a NexRL recipe and agent_workspace for the framework here.")
    ] = None,
    fmt: Annotated[str, typer.Option(
        "--format", help="function_calling, react, trajectory or multi_agent.")
    ] = "function_calling",
    style: Annotated[str | None, typer.Option(
        "--style", help="function_calling rows: openai (default), nexau, hermes, qwen_xml, "
        "minimax, glm or deepseek.")] = None,
    perspective: Annotated[str, typer.Option(
        "--perspective", help="system, agents, or one agent's name.")] = "system",
    status: Annotated[list[str] | None, typer.Option(
        "--status", help="Keep runs with this status (repeatable; default completed).")
    ] = None,
    any_status: Annotated[bool, typer.Option("--any-status", help="Keep every run.")] = False,
    min_reward: Annotated[float | None, typer.Option(
        "--min-reward", help="Keep runs whose composite reward is at least this.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write training samples from trajectories, in rows the format's formatter reads back.

    function_calling rows hold messages and tools in one tool-call style (--style); react,
    trajectory and multi_agent rows are those formats' JSON shapes.

    With --nexrl, write a NexRL recipe for a framework directory instead: a NexAU
    agent_workspace (agent_config.yaml, tools/, an evaluator.py whose reward is the
    environment's checker) and the tasks as its data.
    """
    def run() -> int:
        if nexrl is not None:
            from a4a.runtime.nexrl.workspace import write_workspace

            written = write_workspace(runs, nexrl)
            if as_json:
                emit_json(written.to_dict())
            else:
                typer.echo(f"wrote a NexRL recipe ({written.tools} tools, {written.tasks} "
                           f"tasks) to {nexrl}")
            return 0
        if out is None:
            from a4a.runtime.errors import UserError

            raise UserError("export.no_out", "no output file given", "Pass --out FILE.")
        from a4a.training.export import export_runs

        statuses = None if any_status else tuple(status or ("completed",))
        report = export_runs(runs, out, fmt, style, perspective=perspective,
                             statuses=statuses, min_reward=min_reward)
        if as_json:
            emit_json(report.to_dict())
        else:
            typer.echo(f"wrote {report.samples} samples from {report.records} runs to {out}")
        return 0

    guard(as_json, run)
