"""`a4a export`: the CLI contract, and rows that datasets and TRL's SFTTrainer load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from a4a.training import data, formats, styles
from a4a.training.export import export_runs

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runs") / "runs.jsonl"
    lines = [json.dumps(json.loads(p.read_text(encoding="utf-8")))
             for p in sorted(GOLDEN.glob("*.json"))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def a4a(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from a4a.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=ROOT, check=False, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})


def test_export_json_contract(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    proc = a4a("export", str(runs), "--format", "multi_agent", "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["samples"] == report["records"] == 16  # every golden run completed
    assert not report["dropped"]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 16
    assert all(set(r) == {"system", "goal", "turns", "meta"} for r in rows)
    styled = a4a("export", str(runs), "--format", "react", "--style", "glm", "--out",
                 str(out), "--json")
    assert styled.returncode == 2
    assert json.loads(styled.stdout)["error"]["code"] == "export.style"


@pytest.mark.parametrize("fmt", data.FORMATS)
def test_every_export_format_reads_back_through_its_formatter(
        runs: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"{fmt}.jsonl"
    export_runs(runs, out, fmt, statuses=None)
    rows = data.load_examples(out, fmt)  # validates every row's shape
    record = json.loads((GOLDEN / "debate.json").read_text(encoding="utf-8"))
    (sample,) = data.samples_from_record(record, fmt)
    back = [formats.format_sample(r, fmt) for r in rows]
    assert formats.format_sample(sample, fmt) in back
    assert all(any(m["role"] == "assistant" for m in msgs) for msgs in back)


def test_export_errors(runs: Path, tmp_path: Path) -> None:
    missing = a4a("export", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o"), "--json")
    assert missing.returncode == 2
    assert json.loads(missing.stdout)["error"]["code"] == "data.missing"
    bad = a4a("export", str(runs), "--style", "yaml", "--out", str(tmp_path / "o"), "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "style.unknown"
    usage = a4a("export", str(runs))
    assert usage.returncode == 2
    assert "Traceback" not in usage.stderr


@pytest.mark.parametrize("style", styles.STYLES)
def test_rows_use_one_grammar(runs: Path, tmp_path: Path, style: str) -> None:
    out = tmp_path / "sft.jsonl"
    export_runs(runs, out, "function_calling", style, perspective="agents", statuses=None)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    record_calls = [c for r in data.read_jsonl(runs) for e in r["events"]
                    if e["type"] == "llm_call" for c in e["response"].get("tool_calls", [])]
    n_calls = 0
    others = {"nexau": "<tool_use>", "hermes": '<tool_call>\n{"name"', "qwen_xml": "<function=",
              "minimax": "<invoke name=", "glm": "<arg_key>", "deepseek": "tool▁call▁begin"}
    for r in rows:
        text = json.dumps(r["messages"], ensure_ascii=False)
        assert not [m for s, m in others.items() if s != style and m in text]
        if style == "openai":
            calls = [c for m in r["messages"] for c in m.get("tool_calls") or []]
            assert all(isinstance(c["function"]["arguments"], str) for c in calls)
            n_calls += len(calls)
        else:
            n_calls += sum(len(styles.parse_calls(m["content"], style)) for m in r["messages"]
                           if m["role"] == "assistant")
    # Every agent's last turn holds each of its calls once, so none is lost in writing.
    assert 0 < n_calls <= len(record_calls)


def _tiny_model(tokenizer: Any) -> Any:
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32,
                                   intermediate_size=64, num_hidden_layers=1,
                                   num_attention_heads=2, num_key_value_heads=2)
    return transformers.LlamaForCausalLM(cfg)


# TRL's own config sets a field that transformers has deprecated: not ours to fix.
@pytest.mark.filterwarnings("ignore:.*is deprecated.*:FutureWarning")
@pytest.mark.parametrize("style", ["openai", "hermes"])
def test_datasets_and_sft_trainer_load_the_export(
        runs: Path, tmp_path: Path, tokenizer: Any, style: str) -> None:
    datasets = pytest.importorskip("datasets")
    trl = pytest.importorskip("trl")
    out = tmp_path / "sft.jsonl"
    export_runs(runs, out, "function_calling", style, statuses=None)
    ds = datasets.load_dataset("json", data_files=str(out), split="train")
    assert ds.num_rows == 16
    assert {"messages", "tools"} <= set(ds.column_names)
    args = trl.SFTConfig(output_dir=str(tmp_path / "o"), max_steps=1, report_to=[],
                         use_cpu=True, max_length=256, save_strategy="no",
                         dataset_num_proc=None)
    trainer = trl.SFTTrainer(model=_tiny_model(tokenizer), args=args, train_dataset=ds,
                             processing_class=tokenizer)
    assert len(trainer.train_dataset) == 16
    assert "input_ids" in trainer.train_dataset.column_names


def test_export_round_trips_to_neutral_messages(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    export_runs(runs, out, "function_calling", "openai", statuses=None)
    row = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    msgs = formats.format_function_calling(row)
    record = json.loads((GOLDEN / "debate.json").read_text(encoding="utf-8"))
    (sample,) = data.samples_from_record(record)
    assert msgs == formats.format_function_calling(sample)
