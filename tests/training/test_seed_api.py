"""Every code snippet of the agent fine-tuning seed, as written: model names swapped for a tiny
model built from a config (with the embedded SmolLM2 tokenizer), steps cut to 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

import a4a.training  # noqa: E402
from a4a.cli import app  # noqa: E402
from a4a.runtime.errors import UserError  # noqa: E402
from a4a.training import data  # noqa: E402
from tests.training.conftest import MODEL_DIR  # noqa: E402
from tests.training.test_data import SEED  # noqa: E402

torch.set_num_threads(1)

SEED_YAML = """recipe: finetune
method: lora
model:
  name: {model}
data:
  path: data/agent_traces.jsonl
  format: function_calling
trainer:
  num_epochs: 3
  learning_rate: 2e-4
  batch_size: 4
"""

ALIGN_YAML = """recipe: align
method: grpo
model:
  name: {model}
data:
  path: data/agent_traces.jsonl
trainer:
  max_steps: 1
  num_generations: 2
  batch_size: 2
  max_new_tokens: 4
online_rl:
  enabled: true
  reward_name: agent_composite
  reward_kwargs:
    expected_tools: ["search", "calculator"]
    success_markers: ["Done", "Task complete"]
    max_steps: 5
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama with the embedded model's tokenizer (and chat template)."""
    if not (MODEL_DIR / "tokenizer.json").is_file():
        pytest.skip("the embedded model is not cached (make model)")
    tok = transformers.AutoTokenizer.from_pretrained(str(MODEL_DIR))
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
        bos_token_id=tok.bos_token_id)
    out = tmp_path_factory.mktemp("tiny") / "model"
    transformers.LlamaForCausalLM(config).save_pretrained(str(out))
    tok.save_pretrained(str(out))
    return out


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", data.FORMATS)
def test_quick_start_finetunes_raw_jsonl_of_each_format(tiny: Path, tmp_path: Path,
                                                        fmt: str) -> None:
    traces = _jsonl(tmp_path / "data" / "agent_traces.jsonl", [SEED[fmt]] * 4)
    state = a4a.training.finetune(
        model=str(tiny), dataset=str(traces), method="lora", format=fmt, num_epochs=3,
        batch_size=2, output_dir=tmp_path / "out")
    assert state.step == 6 and all(loss > 0 for loss in state.losses)
    assert state.tokens > 0


def test_quick_start_refuses_a_hub_id_and_names_bad_rows(tiny: Path, tmp_path: Path) -> None:
    traces = _jsonl(tmp_path / "t.jsonl", [SEED["react"]])
    with pytest.raises(UserError) as hub:
        a4a.training.finetune(model="meta-llama/Llama-3.1-8B", dataset=str(traces),
                              format="react")
    assert hub.value.code == "train.model_not_local" and "--local-dir" in hub.value.hint
    bad = {"task": "x", "steps": [{"thought": "t"}]}
    _jsonl(traces, [SEED["react"], bad])
    with pytest.raises(UserError) as row:
        a4a.training.finetune(model=str(tiny), dataset=str(traces), format="react")
    assert row.value.code == "data.row"
    assert row.value.data["field"] == "steps[0].action" and "row 2" in row.value.message
    with pytest.raises(UserError) as raw:  # raw samples without format= name the field
        a4a.training.finetune(model=str(tiny), dataset=[SEED["react"]])
    assert raw.value.data["field"] == "input_ids" and "format=" in raw.value.hint


def test_loss_masking_snippet(tokenizer: Any) -> None:
    from a4a.training.formats import format_function_calling
    from a4a.training.masking import tokenize_agent_dataset

    messages = format_function_calling(SEED["function_calling"])
    tokenized = tokenize_agent_dataset([messages], tokenizer, max_seq_length=2048)
    labels = tokenized[0]["labels"]
    assert -100 in labels and any(x != -100 for x in labels)
    trained = tokenizer.decode([t for t, x in zip(tokenized[0]["input_ids"], labels,
                                                  strict=True) if x != -100])
    assert "get_weather" in trained and "18°C" in trained
    assert "What's the weather" not in trained and "temp" not in trained


def test_custom_tool_call_parser_snippet() -> None:
    from a4a.training.rewards import ParsedToolCall, tool_use_quality_reward

    def my_parser(response: str) -> list[ParsedToolCall]:
        return [ParsedToolCall(name=w.split(":", 1)[1], arguments={})
                for w in response.split() if w.startswith("CALL:")]

    prompt = "Search for cats"
    assert tool_use_quality_reward(prompt, "CALL:search", expected_tools=["search"],
                                   parser=my_parser) == 1.0
    assert tool_use_quality_reward(prompt, "CALL:browse", expected_tools=["search"],
                                   parser=my_parser) == 0.0
    with pytest.raises(UserError) as err:
        tool_use_quality_reward(prompt, "x", expected_tools=["search"],
                                parser=lambda r: [("search", {})])
    assert err.value.code == "reward.parser"


def test_efficiency_honours_max_steps_with_expected_tools() -> None:
    from a4a.training.rewards import efficiency_reward

    six = "".join('<tool_call>{"name": "search", "arguments": {}}</tool_call>' for _ in range(6))
    assert efficiency_reward("p", six, expected_tools=["search"] * 6) == 1.0
    assert efficiency_reward("p", six, expected_tools=["search"] * 6, max_steps=5) == 0.0


def _call(name: str) -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {{}}}}</tool_call>'


