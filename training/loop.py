"""Supervised fine-tuning on tokenized agent examples: one plain loop, LoRA or full weights.

The loop fits on one screen: AdamW, gradient accumulation, clipping, a loss normalised by the
trainable tokens of the whole accumulated batch. Checkpoints hold their config as JSON next to
the weights; callbacks are the only extension point. torch, transformers and peft are imported
inside the functions that use them.
"""

from __future__ import annotations

import json
import math
import random
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

IGNORE = -100  # the label of a token that carries no loss
CONFIG_FILE = "train_config.json"


@dataclass(frozen=True)
class TrainConfig:
    """Everything a run needs to be repeated; stored in each checkpoint."""

    model: str
    method: str = "lora"
    num_epochs: int = 1
    learning_rate: float = 2e-4
    batch_size: int = 4
    gradient_accumulation_steps: int = 1
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.0
    target_modules: list[str] | None = None
    max_steps: int | None = None
    max_grad_norm: float = 1.0
    weight_decay: float = 0.0
    save_steps: int | None = None
    output_dir: str = "runs/finetune"
    seed: int = 0
    decision_weight: float = 1.0  # loss weight of each trained span's first token(s)
    decision_tokens: int = 1  # how many opening tokens of a span take decision_weight


@dataclass
class TrainState:
    """What the loop has done so far; callbacks read it after every optimizer step."""

    config: TrainConfig
    step: int = 0
    total_steps: int = 0
    losses: list[float] = field(default_factory=list)
    tokens: int = 0
    checkpoint: str | None = None
    model: Any = None


Callback = Callable[[TrainState], None]


EMBEDDED_NAMES = ("local", "embedded", "SmolLM2-135M-Instruct",
                  "HuggingFaceTB/SmolLM2-135M-Instruct")


def resolve_model(model: Any) -> Any:
    """A model object as given; a name of the embedded model as its cache; else a local dir.

    Raises:
        UserError: `train.model_not_local` for a name that is not a local directory (a hub
            id: nothing is downloaded); `train.model_missing` for an embedded model not cached.
    """
    from a4a.runtime.errors import UserError

    if not isinstance(model, str | Path):
        return model
    if str(model) in EMBEDDED_NAMES:
        from a4a.runtime.llm.models import model_dir

        path = model_dir()
        if not (path / "config.json").is_file():
            raise UserError("train.model_missing", f"the embedded model is not cached at {path}",
                            "Run `a4a models pull` first.", model=str(model))
        return path
    path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise UserError("train.model_not_local", f"{model} is not a local model directory "
                        "(a4a downloads no weights)", "Download it first (huggingface-cli "
                        f"download {model} --local-dir DIR) and pass DIR, or pass `local` for "
                        "the embedded SmolLM2-135M-Instruct (`a4a models pull`).",
                        model=str(model))
    return path


def tokenize_samples(model: Any, samples: Sequence[dict[str, Any]], fmt: str, style: str,
                     max_seq_length: int) -> list[dict[str, list[int]]]:
    """Samples of a format -> tokenized examples, masked, with the model's own tokenizer.

    Raises:
        UserError: `format.unknown`; `data.row` naming a malformed sample and its field.
    """
    from transformers import AutoTokenizer

    from a4a.training.data import check_format, check_sample
    from a4a.training.formats import format_sample
    from a4a.training.masking import tokenize_agent_dataset

    check_format(fmt)
    for n, sample in enumerate(samples, 1):
        check_sample(sample, fmt, f"dataset row {n}")
    path = model if isinstance(model, str | Path) else getattr(model, "name_or_path", None)
    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    return tokenize_agent_dataset([format_sample(s, fmt) for s in samples], tokenizer,
                                  max_seq_length, style)


