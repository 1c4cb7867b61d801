"""The fine-tuning loop on a tiny Llama built from a config: no download, seconds on a CPU."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")
pytest.importorskip("matplotlib")

from a4a.runtime.errors import UserError  # noqa: E402
from a4a.training.loop import (  # noqa: E402
    IGNORE,
    accumulate,
    collate,
    decision_weights,
    finetune,
    load_examples,
    merge_and_export,
    quiet_peft,
    read_checkpoint_config,
)

torch.set_num_threads(1)
VOCAB = 128


@pytest.fixture()
def base_dir(tmp_path: Path) -> Path:
    """A tiny random Llama saved as a local transformers directory.

    A wide initialisation gives the frozen head room to express peaked distributions, so a
    few dozen LoRA steps on the attention projections move the loss visibly.
    """
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
        pad_token_id=0, eos_token_id=1, bos_token_id=2, initializer_range=0.5)
    model = transformers.LlamaForCausalLM(config)
    out = tmp_path / "base"
    model.save_pretrained(str(out))
    return out


def _base(path: Path) -> Any:
    return transformers.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True)


def _examples(n: int, seed: int = 0) -> list[dict[str, list[int]]]:
    """Counting sequences: a masked prompt, then a trainable continuation (t+1 mod 100)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        start, length, prompt = rng.randrange(3, 100), rng.randrange(8, 16), rng.randrange(2, 5)
        ids = [3 + (start + i) % 100 for i in range(length)]
        labels = [IGNORE] * prompt + ids[prompt:]
        out.append({"input_ids": ids, "attention_mask": [1] * length, "labels": labels})
    return out


def test_loss_falls_and_artifacts_are_written(base_dir: Path, tmp_path: Path) -> None:
    seen: list[int] = []
    state = finetune(str(base_dir), _examples(32), method="lora", output_dir=tmp_path / "out",
                     learning_rate=1e-2, batch_size=4, num_epochs=6, lora_r=8,
                     target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                     callbacks=[lambda s: seen.append(s.step)])
    assert state.total_steps == 48 and seen == list(range(1, 49))
    first, last = sum(state.losses[:5]) / 5, sum(state.losses[-5:]) / 5
    assert last < 0.8 * first, (first, last)
    png = tmp_path / "out" / "loss.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    config = read_checkpoint_config(state.checkpoint)
    assert (config.model, config.method, config.lora_r, config.learning_rate) == (
        str(base_dir), "lora", 8, 1e-2)
    assert config.target_modules == ["q_proj", "k_proj", "v_proj", "o_proj"]


def test_only_lora_parameters_change(base_dir: Path, tmp_path: Path) -> None:
    model = _base(base_dir)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    state = finetune(model, _examples(8), output_dir=tmp_path / "out", learning_rate=1e-2,
                     batch_size=4, max_steps=4, num_epochs=3)
    assert state.step == 4
    lora_changed = 0
    for name, p in state.model.named_parameters():
        if "lora_" in name:
            assert p.requires_grad
            lora_changed += 0 if torch.all(p == 0) else 1
            continue
        key = name.removeprefix("base_model.model.").replace(".base_layer", "")
        assert not p.requires_grad
        assert torch.equal(p.detach(), before[key]), name
    assert lora_changed > 0


def test_adapter_reloads_to_identical_logits_and_merges(base_dir: Path,
                                                        tmp_path: Path) -> None:
    state = finetune(str(base_dir), _examples(8), output_dir=tmp_path / "out",
                     learning_rate=1e-2, batch_size=4, max_steps=3)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10]])
    trained = state.model.train(False)(input_ids=ids).logits
    with quiet_peft():
        reloaded = peft.PeftModel.from_pretrained(_base(base_dir), state.checkpoint).train(False)
    assert torch.equal(reloaded(input_ids=ids).logits, trained)
    assert not torch.equal(_base(base_dir)(input_ids=ids).logits, trained)
    merged = merge_and_export(state.checkpoint, tmp_path / "merged")
    plain = _base(merged).train(False)
    assert not any("lora" in n for n, _ in plain.named_parameters())
    assert torch.allclose(plain(input_ids=ids).logits, trained, atol=1e-5)


def test_loss_is_normalised_by_trainable_tokens_of_the_window(base_dir: Path) -> None:
    model = _base(base_dir)
    short = {"input_ids": [5, 6, 7, 8], "attention_mask": [1] * 4,
             "labels": [IGNORE, IGNORE, 7, 8]}  # 2 trainable tokens after the shift
    long = {"input_ids": [9, 10, 11, 12, 13, 14, 15, 16], "attention_mask": [1] * 8,
            "labels": [IGNORE, 10, 11, 12, 13, 14, 15, 16]}  # 7 trainable tokens
    by_hand, count = 0.0, 0
    with torch.no_grad():
        for ex in (short, long):
            logp = torch.log_softmax(model(input_ids=torch.tensor([ex["input_ids"]])).logits[0],
                                     -1)
            for pos in range(1, len(ex["labels"])):
                if ex["labels"][pos] != IGNORE:
                    by_hand -= float(logp[pos - 1, ex["labels"][pos]])
                    count += 1
    assert count == 9
    loss, tokens = accumulate(model, [collate([short], 0), collate([long], 0)])
    assert tokens == 9
    assert loss == pytest.approx(by_hand / 9, rel=1e-5)
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    together, _ = accumulate(model, [collate([short, long], 0)])
    assert together == pytest.approx(loss, rel=1e-5)
    for g, p in zip(grads, model.parameters(), strict=True):
        assert torch.allclose(g, p.grad, atol=1e-6)


