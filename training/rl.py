"""Group-relative policy optimisation on recorded rollouts: a4a's own GRPO update.

A rollout is what a policy produced for one prompt: the prompt's token ids, the completion's
token ids, a loss mask over the completion (1 where the policy wrote the token, 0 for text it
was given, such as tool results in a multi-turn rollout), the logprobs the sampler gave each
completion token (`old_logprobs`) and one reward. Rollouts come in groups of one prompt;
each rollout's advantage is its reward minus the group's mean, over the group's standard
deviation (or the advantage a caller set, such as one computed per multi-turn run). The loss is
PPO's clipped surrogate per trained token, averaged over the trained tokens of the batch. `dump`
writes masks, rewards, advantages, old and (when given) new logprobs as JSONL.
torch is imported inside the functions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Rollout:
    """One sampled completion of a prompt, with what the update needs."""

    prompt_ids: list[int]
    completion_ids: list[int]
    reward: float = 0.0
    old_logprobs: list[float] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)  # empty: every completion token trained
    advantage: float | None = None  # None: computed from the rewards of its group
    tags: dict[str, Any] = field(default_factory=dict)  # where it came from (run, task, calls)


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> list[float]:
    """(reward - group mean) / (group std + eps); all zero for a group of equal rewards."""
    n = len(rewards)
    mean = sum(rewards) / n
    std = (sum((r - mean) ** 2 for r in rewards) / n) ** 0.5
    return [(r - mean) / (std + eps) for r in rewards]


def advantages(group: Sequence[Rollout]) -> list[float]:
    """Each rollout's advantage: the one it carries, else group-relative from the rewards."""
    computed = group_advantages([r.reward for r in group])
    return [c if r.advantage is None else r.advantage for r, c in zip(group, computed,
                                                                         strict=True)]


def token_logprobs(net: Any, rollouts: Sequence[Rollout], temperature: float = 1.0
                   ) -> list[Any]:
    """Per completion token, the policy's log-probability (a tensor per rollout, with grad).

    `temperature` divides the logits as the sampler did, so the ratio to the old logprobs
    compares the same distribution.
    """
    import torch

    out = []
    for r in rollouts:
        ids = torch.tensor([r.prompt_ids + r.completion_ids])
        # Logits of the completion's positions only: a long multi-turn prompt times the
        # vocabulary would otherwise dominate the memory and the time of the step.
        keep = len(r.completion_ids) + 1
        logits = net(input_ids=ids, logits_to_keep=keep).logits[0, -keep:-1].float()
        logits = logits / temperature
        logp = torch.log_softmax(logits, dim=-1)
        out.append(logp.gather(1, torch.tensor(r.completion_ids)[:, None]).squeeze(1))
    return out


def sample_group(net: Any, prompt_ids: list[int], n: int, max_new_tokens: int,
                 temperature: float = 1.0, seed: int = 0) -> list[Rollout]:
    """`n` sampled completions of one prompt, with the sampler's logprobs."""
    import torch

    torch.manual_seed(seed)
    ids = torch.tensor([prompt_ids] * n)
    with torch.no_grad():
        out = net.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True,
                           temperature=temperature, top_k=0, max_new_tokens=max_new_tokens,
                           min_new_tokens=max_new_tokens, output_scores=True,
                           return_dict_in_generate=True, pad_token_id=0)
    steps = torch.stack([torch.log_softmax(s.float(), -1) for s in out.scores], 1)
    completions = out.sequences[:, len(prompt_ids):]
    old = steps.gather(2, completions[:, :, None]).squeeze(2)
    return [Rollout(list(prompt_ids), completions[i].tolist(), 0.0, old[i].tolist())
            for i in range(n)]


def _term(net: Any, r: Rollout, adv: float, clip: float, temperature: float
          ) -> tuple[Any, Any, int]:
    """(summed clipped surrogate over the trained tokens, new logprobs, trained tokens)."""
    import torch

    new = token_logprobs(net, [r], temperature)[0]
    mask = torch.tensor(r.mask or [1] * len(r.completion_ids), dtype=torch.float)
    old = torch.tensor(r.old_logprobs or new.detach().tolist())
    ratio = torch.exp(new - old)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv)
    return (surrogate * mask).sum(), new, int(mask.sum())


def _kept(new: Any) -> list[float]:
    return [round(float(x), 6) for x in new.detach()]


def grpo_loss(net: Any, groups: Sequence[Sequence[Rollout]], clip: float = 0.2,
              temperature: float = 1.0, keep: list[list[float]] | None = None
              ) -> tuple[Any, dict[str, float]]:
    """The clipped surrogate over every trained token of the groups; and its statistics.

    `keep`, when given, receives each rollout's new logprobs (in group order) for the dump.
    """
    import torch

    terms, tokens, rewards = [], 0, []
    for group in groups:
        for r, adv in zip(group, advantages(group), strict=True):
            term, new, n = _term(net, r, adv, clip, temperature)
            if keep is not None:
                keep.append(_kept(new))
            terms.append(term)
            tokens += n
            rewards.append(r.reward)
    loss = -torch.stack(terms).sum() / max(1, tokens)
    return loss, {"loss": float(loss.detach()), "mean_reward": sum(rewards) / len(rewards),
                  "tokens": float(tokens)}


