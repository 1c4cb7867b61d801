"""`a4a train --config FILE.yaml` end to end on a tiny model and a JSONL of tokenized examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("peft")
pytest.importorskip("matplotlib")

from typer.testing import CliRunner

from a4a.cli import app
from tests.a4a.test_cli import a4a, as_json
from tests.training.test_loop import _examples, base_dir  # noqa: F401


def test_train_from_a_yaml_config(base_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(e) + "\n" for e in _examples(8)))
    config = tmp_path / "train.yaml"
    config.write_text(f"""recipe: finetune
method: lora
model:
  name: {base_dir}
data:
  path: data.jsonl
trainer:
  num_epochs: 2
  learning_rate: 0.01
  batch_size: 4
  seed: 1
lora:
  r: 4
  alpha: 8
  target_modules: [q_proj, v_proj]
output_dir: out
""")
    # In process: torch is loaded already, so the run takes a second, not an import's time.
    proc = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    assert proc.exit_code == 0, proc.output
    out = json.loads(proc.stdout)
    assert out["steps"] == 4 and out["final_loss"] < out["first_loss"]
    saved = json.loads((Path(out["checkpoint"]) / "train_config.json").read_text())
    assert saved["config"]["lora_r"] == 4 and saved["config"]["seed"] == 1
    assert saved["config"]["target_modules"] == ["q_proj", "v_proj"]
    assert Path(out["checkpoint"]).parent == tmp_path / "out"
    assert (tmp_path / "out" / "loss.png").is_file()


def test_config_problems_are_listed(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("recipe: distill\ntrainer: {epochs: 3}\n")
    proc = a4a("train", "--config", str(config), "--json")
    err = as_json(proc)["error"]
    assert proc.returncode == 2 and err["code"] == "train.config"
    for part in ("recipe 'distill'", "model.name is required", "data.path is required",
                 "unknown trainer key 'epochs'"):
        assert part in err["message"]
