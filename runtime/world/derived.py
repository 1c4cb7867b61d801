"""Task families derived from data, for frameworks the packs' own templates serve poorly.

- lookups: a pack's read operations (get, search) held by the framework give read-only tasks
  whose answer is a field of a seeded record ("What is the city of hotel HTL-0003?");
- arithmetic: for frameworks without world tools (out of domain, or agents that only reason:
  debaters, writers, judges), a question with one exact number as its answer; the gold plan
  calls the builtin calculator when an agent holds it and is empty otherwise.

Both are checked like any task: the answer facts must appear in the final answer and the world
must be left unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from a4a.runtime.ir.domain import DomainPack, FieldSpec, OperationSpec, SlotSpec, TaskTemplate

LABELS = {"lookup": ("Record lookup", "记录查询"), "arithmetic": ("Arithmetic", "算术")}
_FIELDS_PER_OP = 2
_GET = ("What is the {f} of {r} {{rec.id}}?", "Look up {r} {{rec.id}} and tell me its {f}.",
        "I need the {f} recorded for {r} {{rec.id}}.")
_SEARCH = ("Find the {r} whose {f} is \"{{rec.{k}}}\" and give me its id.",
           "Which {r} has {f} \"{{rec.{k}}}\"? I need its id.")


def is_derived(template: str) -> bool:
    """Whether a task's template id names one of these families (not a pack's template)."""
    return template == "arithmetic" or template.startswith("lookup_")


def _answerable(f: FieldSpec) -> bool:
    """A field whose seeded value makes an unambiguous answer fact."""
    return f.type in ("string", "integer", "number", "date") and bool(f.seed)


def _get(pack: DomainPack, op: OperationSpec) -> list[TaskTemplate]:
    res = next(r for r in pack.resources if r.name == op.resource)
    label = op.resource.replace("_", " ")
    out = []
    for f in [f for f in res.fields if _answerable(f)][:_FIELDS_PER_OP]:
        name = f.name.replace("_", " ")
        out.append(TaskTemplate(
            id=f"lookup_{op.name}_{f.name}", difficulty="easy", problem_type=["lookup"],
            queries=[q.format(f=name, r=label) for q in _GET],
            slots={"rec": SlotSpec(resource=op.resource)},
            plan=[{"op": op.name, "args": {f"{op.resource}_id": "{rec.id}"}}],
            answer=[f"{{rec.{f.name}}}"]))
    return out


def _search(pack: DomainPack, op: OperationSpec) -> list[TaskTemplate]:
    res = next(r for r in pack.resources if r.name == op.resource)
    # a value unique to one record, so the id answers it: free text without an enum
    keys = [f for f in res.fields if f.type == "string" and not f.enum and f.seed
            and len(set(f.seed)) >= res.seed_count]
    if not keys or "query" not in {p.name for p in op.params}:
        return []
    key, label = keys[0].name, op.resource.replace("_", " ")
    return [TaskTemplate(
        id=f"lookup_{op.name}", difficulty="easy", problem_type=["lookup"],
        queries=[q.format(f=key.replace("_", " "), r=label, k=key) for q in _SEARCH],
        slots={"rec": SlotSpec(resource=op.resource)},
        plan=[{"op": op.name, "args": {"query": f"{{rec.{key}}}"}}], answer=["{rec.id}"])]


def lookups(pack: DomainPack, ops: set[str]) -> list[TaskTemplate]:
    """Read-only lookup templates over the operations of `pack` named in `ops`."""
    out: list[TaskTemplate] = []
    for op in pack.operations:
        if op.name in ops and op.action == "get":
            out += _get(pack, op)
        elif op.name in ops and op.action == "search":
            out += _search(pack, op)
    return out


_SHAPES: tuple[tuple[str, Callable[[int, int, int], int]], ...] = (
    ("{a} * {b} + {c}", lambda a, b, c: a * b + c),
    ("({a} + {b}) * {c}", lambda a, b, c: (a + b) * c),
    ("{a} * {b} - {c}", lambda a, b, c: a * b - c),
    ("{a} * ({b} - {c})", lambda a, b, c: a * (b - c)),
)
_ASK = ("What is {e}? Give the exact number.", "Work out {e} and tell me the result.",
        "Before anything else, compute {e}.")


def arithmetic(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """`n` distinct (query, expression, answer) questions over two-digit numbers."""
    out: dict[str, tuple[str, str, str]] = {}
    while len(out) < n:
        a, b = rng.randint(12, 99), rng.randint(12, 99)
        c = rng.randint(2, b - 1)
        shape, value = rng.choice(_SHAPES)
        expr = shape.format(a=a, b=b, c=c)
        out.setdefault(expr, (rng.choice(_ASK).format(e=expr), expr, str(value(a, b, c))))
    return list(out.values())


def labels(kind: str) -> dict[str, list[str]]:
    """Problem-type labels of a derived family."""
    en, zh = LABELS[kind]
    return {"en": [en], "zh": [zh]}


def calculator_plan(tool: str, expr: str, agent: str) -> list[dict[str, Any]]:
    """The one gold call of an arithmetic task whose framework holds the calculator."""
    return [{"op": "calculator", "tool": tool, "agent": agent, "args": {"expression": expr},
             "expect_error": None}]
