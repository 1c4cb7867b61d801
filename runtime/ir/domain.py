"""Domain packs: the typed worlds a4a builds tools and environments from.

A pack is pure data (``templates/domains/<id>.yaml``): resources with typed fields and
seed values, operations over them (each becomes a tool with a JSON-Schema input), and the
vocabulary the intent parser matches requests against.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

IDENT = r"^[a-z][a-z0-9_]{0,47}$"
FieldType = Literal["string", "integer", "number", "boolean", "array", "date", "ref"]
Action = Literal["list", "search", "get", "create", "update", "delete", "add_to", "remove_from"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(_Strict):
    """One typed field of a resource."""

    name: str = Field(pattern=IDENT, description="Field name, snake_case.")
    type: FieldType = Field(description="Value type; `ref` points at another resource's id.")
    description: str = Field(default="", description="What the field holds.")
    enum: list[str] | None = Field(default=None, description="Allowed values for a string field.")
    ref: str | None = Field(default=None, description="Target resource name when type is `ref`.")
    items: Literal["string", "integer", "ref"] | None = Field(
        default=None, description="Element type when type is `array`."
    )
    seed: list[Any] = Field(
        default_factory=list,
        description="Values the seed generator draws from (deterministically, per seed).",
    )


class ResourceSpec(_Strict):
    """A kind of record in the world (an issue, an order, a patient)."""

    name: str = Field(pattern=IDENT, description="Resource name, singular snake_case.")
    description: str = Field(description="What one record represents.")
    id_prefix: str = Field(pattern=r"^[A-Z]{2,5}$", description="Prefix of generated ids.")
    fields: list[FieldSpec] = Field(description="Typed fields; `id` is implicit.")
    seed_count: int = Field(default=6, ge=1, le=50, description="Records seeded per world.")


class ParamSpec(_Strict):
    """One input parameter of an operation (becomes a JSON-Schema property)."""

    name: str = Field(pattern=IDENT, description="Parameter name.")
    type: FieldType = Field(description="Parameter type.")
    description: str = Field(description="What the caller passes.")
    required: bool = Field(default=False, description="Whether the call must pass it.")
    enum: list[str] | None = Field(default=None, description="Allowed values.")
    items: Literal["string", "integer"] | None = Field(default=None, description="Array items.")


class OperationSpec(_Strict):
    """An operation on a resource: a tool with semantics the world engine can execute."""

    name: str = Field(pattern=IDENT, description="Tool name, verb first (close_issue).")
    description: str = Field(description="One or two sentences a model reads to pick the tool.")
    action: Action = Field(description="Generic semantics the world engine applies.")
    resource: str = Field(description="Resource the operation acts on.")
    params: list[ParamSpec] = Field(default_factory=list, description="Inputs.")
    field: str | None = Field(
        default=None, description="List field changed by add_to / remove_from."
    )
    set: dict[str, Any] = Field(
        default_factory=dict, description="Constant field values written by create / update."
    )
    requires: dict[str, Any] = Field(
        default_factory=dict,
        description="Field values the target record must have (else `invalid_state`).",
    )
    forbids: dict[str, Any] = Field(
        default_factory=dict,
        description="Field values the target record must not have (else `not_allowed`).",
    )
    keywords: list[str] = Field(default_factory=list, description="Request words that cue it.")

    @property
    def writes(self) -> bool:
        """Whether the operation changes the world."""
        return self.action not in ("list", "search", "get")


class RoleHint(_Strict):
    """A domain-specific role name mapped onto a generic archetype."""

    name: str = Field(pattern=IDENT, description="Role name as used in this domain (triager).")
    archetype: str = Field(description="Archetype id from templates/roles.")
    description: str = Field(description="What this role does in the domain.")
    keywords: list[str] = Field(default_factory=list, description="Request words that cue it.")


class SlotSpec(_Strict):
    """A value a task is instantiated with: a seeded record, or a count of records."""

    resource: str = Field(description="Resource the slot draws from.")
    where: dict[str, Any] = Field(default_factory=dict,
                                  description="Field values the record must have.")
    count: bool = Field(default=False, description="The slot is the number of matching "
                        "records instead of one record.")


class PlanStep(_Strict):
    """One gold tool call. String argument values may reference slots: `{issue.id}`."""

    op: str = Field(pattern=IDENT, description="Operation of this pack.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments.")
    expect_error: Literal["not_found", "invalid_state", "not_allowed"] | None = Field(
        default=None, description="The call is expected to fail (recovery tasks).")
    save_as: str | None = Field(default=None, pattern=IDENT, description="Name the call's "
                                "result (a record) for later steps and answers: `{new.id}`.")


class TaskTemplate(_Strict):
    """A verifiable task: a query, the slots it is about, its gold plan and answer facts."""

    id: str = Field(pattern=IDENT, description="Template id, unique within the pack.")
    difficulty: Literal["easy", "medium", "hard"] = Field(
        description="easy: 1-2 calls; medium: 3-5 with dependencies; hard: 6+ with "
        "branching or recovery from a tool error.")
    problem_type: list[str] = Field(min_length=1, description="Path of problem-type ids.")
    queries: list[str] = Field(min_length=1, description="Ways a user asks it; `{slot.field}` "
                               "placeholders are filled from the slots.")
    slots: dict[str, SlotSpec] = Field(description="Named slots.")
    plan: list[PlanStep] = Field(min_length=1, description="Gold calls, in order.")
    answer: list[str] = Field(default_factory=list, description="Facts (templates over the "
                              "slots) the final answer must contain.")


class ProblemType(_Strict):
    """A node of the bilingual problem-type tree."""

    id: str = Field(pattern=IDENT, description="Node id.")
    en: str = Field(description="English label.")
    zh: str = Field(description="Chinese label.")
    children: list[ProblemType] = Field(default_factory=list, description="Sub-types.")


class Persona(_Strict):
    """Who asks: a bilingual one-line persona."""

    en: str = Field(description="English persona.")
    zh: str = Field(description="Chinese persona.")


class Sense(_Strict):
    """A keyword that selects the pack only in one of its senses."""

    term: str = Field(description="One of the pack's keywords (term syntax of generator/text.py).")
    unless: list[str] = Field(min_length=1, description="Terms that, in the same sentence, "
                              "mean another sense: the keyword does not count there "
                              "(stock: unless 'stock market', 'ticker', 'shares').")
    scope: Literal["sentence", "request"] = Field(
        "sentence", description="Where the `unless` terms are looked for: the keyword's sentence, "
        "or the whole request (a game's 'inventory' is the player's items wherever 'player' "
        "is said).")


LANGS = Literal["en", "zh", "ja", "es", "de", "fr", "pt", "ru"]


class DomainPack(_Strict):
    """A domain: vocabulary, resources and operations."""

    id: str = Field(pattern=IDENT, description="Pack id (code_hosting).")
    title: str = Field(description="Human title.")
    description: str = Field(description="What the domain covers.")
    keywords: list[str] = Field(description="English request words and phrases that select "
                                "the pack (term syntax of generator/text.py; plurals match).")
    vocabulary: dict[LANGS, list[str]] = Field(
        default_factory=dict, description="Request words and phrases that select the pack in "
        "other languages, by language code (same term syntax; Chinese and Japanese terms "
        "match without word boundaries).")
    senses: list[Sense] = Field(default_factory=list, description="Keywords with more than "
                                "one sense, and the context that rules this pack out.")
    brands: list[str] = Field(default_factory=list, description="Product names among the "
                              "keywords and vocabulary (WhatsApp, HubSpot): one names the pack "
                              "as surely as a phrase does, and counts as much.")
    resources: list[ResourceSpec] = Field(description="Record kinds.")
    operations: list[OperationSpec] = Field(description="Operations (tools).")
    roles: list[RoleHint] = Field(default_factory=list, description="Domain role names.")
    problem_types: list[ProblemType] = Field(default_factory=list,
                                             description="Problem-type tree (top level).")
    personas: list[Persona] = Field(default_factory=list, description="Who asks.")
    tasks: list[TaskTemplate] = Field(default_factory=list, description="Task templates.")

    @model_validator(mode="after")
    def _consistent(self) -> DomainPack:
        problems = pack_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def operation(self, name: str) -> OperationSpec | None:
        """The operation called `name`, if any."""
        return next((op for op in self.operations if op.name == name), None)


def pack_problems(pack: DomainPack) -> list[str]:
    """Every cross-reference problem inside a pack (empty when sound)."""
    out: list[str] = []
    res = {r.name: r for r in pack.resources}
    if len(res) != len(pack.resources):
        out.append("duplicate resource names")
    if len({o.name for o in pack.operations}) != len(pack.operations):
        out.append("duplicate operation names")
    for r in pack.resources:
        names = [f.name for f in r.fields]
        if "id" in names or len(set(names)) != len(names):
            out.append(f"resource {r.name}: `id` is implicit and field names must be unique")
        out += [
            f"resource {r.name}.{f.name}: ref to unknown resource {f.ref!r}"
            for f in r.fields
            if (f.type == "ref" or f.items == "ref") and f.ref not in res
        ]
    for op in pack.operations:
        out += _operation_problems(op, res)
    out += _task_problems(pack, res)
    return out


_REF = re.compile(r"\{([a-z][a-z0-9_]*)(?:\.[a-z][a-z0-9_]*)?\}")


def _reference_problems(t: TaskTemplate) -> list[str]:
    """Placeholders must name a slot or an earlier step's `save_as`."""
    known = set(t.slots)
    out = []
    texts: list[tuple[str, set[str]]] = [(q, known) for q in t.queries]
    for step in t.plan:
        texts += [(v, set(known)) for v in step.args.values() if isinstance(v, str)]
        if step.save_as:
            known = known | {step.save_as}
    texts += [(a, known) for a in t.answer]
    for text, names in texts:
        out += [f"task {t.id}: {{{name}}} is not a slot or an earlier result"
                for name in _REF.findall(text) if name not in names]
    return out


