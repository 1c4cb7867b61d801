"""TRL-style agent rewards and evaluate_agent on small hand-made records."""

from __future__ import annotations

from typing import Any

import pytest

from a4a.runtime.engine.agent import UNREADABLE_CALL
from a4a.training.evaluate import evaluate_agent, reply_validity
from a4a.training.rewards import (
    REWARDS,
    agent_composite,
    efficiency,
    task_completion,
    tool_use_quality,
)

TASK = {"id": "t1", "plan": [{"agent": "a", "tool": "search", "args": {"q": "cats"}},
                             {"agent": "a", "tool": "tag", "args": {"id": 3}}],
        "checker": {"expected_diff": [{"op": "set", "path": "tags/3", "value": "cat"}],
                    "answer": ["3 cats"]}}
DIFF = TASK["checker"]["expected_diff"]


def call(name: str, args: dict[str, Any], ok: bool = True, span: str = "s1",
         code: str | None = None) -> dict[str, Any]:
    result: Any = {"error": {"code": code or "failed"}} if not ok else {"ok": 1}
    return {"type": "tool_call", "span": span, "name": name, "arguments": args, "ok": ok,
            "result": result}


def llm(span: str = "s1", last: str = "go") -> dict[str, Any]:
    return {"type": "llm_call", "span": span, "messages": [{"role": "user", "content": last}],
            "response": {"role": "assistant", "content": ""}}


def record(events: list[dict[str, Any]], answer: str = "Tagged: 3 cats.",
           diff: list[dict[str, Any]] | None = None, task_id: str = "t1") -> dict[str, Any]:
    return {"run_id": "r", "task_id": task_id, "status": "completed", "events": events,
            "final_answer": answer, "world_diff": DIFF if diff is None else diff}


GOOD = record([llm(), call("search", {"q": "cats"}), llm(), call("tag", {"id": 3}), llm()])
WRONG_ARGS = record([call("search", {"q": "dogs"}), call("tag", {"id": "3"})], answer="no",
                    diff=[])
HALF = record([call("search", {"q": "cats"}), call("search", {"q": "cats"}),
               call("tag", {"id": 4})], answer="no", diff=[])


def test_rewards_from_records_against_the_gold_plan() -> None:
    runs = [GOOD, WRONG_ARGS, HALF]
    kw = {"task": [TASK] * 3, "record": runs}
    assert tool_use_quality(["", "", ""], **kw) == [1.0, 0.0, 0.5]
    assert tool_use_quality(["", "", ""], task=TASK, trajectory=runs) == [1.0, 0.0, 0.5]
    assert task_completion(["", "", ""], **kw) == [1.0, 0.0, 0.0]
    assert efficiency(["", "", ""], **kw) == [1.0, 1.0, pytest.approx(2 / 3, abs=1e-6)]
    # 0.4 quality + 0.4 completion + 0.2 efficiency
    assert agent_composite()(["", "", ""], **kw) == [1.0, 0.2, pytest.approx(0.333333)]
    weighted = agent_composite(weights={"quality": 1.0, "completion": 0.0, "efficiency": 0.0})
    assert weighted(["", "", ""], **kw) == [1.0, 0.0, 0.5]


def test_text_completions_are_parsed_and_scored() -> None:
    good = ('<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
            '<tool_call>{"name": "tag", "arguments": {"id": 3}}</tool_call> 3 cats')
    chat = [{"role": "assistant", "content": good}]
    assert tool_use_quality([good, chat], task=TASK) == [1.0, 1.0]
    # The text stands for the run: the answer fact is there, the world did not change.
    assert task_completion([good], task=TASK) == [0.5]
    assert tool_use_quality(['<tool_call>{"name": "search", "arguments": {}}</tool_call>'],
                            expected_tools=["search", "calc"]) == [0.5]
    assert tool_use_quality(["I will not call anything."]) == [0.0]
    assert task_completion(["Done, all set", "working"], success_markers=["done"]) == [1.0, 0.0]
    assert efficiency(["x", good], max_steps=1) == [1.0, 0.0]


def test_composite_is_zero_for_an_unreadable_tool_call() -> None:
    broken = '<tool_call>{"name": "search", "arguments": {"q": </tool_call> 3 cats'
    valid = '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call> 3 cats'
    reward = agent_composite(expected_tools=["search"])
    scores = reward([broken, valid])
    assert scores[0] == 0.0 and scores[1] > 0.5
    unreadable = record([llm(), llm(last=UNREADABLE_CALL + "bad JSON"), *GOOD["events"]])
    assert agent_composite()(["", ""], task=TASK, record=[unreadable, GOOD]) == [0.0, 1.0]
    assert set(REWARDS) == {"tool_use_quality", "task_completion", "efficiency",
                            "agent_composite"}


def test_reply_validity_reads_structured_events() -> None:
    rec = record([llm(), llm(last=UNREADABLE_CALL + "x"), call("a", {}, ok=False,
                                                               code="invalid_json"),
                  llm(span="s2"), llm()])
    # reply 1: the next call shows the observation; reply 2: invalid_json in its span;
    # reply 3 (span s2) and reply 4 have nothing after them.
    assert reply_validity(rec) == [False, False, True, True]


def test_evaluate_agent_metrics() -> None:
    recovered = record([llm(), call("search", {"q": "x"}, ok=False), *GOOD["events"]],
                       task_id="t1")
    failed = record([call("search", {"q": "cats"}, ok=False)], answer="", diff=[],
                    task_id="t1")
    bad_format = record([llm(), llm(last=UNREADABLE_CALL + "x")], answer="", diff=[])
    out = evaluate_agent([GOOD, recovered, failed, bad_format], [TASK])
    assert out["runs"] == 4 and out["runs_with_errors"] == 2
    # `recovered` passes the checker but its failed call costs efficiency: composite < 1
    assert out["task_success_rate"] == 0.25
    assert out["error_recovery_rate"] == 0.5
    assert out["tool_use_accuracy"] == 0.625
    # replies: GOOD 3 + recovered 4 + bad_format 2, one unreadable
    assert out["format_validity"] == pytest.approx(8 / 9, abs=1e-6)
    assert evaluate_agent([GOOD], [TASK])["error_recovery_rate"] is None
