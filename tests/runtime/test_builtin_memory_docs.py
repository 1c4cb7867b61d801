"""The run's memory (notes any agent keeps and any agent of the same run recalls) and the
search over the workspace's documents."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
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


def test_document_search_returns_the_passages_sharing_most_words(tmp_path: Path) -> None:
    (tmp_path / "handbook.md").write_text(
        "Refunds are paid within 14 days.\n\nShipping to Canada takes a week.\n\n"
        "Refunds for damaged items are paid at once, with no return shipping.")
    (tmp_path / "faq").mkdir()
    (tmp_path / "faq" / "hours.txt").write_text("We answer on weekdays from 9 to 17.")
    os.symlink("/etc/hostname", tmp_path / "outside.txt")  # never followed out of the root
    ctx = ToolContext("run", "a", tmp_path)
    out = _call("search_docs", {"query": "refunds damaged items"}, ctx)
    passages = out.content["passages"]
    assert [p["shared_words"] for p in passages] == [3, 1]
    assert passages[0]["file"] == "handbook.md" and "damaged" in passages[0]["text"]
    assert _call("search_docs", {"query": "weekdays"}, ctx).content["passages"][0]["file"] == \
        os.path.join("faq", "hours.txt")
    assert _call("search_docs", {"query": "nothing matches"}, ctx).content == {
        "passages": [], "found": 0}
    for args in ({}, {"query": " ,. "}, {"query": 3}):
        bad = _call("search_docs", args, ctx)
        assert bad.error is not None and bad.error.code == "invalid_arguments", args
