"""Stated-request call rows: every value the call passes is written in the request."""

from __future__ import annotations

import random
from typing import Any

from a4a import api
from a4a.runtime.ir.domain import input_schema
from a4a.runtime.knowledge import domain_packs
from a4a.runtime.llm.base import ToolSchema
from a4a.training import recipe, stated
from a4a.training.eval_run import load_framework

TYPES = {"integer": int, "number": float, "boolean": bool, "string": str}


def _schemas() -> list[ToolSchema]:
    return [ToolSchema(op.name, op.description, input_schema(op))
            for pack in domain_packs().values() for op in pack.operations]


def _written(value: Any, text: str) -> bool:
    return (str(value).lower() if isinstance(value, bool) else str(value)) in text


def test_every_stated_argument_is_written_in_the_request_and_fits_the_schema() -> None:
    made = 0
    for schema in _schemas():
        out = stated.stated(schema, random.Random(schema.name))
        if out is None:
            continue
        made += 1
        props, required = schema.parameters["properties"], schema.parameters.get("required", [])
        assert out.name == schema.name
        assert len(out.arguments) >= 2 and set(required) <= set(out.arguments) <= set(props)
        for name, value in out.arguments.items():
            assert _written(value, out.request), (schema.name, name, value, out.request)
            assert name.replace("_", " ") in out.request.lower()  # named by its parameter
            prop = props[name]
            assert type(value) is TYPES[prop["type"]], (schema.name, name, value)
            assert value in prop.get("enum", [value])
    assert made >= 300  # most pack operations take two or more values


def test_stated_is_none_for_tools_it_cannot_state() -> None:
    rng = random.Random(0)
    assert stated.stated(ToolSchema("no_such_operation", "", {"properties": {}}), rng) is None
    lone = next(s for s in _schemas() if len(s.parameters["properties"]) == 1)
    assert stated.stated(lone, rng) is None
    assert lone.name not in stated.candidates({lone.name: lone})


def test_stated_rows_end_at_the_call_and_have_irrelevance_twins(tmp_path: Any) -> None:
    api.build("an assistant that schedules meetings on my calendar", out=tmp_path / "cal")
    api.build("an assistant that tracks my expenses", out=tmp_path / "exp")
    specs = {n: load_framework(tmp_path / n) for n in ("cal", "exp")}
    records = [{"framework_id": n, "task_id": f"{n}-{i}", "run_id": f"{n}-{i}",
                "status": "completed", "task": "t", "events": []}
               for n in specs for i in range(6)]
    rows = recipe.build_rows(records, specs, irrelevant_every=0, stated_every=1, twins=True)
    calls = [r for r in rows if r["meta"]["kind"] == "stated"]
    twins = [r for r in rows if r["meta"]["kind"] == "irrelevant"]
    assert len(calls) == len(records) and len(twins) == len(calls)
    sizes = set()
    for row, twin in zip(calls, twins, strict=True):
        chat, own = row["messages"], recipe.world_tools(specs[row["meta"]["framework_id"]])
        assert [m["role"] for m in chat] == ["system", "user", "assistant"]
        (gold,) = [c["gold"] for c in recipe.next_call_cases([chat])]
        offered = {n for n in own if f'"name": "{n}"' in chat[0]["content"]}
        assert gold["name"] in offered and 1 <= len(offered) <= recipe.MAX_TOOLS
        assert all(_written(v, chat[1]["content"]) for v in gold["arguments"].values())
        sizes.add(len(offered))
        assert twin["messages"][1] == chat[1]
        assert not any(f'"name": "{n}"' in twin["messages"][0]["content"] for n in own)
        assert "<tool_call>" not in twin["messages"][-1]["content"]
    assert 1 in sizes and max(sizes) > 1
    again = recipe.build_rows(records, specs, irrelevant_every=0, stated_every=1, twins=True)
    assert again == rows
    assert not [r for r in recipe.build_rows(records, specs, irrelevant_every=0)
                if r["meta"]["kind"] == "stated"]


def test_near_twins_offer_the_framework_without_the_called_operations_object(
        tmp_path: Any) -> None:
    api.build("an assistant that schedules meetings on my calendar", out=tmp_path / "cal")
    specs = {"cal": load_framework(tmp_path / "cal")}
    records = [{"framework_id": "cal", "task_id": f"cal-{i}", "run_id": f"cal-{i}",
                "status": "completed", "task": "t", "events": []} for i in range(8)]
    rows = recipe.build_rows(records, specs, irrelevant_every=0, stated_every=1,
                             near_twins=True)
    calls = [r for r in rows if r["meta"]["kind"] == "stated"]
    near = [r for r in rows if r["meta"].get("twin") == "near"]
    assert calls and len(near) == len(calls)
    own = recipe.world_tools(specs["cal"])
    for row, twin in zip(calls, near, strict=True):
        (gold,) = [c["gold"] for c in recipe.next_call_cases([row["messages"]])]
        offered = [n for n in own if f'"name": "{n}"' in twin["messages"][0]["content"]]
        assert twin["meta"]["kind"] == "near_miss" and twin["messages"][1] == row["messages"][1]
        assert len(offered) == recipe._offered(row)
        noun = gold["name"].split("_", 1)[1]
        assert all(n.split("_", 1)[1] != noun for n in offered), (gold["name"], offered)
        assert "<tool_call>" not in twin["messages"][-1]["content"]


def test_overlap_twins_offer_other_frameworks_operations_sharing_the_calls_words(
        tmp_path: Any) -> None:
    api.build("an assistant that schedules meetings on my calendar", out=tmp_path / "cal")
    api.build("an assistant that tracks my expenses", out=tmp_path / "exp")
    api.build("a bot that books flights and hotels for my trips", out=tmp_path / "trip")
    specs = {n: load_framework(tmp_path / n) for n in ("cal", "exp", "trip")}
    records = [{"framework_id": n, "task_id": f"{n}-{i}", "run_id": f"{n}-{i}",
                "status": "completed", "task": "t", "events": []}
               for n in specs for i in range(6)]
    rows = recipe.build_rows(records, specs, irrelevant_every=0, stated_every=1,
                             overlap_twins=True)
    calls = {id(r): r for r in rows if r["meta"]["kind"] == "stated"}
    laps = [(rows[i - 1], r) for i, r in enumerate(rows) if r["meta"].get("twin") == "overlap"]
    assert laps and len(laps) <= len(calls)
    for row, twin in laps:
        assert id(row) in calls and twin["meta"]["kind"] == "irrelevant"
        own = recipe.world_tools(specs[row["meta"]["framework_id"]])
        (gold,) = [c["gold"] for c in recipe.next_call_cases([row["messages"]])]
        system = twin["messages"][0]["content"]
        offered = [t for f in specs.values() for n, t in recipe.world_tools(f).items()
                   if f'"name": "{n}"' in system]
        assert twin["messages"][1] == row["messages"][1]
        assert 1 <= len({t.name for t in offered}) <= recipe._offered(row)
        assert not any(t.name in own for t in offered)
        words = recipe._schema_words(own[gold["name"]]) - recipe.STOP_WORDS
        assert all(recipe._schema_words(t) & words for t in offered), (gold["name"], offered)
        noun = recipe._object(gold["name"])
        assert not any(recipe._object(t.name) & noun for t in offered)
        assert "<tool_call>" not in twin["messages"][-1]["content"]