def finetune(model: Any, dataset: Sequence[dict[str, Any]] | str | Path, *,
             method: str = "lora", output_dir: str | Path = "runs/finetune",
             callbacks: Sequence[Callback] = (), format: str | None = None,
             style: str = "hermes", max_seq_length: int = 1024, **hyper: Any) -> TrainState:
    """Fine-tune `model` on agent samples or tokenized examples; returns the final state.

    Args:
        model: A local Hugging Face model directory, `local` (or the embedded model's hub
            id) for the cached SmolLM2-135M-Instruct, or a causal-LM model object.
        dataset: With `format`: samples of that format (rows, or a .jsonl/.json file of the
            seed's raw shapes), masked and tokenized here. Without: tokenized examples
            (`input_ids`, `attention_mask`, `labels` with -100 masks), rows or a JSONL file.
        format: The sample format (function_calling, react, trajectory, multi_agent).
        style: The tool-call style samples are rendered in.
        max_seq_length: Token cap per example when tokenizing samples.
        method: `lora` (peft adapters; base weights frozen) or `full`.
        output_dir: Where checkpoints, `loss.png` and the final weights go.
        callbacks: Called with the state after every optimizer step.
        **hyper: The other fields of `TrainConfig` (num_epochs, learning_rate, ...).

    Raises:
        UserError: An unknown method or format, a model that is not local, a malformed row
            (naming it and its field), an empty dataset or an example without trainable tokens.
    """
    torch = _torch()
    model = resolve_model(model)
    if isinstance(dataset, str | Path):
        if format is not None:
            from a4a.training.data import load_examples as load_samples

            dataset = load_samples(Path(dataset), format)
        else:
            dataset = load_examples(dataset)
    if format is not None:
        dataset = tokenize_samples(model, dataset, format, style, max_seq_length)
    else:
        _check_tokenized(dataset)
    name = str(model) if isinstance(model, str | Path) else _model_name(model)
    config = TrainConfig(model=name, method=method, output_dir=str(output_dir), **hyper)
    _check(config, dataset)
    _seed_all(torch, config.seed)
    net = prepare_model(model, config)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    windows = math.ceil(math.ceil(len(dataset) / config.batch_size)
                        / config.gradient_accumulation_steps)
    total = min(windows * config.num_epochs, config.max_steps or windows * config.num_epochs)
    state = TrainState(config, total_steps=total, model=net)
    net.train()
    with _progress(total) as advance:
        for window in _windows(dataset, config, total, _pad_id(net)):
            loss, tokens = accumulate(net, window, config.decision_weight,
                                      config.decision_tokens)
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            opt.step()
            opt.zero_grad(set_to_none=True)
            state.step, state.tokens = state.step + 1, state.tokens + tokens
            state.losses.append(loss)
            advance(loss)
            if config.save_steps and state.step % config.save_steps == 0:
                state.checkpoint = save_checkpoint(state, f"checkpoint-{state.step}")
            for callback in callbacks:
                callback(state)
    state.checkpoint = save_checkpoint(state, "final")
    plot_losses(state.losses, Path(config.output_dir) / "loss.png")
    return state


TOKENIZED_HINT = ("Each row holds input_ids, attention_mask and labels; for raw agent "
                  "samples pass format= (function_calling, react, trajectory, multi_agent).")


def _check_tokenized(dataset: Sequence[Any]) -> None:
    from a4a.runtime.errors import UserError

    for n, row in enumerate(dataset, 1):
        if not isinstance(row, dict):
            raise UserError("train.data_row", f"dataset row {n} is not an object",
                            TOKENIZED_HINT, row=n)
        for key in ("input_ids", "labels"):
            if not isinstance(row.get(key), list):
                raise UserError("train.data_row", f"dataset row {n} has no list field {key!r}",
                                TOKENIZED_HINT, row=n, field=key)


def load_examples(path: str | Path) -> list[dict[str, list[int]]]:
    """Tokenized examples from a JSONL file, one object per line.

    Raises:
        UserError: A missing file or a line without input_ids and labels.
    """
    from a4a.runtime.errors import UserError

    file = Path(path)
    if not file.is_file():
        raise UserError("train.data_missing", f"{file} does not exist",
                        "Point data.path at a JSONL file of samples or tokenized examples.")
    out = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            raise UserError("train.data_row", f"{file}:{n} is not JSON ({err})",
                            TOKENIZED_HINT, row=n) from err
        if not isinstance(row, dict) or not {"input_ids", "labels"} <= row.keys():
            missing = "input_ids" if not isinstance(row, dict) or "input_ids" not in row \
                else "labels"
            raise UserError("train.data_row", f"{file}:{n} lacks field {missing!r}",
                            TOKENIZED_HINT, row=n, field=missing)
        row.setdefault("attention_mask", [1] * len(row["input_ids"]))
        out.append(row)
    return out


