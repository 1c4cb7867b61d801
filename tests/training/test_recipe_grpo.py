"""GRPO after SFT in bench/recipe.py: prompts come from the rows' gold calls and no-tool rows,
and the next-call reward pays a text answer only where no tool fits."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from a4a.training import grpo, recipe

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_recipe", ROOT / "bench" / "recipe.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict[str, Any]]:
    chat = recipe.render([], "Grade SUB-6 as 70.", [
        {"id": "1", "name": "grade_submission",
         "arguments": {"submission_id": "SUB-6", "score": 70}, "result": {"ok": True}}], "Done.")
    none = recipe.render([], "Book a flight to Rome.", [], recipe.REFUSALS[0])
    return [{"messages": chat, "meta": {"kind": "task"}},
            {"messages": none, "meta": {"kind": "irrelevant"}}]


def test_prompts_cut_at_gold_calls_and_before_no_tool_answers() -> None:
    prompts = _bench().grpo_prompts(_rows(), 1)
    golds = [json.loads(p["gold"]) for p in prompts]
    assert golds == [{"name": "grade_submission",
                      "arguments": {"submission_id": "SUB-6", "score": 70}}, None]
    assert [p["prompt"][-1]["role"] for p in prompts] == ["user", "user"]
    assert all("<tool_call>" not in m["content"] for p in prompts for m in p["prompt"][1:])
    assert _bench().grpo_prompts(_rows(), 1, max_chars=1) == []


def test_no_tool_gold_pays_text_and_a_call_pays_the_gold_only() -> None:
    call = ('<tool_call>\n{"name": "grade_submission", '
            '"arguments": {"submission_id": "SUB-6", "score": 70}}\n</tool_call>')
    gold = json.dumps({"name": "grade_submission",
                       "arguments": {"submission_id": "SUB-6", "score": 70}})
    text = "None of these tools can book flights."
    assert grpo.next_call([text, call, ""], ["null"] * 3) == [1.0, 0.0, 0.0]
    assert grpo.next_call([text, call], [gold] * 2) == [0.0, 1.0]