def train_step(net: Any, opt: Any, groups: Sequence[Sequence[Rollout]],
               clip: float = 0.2, temperature: float = 1.0,
               keep: list[list[float]] | None = None) -> dict[str, float]:
    """One optimizer step on the groups' rollouts (see `grpo_loss` for `keep`).

    The gradient is `grpo_loss`'s, accumulated rollout by rollout: only one rollout's graph
    is held at a time (multi-turn rows of thousands of tokens would not fit together).
    """
    rows = [(r, adv) for group in groups for r, adv in zip(group, advantages(group),
                                                            strict=True)]
    trained = sum(sum(r.mask) if r.mask else len(r.completion_ids) for r, _ in rows)
    opt.zero_grad(set_to_none=True)
    loss = 0.0
    for r, adv in rows:
        term, new, _ = _term(net, r, adv, clip, temperature)
        if keep is not None:
            keep.append(_kept(new))
        (-term / max(1, trained)).backward()
        loss -= float(term.detach()) / max(1, trained)
    opt.step()
    return {"loss": loss, "mean_reward": sum(r.reward for r, _ in rows) / len(rows),
            "tokens": float(trained)}


def dump(path: str | Path, groups: Sequence[Sequence[Rollout]], step: int,
         new_logprobs: Sequence[list[float]] | None = None) -> Path:
    """Append one JSON line per rollout: ids, mask, reward, advantage, old (and new) logprobs.

    `new_logprobs` are the trainer's, one list per rollout in group order (`grpo_loss`'s keep).
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    news = iter(new_logprobs or ())
    with out.open("a", encoding="utf-8") as fh:
        for g, group in enumerate(groups):
            for r, adv in zip(group, advantages(group), strict=True):
                row = {"step": step, "group": g, **asdict(r), "advantage": round(adv, 6)}
                row["mask"] = r.mask or [1] * len(r.completion_ids)
                if new_logprobs is not None:
                    row["new_logprobs"] = next(news)
                fh.write(json.dumps(row) + "\n")
    return out


def rollouts_from_record(record: dict[str, Any], reward: float) -> list[Rollout]:
    """One rollout per model call of a run, from the ids and logprobs its events recorded.

    A multi-turn run through the runtime (the embedded backend, or an OpenAI-compatible
    server such as vLLM returning token ids and logprobs) records each call's prompt ids,
    completion ids and logprobs; every call of the run shares the run's reward.

    Raises:
        UserError: `rl.no_tokens` naming the first model call without ids or logprobs.
    """
    from a4a.runtime.errors import UserError

    out = []
    for n, e in enumerate(record.get("events") or []):
        if e.get("type") != "llm_call":
            continue
        if not e.get("token_ids") or not e.get("prompt_token_ids") or \
                len(e.get("logprobs") or []) != len(e["token_ids"]):
            raise UserError("rl.no_tokens", f"run {record.get('run_id')}: event {n} has no "
                            "prompt_token_ids, token_ids and logprobs", "Run with a backend "
                            "that returns them (the embedded model; vLLM with logprobs and "
                            "return_token_ids).", run=record.get("run_id"), event=n)
        out.append(Rollout(list(e["prompt_token_ids"]), list(e["token_ids"]), reward,
                           [float(x) for x in e["logprobs"]]))
    return out


def groups_from_runs(records: Sequence[dict[str, Any]], tasks: Sequence[dict[str, Any]]
                     ) -> list[list[Rollout]]:
    """Rollout groups, one per task: each run scored by its task's checker (composite)."""
    from a4a.runtime.world.rewards import score
    from a4a.training.evaluate import pair

    by_task: dict[str, list[Rollout]] = {}
    for record, task in pair(records, tasks):
        reward = float(score(dict(task), record)["composite"])
        by_task.setdefault(str(task["id"]), []).extend(rollouts_from_record(record, reward))
    return list(by_task.values())


def run(net: Any, prompts: Sequence[list[int]], reward: Callable[[Rollout], float], *,
        steps: int, group_size: int = 4, max_new_tokens: int = 8, learning_rate: float = 1e-2,
        dump_to: str | Path | None = None, seed: int = 0) -> list[float]:
    """Sample a group per prompt, score, update; `steps` times. The mean reward per step."""
    import torch

    torch.set_num_threads(1)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=learning_rate)
    means = []
    for step in range(steps):
        net.eval()
        groups = [sample_group(net, p, group_size, max_new_tokens, seed=seed + step * 997 + i)
                  for i, p in enumerate(prompts)]
        for group in groups:
            for r in group:
                r.reward = float(reward(r))
        if dump_to is not None:
            dump(dump_to, groups, step)
        net.train()
        means.append(train_step(net, opt, groups)["mean_reward"])
    return means
