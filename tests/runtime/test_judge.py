"""The LLM judge: traces cut into parts and packed into requests; structured reports merged."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from a4a.runtime.batch.judge import chunks, judge_records, requests
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message
from a4a.runtime.llm.fakes import FunctionLLM
from tests.runtime.test_quality import CLEAN, TASKS, oracle_record

RECORDS = [oracle_record(t) for t in TASKS[:4]]
ITEM = re.compile(r"### run_id=(\w+) part=(\d+)")


def test_a_long_trace_is_cut_into_parts_no_longer_than_the_limit() -> None:
    parts = chunks(CLEAN, 300)
    assert len(parts) > 1 and all(len(p) <= 300 for p in parts)
    assert CLEAN["run_id"] in parts[0]


def test_short_traces_share_a_request_and_every_part_is_sent_once() -> None:
    packed = requests(RECORDS, 6000)
    sent = [(rid, part) for req in packed for rid, part, _ in req]
    assert len(sent) == len(set(sent)) == sum(len(chunks(r, 6000)) for r in RECORDS)
    assert len(packed) < len(sent)  # several parts per request
    assert all(sum(len(t) for *_, t in req) <= 6000 for req in packed if len(req) > 1)


def _judge(drop: str) -> FunctionLLM:
    def reply(req: LLMRequest) -> LLMResponse:
        items = ITEM.findall(req.messages[-1].content)
        reports = [{"run_id": rid, "part": int(p), "keep": rid != drop,
                    "issues": [] if rid != drop else [{"code": "hallucination",
                                                       "detail": "ISS-9 never observed"}]}
                   for rid, p in items]
        return LLMResponse(Message("assistant", "Here: " + json.dumps({"reports": reports})))
    return FunctionLLM(reply)


def test_reports_are_merged_per_run_and_a_flagged_run_is_dropped() -> None:
    drop = RECORDS[1]["run_id"]
    out = asyncio.run(judge_records(RECORDS, _judge(drop), max_chars=500))
    assert {rid for rid, rep in out.items() if not rep.keep} == {drop}
    assert out[drop].issues[0]["code"] == "hallucination"
    assert all(rep.issues == [] for rid, rep in out.items() if rid != drop)


def test_a_judge_that_does_not_answer_in_json_drops_nothing_and_says_so() -> None:
    def bad(req: LLMRequest) -> LLMResponse:
        return LLMResponse(Message("assistant", "looks fine to me"))

    out: dict[str, Any] = asyncio.run(judge_records(RECORDS, FunctionLLM(bad)))
    assert all(rep.keep and rep.issues[0]["code"] == "judge_error" for rep in out.values())
