"""`a4a export --nexrl` writes a NexRL recipe whose evaluator's reward is the environment's
checker; `a4a trace export --format nexrl` writes runs as the in-memory tracer's spans."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from a4a import api
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.loader.nexau import inspect_agent_config
from a4a.runtime.loader.yamlio import load_yaml_file
from a4a.runtime.world import nexau_tools
from a4a.runtime.world.rewards import score
from tests.a4a.test_cli import a4a, as_json


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("nexrl")
    framework = root / "fw"
    api.build("a team that triages GitHub issues", out=framework)
    api.tasks(framework, 12)
    out = root / "recipe"
    proc = a4a("export", str(framework), "--nexrl", str(out), "--json")
    assert proc.returncode == 0, proc.stdout
    assert as_json(proc)["tasks"] == 12
    return framework, out


def _evaluator(out: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("exported_evaluator",
                                                  out / "agent_workspace" / "evaluator.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)  # loaded as NexRL's worker loads it
    spec.loader.exec_module(module)
    return module


def _task(out: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in (out / "data" / "tasks.jsonl").read_text().splitlines()]
    return next(r for r in rows if r["a4a_task"]["checker"]["expected_diff"])


def test_the_recipe_points_at_a_nexau_workspace(exported: tuple[Path, Path]) -> None:
    _, out = exported
    recipe = load_yaml_file(out / "recipe.yaml")["rollout_worker"]
    assert recipe["type"] == "nexau"
    assert recipe["evaluator_module_path"] == "agent_workspace/evaluator.py:A4AEvaluator"
    config = load_yaml_file(out / "agent_workspace" / "agent_config.yaml")
    assert config["llm_config"]["logprobs"] is True and "role" not in config
    spec, issues = inspect_agent_config(out / "agent_workspace" / "agent_config.yaml")
    assert spec is not None and not issues, issues
    assert all(t.implementation.startswith("world:") for t in spec.tools)


def test_a_gold_run_of_the_loaded_config_scores_full_reward(exported: tuple[Path, Path]
                                                            ) -> None:
    _, out = exported
    row = _task(out)
    task = row["a4a_task"]
    spec, _ = inspect_agent_config(out / "agent_workspace" / "agent_config.yaml")
    assert spec is not None
    steps = [Step(tool_calls=(ToolCall(f"c{i}", c["tool"], c["args"]),))
             for i, c in enumerate(task["plan"])]
    steps.append(Step(content="Done: " + "; ".join(task["checker"]["answer"])))
    record = asyncio.run(run_framework(spec, row["prompt"], ScriptedLLM({spec.entry: steps}),
                                       RunOptions(clock=FixedClock(), seed=task["world_seed"])))
    assert record.status == "completed", record.error
    last = [e for e in record.events if e["type"] == "llm_call"][-1]
    target = SimpleNamespace(final_answer=record.final_answer,
                             observation=[*last["messages"], last["response"]])
    result = _evaluator(out).A4AEvaluator().evaluate(row, target)
    own = score(task, json.loads(record.to_json()))
    assert result.reward == own["composite"] == 1.0
    idle = _evaluator(out).A4AEvaluator().evaluate(row, SimpleNamespace(
        final_answer="nothing", observation=[]))
    assert idle.reward < 0.5


def test_world_tools_keep_one_world_in_nexau_global_storage(exported: tuple[Path, Path]
                                                            ) -> None:
    _, out = exported
    config = load_yaml_file(out / "agent_workspace" / "agent_config.yaml")
    storage = dict(config["global_storage"])  # what NexAU seeds its GlobalStorage with
    binding = next(t["binding"] for t in config["tools"] if t["name"] == "close_issue")
    module, _, name = binding.partition(":")
    assert module == nexau_tools.__name__
    close = getattr(nexau_tools, name)
    first = close(global_storage=storage, issue_id="ISS-001")
    again = close(global_storage=storage, issue_id="ISS-001")
    assert first["status"] == "success" and again["status"] == "error", (first, again)


def test_trace_export_writes_span_trees(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    config = Path(__file__).parents[1] / "data" / "nexau" / "deep_research_agent.yaml"
    assert a4a("run", str(config), "Find news.", "--llm", "fake:schema", "--out",
               str(runs)).returncode == 0
    spans = tmp_path / "spans.jsonl"
    proc = a4a("trace", "export", str(runs), "--format", "nexrl", "--out", str(spans), "--json")
    assert proc.returncode == 0 and as_json(proc)["runs"] == 1
    (line,) = spans.read_text().splitlines()
    traces = json.loads(line)["traces"]
    kinds = [c["type"] for c in traces[0]["children"]]
    assert traces[0]["type"] == "AGENT" and "LLM" in kinds and "TOOL" in kinds
    bad = a4a("trace", "export", str(runs), "--format", "otel", "--out", str(spans), "--json")
    assert bad.returncode != 0 and as_json(bad)["error"]["code"] == "export.format"
