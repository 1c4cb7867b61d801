"""GRPO alignment, single turn, through TRL's GRPOTrainer: `recipe: align`, `method: grpo`.

Prompts are cut from function_calling conversations (as `a4a export` or
`generate(mode="agent_distill")` write them from environment runs): for every assistant turn
that calls a tool, the conversation up to that turn is a prompt and its first call is the
gold call. The system prompt lists the sample's tools in the Hermes style the model is asked
to answer in (`<tool_call>{"name": ..., "arguments": ...}</tool_call>`).

Rewards: `next_call` (the sampled call against the gold call by AST: a readable call 0.2,
the right tool 0.3 more, the right arguments 0.5 more) plus the named agent reward of
`online_rl.reward_name` with `online_rl.reward_kwargs` (rewards.REWARDS), summed.
torch, transformers, peft, datasets and trl are imported inside the functions.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from functools import partial
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training import data, formats, rewards

STYLE = "hermes"


def tool_prompt(tools: Sequence[dict[str, Any]]) -> str:
    """The Hermes tool instructions listing OpenAI function schemas."""
    from a4a.runtime.llm._textprompts import instructions
    from a4a.runtime.llm.base import ToolSchema

    schemas = tuple(ToolSchema(t["function"]["name"], t["function"].get("description", ""),
                               t["function"].get("parameters") or {"type": "object"})
                    for t in tools)
    return instructions(schemas, STYLE).lstrip() if schemas else ""


def next_call_prompts(samples: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One {prompt, gold} per tool-calling assistant turn of function_calling samples.

    `prompt` is the chat (system with tool instructions, then the turns before the call, calls
    and results written in the Hermes style); `gold` is the call as JSON {name, arguments}.

    Raises:
        UserError: `data.row` naming a malformed sample and its field.
    """
    out = []
    for n, sample in enumerate(samples, 1):
        data.check_sample(sample, "function_calling", f"row {n}")
        msgs = formats.format_function_calling(sample)
        head = tool_prompt(sample.get("tools") or data.tools_of(msgs))
        for i, m in enumerate(msgs):
            if m["role"] != "assistant" or not m.get("tool_calls"):
                continue
            chat = formats.to_chat(msgs[:i], STYLE)
            system = "\n\n".join(c["content"] for c in chat if c["role"] == "system")
            rest = [c for c in chat if c["role"] != "system"]
            rest = [{**c, "role": "user"} if c["role"] == "tool" else c for c in rest]
            prompt = [{"role": "system", "content": f"{system}\n\n{head}".strip()}, *rest]
            gold = m["tool_calls"][0]
            out.append({"prompt": prompt, "gold": json.dumps(
                {"name": gold["name"], "arguments": gold.get("arguments") or {}},
                sort_keys=True)})
    return out


def next_call(completions: Sequence[Any], gold: Sequence[str], **kwargs: Any) -> list[float]:
    """AST match of each completion's first call against its gold call (0, 0.2, 0.5 or 1).

    A gold of JSON `null` is a prompt no offered tool fits: 1 for a text answer without a
    call, 0 for any call.
    """
    from a4a.runtime.llm import textmodes

    out = []
    for completion, want in zip(completions, gold, strict=True):
        text = rewards.completion_text(completion)
        parsed = textmodes.parse(text, STYLE)
        target = json.loads(want)
        if target is None:
            out.append(float(not parsed.calls and not parsed.errors and bool(text.strip())))
            continue
        if parsed.errors or not parsed.calls:
            out.append(0.0)
            continue
        call = parsed.calls[0]
        score = 0.2
        if call.name == target["name"]:
            score += 0.3
            score += 0.5 if call.arguments == target["arguments"] else 0.0
        out.append(score)
    return out


def reward_funcs(online_rl: dict[str, Any] | None) -> list[Callable[..., list[float]]]:
    """`next_call` plus the named agent reward of an `online_rl` config section.

    Raises:
        UserError: `align.reward` for an unknown reward name.
    """
    cfg = online_rl or {}
    name, kwargs = cfg.get("reward_name"), dict(cfg.get("reward_kwargs") or {})
    funcs: list[Callable[..., list[float]]] = [next_call]
    if name is None:
        return funcs
    if name not in rewards.REWARDS:
        raise UserError("align.reward", f"unknown reward {name!r}",
                        f"Use one of {', '.join(rewards.REWARDS)}.", reward=name)
    if name == "agent_composite":
        fn = rewards.agent_composite(kwargs.pop("weights", None), **kwargs)
    else:
        fn = partial(rewards.REWARDS[name], **kwargs)
        fn.__name__ = name  # type: ignore[attr-defined]
    funcs.append(fn)
    return funcs


