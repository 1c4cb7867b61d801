"""Trajectory records to samples: perspectives, the four formats, filters, dedup, split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.errors import UserError
from a4a.training import data
from a4a.training.formats import format_sample

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
RECORDS = sorted(GOLDEN.glob("*.json"))


def _record(name: str = "supervisor") -> dict[str, Any]:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
@pytest.mark.parametrize("fmt", data.FORMATS)
def test_every_golden_record_gives_samples_in_every_format(path: Path, fmt: str) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    for perspective in ("system", "agents"):
        samples = data.samples_from_record(record, fmt, perspective)
        assert samples
        for s in samples:
            msgs = format_sample(s, fmt)
            assert any(m["role"] == "assistant" for m in msgs)
            assert s["meta"]["framework_id"] == record["framework_id"]


def test_agent_perspective_is_what_the_agent_saw_and_said() -> None:
    record = _record()
    calls = [e for e in record["events"]
             if e["type"] == "llm_call" and e["agent"] == "supervisor_agent"]
    (sample,) = data.samples_from_record(record, "function_calling", "supervisor_agent")
    msgs = sample["messages"]
    assert len(msgs) == len(calls[-1]["messages"]) + 1
    assert msgs[0]["content"] == calls[-1]["messages"][0]["content"]  # its own system prompt
    last = msgs[-1]
    assert last["role"] == "assistant"
    assert json.loads(last["tool_calls"][0]["function"]["arguments"]) == \
        calls[-1]["response"]["tool_calls"][0]["arguments"]


def test_system_perspective_holds_every_reply_and_result() -> None:
    record = _record()
    (sample,) = data.samples_from_record(record, "multi_agent")
    turns = sample["turns"]
    n_llm = sum(e["type"] == "llm_call" for e in record["events"])
    n_tool = sum(e["type"] == "tool_call" for e in record["events"])
    assert sum(t["role"] == "assistant" for t in turns) == n_llm
    assert sum(t["role"] == "tool" for t in turns) == n_tool
    callers = {e["agent"] for e in record["events"] if e["type"] == "llm_call"}
    assert len(callers) >= 2  # the supervisor and at least one worker spoke
    assert {t["agent"] for t in turns if t["role"] == "assistant"} == callers


def test_function_calling_sample_has_unique_call_ids_and_tools() -> None:
    (sample,) = data.samples_from_record(_record("group_chat"))
    ids = [c["id"] for m in sample["messages"] for c in m.get("tool_calls", [])]
    assert len(ids) == len(set(ids))
    answered = {m["tool_call_id"] for m in sample["messages"] if m["role"] == "tool"}
    assert answered <= set(ids)
    assert {t["function"]["name"] for t in sample["tools"]} >= {
        c["function"]["name"] for m in sample["messages"] for c in m.get("tool_calls", [])}


def test_unknown_agent_and_format_are_user_errors() -> None:
    with pytest.raises(UserError, match="nobody"):
        data.samples_from_record(_record(), "react", "nobody")
    with pytest.raises(UserError) as err:
        data.samples_from_record(_record(), "chatml")
    assert err.value.code == "format.unknown"


SEED = {
    "function_calling": {"messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What's the weather in London?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {
                "name": "get_weather", "arguments": "{\"city\": \"London\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 18}"},
        {"role": "assistant", "content": "It's 18°C in London."}]},
    "react": {"task": "Find the population of France", "steps": [
        {"thought": "I need to search for this.", "action": "search",
         "action_input": "France population 2024", "observation": "68 million"},
        {"thought": "I have the answer.", "action": "finish", "action_input": "68 million"}]},
    "trajectory": {"system": "You are a coding assistant.", "goal": "Create a hello world script",
                   "turns": [
                       {"role": "assistant", "content": "Creating file.", "tool_calls": [
                           {"name": "write_file", "arguments": {"path": "hello.py",
                                                                "content": "print('hello')"}}]},
                       {"role": "tool", "content": "File written."},
                       {"role": "assistant", "content": "Done!"}]},
    "multi_agent": {"system": "You are coordinating a research team.",
                    "goal": "Research and write about quantum computing", "turns": [
                        {"agent": "researcher", "role": "assistant", "content": "Searching...",
                         "tool_calls": [{"name": "search",
                                         "arguments": {"q": "quantum computing"}}]},
                        {"role": "tool", "content": "Found 15 papers..."},
                        {"agent": "writer", "role": "assistant",
                         "content": "Here's a summary..."}]},
}


@pytest.mark.parametrize("fmt", data.FORMATS)
def test_loaders_read_the_seed_examples(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "one.json").write_text(json.dumps(SEED[fmt]), encoding="utf-8")
    (tmp_path / "many.jsonl").write_text(json.dumps(SEED[fmt]) + "\n\n" + json.dumps(SEED[fmt]),
                                         encoding="utf-8")
    assert data.load_examples(tmp_path / "one.json", fmt) == [SEED[fmt]]
    assert len(data.load_examples(tmp_path / "many.jsonl", fmt)) == 2
    assert format_sample(SEED[fmt], fmt)


def test_loader_names_the_missing_key(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({"task": "x"}), encoding="utf-8")
    with pytest.raises(UserError, match="steps"):
        data.load_examples(tmp_path / "bad.json", "react")


def _fake(fid: str, status: str = "completed", reward: float | None = None) -> dict[str, Any]:
    return {"framework_id": fid, "status": status,
            "rewards": None if reward is None else {"composite": reward}}


def test_filters_count_why_they_drop() -> None:
    records = [_fake("a"), _fake("b", "max_steps"), _fake("c", reward=0.9),
               _fake("d", reward=0.2)]
    report = data.FilterReport()
    kept = list(data.filter_records(records, min_reward=0.5, report=report))
    assert [r["framework_id"] for r in kept] == ["c"]
    assert report.kept == 1
    assert report.dropped == {"status:max_steps": 1, "reward": 2}
    assert len(list(data.filter_records(records, statuses=None))) == 4


def test_dedup_ignores_meta() -> None:
    a = {"task": "t", "steps": [], "meta": {"run_id": "1"}}
    b = {"task": "t", "steps": [], "meta": {"run_id": "2"}}
    report = data.FilterReport()
    assert list(data.dedup([a, b, {"task": "u", "steps": []}], report)) == [
        a, {"task": "u", "steps": []}]
    assert report.dropped == {"duplicate": 1}


def test_split_holds_out_whole_frameworks_deterministically() -> None:
    records = [_fake(f"fw{i % 50}") for i in range(500)]
    train, held = data.split_records(records, eval_fraction=0.2)
    assert {r["framework_id"] for r in train}.isdisjoint({r["framework_id"] for r in held})
    assert 0 < len({r["framework_id"] for r in held}) < 50
    assert data.split_records(records, eval_fraction=0.2) == (train, held)


@pytest.mark.parametrize("mode", ["hermes", "xml", "react"])
def test_text_mode_tool_instructions_leave_the_system_prompt(mode: str) -> None:
    from a4a.runtime.llm import textmodes
    from a4a.runtime.llm.base import ToolSchema

    record = _record()
    tools = textmodes.render_tools((ToolSchema("f", "F.", {"type": "object"}),), mode)
    for e in record["events"]:
        if e["type"] == "llm_call":
            e["messages"][0]["content"] += "\n\n" + tools
    first = next(e for e in record["events"] if e["type"] == "llm_call")
    own = first["messages"][0]["content"]
    (sample,) = data.samples_from_record(record, "function_calling", first["agent"])
    assert sample["messages"][0]["content"] == own[: -len("\n\n" + tools)]
    assert "# Tools" not in sample["messages"][0]["content"]
