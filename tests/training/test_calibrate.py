"""The call-probability probe and the threshold fitted on it (training.calibrate)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from a4a.training import calibrate


def test_auc_orders_calls_above_no_calls() -> None:
    assert calibrate.auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert calibrate.auc([0.1], [0.9]) == 0.0
    assert calibrate.auc([0.5, 0.9], [0.5]) == 0.75  # a tie counts half
    assert calibrate.auc([], [0.1]) is None


def test_best_threshold_separates_and_prefers_the_lowest_cut() -> None:
    cut = calibrate.best_threshold([0.6, 0.7, 0.9], [0.1, 0.3, 0.65])
    assert cut == 0.6 or cut == 0.7
    assert calibrate.best_threshold([0.6, 0.7], [0.1, 0.3]) == 0.6
    assert calibrate.share_at_or_above([0.1, 0.6, 0.7], 0.6) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="with and without"):
        calibrate.best_threshold([], [0.2])


def test_strict_threshold_bounds_the_wrong_calls_the_rows_allow() -> None:
    calls, none = [0.6, 0.7, 0.9], [0.1, 0.3, 0.5, 0.65]
    assert calibrate.strict_threshold(calls, none, 0.0) == 0.7  # no no-call row at or above
    cut = calibrate.strict_threshold(calls, none, 0.25)  # one of four may call
    assert cut == 0.6 and calibrate.share_at_or_above(none, cut) == 0.25
    # Stricter than the balanced cut when a no-call row sits among the calls.
    assert calibrate.strict_threshold(calls, none, 0.0) > calibrate.best_threshold(calls, none)
    # No call row above every no-call row: nothing at all may call.
    silent = calibrate.strict_threshold([0.2], [0.9, 0.1], 0.0)
    assert calibrate.share_at_or_above([0.2, 0.9, 0.1], silent) == 0.0
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        calibrate.strict_threshold(calls, none, 1.0)


def test_summary_reports_each_group() -> None:
    out = calibrate.summary({"a": [0.2, 0.8], "b": []}, 0.5)
    assert out["a"] == {"n": 2, "mean": 0.5, "at_or_above": 0.5}
    assert out["b"]["mean"] is None and out["b"]["at_or_above"] == 0.0


@pytest.fixture()
def tiny_dir(tmp_path: Path, tokenizer: Any) -> Path:
    """A tiny random Llama with the embedded model's tokenizer and chat template."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        initializer_range=0.5)
    out = tmp_path / "tiny"
    transformers.LlamaForCausalLM(config).save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


def test_probe_reads_the_distribution_the_decoder_chooses_from(
        tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a4a.runtime.llm.base import LLMRequest, Message
    from a4a.runtime.llm.local import LocalLLM, chat_messages

    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    llm = LocalLLM(tiny_dir, max_new_tokens=2)
    probe = calibrate.CallProbe(llm)
    msgs = (Message("system", "Tools: none."), Message("user", "Convert 3 km to miles."))
    opening = probe.tokenizer(calibrate.CALL_OPENING, add_special_tokens=False)["input_ids"]
    assert probe.token == opening[0]
    p = probe(chat_messages(msgs, "hermes"))
    assert 0.0 < p < 1.0
    # The greedy first token's log-probability, read through the runtime's own decoding path,
    # is what the probe reads for that token.
    reply = llm.generate(LLMRequest(msgs, tool_mode="hermes"))
    assert reply.token_ids and reply.logprobs
    probe.token = reply.token_ids[0]
    assert math.log(probe(chat_messages(msgs, "hermes"))) == pytest.approx(reply.logprobs[0],
                                                                          abs=1e-4)


def test_prefill_starts_the_reply_and_decoding_goes_on_from_it(
        tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a4a.runtime.llm.base import LLMRequest, Message
    from a4a.runtime.llm.local import LocalLLM

    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    llm = LocalLLM(tiny_dir, max_new_tokens=3)
    request = LLMRequest((Message("user", "Convert 3 km to miles."),), tool_mode="hermes")
    plain, opened = llm.generate(request), llm.generate(request, calibrate.CALL_OPENING)
    assert opened.message.content.startswith(calibrate.CALL_OPENING)
    assert not plain.message.content.startswith(calibrate.CALL_OPENING)
    assert opened.usage.prompt_tokens > plain.usage.prompt_tokens  # the opening is prompt
    assert len(opened.token_ids) == len(opened.logprobs) <= 3  # only what was decoded after


def _bench_bfcl() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / "bfcl.py"
    spec = importlib.util.spec_from_file_location("bench_bfcl", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bfcl_bench_calls_only_at_or_above_the_threshold(
        tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    bench = _bench_bfcl()
    never = bench.run(tiny_dir, ["simple_python", "irrelevance"], 2, "hermes", 4,
                      call_threshold=1.01)
    assert never["call_threshold"] == 1.01
    assert all(0.0 < i["p_call"] < 1.0 and i["calls"] == [] for i in never["items"])
    assert never["categories"]["irrelevance"]["accuracy"] == 1.0
    assert never["categories"]["simple_python"]["accuracy"] == 0.0
    always = bench.run(tiny_dir, ["simple_python", "irrelevance"], 2, "hermes", 4,
                       call_threshold=0.0)
    # At or above the cut the decision is the probe's: decoding starts from the call opening.
    assert all(i["reply"].startswith(calibrate.CALL_OPENING) for i in always["items"])
    plain = bench.run(tiny_dir, ["irrelevance"], 1, "hermes", 4)
    assert plain["items"][0]["p_call"] is None  # no probe without a threshold
    assert not plain["items"][0]["reply"].startswith(calibrate.CALL_OPENING)