def align(model: Any, dataset: Sequence[dict[str, Any]] | str | Path, *, method: str = "grpo",
          format: str | None = "function_calling", online_rl: dict[str, Any] | None = None,
          output_dir: str | Path = "runs/align", num_epochs: int = 1,
          learning_rate: float = 1e-5, batch_size: int = 4, max_steps: int | None = None,
          num_generations: int = 4, max_new_tokens: int = 48, temperature: float = 1.0,
          beta: float = 0.0, seed: int = 0, lora_r: int = 8, lora_alpha: int = 16,
          lora_dropout: float = 0.0, target_modules: list[str] | None = None,
          full: bool = False, callbacks: Sequence[Any] = (),
          extra_rewards: Sequence[Callable[..., list[float]]] = ()) -> dict[str, Any]:
    """GRPO on next-call prompts (see the module docstring); returns the run's report.

    With environments to run (`online_rl.frameworks`, or a framework directory as the
    dataset) it is multi-turn online RL through the runtime instead (`align_online`).

    Args:
        model: A local model directory or `local` (the embedded SmolLM2).
        dataset: function_calling samples, rows or a JSONL file.
        method: grpo.
        format: function_calling (or None).
        online_rl: The seed's section: reward_name, reward_kwargs (enabled is implied).
        output_dir: Where the final adapter (or weights) and align_report.json go.
        num_epochs: Passes over the prompts.
        learning_rate: AdamW's learning rate.
        batch_size: Completions per device step (a multiple of num_generations).
        max_steps: Stop after this many updates (None: the epochs decide).
        num_generations: Completions per prompt (the group of GRPO's relative advantage).
        max_new_tokens: Completion length cap.
        temperature: Sampling temperature.
        beta: KL penalty weight against the reference model (0: none, no reference kept).
        seed: Sampling and shuffling seed.
        lora_r: LoRA rank.
        lora_alpha: LoRA alpha.
        lora_dropout: LoRA dropout.
        target_modules: LoRA target modules (peft's default for the model when None).
        full: Train every weight instead of LoRA adapters.
        extra_rewards: More TRL reward functions, summed with the others.
        callbacks: transformers TrainerCallbacks.

    Returns:
        steps, rewards (mean reward per logged step), first_reward, final_reward, prompts,
        checkpoint, output_dir, trl_version.

    Raises:
        UserError: `align.method`, `align.format`, `align.empty`, `align.reward`, a model
            that is not local, a malformed row.
    """
    if method != "grpo":
        raise UserError("align.method", f"unknown align method {method!r}", "Use method: grpo.")
    if is_online(dataset, online_rl):
        return align_online(
            model, dataset, online_rl or {}, max_steps=max_steps, num_epochs=num_epochs,
            num_generations=num_generations, beta=beta, full=full, output_dir=output_dir,
            learning_rate=learning_rate, max_new_tokens=max_new_tokens, temperature=temperature,
            seed=seed, lora_r=lora_r, lora_alpha=lora_alpha, lora_dropout=lora_dropout,
            target_modules=target_modules)
    if format not in (None, "function_calling"):
        raise UserError("align.format", f"align reads function_calling samples, not {format}",
                        "Export with --format function_calling (or generate them so).")
    from a4a.training.loop import _torch, resolve_model

    _torch()
    path = resolve_model(model)
    rows = data.load_examples(Path(dataset), "function_calling") \
        if isinstance(dataset, str | Path) else list(dataset)
    prompts = next_call_prompts(rows)
    if not prompts:
        raise UserError("align.empty", "no assistant turn with a tool call to cut a prompt at",
                        "Pass function_calling samples whose assistant turns call tools.")
    batch = max(num_generations, batch_size - batch_size % num_generations)
    args = {"per_device_train_batch_size": batch, "num_generations": num_generations,
            "max_completion_length": max_new_tokens, "learning_rate": float(learning_rate),
            "num_train_epochs": num_epochs, "max_steps": max_steps or -1,
            "temperature": temperature, "beta": beta, "seed": seed, "logging_steps": 1,
            "save_strategy": "no", "report_to": [], "bf16": False, "disable_tqdm": True,
            "dataloader_num_workers": 0}
    lora = {"r": lora_r, "lora_alpha": lora_alpha, "lora_dropout": lora_dropout,
            "target_modules": target_modules}
    with _quiet():
        return _train(path, prompts, [*reward_funcs(online_rl), *extra_rewards],
                      callbacks, None if full else lora, output_dir, args)


