"""Task instantiation: a template plus a seeded world gives a verifiable task.

Slots bind to seeded records (or counts), placeholders `{slot.field}` fill the query, the
plan and the answer facts, and the gold plan is executed on a copy of the world to prove it
works and to record the expected final state (as a world diff). `python -m
a4a.runtime.world.tasks check PACK` instantiates every template of a pack on several seeds.
"""

from __future__ import annotations

import hashlib
import random
import re
import sys
from dataclasses import dataclass
from typing import Any

from a4a.runtime.ir.domain import DomainPack, TaskTemplate
from a4a.runtime.world.engine import World, diff
from a4a.runtime.world.errors import WorldError

_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)(?:\.([a-z][a-z0-9_]*))?\}")


class TemplateError(Exception):
    """A template cannot be instantiated on this world (no matching record, a failing plan)."""


@dataclass(frozen=True)
class GoldCall:
    """One call of an instantiated gold plan."""

    op: str
    args: dict[str, Any]
    expect_error: str | None = None


@dataclass(frozen=True)
class Instance:
    """A template instantiated on a world: query, gold calls, expected diff, answer facts."""

    template: TaskTemplate
    query: str
    calls: tuple[GoldCall, ...]
    expected_diff: list[dict[str, Any]]
    answer: tuple[str, ...]
    bindings: dict[str, Any]


def _resolve(value: str, bound: dict[str, Any]) -> Any:
    """Fill placeholders; a string that is exactly one placeholder keeps the value's type."""
    whole = _PLACEHOLDER.fullmatch(value)
    if whole:
        return _lookup(bound, whole.group(1), whole.group(2))
    return _PLACEHOLDER.sub(lambda m: str(_lookup(bound, m.group(1), m.group(2))), value)


def _lookup(bound: dict[str, Any], name: str, field: str | None) -> Any:
    if name not in bound:
        raise TemplateError(f"{{{name}}} is not bound")
    value = bound[name]
    if field is None:
        return value
    if not isinstance(value, dict) or field not in value:
        raise TemplateError(f"{{{name}.{field}}} has no value")
    return value[field]


def _matches(record: dict[str, Any], where: dict[str, Any]) -> bool:
    return all(record.get(k) == v or (isinstance(record.get(k), list) and v in record[k])
               for k, v in where.items())


def bind_slots(t: TaskTemplate, pack: DomainPack, world: World, rng: random.Random
               ) -> dict[str, Any]:
    """Choose a record (or count) for every slot, deterministically for `rng`."""
    bound: dict[str, Any] = {}
    for name in sorted(t.slots):
        slot = t.slots[name]
        rows = [r for _, r in sorted(world.table(pack, slot.resource).items())
                if _matches(r, slot.where)]
        if slot.count:
            bound[name] = len(rows)
            continue
        taken = {v["id"] for v in bound.values() if isinstance(v, dict)}
        free = [r for r in rows if r["id"] not in taken]
        if not free:
            raise TemplateError(f"slot {name}: no {slot.resource} with {slot.where}")
        bound[name] = dict(rng.choice(free))
    return bound


def instantiate(t: TaskTemplate, pack: DomainPack, world_seed: int, rng: random.Random
                ) -> Instance:
    """Instantiate `t` on a fresh world of `pack`; raises TemplateError when it cannot."""
    world = World([pack], seed=world_seed)
    before = world.snapshot()
    bound = bind_slots(t, pack, world, rng)
    calls = []
    for step in t.plan:
        args = {k: _resolve(v, bound) if isinstance(v, str) else v for k, v in step.args.items()}
        calls.append(GoldCall(step.op, args, step.expect_error))
        try:
            result = world.call(pack.id, step.op, args)
        except WorldError as err:
            if err.code != step.expect_error:
                raise TemplateError(f"step {step.op} failed: {err.code}: {err.message}") from err
            continue
        if step.expect_error:
            raise TemplateError(f"step {step.op} was expected to fail with {step.expect_error}")
        if step.save_as:
            bound[step.save_as] = result
    query = _resolve(rng.choice(t.queries), bound)
    answer = tuple(str(_resolve(a, bound)) for a in t.answer)
    return Instance(t, str(query), tuple(calls), diff(before, world.snapshot()), answer, bound)


def task_id(pack: str, template: str, world_seed: int, draw: int) -> str:
    """A stable task id."""
    digest = hashlib.sha256(f"{pack}|{template}|{world_seed}|{draw}".encode()).hexdigest()
    return f"{pack}.{template}.{digest[:8]}"


def check(pack: DomainPack, seeds: range = range(5)) -> list[str]:
    """Problems instantiating every template of a pack on several world seeds."""
    out = []
    for t in pack.tasks:
        for seed in seeds:
            try:
                instantiate(t, pack, seed, random.Random(seed))
            except TemplateError as err:
                out.append(f"{pack.id}.{t.id} (world seed {seed}): {err}")
    return out


def _main(argv: list[str]) -> int:
    from a4a.runtime import knowledge

    if len(argv) != 2 or argv[0] != "check":
        print("usage: python -m a4a.runtime.world.tasks check PACK|all", file=sys.stderr)
        return 2
    packs = knowledge.domain_packs()
    ids = sorted(packs) if argv[1] == "all" else [argv[1]]
    problems = [p for pid in ids for p in check(packs[pid])]
    for p in problems:
        print(p)
    counts = {pid: len(packs[pid].tasks) for pid in ids}
    print(f"checked {sum(counts.values())} templates in {len(ids)} pack(s): "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
