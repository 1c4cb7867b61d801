"""The run's memory: notes any agent keeps and any agent of the same run recalls."""

from __future__ import annotations

import asyncio
from typing import Any

from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.builtins import BUILTINS, MAX_NOTES


def _call(name: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    return asyncio.run(BUILTINS[name].call(args, ctx))


def test_notes_are_recalled_by_shared_words_newest_first_across_agents() -> None:
    storage: dict[str, Any] = {}
    writer, reader = ToolContext("run", "a", storage=storage), ToolContext("run", "b",
                                                                            storage=storage)
    for note in ("Ana prefers window seats", "Budget is 900 EUR", "Ana is vegetarian"):
        assert _call("remember", {"note": note}, writer).ok
    out = _call("recall", {"query": "what does ana like"}, reader)
    assert out.content == {"notes": ["Ana is vegetarian", "Ana prefers window seats"],
                           "found": 2}
    assert _call("recall", {}, reader).content["found"] == 3
    other = ToolContext("other-run", "b")  # another run shares nothing
    assert _call("recall", {}, other).content == {"notes": [], "found": 0}


def test_bad_notes_and_a_full_memory_are_typed_errors() -> None:
    ctx = ToolContext("run", "a")
    for args in ({}, {"note": "  "}, {"note": 7}, {"note": "x" * 5000}):
        out = _call("remember", args, ctx)
        assert out.error is not None and out.error.code == "invalid_arguments", args
    for n in range(MAX_NOTES):
        assert _call("remember", {"note": f"fact {n}"}, ctx).ok
    full = _call("remember", {"note": "one more"}, ctx)
    assert full.error is not None and full.error.code == "memory_full"
