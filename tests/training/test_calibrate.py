"""The call-probability probe, the name-overlap gate and the cuts fitted on them."""

from __future__ import annotations

import json
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


TRIANGLE = "Find the area of a triangle with base 10"


def test_name_overlap_is_the_share_of_a_tool_name_the_request_says() -> None:
    # calcu/trian/area: the request says two of the three ("calculate" is not in it).
    assert calibrate.name_overlap(TRIANGLE, [{"name": "calculate_triangle_area"}]) == 2 / 3
    assert calibrate.name_overlap(TRIANGLE, [{"name": "determine_body_mass_index"}]) == 0.0
    both = [{"name": "determine_body_mass_index"}, {"name": "triangle_area"}]
    assert calibrate.name_overlap(TRIANGLE, both) == 1.0  # the best-matching tool counts
    assert calibrate.name_overlap(TRIANGLE, []) == 0.0


def test_name_overlap_splits_dotted_and_camel_names_and_stems() -> None:
    assert calibrate.name_overlap("Calculate the factorial of 5", [{"name": "math.factorial"}]) \
        == 0.5
    assert calibrate.name_overlap("What is the weather forecast for Oslo?",
                                  [{"name": "getWeatherForecast"}]) == 2 / 3
    # A five-letter stem: "calculation" meets "calculate"; the wrapper object works too.
    wrapped = {"type": "function", "function": {"name": "calculate-sum"}}
    assert calibrate.name_overlap("the calculation of a sum", [wrapped]) == 1.0
    # A name of stopwords and short words has no content word: it scores 0.
    assert calibrate.name_overlap("do it for the one", [{"name": "do_it_for_the"}]) == 0.0
    with pytest.raises(ValueError, match="needs a 'name'"):
        calibrate.name_overlap(TRIANGLE, [{"description": "no name"}])


STATUS = {"properties": {"status": {"type": "string", "enum": ["new", "published"]}}}


@pytest.mark.parametrize(("request_text", "arguments", "parameters", "expected"), [
    ("Find the area of a triangle with base 10 and height five", {"base": 10, "height": 5},
     None, []),
    ("Find the area of a triangle with base 10", {"base": 12, "height": 10}, None, ["base"]),
    ("Book Chez Panisse for 2026-05-20", {"place": "Chez Panisse", "date": "2026-05-20"},
     None, []),
    ("Book Chez Panisse for 2026-05-20", {"city": "Berlin"}, None, ["city"]),
    ("How many farms do we monitor?", {"kind": "farm"}, None, []),  # a plural states it
    ("count the live articles", {"status": "published"}, None, ["status"]),
    ("count the live articles", {"status": "published"}, STATUS, []),  # an offered value
    ("a loan at a 5% rate", {"rate": 0.05, "compound": True, "note": None}, None, []),
    ("Read ORD-1 and ORD-2", {"ids": ["ORD-1", "ORD-2"]}, None, []),
    ("Read ORD-1", {"ids": ["ORD-1", "ORD-2"], "filter": {"owner": "Maya"}}, None,
     ["ids", "filter"]),
    ("Convert 5 USD to EUR", {"amount": "50 USD"}, None, ["amount"]),  # the words, not the number
])
def test_ungrounded_names_the_arguments_the_request_does_not_state(
        request_text: str, arguments: dict[str, Any], parameters: dict[str, Any] | None,
        expected: list[str]) -> None:
    assert calibrate.ungrounded(request_text, arguments, parameters) == expected


def test_tools_in_prompt_reads_the_last_tools_block() -> None:
    fn = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}
    system = ("You are a helpful assistant.\n\n# Tools\n\nYou are provided with function "
              "signatures within <tools></tools> XML tags:\n<tools>\n"
              + json.dumps({"type": "function", "function": fn}) + "\n</tools>\n\nFor each "
              "function call, return a json object within <tool_call></tool_call> XML tags")
    assert calibrate.tools_in_prompt(system) == [fn]
    with pytest.raises(ValueError, match="no <tools>"):
        calibrate.tools_in_prompt("You are a helpful assistant. Mention <tools></tools> only.")
    with pytest.raises(ValueError, match="must be"):
        calibrate.tools_in_prompt('<tools>\n{"name": "get_weather"}\n</tools>')


def test_tools_in_prompt_reads_the_prompt_the_agent_sends() -> None:
    from a4a.runtime.engine.textcalls import system_with_tools
    from a4a.runtime.llm.base import ToolSchema

    tools = (ToolSchema("convert_currency", "Convert money.", {"type": "object"}),
             ToolSchema("get_weather", "Weather now.", {"type": "object"}))
    system = system_with_tools("You are a helpful assistant.", tools, "hermes")
    assert [f["name"] for f in calibrate.tools_in_prompt(system)] == ["convert_currency",
                                                                      "get_weather"]


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