def test_decision_weights_mark_each_span_opening() -> None:
    targets = [IGNORE, 7, 8, 9, IGNORE, IGNORE, 4, 5, IGNORE, 6]
    assert decision_weights(targets, 5.0) == [0, 5, 1, 1, 0, 0, 5, 1, 0, 5]
    assert decision_weights(targets, 3.0, first=2) == [0, 3, 3, 1, 0, 0, 3, 3, 0, 3]
    assert decision_weights(targets, 1.0) == [float(x != IGNORE) for x in targets]


def test_weighted_loss_is_the_weighted_mean_of_token_losses(base_dir: Path) -> None:
    model = _base(base_dir)
    ex = {"input_ids": [5, 6, 7, 8, 9, 10, 11], "attention_mask": [1] * 7,
          "labels": [IGNORE, IGNORE, 7, 8, IGNORE, 10, 11]}  # spans 7 8 | 10 11
    weights = decision_weights(ex["labels"][1:], 4.0)
    assert weights == [0, 4, 1, 0, 4, 1]
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ex["input_ids"]])).logits[0], -1)
    by_hand = -sum(w * float(logp[pos, ex["labels"][pos + 1]])
                   for pos, w in enumerate(weights) if w)
    loss, tokens = accumulate(model, [collate([ex], 0)], decision_weight=4.0)
    assert tokens == 4
    assert loss == pytest.approx(by_hand / 10, rel=1e-5)
    plain, _ = accumulate(model, [collate([ex], 0)])
    assert plain != pytest.approx(loss, rel=1e-3)


def test_bad_decision_weight_is_a_user_error(base_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="decision_weight"):
        finetune(str(base_dir), _examples(2), output_dir=tmp_path, max_steps=1,
                 decision_weight=0.0)


def test_seeded_runs_repeat(base_dir: Path, tmp_path: Path) -> None:
    a = finetune(str(base_dir), _examples(8), output_dir=tmp_path / "a", max_steps=3,
                 batch_size=2, gradient_accumulation_steps=2, learning_rate=1e-2, seed=3,
                 num_epochs=2, save_steps=2)
    b = finetune(str(base_dir), _examples(8), output_dir=tmp_path / "b", max_steps=3,
                 batch_size=2, gradient_accumulation_steps=2, learning_rate=1e-2, seed=3,
                 num_epochs=2)
    assert a.losses == b.losses and len(a.losses) == 3
    assert read_checkpoint_config(tmp_path / "a" / "checkpoint-2").save_steps == 2


def test_full_method_trains_every_weight(base_dir: Path, tmp_path: Path) -> None:
    model = _base(base_dir)
    before = model.model.layers[0].mlp.up_proj.weight.detach().clone()
    state = finetune(model, _examples(4), method="full", output_dir=tmp_path / "full",
                     max_steps=2, learning_rate=1e-3)
    assert not torch.equal(model.model.layers[0].mlp.up_proj.weight, before)
    assert read_checkpoint_config(state.checkpoint).method == "full"
    assert (Path(state.checkpoint) / "config.json").exists()


def test_bad_inputs_are_user_errors(base_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown method"):
        finetune(str(base_dir), _examples(2), method="qlora", output_dir=tmp_path)
    with pytest.raises(UserError, match="no trainable token"):
        finetune(str(base_dir), [{"input_ids": [4, 5], "attention_mask": [1, 1],
                                  "labels": [IGNORE, IGNORE]}], output_dir=tmp_path)
    with pytest.raises(UserError, match="does not exist"):
        load_examples(tmp_path / "missing.jsonl")


def test_finetune_tokenizes_samples_of_a_format(tokenizer: Any, tmp_path: Path) -> None:
    """Trajectories -> samples -> masked tokens -> a LoRA step, with the model's tokenizer."""
    import json

    from a4a.training.data import samples_from_record

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=2048)
    base = tmp_path / "tiny-with-tokenizer"
    transformers.LlamaForCausalLM(config).save_pretrained(str(base))
    tokenizer.save_pretrained(str(base))
    golden = Path(__file__).resolve().parents[1] / "data" / "golden" / "routing.json"
    samples = samples_from_record(json.loads(golden.read_text()), "function_calling", "agents")
    state = finetune(str(base), samples, format="function_calling", style="hermes",
                     max_seq_length=512, output_dir=tmp_path / "out", max_steps=2, num_epochs=4,
                     batch_size=2, learning_rate=1e-3)
    assert state.step == 2 and state.tokens > 0
