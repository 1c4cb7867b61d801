"""Each quality rule flags its fixtures and passes the clean ones."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from a4a.generator.pipeline import compile_request
from a4a.runtime.batch.quality import RULES, judge
from a4a.runtime.engine.oracle import OracleLLM
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.world.rewards import score
from a4a.runtime.world.synthesis import synthesize

SPEC = compile_request("a team that triages GitHub issues").spec
TASKS = [json.loads(t.to_json()) for t in synthesize(SPEC, 8, seed=4)]
WRITE_TASK = next(t for t in TASKS if t["checker"]["expected_diff"])
ERROR_TASK = next(t for t in TASKS if any(s["expect_error"] for s in t["plan"]))


def oracle_record(task: dict[str, Any]) -> dict[str, Any]:
    llm = OracleLLM(SPEC, task["plan"], task["checker"]["answer"])
    record = asyncio.run(run_framework(SPEC, task["query"], llm, RunOptions(
        clock=FixedClock(), seed=task["world_seed"], task_id=task["id"])))
    data = json.loads(record.to_json())
    data["rewards"] = score(task, data)
    return data


CLEAN = oracle_record(WRITE_TASK)


def with_answer(text: str, base: dict[str, Any] = CLEAN) -> dict[str, Any]:
    out = copy.deepcopy(base)
    out["final_answer"] = text
    return out


def repeated_calls() -> dict[str, Any]:
    out = copy.deepcopy(CLEAN)
    call = next(e for e in out["events"] if e["type"] == "tool_call")
    out["events"] += [copy.deepcopy(call) for _ in range(3)]
    return out


def repeated_replies() -> dict[str, Any]:
    out = copy.deepcopy(CLEAN)
    reply = next(e for e in out["events"] if e["type"] == "llm_call")
    out["events"] += [copy.deepcopy(reply) for _ in range(3)]
    return out


def broken_format() -> dict[str, Any]:
    out = copy.deepcopy(CLEAN)
    out["events"] += [{"type": "format_error", "agent": "triager", "errors": ["x"]}] * 6
    return out


def hacked() -> dict[str, Any]:
    out = with_answer("All done, everything is resolved.")
    out["world_diff"] = []
    out["rewards"] = score(WRITE_TASK, out)
    return out


FLAG = {
    "truncated": [dict(CLEAN, status="max_steps"), with_answer("   ")],
    "repetition_loop": [repeated_calls(), repeated_replies()],
    "invalid_format": [broken_format()],
    "hallucinated_result": [with_answer(CLEAN["final_answer"] + " See also ISS-777.")],
    "reward_hacking": [hacked()],
}


@pytest.mark.parametrize("rule", RULES)
def test_rule_flags_its_fixtures(rule: str) -> None:
    for record in FLAG[rule]:
        assert rule in judge(record, WRITE_TASK).reasons


@pytest.mark.parametrize("task", TASKS, ids=[t["template"] for t in TASKS])
def test_clean_oracle_runs_pass_every_rule(task: dict[str, Any]) -> None:
    verdict = judge(oracle_record(task), task)
    assert verdict.keep, verdict


def test_an_answer_relayed_up_a_hierarchy_is_not_a_loop() -> None:
    spec = compile_request("a whole company of agents for our ecommerce orders and refunds, "
                           "with departments each led by a lead").spec
    task = next(json.loads(t.to_json()) for t in synthesize(spec, 8, seed=0)
                if len(t.plan) >= 3)
    llm = OracleLLM(spec, task["plan"], task["checker"]["answer"])
    record = json.loads(asyncio.run(run_framework(spec, task["query"], llm, RunOptions(
        clock=FixedClock(), seed=task["world_seed"], task_id=task["id"]))).to_json())
    replies = [e["response"]["content"] for e in record["events"] if e["type"] == "llm_call"]
    relayed = any(replies[i] and replies[i] == replies[i + 1] == replies[i + 2]
                  for i in range(len(replies) - 2))
    assert spec.pattern == "hierarchical_teams" and relayed  # the case this test is about
    assert "repetition_loop" not in judge(record, task).reasons


def test_recovering_from_a_tool_error_is_tagged_not_dropped() -> None:
    verdict = judge(oracle_record(ERROR_TASK), ERROR_TASK)
    assert verdict.keep and verdict.tags == ("error_recovery",)
    assert judge(CLEAN, WRITE_TASK).tags == ()