def _bench(name: str = "bfcl") -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bfcl_bench_calls_only_at_or_above_the_threshold(
        tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4A_ALLOW_LOCAL_LLM", "1")
    bench = _bench()
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
    # The name gate vetoes irrelevance_0 (no offered name in it) before the probe, and lets
    # simple_python_0 (2/3 of its tool's name) through to the probe and the decoder.
    gated = bench.run(tiny_dir, ["simple_python", "irrelevance"], 1, "hermes", 4,
                      call_threshold=0.0, relevance_cut=0.5)
    simple, irrelevance = gated["items"]
    assert gated["relevance_cut"] == 0.5
    assert simple["name_overlap"] == 2 / 3 and simple["reply"].startswith(calibrate.CALL_OPENING)
    assert irrelevance["name_overlap"] == 0.0 and irrelevance["p_call"] is None
    assert irrelevance["reply"] == bench.NO_MATCH and irrelevance["correct"]


def test_bfcl_bench_below_the_relevance_cut_never_touches_the_model(tmp_path: Path) -> None:
    # No model directory and real model calls switched off: a decode here would raise.
    bench = _bench()
    out = bench.run(tmp_path / "no-model", ["simple_python", "irrelevance"], 2, "hermes", 4,
                    relevance_cut=1.01)
    assert out["relevance_cut"] == 1.01 and out["call_threshold"] is None
    assert [i["name_overlap"] for i in out["items"]] == [2 / 3, 1.0, 0.0, 0.0]
    assert all(i["reply"] == bench.NO_MATCH and i["p_call"] is None for i in out["items"])
    assert out["categories"]["irrelevance"]["accuracy"] == 1.0
    assert out["categories"]["simple_python"]["accuracy"] == 0.0


def test_bfcl_bench_grounded_args_drops_a_call_the_question_does_not_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()
    replies = iter([
        '<tool_call>\n{"name": "calculate_triangle_area", "arguments": '
        '{"base": 10, "height": 5, "unit": "units"}}\n</tool_call>',
        '<tool_call>\n{"name": "determine_body_mass_index", "arguments": '
        '{"weight": 70, "height": 5}}\n</tool_call>'])
    monkeypatch.setattr(bench, "_reply", lambda *a: (next(replies), None))
    out = bench.run(tmp_path / "no-model", ["simple_python", "irrelevance"], 1, "hermes", 4,
                    grounded_args=True)
    simple, irrelevance = out["items"]
    assert out["grounded_args"] is True
    assert simple["dropped"] == [] and simple["correct"]  # 10, 5 and "units" are all stated
    assert irrelevance["dropped"] == ["determine_body_mass_index.weight"]  # 70 is not
    assert irrelevance["reply"] == bench.UNGROUNDED and irrelevance["calls"] == []
    assert irrelevance["correct"]


def _row(kind: str, request: str, tool: str, reply: str = "ok") -> dict[str, Any]:
    from a4a.runtime.engine.textcalls import system_with_tools
    from a4a.runtime.llm.base import ToolSchema

    system = system_with_tools("You are a helpful assistant.",
                               (ToolSchema(tool, "A tool.", {"type": "object"}),), "hermes")
    return {"meta": {"kind": kind},
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": request},
                         {"role": "assistant", "content": reply}]}


@pytest.fixture()
def rows_file(tmp_path: Path) -> Path:
    """Held-out rows whose name overlaps are known: call 0.5, stated 1, irrelevant 0, near 0.5."""
    held = [_row("call", "Convert 5 USD to EUR", "convert_currency",
                 '<tool_call>\n{"name": "convert_currency", "arguments": {"amount": 5, '
                 '"to": "EUR"}}\n</tool_call>'),
            _row("stated", "Get the weather in Paris", "get_weather",  # a city it never said
                 '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}'
                 '\n</tool_call>'),
            _row("irrelevant", "Tell me a joke", "get_weather"),
            _row("near_miss", "Convert 3 km to miles", "convert_currency"),
            _row("task", "Get the weather in Oslo", "get_weather")]  # not a decision kind
    train = [_row("irrelevant", "Get the weather", "get_weather")]  # not held out: unread
    rows = {"train": train, "held_task": held[:3], "held_framework": held[3:]}
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"rows": rows}))
    return path


def test_decision_margin_fits_the_lexical_cut_on_a4a_rows_alone(rows_file: Path) -> None:
    margin = _bench("decision_margin")
    bfcl_pairs = {"simple_python": [(TRIANGLE, [{"name": "calculate_triangle_area"}])],
                  "multiple": [],
                  "irrelevance": [(TRIANGLE, [{"name": "determine_body_mass_index"}])]}
    out = margin.lexical(rows_file, 30, 25, bfcl_pairs)
    # calls {0.5, 1}, no-calls {0, 0.5}: 0.5 and 1 tie on balanced accuracy, the lowest wins.
    assert out["lexical_cut"] == 0.5
    assert out["auc_lexical_a4a"] == 3.5 / 4 and out["auc_lexical_bfcl"] == 1.0
    groups = out["lexical_groups"]
    assert groups["a4a irrelevant"] == {"n": 1, "mean": 0.0, "at_or_above": 0.0}
    assert groups["a4a near_miss"]["at_or_above"] == 1.0 and groups["a4a hard_negative"]["n"] == 0
    assert groups["bfcl simple_python"]["at_or_above"] == 1.0
    assert groups["bfcl irrelevance"]["at_or_above"] == 0.0
    text = "\n".join(margin.lexical_lines(out))
    assert "lexical cut fitted on a4a held-out rows (balanced accuracy): 0.5" in text
    assert "BFCL 1.000" in text
    assert out["grounded_gold"] == {"call": 1.0, "stated": 0.0}
    assert "(kept by --grounded-args): call 1.00, stated 0.00" in text


def test_decision_margin_lexical_only_reads_bfcl_without_a_model(
        rows_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    margin = _bench("decision_margin")
    margin.main(["--rows", str(rows_file), "--lexical-only", "--limit", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert "model" not in out and "probs" not in out
    assert out["name_overlap"]["bfcl simple_python"] == [2 / 3, 1.0]
    assert out["name_overlap"]["bfcl irrelevance"] == [0.0, 0.0]
    with pytest.raises(SystemExit):
        margin.main(["--rows", str(rows_file), "--lexical-only", "--model", "m"])
    assert "drop --model" in capsys.readouterr().err