def decision_weights(targets: Sequence[int], weight: float, first: int = 1) -> list[float]:
    """Loss weight per target position: `weight` on each trained span's first `first` tokens.

    The opening of an assistant turn is where the model decides between a `<tool_call>` and a
    text answer; the rest of the span weighs 1, masked positions 0.

    A no-call reply is a few tokens and a call many, so per-token loss gives that decision a
    small share; `weight` > 1 raises it.
    """
    out, run = [], 0
    for x in targets:
        if x == IGNORE:
            out.append(0.0)
            run = 0
            continue
        out.append(weight if run < first else 1.0)
        run += 1
    return out


def accumulate(net: Any, window: list[dict[str, Any]], decision_weight: float = 1.0,
               decision_tokens: int = 1) -> tuple[float, int]:
    """Backpropagate one accumulated batch; returns (loss per trainable token, token count).

    Every micro-batch's summed token loss is divided by the trainable tokens of the whole
    window, so long and short examples weigh by their tokens, not per example. With
    `decision_weight` != 1 each token's loss is weighted (`decision_weights`) and the sum is
    divided by the window's summed weights instead (the loss is then that weighted mean).
    Logits are computed only at positions whose next token is trained (`logits_to_keep`):
    agent samples are mostly masked prompt and tool text, and the vocabulary projection of
    every other position would be thrown away.
    """
    torch = _torch()
    tokens = sum(int((b["labels"][:, 1:] != IGNORE).sum()) for b in window)
    weights = [_weights(torch, b["labels"][:, 1:], decision_weight, decision_tokens)
               for b in window]
    norm = tokens if weights[0] is None else float(sum(w.sum() for w in weights))
    total = 0.0
    for batch, weight in zip(window, weights, strict=True):
        targets = batch["labels"][:, 1:]
        keep = (targets != IGNORE).any(dim=0).nonzero().squeeze(1)
        logits = net(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                     logits_to_keep=keep).logits
        flat = logits.reshape(-1, logits.size(-1)).float()
        if weight is None:
            summed = torch.nn.functional.cross_entropy(
                flat, targets[:, keep].reshape(-1), ignore_index=IGNORE, reduction="sum")
        else:
            each = torch.nn.functional.cross_entropy(
                flat, targets[:, keep].reshape(-1), ignore_index=IGNORE, reduction="none")
            summed = (each * weight[:, keep].reshape(-1)).sum()
        (summed / norm).backward()
        total += float(summed.detach())
    return total / norm, tokens


def _weights(torch: Any, targets: Any, weight: float, first: int) -> Any:
    """The batch's `decision_weights` as a tensor, or None for plain per-token loss."""
    if weight == 1.0:
        return None
    return torch.tensor([decision_weights(row, weight, first) for row in targets.tolist()])


def prepare_model(model: Any, config: TrainConfig) -> Any:
    """The model to train: loaded from a directory when a path, wrapped in LoRA for `lora`."""
    if isinstance(model, str | Path):
        import transformers

        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(model), local_files_only=True)
    if config.method == "full":
        for p in model.parameters():
            p.requires_grad_(True)
        return model
    import peft

    lora = peft.LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha,
                           lora_dropout=config.lora_dropout, task_type="CAUSAL_LM",
                           target_modules=config.target_modules)
    with quiet_peft():
        return peft.get_peft_model(model, lora)


def collate(examples: Sequence[dict[str, list[int]]], pad_id: int) -> dict[str, Any]:
    """Right-pad a micro-batch into tensors (labels padded with -100, mask with 0)."""
    torch = _torch()
    width = max(len(e["input_ids"]) for e in examples)

    def pad(key: str, value: int) -> Any:
        return torch.tensor([list(e[key]) + [value] * (width - len(e[key])) for e in examples],
                            dtype=torch.long)

    return {"input_ids": pad("input_ids", pad_id), "attention_mask": pad("attention_mask", 0),
            "labels": pad("labels", IGNORE)}


