"""Random operation sequences with random (often wrong) arguments: every failure is a
structured error, and the world never ends up inconsistent."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack, input_schema
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.tools.base import ToolContext
from a4a.runtime.tools.registry import WorldTool
from a4a.runtime.world.engine import World

PACKS = sorted(knowledge.domain_packs().values(), key=lambda p: p.id)
CODES = {"invalid_arguments", "not_found", "invalid_state", "not_allowed"}
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 9), st.text(max_size=6),
                   st.sampled_from(["ISS-001", "USR-001", "REPO-001", "open", "closed", "x"]))


def consistent(world: World, pack: DomainPack) -> list[str]:
    """Broken invariants: ids match keys, refs resolve, enums hold, arrays are lists."""
    out = []
    for res in pack.resources:
        table = world.table(pack, res.name)
        for rid, rec in table.items():
            if rec.get("id") != rid:
                out.append(f"{res.name}: key {rid} holds id {rec.get('id')}")
            for f in res.fields:
                value = rec.get(f.name)
                if f.type == "array" and not isinstance(value, list):
                    out.append(f"{rid}.{f.name} is not a list")
                refs = value if isinstance(value, list) and f.items == "ref" else (
                    [value] if f.type == "ref" else [])
                for ref in refs:
                    if ref is not None and str(ref) not in world.table(pack, str(f.ref)):
                        out.append(f"{rid}.{f.name} -> missing {f.ref} {ref}")
                if f.enum and value is not None and f.type == "string" and value not in f.enum:
                    out.append(f"{rid}.{f.name}={value!r} outside its enum")
    return out


@st.composite
def scenario(draw: Any) -> tuple[DomainPack, list[tuple[str, dict[str, Any]]]]:
    pack = draw(st.sampled_from(PACKS))
    steps = []
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(pack.operations))
        names = [p.name for p in op.params] + ["bogus"]
        args = draw(st.dictionaries(st.sampled_from(names), VALUES, max_size=4))
        steps.append((op.name, args))
    return pack, steps


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario(), st.integers(0, 3))
def test_world_stays_consistent_under_random_calls(
        case: tuple[DomainPack, list[tuple[str, dict[str, Any]]]], seed: int) -> None:
    pack, steps = case
    world = World([pack], seed=seed)
    ctx = ToolContext("r", "a", services={"world": world})
    for name, args in steps:
        op = pack.operation(name)
        assert op is not None
        tool = WorldTool(ToolSchema(name, op.description, input_schema(op)), pack.id, name,
                         op.writes)
        outcome = asyncio.run(tool.call(args, ctx))
        if not outcome.ok:
            assert outcome.error is not None and outcome.error.code in CODES
            assert outcome.error.message and outcome.error.hint
    assert consistent(world, pack) == []
