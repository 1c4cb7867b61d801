"""SFT rows of the recipe are written in the prompt style bench/bfcl.py sends, and the
next-call metric compares calls by name and arguments."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from a4a import api
from a4a.runtime.engine.textcalls import system_with_tools
from a4a.training import recipe
from a4a.training.bfcl import SYSTEM
from a4a.training.eval_run import held_out_tasks, load_framework, policy, run_tasks


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("recipe")
    specs, records = {}, []
    for name, request in (("team", "a team that triages GitHub issues"),
                          ("solo", "an assistant that tracks my expenses")):
        api.build(request, out=root / name)
        api.tasks(root / name, 2, seed=0)
        spec = load_framework(root / name)
        for record in run_tasks(spec, held_out_tasks(root / name, 2), policy("oracle"), "oracle"):
            specs[name] = spec  # run_tasks leaves framework_id empty: a synth batch sets it
            records.append({**record, "framework_id": name})
    return specs, records


def _world_calls(record: dict[str, Any], spec: Any) -> list[dict[str, Any]]:
    world = recipe.world_tools(spec)
    return [{"name": e["name"], "arguments": e["arguments"]} for e in record["events"]
            if e.get("type") == "tool_call" and e["name"] in world]


def test_task_rows_are_bfcl_shaped_and_replay_the_runs_calls(runs: Any) -> None:
    specs, records = runs
    rows = recipe.build_rows(records, specs, irrelevant_every=1, agents_per_run=None)
    assert {r["meta"]["kind"] for r in rows} == {"task", "agent", "irrelevant"}
    for record in records:
        spec = specs[record["framework_id"]]
        (row,) = [r for r in rows if r["meta"]["kind"] == "task"
                  and r["meta"]["task_id"] == record["task_id"]]
        chat = row["messages"]
        at = {t.name: chat[0]["content"].find(f'"name": "{t.name}"')
              for t in recipe.world_tools(spec).values()}
        offered = sorted((t for t in recipe.world_tools(spec).values() if at[t.name] >= 0),
                         key=lambda t: at[t.name])
        assert chat[0]["content"] == system_with_tools(SYSTEM, tuple(offered), "hermes")
        assert chat[1] == {"role": "user", "content": record["task"]}
        gold = [c["gold"] for c in recipe.next_call_cases([chat])]
        assert gold == _world_calls(record, spec) and gold
        assert chat[-1]["role"] == "assistant" and "<tool_call>" not in chat[-1]["content"]


def test_irrelevance_rows_offer_only_unrelated_tools_and_answer_in_text(runs: Any) -> None:
    specs, records = runs
    rows = recipe.build_rows(records, specs, irrelevant_every=1)
    irrelevant = [r for r in rows if r["meta"]["kind"] == "irrelevant"]
    assert len(irrelevant) == len(records)
    for row in irrelevant:
        own = recipe.world_tools(specs[row["meta"]["framework_id"]])
        system, answer = row["messages"][0]["content"], row["messages"][-1]["content"]
        assert "<tools>" in system and not any(f'"name": "{n}"' in system for n in own)
        assert answer in recipe.REFUSALS and not recipe.next_call_cases([row["messages"]])


def test_a_failed_call_and_its_recovery_stay_in_the_row(runs: Any) -> None:
    specs, records = runs
    record = dict(records[0])
    spec = specs[record["framework_id"]]
    name = next(iter(recipe.world_tools(spec)))
    failed = {"type": "tool_call", "span": "s1", "agent": spec.agents[0].name, "id": "x1",
              "name": name, "arguments": {"id": "NOPE-1"}, "ok": False,
              "result": {"error": {"code": "not_found", "message": "no NOPE-1"}}}
    record["events"] = [failed, *record["events"]]
    row = recipe.task_row(record, recipe.Framework("f", recipe.world_tools(spec)),
                          random.Random(0))
    assert row is not None and row["meta"]["recovers"]
    text = [m["content"] for m in row["messages"]]
    assert "NOPE-1" in text[2] and "not_found" in text[3] and text[3].startswith("<tool_response>")
    assert len(recipe.next_call_cases([row["messages"]])) == 1 + len(_world_calls(records[0], spec))


def test_next_call_accuracy_counts_only_exact_name_and_arguments() -> None:
    chat = recipe.render([], "Grade SUB-6 as 70.", [
        {"id": "1", "name": "grade_submission",
         "arguments": {"submission_id": "SUB-6", "score": 70}, "result": {"ok": True}},
        {"id": "2", "name": "return_submission", "arguments": {"submission_id": "SUB-6"},
         "result": {"ok": True}}], "Done.")
    cases = recipe.next_call_cases([chat])
    assert [len(c["prompt"]) for c in cases] == [2, 4]
    gold = {len(c["prompt"]): c for c in cases}

    def right(prompt: list[dict[str, str]]) -> str:
        g = gold[len(prompt)]["gold"]
        call = json.dumps({"name": g["name"], "arguments": g["arguments"]})
        return f"<tool_call>\n{call}\n</tool_call>"

    assert recipe.next_call_accuracy(right, cases)["accuracy"] == 1.0
    wrong = ('<tool_call>\n{"name": "grade_submission", '
             '"arguments": {"submission_id": "SUB-6", "score": 71}}\n</tool_call>')
    result = recipe.next_call_accuracy(lambda p: wrong, cases)
    assert result == {"n": 2, "accuracy": 0.0, "se": 0.0}
    assert recipe.next_call_accuracy(lambda p: "I would grade it.", cases)["accuracy"] == 0.0


def test_split_keeps_held_out_frameworks_whole() -> None:
    records = [{"framework_id": f"fw{i % 30}", "task_id": f"t{i}", "run_id": str(i)}
               for i in range(300)]
    parts = recipe.split(records)
    assert sum(len(v) for v in parts.values()) == 300 and all(parts.values())
    held = {r["framework_id"] for r in parts["held_framework"]}
    assert not held & {r["framework_id"] for r in parts["train"] + parts["held_task"]}
    assert recipe.split(records) == parts


def test_near_miss_rows_offer_the_framework_but_none_of_the_tools_its_run_called(runs: Any
                                                                                ) -> None:
    specs, records = runs
    rows = recipe.build_rows(records, specs, irrelevant_every=0, near_miss_every=1)
    near = [r for r in rows if r["meta"]["kind"] == "near_miss"]
    assert near
    for row in near:
        spec = specs[row["meta"]["framework_id"]]
        record = next(r for r in records if r["task_id"] == row["meta"]["task_id"])
        system = row["messages"][0]["content"]
        used = {c["name"] for c in _world_calls(record, spec)}
        offered = {n for n in recipe.world_tools(spec) if f'"name": "{n}"' in system}
        assert offered and not offered & used
        assert row["messages"][-1]["content"] in recipe.REFUSALS


def test_hard_negative_rows_offer_unused_siblings_sharing_words_with_the_request() -> None:
    def tool(name: str, *args: str) -> Any:
        from a4a.runtime.llm.base import ToolSchema

        return ToolSchema(name, name, {"type": "object",
                                       "properties": {a: {"type": "string"} for a in args}})

    names = {"cancel_order": ("order_id",), "get_order": ("order_id",),
             "refund_order": ("order_id",), "ship_order": ("order_id",),
             "list_orders": (), "search_orders": ("query",), "add_customer": ("name",)}
    fw = recipe.Framework("shop", {n: tool(n, *a) for n, a in names.items()})
    record = {"task": "Cancel order ORD-1.", "framework_id": "shop", "task_id": "t",
              "events": [{"type": "tool_call", "name": n, "arguments": {"order_id": "ORD-1"}}
                         for n in ("get_order", "cancel_order")]}
    seen = set()
    for seed in range(20):
        row = recipe.hard_negative_row(record, fw, random.Random(seed))
        assert row is not None and row["meta"]["kind"] == "hard_negative"
        system = row["messages"][0]["content"]
        offered = {n for n in names if f'"name": "{n}"' in system}
        assert offered and offered <= {"refund_order", "ship_order"}  # no reader, no other noun
        assert row["messages"][-1]["content"] in recipe.REFUSALS
        seen |= offered
    assert seen == {"refund_order", "ship_order"}
    lone = {**record, "events": record["events"][:1]}
    assert recipe.hard_negative_row({**lone, "events": []}, fw, random.Random(0)) is None
    only = recipe.Framework("shop", {n: fw.tools[n] for n in ("get_order", "add_customer")})
    assert recipe.hard_negative_row(lone, only, random.Random(0)) is None


def test_call_rows_end_at_one_call_of_the_run_alone_or_among_siblings(runs: Any) -> None:
    specs, records = runs
    rows = recipe.build_rows(records, specs, irrelevant_every=0, call_every=1)
    calls = [r for r in rows if r["meta"]["kind"] == "call"]
    assert len(calls) == len({r["task_id"] for r in records})
    sizes = set()
    for row in calls:
        spec = specs[row["meta"]["framework_id"]]
        record = next(r for r in records if r["task_id"] == row["meta"]["task_id"])
        chat = row["messages"]
        offered = {n for n in recipe.world_tools(spec) if f'"name": "{n}"' in chat[0]["content"]}
        made = _world_calls(record, spec)
        stated = [c for c in made if all(str(v) in record["task"] for v in c["arguments"].values())]
        (gold,) = [c["gold"] for c in recipe.next_call_cases([chat])]
        assert gold in made and gold["name"] in offered
        assert 1 <= len(offered) <= recipe.MAX_TOOLS
        sizes.add(len(offered))
        assert [r["role"] for r in chat] == ["system", "user", "assistant"]
        if stated:
            assert gold in stated
            assert len(gold["arguments"]) == max(len(c["arguments"]) for c in stated)
        else:
            assert gold == made[0]
    # A lone tool is offered in call rows too, as in the no-call rows: its count is no cue.
    record = next(r for r in records if r["task_id"] == calls[0]["meta"]["task_id"])
    fw = recipe.Framework(record["framework_id"],
                          recipe.world_tools(specs[record["framework_id"]]))
    for seed in range(20):
        row = recipe.call_row(record, fw, random.Random(seed))
        assert row is not None
        sizes.add(sum(f'"name": "{n}"' in row["messages"][0]["content"] for n in fw.tools))
    assert 1 in sizes and max(sizes) > 1


def test_call_rows_take_the_call_whose_arguments_the_request_states() -> None:
    calls = [{"name": "get", "arguments": {"id": "A-1"}},
             {"name": "grade", "arguments": {"id": "A-1", "score": 70}},
             {"name": "note", "arguments": {"id": "A-1", "text": "late", "by": "bo"}}]
    assert recipe._fullest_call(calls, "Grade A-1 as 70.") == calls[1]
    assert recipe._fullest_call(calls, "Grade the last one.") == calls[0]
    assert recipe._fullest_call([], "anything") is None


def test_decision_accuracy_scores_whether_the_first_reply_calls() -> None:
    tools: list[Any] = []
    call = recipe.render(tools, "Grade SUB-6.", [{"id": "c1", "name": "grade",
                                                 "arguments": {"id": "SUB-6"}, "result": "ok"}],
                         "Done.")
    refuse = recipe.render(tools, "Bake a cake.", [], recipe.REFUSALS[0])
    text = "I cannot."
    called = '<tool_call>\n{"name": "other", "arguments": {}}\n</tool_call>'
    always_call = recipe.decision_accuracy(lambda p: called, [call, refuse])
    assert always_call["n"] == 2 and always_call["accuracy"] == 0.5
    assert recipe.decision_accuracy(lambda p: text, [call, refuse])["accuracy"] == 0.5
    right = recipe.decision_accuracy(lambda p: called if "SUB-6" in p[-1]["content"] else text,
                                     [call, refuse])
    assert right["accuracy"] == 1.0
    seen: list[Any] = []
    recipe.decision_accuracy(lambda p: seen.append(p) or text, [call])
    assert [m["role"] for m in seen[0]] == ["system", "user"]


def test_call_row_twins_differ_only_in_whether_a_tool_fits(runs: Any) -> None:
    specs, records = runs
    rows = recipe.build_rows(records, specs, irrelevant_every=0, call_every=1, twins=True)
    calls = [r for r in rows if r["meta"]["kind"] == "call"]
    twins = [r for r in rows if r["meta"]["kind"] == "irrelevant"]
    assert calls and len(twins) == len(calls)
    for call in calls:
        (twin,) = [t for t in twins if t["meta"]["task_id"] == call["meta"]["task_id"]]
        own = recipe.world_tools(specs[call["meta"]["framework_id"]])
        assert twin["messages"][1] == call["messages"][1]  # the same request
        assert twin["messages"][0]["content"].count(recipe.TOOL_LINE) == \
            call["messages"][0]["content"].count(recipe.TOOL_LINE) >= 1
        assert not any(f'"name": "{n}"' in twin["messages"][0]["content"] for n in own)
        assert "<tool_call>" not in twin["messages"][-1]["content"]
    plain = recipe.build_rows(records, specs, irrelevant_every=0, call_every=1)
    assert not [r for r in plain if r["meta"]["kind"] == "irrelevant"]