def _type_paths(nodes: list[ProblemType], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for n in nodes:
        path = (*prefix, n.id)
        out.add(path)
        out |= _type_paths(n.children, path)
    return out


def _task_problems(pack: DomainPack, res: dict[str, ResourceSpec]) -> list[str]:
    out: list[str] = []
    paths = _type_paths(pack.problem_types)
    ops = {o.name for o in pack.operations}
    if len({t.id for t in pack.tasks}) != len(pack.tasks):
        out.append("duplicate task ids")
    for t in pack.tasks:
        if tuple(t.problem_type) not in paths:
            out.append(f"task {t.id}: problem_type {t.problem_type} is not in the tree")
        out += [f"task {t.id}: slot {n} draws from unknown resource {s.resource!r}"
                for n, s in t.slots.items() if s.resource not in res]
        out += [f"task {t.id}: unknown operation {step.op!r}" for step in t.plan
                if step.op not in ops]
        out += _reference_problems(t)
        calls = len(t.plan)
        lo, hi = {"easy": (1, 2), "medium": (3, 5), "hard": (6, 99)}[t.difficulty]
        if not lo <= calls <= hi:
            out.append(f"task {t.id}: {calls} calls do not fit difficulty {t.difficulty}")
    return out


def _operation_problems(op: OperationSpec, res: dict[str, ResourceSpec]) -> list[str]:
    if op.resource not in res:
        return [f"operation {op.name}: unknown resource {op.resource!r}"]
    fields = {f.name: f for f in res[op.resource].fields}
    out = [
        f"operation {op.name}: `{key}` names unknown field {k!r}"
        for key, mapping in (("set", op.set), ("requires", op.requires), ("forbids", op.forbids))
        for k in mapping
        if k not in fields
    ]
    if op.action in ("add_to", "remove_from") and (
        op.field not in fields or fields[op.field].type != "array"
    ):
        out.append(f"operation {op.name}: `field` must name an array field of {op.resource}")
    elif op.action in ("add_to", "remove_from") and not any(p.name == op.field for p in op.params):
        out.append(f"operation {op.name}: needs a parameter named like its field {op.field!r}")
    needs_id = op.action in ("get", "update", "delete", "add_to", "remove_from")
    id_param = f"{op.resource}_id"
    if needs_id and not any(p.name == id_param and p.required for p in op.params):
        out.append(f"operation {op.name}: needs a required `{id_param}` parameter")
    if len({p.name for p in op.params}) != len(op.params):
        out.append(f"operation {op.name}: duplicate parameter names")
    return out


def input_schema(op: OperationSpec) -> dict[str, Any]:
    """The JSON Schema of an operation's input, as a tool exposes it."""
    props: dict[str, Any] = {}
    for p in op.params:
        prop: dict[str, Any] = {"description": p.description}
        if p.type in ("ref", "date"):
            prop["type"] = "string"
            if p.type == "date":
                prop["format"] = "date"
        elif p.type == "array":
            prop["type"] = "array"
            prop["items"] = {"type": p.items or "string"}
        else:
            prop["type"] = p.type
        if p.enum:
            prop["enum"] = list(p.enum)
        props[p.name] = prop
    required = [p.name for p in op.params if p.required]
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema
