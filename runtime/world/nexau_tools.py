"""World operations as NexAU tool bindings, for NexRL workspaces a4a exports.

An exported agent config binds each tool to `a4a.runtime.world.nexau_tools:<pack>__<op>`.
NexAU imports this module and calls the function with the tool's arguments and the run's
GlobalStorage; the World lives in that storage (`a4a_world`), seeded from the config's
`global_storage: {a4a_world_spec: {packs, seed}}`, so every tool of a run acts on one
world. a4a's own NexAU loader maps the same bindings to `world:<pack>.<op>` without
importing anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.world.engine import World
from a4a.runtime.world.errors import WorldError

SPEC_KEY = "a4a_world_spec"
WORLD_KEY = "a4a_world"
_NAME = re.compile(r"^([a-z][a-z0-9_]*)__([a-z][a-z0-9_]*)$")


def _get(storage: Any, key: str) -> Any:
    getter = getattr(storage, "get", None)
    return getter(key) if callable(getter) else None


def _set(storage: Any, key: str, value: Any) -> None:
    setter = getattr(storage, "set", None)
    if callable(setter) and not isinstance(storage, dict):
        setter(key, value)
    elif isinstance(storage, dict):
        storage[key] = value


def world_of(storage: Any) -> World:
    """The run's World, made on first use from the storage's `a4a_world_spec`."""
    world = _get(storage, WORLD_KEY)
    if isinstance(world, World):
        return world
    spec = _get(storage, SPEC_KEY) or {}
    packs = knowledge.domain_packs()
    world = World([packs[p] for p in spec.get("packs", []) if p in packs],
                  seed=int(spec.get("seed", 0)))
    _set(storage, WORLD_KEY, world)
    return world


def operation(pack: str, op: str) -> Callable[..., dict[str, Any]]:
    """The NexAU tool function of one world operation."""

    def call(global_storage: Any = None, **arguments: Any) -> dict[str, Any]:
        storage = global_storage if global_storage is not None else {}
        try:
            return {"status": "success", "result": world_of(storage).call(pack, op, arguments)}
        except WorldError as err:
            return {"status": "error", "error": {"code": err.code, "message": err.message,
                                                 "hint": err.hint}}

    call.__name__ = f"{pack}__{op}"
    return call


def __getattr__(name: str) -> Callable[..., dict[str, Any]]:
    match = _NAME.match(name)
    if match is None:
        raise AttributeError(name)
    return operation(match.group(1), match.group(2))


def ask_human(question: str = "", **_: Any) -> dict[str, Any]:
    """a4a's ask_human in a rollout: nobody answers, so the request is rejected."""
    return {"answer": "rejected: no human answered in time", "question": question}
