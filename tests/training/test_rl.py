"""a4a's GRPO update on a tiny Llama built from a config: the reward rises, the dump is full."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from a4a.training.rl import Rollout, group_advantages, grpo_loss, run  # noqa: E402

torch.set_num_threads(1)
TARGET = set(range(3, 19))  # 16 of 128 tokens: about one draw in eight at the start


def _net() -> object:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
        pad_token_id=0, eos_token_id=1, bos_token_id=2)
    return transformers.LlamaForCausalLM(config)


def _share(r: Rollout) -> float:
    return sum(t in TARGET for t in r.completion_ids) / len(r.completion_ids)


def test_mean_reward_rises_over_updates(tmp_path: Path) -> None:
    dump = tmp_path / "debug.jsonl"
    means = run(_net(), [[5, 9, 20], [40, 41]], _share, steps=12, group_size=6,
                max_new_tokens=6, learning_rate=3e-2, dump_to=dump)
    first, last = sum(means[:3]) / 3, sum(means[-3:]) / 3
    assert last > first + 0.2, means
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(rows) == 12 * 2 * 6
    for row in rows:
        assert len(row["completion_ids"]) == len(row["old_logprobs"]) == len(row["mask"]) == 6
        assert all(lp <= 0 for lp in row["old_logprobs"])
        assert row["reward"] == _share(Rollout([], row["completion_ids"]))


def test_advantages_and_masked_tokens() -> None:
    assert group_advantages([1.0, 1.0]) == [0.0, 0.0]
    adv = group_advantages([0.0, 1.0])
    assert adv[0] < 0 < adv[1] and abs(sum(adv)) < 1e-9
    net = _net()
    masked = [Rollout([5, 6], [7, 8], 1.0, mask=[0, 0]), Rollout([5, 6], [9, 10], 0.0,
                                                                  mask=[0, 0])]
    loss, stats = grpo_loss(net, [masked])
    assert stats["tokens"] == 0 and stats["loss"] == 0.0  # nothing trained where all is masked
    assert loss.requires_grad


def test_groups_from_runs_carry_ids_logprobs_and_checker_rewards() -> None:
    from a4a.runtime.errors import UserError
    from a4a.training.rl import groups_from_runs
    from tests.training.test_rewards import TASK, call, record

    def llm(ids: list[int]) -> dict[str, object]:
        return {"type": "llm_call", "span": "s1", "messages": [], "response": {},
                "prompt_token_ids": [5, 6], "token_ids": ids, "logprobs": [-0.5] * len(ids)}

    good = record([llm([7, 8]), call("search", {"q": "cats"}), call("tag", {"id": 3}),
                   llm([9])], diff=TASK["checker"]["expected_diff"])
    bad = record([llm([7])], answer="no", diff=[])
    (group,) = groups_from_runs([good, bad], [TASK])
    assert [r.completion_ids for r in group] == [[7, 8], [9], [7]]
    assert group[0].reward == group[1].reward > group[2].reward
    assert all(r.old_logprobs == [-0.5] * len(r.completion_ids) for r in group)
    with pytest.raises(UserError) as err:
        groups_from_runs([record([{"type": "llm_call", "span": "s1"}])], [TASK])
    assert err.value.code == "rl.no_tokens" and err.value.data["event"] == 0


def test_train_step_accumulates_the_gradient_of_grpo_loss() -> None:
    from a4a.training.rl import train_step

    groups = [[Rollout([5, 6], [7, 8, 9], 1.0, [-4.0, -5.0, -4.5], [1, 0, 1]),
               Rollout([5, 6], [10, 11], 0.0, [-4.2, -4.9])],
              [Rollout([40], [3], 0.5, [-5.0], advantage=0.7),
               Rollout([40], [4], 0.2, [-4.0], advantage=-0.7)]]
    whole, rowwise = _net(), _net()
    loss, _ = grpo_loss(whole, groups, temperature=0.8)
    loss.backward()

    class Keep:  # an optimizer that keeps the accumulated gradient instead of stepping
        def zero_grad(self, set_to_none: bool = True) -> None:
            rowwise.zero_grad(set_to_none=set_to_none)

        def step(self) -> None:
            pass

    stats = train_step(rowwise, Keep(), groups, temperature=0.8)
    assert abs(stats["loss"] - float(loss.detach())) < 1e-6 and stats["tokens"] == 6
    for a, b in zip(whole.parameters(), rowwise.parameters(), strict=True):
        assert torch.allclose(a.grad, b.grad, atol=1e-6)
    assert any(float(p.grad.abs().sum()) > 0 for p in rowwise.parameters())
