"""The generic action semantics every domain-pack operation is executed with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from a4a.runtime.ir.domain import DomainPack, OperationSpec, ResourceSpec
from a4a.runtime.world.errors import WorldError


class World(Protocol):
    """What an action needs of the world (the engine's World has it): its tables and checks."""

    def table(self, pack: DomainPack, resource: str) -> dict[str, dict[str, Any]]:
        """The records of a resource."""
        ...

    def record(self, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> dict[str, Any]:
        """The target record of an id-taking operation, with its preconditions checked."""
        ...

    def check_refs(self, pack: DomainPack, res: ResourceSpec, values: dict[str, Any]) -> None:
        """Every ref value names an existing record."""
        ...


Action = Callable[[World, DomainPack, OperationSpec, dict[str, Any]], Any]
_TEXT_LIMIT = 50


def _error(code: str, message: str, hint: str) -> WorldError:
    return WorldError(code, message, hint)


def _fields(pack: DomainPack, op: OperationSpec) -> set[str]:
    res = next(r for r in pack.resources if r.name == op.resource)
    return {f.name for f in res.fields}


def do_list(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """Records whose fields equal every given filter."""
    fields = _fields(pack, op)
    filters = {k: v for k, v in args.items() if k in fields and v is not None}
    items = [r for _, r in sorted(world.table(pack, op.resource).items())
             if all(r.get(k) == v or (isinstance(r.get(k), list) and v in r[k])
                    for k, v in filters.items())]
    return {"count": len(items), "items": items[:_TEXT_LIMIT]}


def do_search(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """Records whose text fields contain every word of `query`."""
    words = str(args.get("query", "")).lower().split()
    if not words:
        raise _error("invalid_arguments", "query is empty", "Pass words to search for.")
    items = []
    for _, rec in sorted(world.table(pack, op.resource).items()):
        text = " ".join(str(v) for v in rec.values() if isinstance(v, str)).lower()
        if all(w in text for w in words):
            items.append(rec)
    return {"count": len(items), "items": items[:_TEXT_LIMIT]}


def do_get(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """One record by id."""
    return dict(world.record(pack, op, args))


def do_create(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """A new record from the arguments named like fields, plus the operation's constants."""
    res = next(r for r in pack.resources if r.name == op.resource)
    values = {k: v for k, v in args.items() if k in _fields(pack, op)}
    values.update(op.set)
    world.check_refs(pack, res, values)
    table = world.table(pack, op.resource)
    rid = f"{res.id_prefix}-{len(table) + 1:03d}"
    while rid in table:
        rid = f"{res.id_prefix}-{int(rid.rsplit('-', 1)[1]) + 1:03d}"
    rec = {"id": rid, **{f.name: [] if f.type == "array" else None for f in res.fields},
           **values}
    table[rid] = rec
    return dict(rec)


def do_update(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """Set fields from the arguments and the operation's constants, preconditions first."""
    res = next(r for r in pack.resources if r.name == op.resource)
    rec = world.record(pack, op, args)
    values = {k: v for k, v in args.items()
              if k in _fields(pack, op) and k != f"{op.resource}_id"}
    values.update(op.set)
    world.check_refs(pack, res, values)
    rec.update(values)
    return dict(rec)


def do_delete(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """Remove the record."""
    rec = world.record(pack, op, args)
    del world.table(pack, op.resource)[rec["id"]]
    return {"deleted": rec["id"]}


def do_add_to(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]) -> Any:
    """Add the value to the list field (once)."""
    res = next(r for r in pack.resources if r.name == op.resource)
    rec = world.record(pack, op, args)
    field = str(op.field)
    value = args.get(field)
    world.check_refs(pack, res, {field: value})
    items = list(rec.get(field) or [])
    if value not in items:
        items.append(value)
    rec[field] = items
    return dict(rec)


def do_remove_from(world: World, pack: DomainPack, op: OperationSpec, args: dict[str, Any]
                   ) -> Any:
    """Remove the value from the list field."""
    rec = world.record(pack, op, args)
    field = str(op.field)
    value = args.get(field)
    items = list(rec.get(field) or [])
    if value not in items:
        raise _error("not_found", f"{value!r} is not in {op.resource} {rec['id']}.{field}",
                     f"Read the {op.resource} first to see its {field}.")
    items.remove(value)
    rec[field] = items
    return dict(rec)


ACTIONS: dict[str, Action] = {
    "list": do_list, "search": do_search, "get": do_get, "create": do_create,
    "update": do_update, "delete": do_delete, "add_to": do_add_to, "remove_from": do_remove_from,
}