def test_evaluate_agent_prompt_response_form() -> None:
    results = a4a.training.evaluate_agent(
        responses=[
            {"prompt": "Search for cats", "response": _call("search") + " Done"},
            {"prompt": "Calculate 2+2", "response": _call("calculator") + " 4"},
        ],
        expected_tools=["search", "calculator"],
        success_markers=["Done"],
        max_steps=5,
    )
    assert results == {"tool_use_accuracy": 0.5, "task_success_rate": 0.5,
                       "step_efficiency": 0.5, "error_recovery_rate": None, "samples": 2}
    recovered = a4a.training.evaluate_agent(responses=[{"prompt": "p", "response": [
        {"role": "assistant", "content": _call("search")},
        {"role": "tool", "content": '{"error": {"code": "timeout"}}'},
        {"role": "assistant", "content": _call("search") + " Done"}]}],
        expected_tools=["search"], success_markers=["Done"])
    assert recovered["error_recovery_rate"] == 1.0
    with pytest.raises(UserError) as err:
        a4a.training.evaluate_agent(responses=[{"prompt": "p", "reply": "x"}])
    assert err.value.data == {"row": 0, "field": "response"}


def test_evaluate_agent_environment_form() -> None:
    from tests.training.test_rewards import TASK, call, record

    events = [call("search", {"q": "cats"}), call("tag", {"id": 3})]
    out = a4a.training.evaluate_agent([record(events, diff=TASK["checker"]["expected_diff"])],
                                      [TASK])
    assert out["runs"] == 1 and out["tool_use_accuracy"] == 1.0


TOOLS = [{"function": {"name": "lookup_order", "description": "Look up order by ID",
                       "parameters": {"type": "object",
                                      "properties": {"order_id": {"type": "string"}}}}}]


def test_agent_distill_snippet_offline(tmp_path: Path) -> None:
    from a4a.prep import generate

    result = generate(mode="agent_distill", topic="customer support with order lookup",
                      tools=TOOLS, n=6, format="function_calling", model="oracle")
    saved = result.save(tmp_path / "data" / "agent_traces.jsonl")
    rows = data.load_examples(saved, "function_calling")
    assert len(rows) == len(result) >= 3
    assert result.report["tool_map"] == {"get_order": "lookup_order"}
    assert len(result.report["run_records"]) == result.report["runs"]
    calls = [tc["function"] for r in rows for m in r["messages"]
             for tc in m.get("tool_calls") or []]
    assert not any(c["name"] == "get_order" for c in calls)
    assert all(r["tools"][0]["function"] == TOOLS[0]["function"] for r in rows)
    system = rows[0]["messages"][0]["content"]
    assert "lookup_order" in system and "get_order" not in system
    assert set(result.report["exercised"]) <= {"lookup_order"}
    with pytest.raises(UserError) as err:
        generate(mode="agent_distill", topic="customer support", n=2, tools=[
            {"function": {"name": "launch_rocket", "description": "Fire a rocket to orbit"}}])
    assert err.value.code == "generate.tool_unmapped"
    assert err.value.data["tools"] == ["launch_rocket"]
    react = generate(mode="agent_distill", topic="customer support", n=2, format="react")
    assert all(data.check_sample(s, "react", "s") is None for s in react.samples)


def test_agent_augment_snippet(tmp_path: Path) -> None:
    from a4a.prep import generate

    seed = _jsonl(tmp_path / "data" / "agent_traces.jsonl", [SEED["function_calling"]])
    result = generate(mode="agent_augment", seed=str(seed), n=5, format="function_calling",
                      model="offline")
    result.save(tmp_path / "data" / "agent_augmented.jsonl")
    back = data.load_examples(tmp_path / "data" / "agent_augmented.jsonl", "function_calling")
    assert len(back) == 5 and len({json.dumps(r) for r in back}) == 5
    assert all(r["messages"][2] == SEED["function_calling"]["messages"][2] for r in back)
    with pytest.raises(UserError) as err:
        generate(mode="agent_augment", seed=str(seed), n=2, model="gpt-4o-mini")
    assert err.value.code == "generate.model"


def _train(tmp_path: Path, yaml: str, samples: int) -> tuple[Path, dict[str, Any]]:
    """Run `a4a train --config` in process on `samples` copies of the seed's sample."""
    _jsonl(tmp_path / "data" / "agent_traces.jsonl", [SEED["function_calling"]] * samples)
    config = tmp_path / "agent_config.yaml"
    config.write_text(yaml, encoding="utf-8")
    proc = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    assert proc.exit_code == 0, proc.output
    return config, json.loads(proc.stdout)


def test_cli_runs_the_seed_yaml_verbatim(tiny: Path, tmp_path: Path) -> None:
    config, out = _train(tmp_path, SEED_YAML.format(model=tiny), 8)
    assert out["steps"] == 6  # 8 samples, batch 4, 3 epochs
    saved = json.loads((Path(out["checkpoint"]) / "train_config.json").read_text())
    assert saved["config"]["learning_rate"] == 2e-4
    config.write_text(SEED_YAML.format(model="meta-llama/Llama-3.1-8B"), encoding="utf-8")
    hub = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    err = json.loads(hub.stdout)["error"]
    assert hub.exit_code == 2 and err["code"] == "train.model_not_local"
    config.write_text(SEED_YAML.format(model=tiny).replace("2e-4", "fast"), encoding="utf-8")
    bad = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    assert "learning_rate is 'fast', not a number" in json.loads(bad.stdout)["error"]["message"]


def test_cli_runs_the_seed_align_yaml(tiny: Path, tmp_path: Path) -> None:
    pytest.importorskip("trl")
    _, out = _train(tmp_path, ALIGN_YAML.format(model=tiny), 2)
    assert out["steps"] == 1 and out["prompts"] == 2 and len(out["rewards"]) == 1
    assert Path(out["checkpoint"], "adapter_config.json").is_file()
