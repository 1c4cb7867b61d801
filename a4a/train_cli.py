"""`a4a train --config FILE.yaml` and `a4a eval --model M FRAMEWORKS...`.

Only typer is imported here; the training stack (torch, transformers, peft) loads inside the
commands, so `a4a --help` stays fast.

The training config (YAML), the seed's shape:

    recipe: finetune        # or align
    method: lora            # or full; for align: grpo
    model: {name: path/to/hf-model-dir}   # or `local`: the embedded SmolLM2-135M-Instruct
    data: {path: data/agent_traces.jsonl, format: function_calling, style: hermes}
    #   with format: raw samples of it (function_calling, react, trajectory, multi_agent);
    #   without: one {input_ids, attention_mask, labels} a line
    trainer: {num_epochs: 1, learning_rate: 2e-4, batch_size: 4,
              gradient_accumulation_steps: 1, max_steps: null, seed: 0}
    lora: {r: 8, alpha: 16, dropout: 0.0, target_modules: null}
    online_rl: {enabled: true, reward_name: agent_composite, reward_kwargs: {...}}  # align
    #   with frameworks: [DIR, ...] (data.path not needed): multi-turn online RL through the
    #   runtime on their environments (tasks, max_calls, clip, server: {base_url, model})
    output_dir: runs/finetune

Numbers may be written as YAML reads them or as strings (`2e-4`). A model name that is not a
local directory is refused: nothing is downloaded. For `recipe: align`, data.path holds
environment tasks or function_calling samples (see a4a.training.grpo).
Relative paths are read relative to the config file's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from a4a.cli_support import JsonOpt, emit_json, guard

TOP_KEYS = {"recipe", "method", "model", "data", "trainer", "lora", "output_dir", "online_rl"}
DATA_KEYS = {"path", "format", "style", "max_seq_length"}
FLOATS = {"learning_rate", "max_grad_norm", "weight_decay", "temperature", "beta"}
TRAINER_KEYS = {"num_epochs", "learning_rate", "batch_size", "gradient_accumulation_steps",
                "max_steps", "seed", "max_grad_norm", "weight_decay", "save_steps"}
ALIGN_KEYS = {"num_generations", "max_new_tokens", "temperature", "beta"}
LORA_KEYS = {"r": "lora_r", "alpha": "lora_alpha", "dropout": "lora_dropout",
             "target_modules": "target_modules"}
RECIPES = {"finetune": ("lora", "full"), "align": ("grpo",)}


def _number(key: str, value: Any, problems: list[str]) -> Any:
    """A trainer value as a number: YAML reads `2e-4` as a string, a config means a float."""
    if value is None or key == "target_modules":
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        problems.append(f"{key} is {value!r}, not a number")
        return value
    if key in FLOATS or key == "dropout":
        return number
    if number != int(number):
        problems.append(f"{key} is {value!r}, not a whole number")
        return value
    return int(number)


def read_train_config(path: Path) -> dict[str, Any]:
    """The keyword arguments of `finetune` (or, for `recipe: align`, of `align`) a YAML holds.

    Raises:
        UserError: `train.config` listing every problem found in the file.
    """
    from a4a.runtime.errors import UserError
    from a4a.runtime.loader.yamlio import load_yaml_file

    if not path.is_file():
        raise UserError("train.config", f"{path} does not exist", "Pass --config FILE.yaml.")
    data = load_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise UserError("train.config", f"{path}: not a mapping of keys",
                        "See `a4a train --help` for the config shape.")
    problems = [f"unknown key {k!r}" for k in data if k not in TOP_KEYS]
    recipe = data.get("recipe", "finetune")
    method = data.get("method", "lora" if recipe == "finetune" else "grpo")
    if recipe not in RECIPES:
        problems.append(f"recipe {recipe!r}: use finetune or align")
    elif method not in RECIPES[recipe]:
        problems.append(f"method {method!r} for recipe {recipe}: use "
                        f"{' or '.join(RECIPES[recipe])}")
    model = data.get("model")
    model = model.get("name") if isinstance(model, dict) else model
    section = {k: data.get(k) or {} for k in ("data", "trainer", "lora", "online_rl")}
    problems += [f"{k} is not a mapping" for k, v in section.items() if not isinstance(v, dict)]
    section = {k: v if isinstance(v, dict) else {} for k, v in section.items()}
    data_path = section["data"].get("path")
    online = recipe == "align" and bool(section["online_rl"].get("frameworks"))
    problems += [f"{k} is required" for k, v in (("model.name", model),
                                                  ("data.path", data_path or online)) if not v]
    trainer, lora = section["trainer"], section["lora"]
    problems += [f"unknown data key {k!r}" for k in section["data"] if k not in DATA_KEYS]
    known = TRAINER_KEYS | (ALIGN_KEYS if recipe == "align" else set())
    problems += [f"unknown trainer key {k!r}" for k in trainer if k not in known]
    problems += [f"unknown lora key {k!r}" for k in lora if k not in LORA_KEYS]
    trainer = {k: _number(k, v, problems) for k, v in trainer.items()}
    lora = {k: _number(k, v, problems) for k, v in lora.items()}
    fmt = section["data"].get("format")
    if fmt is not None:
        from a4a.training.data import FORMATS

        if fmt not in FORMATS:
            problems.append(f"data.format {fmt!r}: use one of {', '.join(FORMATS)}")
    if problems:
        raise UserError("train.config", f"{path}: " + "; ".join(problems),
                        "See `a4a train --help` for the config shape.", issues=problems)
    base = path.parent
    extra = {k: section["data"][k] for k in ("style", "max_seq_length") if k in section["data"]}
    out = {"model": _model(base, str(model)), "dataset": str(_near(base, str(data_path))),
           "method": method, "format": fmt,
           "output_dir": str(_near(base, str(data.get("output_dir", f"runs/{recipe}")))),
           **extra, **trainer, **{LORA_KEYS[k]: v for k, v in lora.items()}}
    if recipe == "align":
        out["recipe"] = "align"
        out["online_rl"] = _online(base, section["online_rl"])
        out["dataset"] = out["dataset"] if data_path else None
    return out


def _online(base: Path, section: dict[str, Any]) -> dict[str, Any]:
    """The online_rl section with its framework paths relative to the config's folder."""
    frameworks = section.get("frameworks")
    if frameworks is None:
        return section
    if not isinstance(frameworks, list):
        from a4a.runtime.errors import UserError

        raise UserError("train.config", "online_rl.frameworks is not a list of directories",
                        "Write frameworks: [path/to/framework, ...].")
    return {**section, "frameworks": [str(_near(base, str(f))) for f in frameworks]}