@contextmanager
def _quiet() -> Iterator[None]:
    """Quiet TRL's warnings about its own renamed flags (nothing a caller can act on)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        with redirect_stdout(sys.stderr):  # the trainer prints its logs; stdout is --json's
            yield


def _train(path: Path, prompts: list[dict[str, Any]],
           funcs: list[Callable[..., list[float]]], callbacks: Sequence[Any],
           lora: dict[str, Any] | None, output_dir: str | Path, args: dict[str, Any]
           ) -> dict[str, Any]:
    import datasets
    import transformers
    import trl

    config = trl.GRPOConfig(output_dir=str(output_dir), use_cpu=True, **args)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    net = transformers.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True)
    peft_config = None
    if lora is not None:
        import peft

        peft_config = peft.LoraConfig(task_type="CAUSAL_LM", **lora)
    from a4a.training.loop import quiet_peft

    with quiet_peft():
        trainer = trl.GRPOTrainer(model=net, reward_funcs=funcs, args=config,
                                  train_dataset=datasets.Dataset.from_list(prompts),
                                  processing_class=tokenizer, peft_config=peft_config,
                                  callbacks=list(callbacks))
        trainer.train()
    means = [float(h["reward"]) for h in trainer.state.log_history if "reward" in h]
    final = Path(output_dir) / "final"
    trainer.model.save_pretrained(str(final))
    report = {"steps": int(trainer.state.global_step), "rewards": means,
              "first_reward": means[0] if means else 0.0,
              "final_reward": means[-1] if means else 0.0, "prompts": len(prompts),
              "checkpoint": str(final), "output_dir": str(output_dir),
              "trl_version": trl.__version__}
    (final / "align_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return report


ONLINE_KEYS = {"enabled", "reward_name", "reward_kwargs", "frameworks", "tasks", "max_calls",
               "server", "clip", "ray"}
SERVER_KEYS = {"base_url", "model", "extra_body", "max_concurrency", "lora_name", "admin_url"}


def is_online(dataset: Any, online_rl: dict[str, Any] | None) -> bool:
    """Whether an align call means multi-turn online RL: environments to run, not samples."""
    cfg = online_rl or {}
    if cfg.get("enabled") is False:
        return False
    return bool(cfg.get("frameworks")) or (isinstance(dataset, str | Path) and
                                           (Path(dataset) / "framework.yaml").is_file())


def align_online(model: Any, dataset: Any, online_rl: dict[str, Any], *,
                 max_steps: int | None, num_epochs: int, num_generations: int,
                 beta: float, full: bool, **kwargs: Any) -> dict[str, Any]:
    """`align` for environments: the seed's `online_rl` section onto `train_online`.

    `online_rl.frameworks` (or a framework directory as the dataset) names the environments;
    `tasks`, `max_calls`, `clip`, `server: {base_url, model, ...}` (see `rollouts.Server`)
    and `ray` (server rollouts as Ray tasks) tune the loop;
    updates are `max_steps` (else `num_epochs`), the group is `num_generations`.
    `reward_name: agent_composite` is the checker's composite; `reward_kwargs.weights` its
    weights (state, answer, process).

    Raises:
        UserError: `rl.config` for an unknown key, a reward other than the checker's, a
            KL weight (no reference model is kept) or full fine-tuning.
    """
    cfg = dict(online_rl)
    problems = [f"unknown online_rl key {k!r}" for k in cfg if k not in ONLINE_KEYS]
    if cfg.get("reward_name") not in (None, "agent_composite"):
        problems.append(f"reward_name {cfg['reward_name']!r}: multi-turn runs are scored by "
                        "the environment's checker (agent_composite)")
    reward_kwargs = dict(cfg.get("reward_kwargs") or {})
    problems += [f"reward_kwargs {k!r}: the checker takes only weights (state, answer, "
                 "process)" for k in reward_kwargs if k != "weights"]
    if beta or full:
        problems.append("online RL trains a LoRA adapter without a reference model: "
                        "use beta 0 and method lora")
    server = cfg.get("server")
    if server is not None and (not isinstance(server, dict) or not {"base_url", "model"} <= set(
            server) or not set(server) <= SERVER_KEYS):
        optional = ", ".join(sorted(SERVER_KEYS - {"base_url", "model"}))
        problems.append(f"server: a mapping of base_url, model (and {optional})")
    if problems:
        raise UserError("rl.config", "; ".join(problems), "See a4a.training.online_rl for the "
                        "online_rl section.", issues=problems)
    frameworks = cfg.get("frameworks") or [dataset]
    from a4a.training.online_rl import train_online
    from a4a.training.rollouts import Server

    return train_online(model, frameworks, server=Server(**server) if server else None,
                        updates=int(max_steps or num_epochs), group_size=num_generations,
                        tasks=int(cfg.get("tasks", 4)), max_calls=_opt_int(cfg.get("max_calls", 4)),
                        clip=float(cfg.get("clip", 0.2)), weights=reward_kwargs.get("weights"),
                        on_ray=bool(cfg.get("ray", False)),
                        **kwargs)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)
