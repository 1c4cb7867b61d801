"""`a4a train --config FILE.yaml` and `a4a eval --model M FRAMEWORKS...`.

Only typer is imported here; the training stack (torch, transformers, peft) loads inside the
commands, so `a4a --help` stays fast.

The training config (YAML):

    recipe: finetune
    method: lora            # or full
    model: {name: path/to/hf-model-dir}
    data: {path: data/tokenized.jsonl}   # one {input_ids, attention_mask, labels} a line
    trainer: {num_epochs: 1, learning_rate: 2e-4, batch_size: 4,
              gradient_accumulation_steps: 1, max_steps: null, seed: 0}
    lora: {r: 8, alpha: 16, dropout: 0.0, target_modules: null}
    output_dir: runs/finetune

Relative paths are read relative to the config file's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
TOP_KEYS = {"recipe", "method", "model", "data", "trainer", "lora", "output_dir"}
TRAINER_KEYS = {"num_epochs", "learning_rate", "batch_size", "gradient_accumulation_steps",
                "max_steps", "seed", "max_grad_norm", "weight_decay", "save_steps"}
LORA_KEYS = {"r": "lora_r", "alpha": "lora_alpha", "dropout": "lora_dropout",
             "target_modules": "target_modules"}


def read_train_config(path: Path) -> dict[str, Any]:
    """The keyword arguments of `finetune` that a YAML config file describes.

    Raises:
        UserError: `train.config` listing every problem found in the file.
    """
    from a4a.runtime.errors import UserError
    from a4a.runtime.loader.yamlio import load_yaml_file

    if not path.is_file():
        raise UserError("train.config", f"{path} does not exist", "Pass --config FILE.yaml.")
    data = load_yaml_file(path) or {}
    problems = [f"unknown key {k!r}" for k in data if k not in TOP_KEYS]
    if data.get("recipe", "finetune") != "finetune":
        problems.append(f"recipe {data.get('recipe')!r}: only `finetune` is supported")
    model = data.get("model")
    model = model.get("name") if isinstance(model, dict) else model
    data_path = (data.get("data") or {}).get("path")
    problems += [f"{k} is required" for k, v in (("model.name", model),
                                                  ("data.path", data_path)) if not v]
    trainer, lora = data.get("trainer") or {}, data.get("lora") or {}
    problems += [f"unknown trainer key {k!r}" for k in trainer if k not in TRAINER_KEYS]
    problems += [f"unknown lora key {k!r}" for k in lora if k not in LORA_KEYS]
    if problems:
        raise UserError("train.config", f"{path}: " + "; ".join(problems),
                        "See `a4a train --help` for the config shape.", issues=problems)
    base = path.parent
    return {"model": str(_near(base, str(model))), "dataset": str(_near(base, str(data_path))),
            "method": data.get("method", "lora"),
            "output_dir": str(_near(base, str(data.get("output_dir", "runs/finetune")))),
            **trainer, **{LORA_KEYS[k]: v for k, v in lora.items()}}


def _near(base: Path, value: str) -> Path:
    """A path of the config: relative paths are relative to the config file's folder."""
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def train(config: Annotated[Path, typer.Option("--config", help="Training YAML.")],
          as_json: JsonOpt = False) -> None:
    """Fine-tune a model on tokenized examples as a YAML config describes (LoRA or full)."""
    from a4a.cli import _emit_json, _guard

    def go() -> int:
        from a4a.training.loop import finetune

        args = read_train_config(config)
        state = finetune(**args)
        out = {"checkpoint": state.checkpoint, "steps": state.step, "tokens": state.tokens,
               "first_loss": state.losses[0], "final_loss": state.losses[-1],
               "loss_curve": str(Path(args["output_dir"]) / "loss.png"),
               "output_dir": args["output_dir"]}
        if as_json:
            _emit_json(out)
        else:
            typer.echo(f"{out['steps']} steps, loss {out['first_loss']:.4f} -> "
                       f"{out['final_loss']:.4f}; checkpoint {out['checkpoint']}")
        return 0

    _guard(as_json, go)


def eval_cmd(
    frameworks: Annotated[list[Path], typer.Argument(help="Framework directories.")],
    model: Annotated[str, typer.Option("--model", help="oracle, local, a model directory, "
                                       "scripted:<file> or fake:schema.")] = "local",
    tasks: Annotated[int, typer.Option("--tasks", min=1, max=10_000,
                                       help="Held-out tasks per framework.")] = 10,
    seed: Annotated[int, typer.Option(help="Synthesis seed (without tasks.jsonl).")] = 0,
    max_steps: Annotated[int | None, typer.Option(help="Cap each run's model calls.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run a model on frameworks' held-out tasks and report agent metrics."""
    from a4a.cli import _emit_json, _guard

    def go() -> int:
        from a4a.training.eval_run import evaluate_frameworks

        report = evaluate_frameworks(model, frameworks, tasks, seed, max_steps)
        if as_json:
            _emit_json(report)
        else:
            _print_report(report)
        return 0

    _guard(as_json, go)


# Metric -> row label; the JSON keeps the full names.
METRICS = {"tool_use_accuracy": "tool use accuracy", "task_success_rate": "task success rate",
           "step_efficiency": "step efficiency", "error_recovery_rate": "error recovery rate",
           "format_validity": "format validity", "mean_composite": "mean composite",
           "runs": "runs", "runs_with_errors": "runs with tool errors"}


def _print_report(report: dict[str, Any]) -> None:
    """One column per framework and one for all of them; one row per metric."""
    from rich.table import Table

    from a4a.render import console

    table = Table(title=f"model {report['model']}", caption="task success: composite 1; "
                  "error recovery: the checker passed after a tool error")
    table.add_column("metric", no_wrap=True)
    columns = [*((r["framework"], r) for r in report["frameworks"]),
               ("overall", report["overall"])]
    for name, _ in columns:
        table.add_column(name, justify="right", overflow="fold")
    for key, label in METRICS.items():
        table.add_row(label, *("-" if row[key] is None else f"{row[key]:.3g}"
                               for _, row in columns))
    console().print(table)
