"""The `a4a` command line. Thin: parses arguments, calls the API, prints. Imports lazily.

Exit codes: 0 success, 1 domain failure (invalid framework, refused request), 2 usage.
`--json` prints exactly one JSON object, also for errors: {"error": {"code", "message"}}.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from a4a.catalog_cli import app as catalog_app
from a4a.cli_support import JsonOpt, emit_json, guard
from a4a.export_cli import export as export_cmd
from a4a.mcp_cli import app as mcp_app
from a4a.models_cli import app as models_app
from a4a.synth_cli import synth
from a4a.train_cli import eval_cmd, train

app = typer.Typer(
    name="a4a", add_completion=False, no_args_is_help=True, rich_markup_mode=None,
    help="Compile natural language into validated multi-agent frameworks.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(catalog_app, name="catalog")
TrustOpt = Annotated[bool, typer.Option("--trust", help="Trust a hand-written config you have "
                                        "read: honour its import-path bindings and let it "
                                        "name files outside its folder.")]
app.add_typer(models_app, name="models")
app.add_typer(mcp_app, name="mcp")
app.command("train")(train)
app.command("eval")(eval_cmd)


def _read_request(text: str) -> str:
    if text != "-":
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
            from a4a.runtime.errors import UserError

            raise UserError("request.encoding", "the request is not valid UTF-8",
                            "Pass the request as UTF-8 text.")
        return text
    data = sys.stdin.buffer.read(1_000_001)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        from a4a.runtime.errors import UserError

        raise UserError("request.encoding", "standard input is not valid UTF-8",
                        "Pass the request as UTF-8 text.") from err


@app.command()
def build(
    text: Annotated[str, typer.Argument(help='The request, e.g. "a team that triages GitHub '
                                        'issues"; "-" reads standard input.')],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory "
                                             "(default: ./frameworks/NAME).")] = None,
    seed: Annotated[int, typer.Option(help="Build seed (same text + seed = same bytes).")] = 0,
    llm: Annotated[str | None, typer.Option(help="Build with a model (openai:<model>); the "
                                            "default is the offline rule-based compiler.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible "
                                                 "server of --llm (vLLM, Ollama, ...).")] = None,
    no_catalog: Annotated[bool, typer.Option("--no-catalog", help="Do not register the "
                                             "framework in the catalog.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show why: roles and duties, "
                                          "cues and scores, pattern, packs, tools per "
                                          "agent.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build and validate a framework from a natural-language request."""

    def run() -> int:
        from a4a import api
        from a4a.runtime.errors import UserError

        if base_url and llm in (None, "rules"):
            raise UserError("usage.base_url", "--base-url needs --llm",
                            "Add --llm openai:<model>, or drop --base-url.")
        request = _read_request(text)
        target = out
        if target is None:
            from a4a.generator.pipeline import compile_request

            target = Path("frameworks") / compile_request(request, seed).spec.name
        result = api.build(request, seed=seed, out=target, catalog=not no_catalog, llm=llm,
                           base_url=base_url)
        why = _explain(request, seed) if explain else None
        if as_json:
            emit_json({**result.to_dict(), **({"explain": why} if why else {})})
        else:
            from a4a.render import print_build

            print_build(result)
            if result.builder is not None:
                _print_builder(result.builder)
            if why:
                from a4a.generator.explain import render_text

                sys.stdout.write(render_text(why) + "\n")
        return 0 if result.valid else 1

    guard(as_json, run)


def _print_builder(report: dict[str, Any]) -> None:
    from a4a.render import console

    calls = report["llm"]
    verified = report["verification"] or {}
    line = (f"builder {report['builder']} ({report['model']}): {calls['calls']} LLM call(s), "
            f"{calls['prompt_tokens'] + calls['completion_tokens']} tokens, "
            f"{report['rounds']} round(s)")
    if "tasks" in verified:
        line += (f", verification {verified['outcome']}: oracle solved "
                 f"{verified['oracle_solved']}/{verified['tasks']} task(s), "
                 f"{len(verified['agents_entered'])} agent(s) entered")
    console().print(line, markup=False, highlight=False)
    for r in verified.get("rounds", []):
        where = f"agent {r['agent']}" if r["agent"] else r["scope"]
        codes = ", ".join(i["code"] for i in r["issues"])
        console().print(f"round {r['round']} failed ({codes}); repaired at {where}",
                        markup=False, highlight=False)
    if report["fallback"]:
        console().print(f"fell back to the rules: {report['fallback']}", markup=False,
                        highlight=False)