def _model(base: Path, value: str) -> str:
    """A model of the config: a path relative to the config's folder when one exists there."""
    near = _near(base, value)
    return str(near) if near.exists() else value


def _near(base: Path, value: str) -> Path:
    """A path of the config: relative paths are relative to the config file's folder."""
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def train(config: Annotated[Path, typer.Option("--config", help="Training YAML.")],
          as_json: JsonOpt = False) -> None:
    """Fine-tune (LoRA or full) or align (GRPO) a model as a YAML config describes."""
    def go() -> int:
        args = read_train_config(config)
        if args.pop("recipe", "finetune") == "align":
            from a4a.training.grpo import align

            report = align(**args)
            if as_json:
                emit_json(report)
            else:
                typer.echo(f"{report['steps']} GRPO steps, mean reward "
                           f"{report['first_reward']:.3f} -> {report['final_reward']:.3f}; "
                           f"checkpoint {report['checkpoint']}")
            return 0
        from a4a.training.loop import finetune

        state = finetune(**args)
        out = {"checkpoint": state.checkpoint, "steps": state.step, "tokens": state.tokens,
               "first_loss": state.losses[0], "final_loss": state.losses[-1],
               "loss_curve": str(Path(args["output_dir"]) / "loss.png"),
               "output_dir": args["output_dir"]}
        if as_json:
            emit_json(out)
        else:
            typer.echo(f"{out['steps']} steps, loss {out['first_loss']:.4f} -> "
                       f"{out['final_loss']:.4f}; checkpoint {out['checkpoint']}")
        return 0

    guard(as_json, go)


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
    def go() -> int:
        from a4a.training.eval_run import evaluate_frameworks

        report = evaluate_frameworks(model, frameworks, tasks, seed, max_steps)
        if as_json:
            emit_json(report)
        else:
            _print_report(report)
        return 0

    guard(as_json, go)


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
