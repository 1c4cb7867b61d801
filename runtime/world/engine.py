"""The world engine: executes domain-pack operations over seeded, typed records.

A World is built fresh for every run from packs and a seed; the same seed gives the same
records. Operations follow their pack's generic action semantics (list, search, get, create,
update, delete, add_to, remove_from) and fail with structured WorldErrors: `not_found`,
`invalid_state` (a `requires` precondition), `not_allowed` (a `forbids` rule) and
`invalid_arguments`.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from a4a.runtime.ir.domain import DomainPack, FieldSpec, OperationSpec, ResourceSpec
from a4a.runtime.world.actions import ACTIONS
from a4a.runtime.world.errors import WorldError

Record = dict[str, Any]


class World:
    """Records of one or more packs, keyed `pack.resource` -> id -> record."""

    def __init__(self, packs: list[DomainPack], seed: int = 0) -> None:
        self.packs = {p.id: p for p in packs}
        self.seed = seed
        self.tables: dict[str, dict[str, Record]] = {}
        for pack in packs:
            for res in _seed_order(pack):
                self.tables[f"{pack.id}.{res.name}"] = self._seed(pack, res)

    def snapshot(self) -> dict[str, dict[str, Record]]:
        """A deep copy of every table (records are JSON data: a JSON round trip is fastest)."""
        copied: dict[str, dict[str, Record]] = json.loads(json.dumps(self.tables))
        return copied

    def call(self, pack_id: str, op_name: str, args: dict[str, Any]) -> Any:
        """Execute an operation; raises WorldError."""
        pack = self.packs.get(pack_id)
        op = pack.operation(op_name) if pack else None
        if pack is None or op is None:
            raise WorldError("not_found", f"no operation {pack_id}.{op_name}",
                             "Call one of the tools you were given.")
        return ACTIONS[op.action](self, pack, op, args)

    # -- helpers used by the actions ---------------------------------------------------
    def table(self, pack: DomainPack, resource: str) -> dict[str, Record]:
        """The records of a resource."""
        return self.tables[f"{pack.id}.{resource}"]

    def record(self, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Record:
        """The target record of an id-taking operation, with its preconditions checked."""
        rid = args.get(f"{op.resource}_id")
        rec = self.table(pack, op.resource).get(str(rid))
        if rec is None:
            raise WorldError("not_found", f"{op.resource} {rid!r} does not exist",
                             f"List or search {op.resource} records to find a valid id.")
        for key, want in op.requires.items():
            if rec.get(key) != want:
                raise WorldError("invalid_state", f"{op.name} needs {op.resource} {rid} to "
                                 f"have {key}={want!r}, but it is {rec.get(key)!r}",
                                 "Check the record's state first; choose an operation that "
                                 "fits it.")
        for key, banned in op.forbids.items():
            if rec.get(key) == banned:
                raise WorldError("not_allowed", f"{op.name} is not allowed on {op.resource} "
                                 f"{rid} while {key}={banned!r}", "Do not retry; report it.")
        return rec

    def check_refs(self, pack: DomainPack, res: ResourceSpec, values: dict[str, Any]) -> None:
        """Every ref value names an existing record."""
        fields = {f.name: f for f in res.fields}
        for name, value in values.items():
            f = fields.get(name)
            if f is None or f.ref is None or value is None:
                continue
            ids = value if isinstance(value, list) else [value]
            missing = [i for i in ids if str(i) not in self.table(pack, f.ref)]
            if missing:
                raise WorldError("not_found", f"{f.ref} {missing[0]!r} does not exist",
                                 f"List {f.ref} records to find a valid id.")

    def _seed(self, pack: DomainPack, res: ResourceSpec) -> dict[str, Record]:
        rng = random.Random(f"{self.seed}:{pack.id}:{res.name}")
        out: dict[str, Record] = {}
        for n in range(1, res.seed_count + 1):
            rid = f"{res.id_prefix}-{n:03d}"
            rec: Record = {"id": rid}
            for f in res.fields:
                rec[f.name] = self._value(pack, f, rng, n)
            out[rid] = rec
        return out

    def _value(self, pack: DomainPack, f: FieldSpec, rng: random.Random, n: int) -> Any:
        if f.seed:
            return copy.deepcopy(f.seed[(n - 1) % len(f.seed)] if n <= len(f.seed)
                                 else rng.choice(f.seed))
        if f.ref and f.type == "ref":
            ids = sorted(self.tables.get(f"{pack.id}.{f.ref}", {}))
            return rng.choice(ids) if ids else None
        if f.enum:
            return rng.choice(f.enum)
        return {"integer": rng.randint(1, 100), "number": round(rng.uniform(1, 1000), 2),
                "boolean": rng.random() < 0.5, "array": [],
                "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                }.get(f.type, f"{f.name.replace('_', ' ')} {n}")


def _seed_order(pack: DomainPack) -> list[ResourceSpec]:
    """Resources ordered so referenced ones are seeded first (cycles keep pack order)."""
    order: list[ResourceSpec] = []
    by_name = {r.name: r for r in pack.resources}

    def visit(res: ResourceSpec, path: tuple[str, ...]) -> None:
        if res in order or res.name in path:
            return
        for f in res.fields:
            if f.ref and f.ref in by_name and f.ref != res.name:
                visit(by_name[f.ref], (*path, res.name))
        order.append(res)

    for res in pack.resources:
        visit(res, ())
    return order


def diff(before: dict[str, dict[str, Record]], after: dict[str, dict[str, Record]]
         ) -> list[dict[str, Any]]:
    """Changes between two snapshots: created, deleted and updated records (field level)."""
    out: list[dict[str, Any]] = []
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        for rid in sorted(set(old) | set(new)):
            if rid not in old:
                out.append({"op": "create", "table": table, "id": rid, "record": new[rid]})
            elif rid not in new:
                out.append({"op": "delete", "table": table, "id": rid})
            elif old[rid] != new[rid]:
                changed = {k: {"from": old[rid].get(k), "to": v} for k, v in new[rid].items()
                           if old[rid].get(k) != v}
                out.append({"op": "update", "table": table, "id": rid, "fields": changed})
    return out