builder_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                          help="The LLM-backed builders: tune their DSPy program.")
app.add_typer(builder_app, name="builder")


@builder_app.command("tune")
def builder_tune(
    llm: Annotated[str, typer.Option(help="Model to tune with, e.g. openai:<model>.")],
    trainset: Annotated[Path, typer.Option(help="Labelled requests (`cases:`), e.g. "
                                           "tests/data/generation/tuning.yaml.")],
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible "
                                                 "server of --llm.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Where to save the program "
                                             "(default $A4A_HOME/builder/program.json, "
                                             "which `a4a build --llm` loads).")] = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N cases.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compile the builders' DSPy program against validity, verification and fit."""

    def run() -> int:
        from a4a.generator.llm.builder import LLMOptions
        from a4a.generator.llm.engine import require_dspy

        require_dspy()
        from a4a.generator.llm.tune import tune

        report = tune(LLMOptions(llm, base_url=base_url), trainset, out, limit)
        if as_json:
            emit_json(report.to_dict())
        else:
            typer.echo(f"tuned on {report.cases} case(s): score {report.before} -> "
                       f"{report.after}, {report.calls} LLM call(s); saved {report.path}")
        return 0

    guard(as_json, run)


def _explain(request: str, seed: int) -> dict[str, Any]:
    from a4a.generator.explain import explain
    from a4a.generator.pipeline import compile_request

    return explain(compile_request(request, seed))


