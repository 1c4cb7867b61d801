"""Requests that state every argument of one world operation, and the call that fills them.

a4a's run calls mostly take one id read from an earlier result, so a model trained on runs
alone learns to fill one argument. A stated request names several values for one operation
("Schedule an event, with title 'Budget review', duration minutes 45 and start date
2026-03-14"); its call fills each parameter from the text. Values come from
the operation's pack (seed values of a resource field that shares the parameter's name; ids
with the resource's prefix), else from the parameter's type; the request names each value by
its parameter, in shuffled order and one of several phrasings.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from a4a.runtime.ir.domain import DomainPack, OperationSpec, ParamSpec
from a4a.runtime.llm.base import ToolSchema

MAX_STATED = 4  # arguments a stated request names (all required ones, at least)
# A request's shape and how it names each value ({label}, {value}).
PHRASINGS = (
    ("{head}, with {pairs}.", ("{label} {value}", "{label} of {value}", "the {label} {value}")),
    ("{head}: {pairs}.", ("{label} {value}", "{label} = {value}")),
    ("Please {head_lower}. Use {pairs}.", ("{value} as the {label}", "{value} for {label}")),
    ("I need to {head_lower} where {pairs}.", ("the {label} is {value}", "{label} is {value}")),
    ("{pairs_cap}. {head}.", ("{label}: {value}", "the {label} is {value}")),
)


@dataclass(frozen=True)
class Stated:
    """A request and the call it states: `arguments` in the schema's order."""

    request: str
    name: str
    arguments: dict[str, Any]


@cache
def _operations() -> dict[str, list[tuple[DomainPack, OperationSpec]]]:
    """Each world operation name with every pack that defines it (names recur across packs)."""
    from a4a.runtime.knowledge import domain_packs

    out: dict[str, list[tuple[DomainPack, OperationSpec]]] = {}
    for pack in domain_packs().values():
        for op in pack.operations:
            out.setdefault(op.name, []).append((pack, op))
    return out


def _operation(schema: ToolSchema) -> tuple[DomainPack, OperationSpec] | None:
    """The pack operation `schema` was made from: its name and its parameter names."""
    props = set(schema.parameters.get("properties") or {})
    return next((found for found in _operations().get(schema.name, ())
                 if {p.name for p in found[1].params} == props), None)


def _seeds(pack: DomainPack, name: str) -> list[Any]:
    return [v for r in pack.resources for f in r.fields if f.name == name for v in f.seed]


def _prefix(pack: DomainPack, param: ParamSpec) -> str:
    """The id prefix of the resource a ref parameter points at (`event_id` -> `EVT`)."""
    stem = param.name.removesuffix("_ids").removesuffix("_id")
    targets = [f.ref for r in pack.resources for f in r.fields if f.name == param.name and f.ref]
    for name in (*targets, stem):
        res = next((r for r in pack.resources if r.name == name), None)
        if res is not None:
            return res.id_prefix
    return stem[:3].upper() or "ID"


def draw(pack: DomainPack, param: ParamSpec, rng: random.Random) -> Any:
    """A value for `param`, or None for a type no request states plainly (arrays)."""
    seeds = [v for v in _seeds(pack, param.name) if isinstance(v, str | int | float)
             and not isinstance(v, bool)]
    if param.enum:
        return rng.choice(param.enum)
    if param.type == "ref":
        return f"{_prefix(pack, param)}-{rng.randint(1, 40):03d}"
    if param.type == "boolean":
        return rng.random() < 0.5
    if param.type == "integer":
        ints = [v for v in seeds if isinstance(v, int)]
        return rng.choice(ints or [rng.randint(2, 60), rng.randint(100, 5000)])
    if param.type == "number":
        return round(rng.uniform(0.5, 900), rng.choice((1, 2)))
    if param.type == "date":
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if param.type == "string":
        texts = [str(v) for v in seeds if str(v).strip()] or [
            k for k in pack.keywords if k.isascii()]
        return rng.choice(texts) if texts else None
    return None


def _say(label: str, value: Any, styles: tuple[str, ...], rng: random.Random) -> str:
    if isinstance(value, bool):
        return f"{label} set to {str(value).lower()}"
    shown = f"'{value}'" if isinstance(value, str) and " " in value else str(value)
    return rng.choice(styles).format(label=label, value=shown)


def _head(name: str, rng: random.Random) -> str:
    """What the request asks for, from the operation's name ("book_room" -> "Book a room").

    Not the description: a request that copies it would teach "call when the request quotes
    a tool's description", which no request a person writes does.
    """
    verb, *rest = name.split("_")
    article = rng.choice(("", "the ", "a ")) if rest and not rest[-1].endswith("s") else ""
    return " ".join([verb.capitalize(), article + " ".join(rest)]).strip()


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def stated(schema: ToolSchema, rng: random.Random) -> Stated | None:
    """A stated request for a world operation and its call.

    None for a tool that is no pack operation, or with fewer than two values to state.
    """
    found = _operation(schema)
    if found is None:
        return None
    pack, op = found
    values = {p.name: draw(pack, p, rng) for p in op.params}
    usable = [p for p in op.params if values[p.name] is not None]
    required = [p for p in usable if p.required]
    if len(required) < sum(p.required for p in op.params) or len(usable) < 2:
        return None
    optional = [p for p in usable if not p.required]
    extra = max(0, rng.randint(2, MAX_STATED) - len(required))
    chosen = {p.name for p in required} | {p.name for p in rng.sample(optional,
                                                                      min(extra, len(optional)))}
    if len(chosen) < 2:
        return None
    named = [p for p in usable if p.name in chosen]
    mentioned = list(named)
    rng.shuffle(mentioned)
    shape, styles = rng.choice(PHRASINGS)
    pairs = _join([_say(p.name.replace("_", " "), values[p.name], styles, rng)
                   for p in mentioned])
    head = _head(op.name, rng)
    text = shape.format(head=head, head_lower=head[0].lower() + head[1:],
                                        pairs=pairs, pairs_cap=pairs[0].upper() + pairs[1:])
    return Stated(text, op.name, {p.name: values[p.name] for p in named})


def candidates(tools: Mapping[str, ToolSchema]) -> list[str]:
    """The tools a stated request can name: pack operations with two or more parameters."""
    return sorted(n for n, schema in tools.items()
                  if len(schema.parameters.get("properties") or {}) >= 2 and _operation(schema))