def _windows(dataset: Sequence[dict[str, list[int]]], config: TrainConfig, total: int,
             pad_id: int) -> Iterator[list[dict[str, Any]]]:
    """Accumulation windows of collated micro-batches, reshuffled (seeded) every epoch."""
    rng, done = random.Random(config.seed), 0
    for _ in range(config.num_epochs):
        order = list(range(len(dataset)))
        rng.shuffle(order)
        batches = [collate([dataset[i] for i in order[s:s + config.batch_size]], pad_id)
                   for s in range(0, len(order), config.batch_size)]
        step = config.gradient_accumulation_steps
        for s in range(0, len(batches), step):
            if done == total:
                return
            done += 1
            yield batches[s:s + step]


def save_checkpoint(state: TrainState, name: str) -> str:
    """Save the weights (the adapter for LoRA) and the config as JSON next to them."""
    folder = Path(state.config.output_dir) / name
    folder.mkdir(parents=True, exist_ok=True)
    state.model.save_pretrained(str(folder))
    record = {"config": asdict(state.config), "step": state.step, "losses": state.losses}
    (folder / CONFIG_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")
    return str(folder)


def read_checkpoint_config(checkpoint: str | Path) -> TrainConfig:
    """The config a checkpoint was trained with."""
    record = json.loads((Path(checkpoint) / CONFIG_FILE).read_text(encoding="utf-8"))
    return TrainConfig(**record["config"])


def merge_and_export(checkpoint: str | Path, out_dir: str | Path,
                     base: str | Path | None = None) -> Path:
    """Merge a LoRA checkpoint into its base weights and save a plain transformers model.

    `base` overrides the base model directory stored in the checkpoint's config. The base's
    tokenizer is copied along when it has one.
    """
    import peft
    import transformers

    config = read_checkpoint_config(checkpoint)
    base_dir = str(base or config.model)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        base_dir, local_files_only=True)
    if config.method == "lora":
        with quiet_peft():
            model = peft.PeftModel.from_pretrained(model, str(checkpoint)).merge_and_unload()
    else:
        model = transformers.AutoModelForCausalLM.from_pretrained(str(checkpoint))
    out = Path(out_dir)
    model.save_pretrained(str(out))
    if (Path(base_dir) / "tokenizer_config.json").exists():
        transformers.AutoTokenizer.from_pretrained(base_dir).save_pretrained(str(out))
    return out


def plot_losses(losses: Sequence[float], path: Path) -> Path:
    """Write the loss curve as a PNG (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(range(1, len(losses) + 1), losses)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("loss per trainable token")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def _check(config: TrainConfig, dataset: Sequence[dict[str, list[int]]]) -> None:
    from a4a.runtime.errors import UserError

    if config.method not in ("lora", "full"):
        raise UserError("train.method", f"unknown method {config.method!r}",
                        "Use method: lora or full.")
    if config.decision_weight <= 0 or config.decision_tokens < 1:
        raise UserError("train.decision_weight", f"decision_weight {config.decision_weight} "
                        f"and decision_tokens {config.decision_tokens} give no valid weighting",
                        "Use decision_weight > 0 (1: plain per-token loss) and "
                        "decision_tokens >= 1.")
    if not dataset:
        raise UserError("train.empty", "the dataset has no examples",
                        "Pass tokenized examples (input_ids, attention_mask, labels).")
    for i, ex in enumerate(dataset):
        if not any(x != IGNORE for x in ex["labels"][1:]):
            raise UserError("train.no_labels", f"example {i} has no trainable token",
                            "Check the loss mask: every example needs a trainable token.")


def _progress(total: int) -> Any:
    """A context manager yielding `advance(loss)`: a rich progress bar over the steps."""
    from rich.console import Console
    from rich.progress import Progress

    @contextmanager
    def bar() -> Iterator[Callable[[float], None]]:
        with Progress(console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task("training", total=total)

            def advance(loss: float) -> None:
                progress.update(task, advance=1, description=f"training loss {loss:.4f}")

            yield advance

    return bar()


@contextmanager
def quiet_peft() -> Iterator[None]:
    """Silence the deprecation warning peft triggers by reading a renamed transformers flag."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*",
                                category=FutureWarning)
        yield


def _seed_all(torch: Any, seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def _pad_id(net: Any) -> int:
    pad = getattr(net.config, "pad_token_id", None)
    return int(pad if pad is not None else getattr(net.config, "eos_token_id", 0) or 0)


def _model_name(model: Any) -> str:
    return str(getattr(model, "name_or_path", "") or type(model).__name__)


def _torch() -> Any:
    import torch

    torch.set_num_threads(1)
    return torch