@app.command()
def validate(
    path: Annotated[Path, typer.Argument(help="Framework directory, framework.yaml, or a "
                                         "NexAU-style agent YAML.")],
    trust: TrustOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Validate a framework or agent config; exit 0 when valid, 1 when not."""

    def run() -> int:
        from a4a import api

        report = api.validate(path, trusted=trust)
        if as_json:
            emit_json(report.to_dict())
        else:
            from a4a.render import print_report

            print_report(report)
        return 0 if report.valid else 1

    guard(as_json, run)


@app.command()
def show(
    path: Annotated[Path, typer.Argument(help="Framework directory or agent YAML.")],
    mermaid: Annotated[bool, typer.Option(help="Print the mermaid graph only.")] = False,
    trust: TrustOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show a framework: its agents and tools as a tree, and its graph."""

    def run() -> int:
        from a4a import api

        spec = api.load(path, trusted=trust)
        if as_json:
            emit_json(spec.model_dump(mode="json", exclude_defaults=True))
        elif mermaid:
            from a4a.generator.readme import mermaid as to_mermaid

            sys.stdout.write(to_mermaid(spec) + "\n")
        else:
            from a4a.render import print_spec

            print_spec(spec)
        return 0

    guard(as_json, run)


@app.command()
def run(
    path: Annotated[Path, typer.Argument(help="Framework directory or agent YAML.")],
    task: Annotated[str | None, typer.Argument(help="The task for the framework (omit with "
                                               "--task).")] = None,
    llm: Annotated[str, typer.Option(help="Model: openai:<model>, config (a NexAU config's "
                                     "own), local, scripted:<file>, fake:schema.")] = "local",
    out: Annotated[Path | None, typer.Option(help="Append the trajectory to this JSONL "
                                             "file (default: runs/<framework>.jsonl).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.")] = None,
    seed: Annotated[int, typer.Option(help="World and sampling seed.")] = 0,
    max_steps: Annotated[int | None, typer.Option(help="Cap the run's model calls below the "
                                                  "framework's limit.")] = None,
    trust: TrustOpt = False,
    network: Annotated[bool, typer.Option(help="Let web tools and remote MCP servers reach "
                                          "the network.")] = False,
    task_id: Annotated[str | None, typer.Option("--task", help="Run a generated task "
                                                "(environment/tasks.jsonl) and score it; "
                                                "TASK is then ignored.")] = None,
    repeat: Annotated[int, typer.Option(min=1, max=100, help="Run it K times and report "
                                        "pass^k (with --task).")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Run a framework on a task; print the answer and status, write the trajectory."""

    def go() -> int:
        from a4a import api
        from a4a.runtime.errors import UserError

        if task is None and task_id is None:
            raise UserError("run.no_task", "no task given", 'Pass "TASK" or --task ID.')
        target = out or Path("runs") / f"{api.load(path, trusted=trust).name}.jsonl"
        records = [api.run(path, task or "", llm, out=target, seed=seed, base_url=base_url,
                           trusted=trust, network=network, max_steps=max_steps,
                           task_id=task_id or "adhoc", attempt=i) for i in range(repeat)]
        record = records[-1]
        summary = {"run_id": record.run_id, "status": record.status,
                   "final_answer": record.final_answer, "trajectory": str(target),
                   **record.counts, "error": record.error, "task_id": record.task_id,
                   "rewards": record.rewards}
        if record.rewards is not None and repeat > 1:
            from a4a.runtime.world.rewards import pass_hat_k

            scores = [r.rewards["composite"] for r in records if r.rewards]
            summary["pass_hat_k"] = {str(k): pass_hat_k(scores, k) for k in range(1, repeat + 1)}
        if as_json:
            emit_json(summary)
        else:
            from a4a.render import print_run

            print_run(summary)
        return 0 if record.status == "completed" else 1

    guard(as_json, go)


@app.command("tasks")
def tasks_cmd(
    path: Annotated[Path, typer.Argument(help="Framework directory.")],
    n: Annotated[int, typer.Option("--n", min=1, max=10_000, help="How many tasks.")] = 20,
    seed: Annotated[int, typer.Option(help="Sampling seed (same seed, same file).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Generate verifiable tasks (query, gold plan, checker) into environment/tasks.jsonl."""

    def go() -> int:
        from a4a import api

        made = api.tasks(path, n, seed)
        rows = [{"id": t.id, "difficulty": t.difficulty, "query": t.query,
                 "calls": len(t.plan)} for t in made]
        if as_json:
            emit_json({"path": str(path / "environment" / "tasks.jsonl"), "tasks": rows})
        else:
            from a4a.render import console

            c = console()
            for r in rows:
                c.print(f"{r['id']}  [dim]{r['difficulty']}, {r['calls']} calls[/]  {r['query']}",
                        markup=True, highlight=False)
            c.print(f"{len(rows)} task(s) written to {path / 'environment' / 'tasks.jsonl'}")
        return 0 if made else 1

    guard(as_json, go)


trace_app = typer.Typer(help="Inspect trajectories.", no_args_is_help=True,
                        rich_markup_mode=None)
app.add_typer(trace_app, name="trace")


@trace_app.command("show")
def trace_show(
    file: Annotated[Path, typer.Argument(help="Trajectory JSONL file.")],
    run_id: Annotated[str | None, typer.Option("--run", help="Only this run id.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Render the runs of a trajectory file as readable transcripts."""

    def go() -> int:
        from a4a.runtime.engine.trace import read
        from a4a.runtime.errors import UserError

        if not file.is_file():
            raise UserError("path.missing", f"{file} does not exist", "Check the path.")
        records = [r for r in read(file) if run_id in (None, r["run_id"])]
        if as_json:
            emit_json({"runs": records})
            return 0
        from a4a.render import print_transcript

        for record in records:
            print_transcript(record)
        return 0

    guard(as_json, go)


@trace_app.command("export")
def trace_export(
    file: Annotated[Path, typer.Argument(help="Trajectory JSONL file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The JSON file to write.")],
    fmt: Annotated[str, typer.Option("--format", help="nexrl: the in-memory tracer's span "
                                     "trees NexRL's rollout worker reads.")] = "nexrl",
    run_id: Annotated[str | None, typer.Option("--run", help="Only this run id.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the runs of a trajectory file as NexRL span trees (one list of roots per run)."""

    def go() -> int:
        from a4a.runtime.nexrl.spans import export_file

        written = export_file(file, out, fmt=fmt, run_id=run_id)
        if as_json:
            emit_json({"path": str(out), "runs": written})
        else:
            sys.stdout.write(f"wrote {written} run(s) of span trees to {out}\n")
        return 0

    guard(as_json, go)


@app.command()
def version(as_json: JsonOpt = False) -> None:
    """Print the a4a version."""
    from a4a import __version__

    if as_json:
        emit_json({"version": __version__})
    else:
        sys.stdout.write(f"a4a {__version__}\n")


app.command("export")(export_cmd)
app.command("synth")(synth)


def main() -> None:
    """Console-script entry point."""
    app()
