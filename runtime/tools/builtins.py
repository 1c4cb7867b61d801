"""Builtin tools: calculator, files, time, run memory, human approval; network off by default."""

from __future__ import annotations

import ast
import math
import operator
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from a4a.runtime.errors import A4AError
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.loader import fsaccess
from a4a.runtime.tools.base import FunctionTool, ToolContext, ToolError, ToolOutcome

_OPS: dict[type, Any] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos,
}
_FUNCS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "min": min, "max": max, "log": math.log,
    "exp": math.exp,
}
MAX_FILE_BYTES = 1_000_000
MAX_LISTED = 500  # workspace files listed or searched
PASSAGES, PASSAGE_CHARS = 5, 600  # what a document search returns
MAX_NOTES, MAX_NOTE_CHARS, RECALLED = 200, 2_000, 20
MEMORIES = "memories"  # run storage key, shared with NexAU's save_memory


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 100:
            raise ValueError("exponent too large")
        return float(_OPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return float(_OPS[type(node.op)](_eval(node.operand)))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCS and not node.keywords):
        return float(_FUNCS[node.func.id](*(_eval(a) for a in node.args)))
    raise ValueError(f"unsupported expression element {type(node).__name__}")


def calculator(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Arithmetic on numbers only (parsed with ast; nothing is executed)."""
    expr = str(args["expression"])
    try:
        if len(expr) > 500:
            raise ValueError("expression too long")
        value = _eval(ast.parse(expr, mode="eval"))
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, TypeError) as err:
        return ToolOutcome(error=ToolError("invalid_arguments", f"cannot evaluate: {err}",
                                           "Use numbers, + - * / // % ** and sqrt/abs/round."))
    return ToolOutcome({"result": int(value) if value.is_integer() else value})


def _file_error(err: A4AError) -> ToolOutcome:
    code = {"file.missing": "not_found", "file.outside_root": "not_allowed",
            "file.symlink": "not_allowed"}.get(err.code, err.code)
    return ToolOutcome(error=ToolError(code, err.message, err.hint))


def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Read a text file of the run's workspace (no symlinks followed, size capped)."""
    try:
        data = fsaccess.workspace_read(ctx.workspace, str(args["path"]),
                                       max_bytes=MAX_FILE_BYTES)
    except A4AError as err:
        return _file_error(err)
    return ToolOutcome(data.decode("utf-8", errors="replace"))


def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Write a text file inside the run's workspace (never through a symlink, never .git)."""
    rel, data = str(args["path"]), str(args["content"]).encode("utf-8", "surrogatepass")
    if len(data) > MAX_FILE_BYTES:
        return ToolOutcome(error=ToolError("invalid_arguments", "content too large",
                                           f"Write at most {MAX_FILE_BYTES} bytes."))
    try:
        fsaccess.workspace_write(ctx.workspace, rel, data)
    except A4AError as err:
        return _file_error(err)
    return ToolOutcome({"written": rel.lstrip("./"), "bytes": len(data)})


def _workspace_files(root: Path) -> list[str]:
    """At most MAX_LISTED regular files of the workspace, relative paths (links skipped)."""
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        files += [os.path.relpath(os.path.join(folder, n), root) for n in names
                  if os.path.isfile(os.path.join(folder, n))
                  and not os.path.islink(os.path.join(folder, n))]
        if len(files) >= MAX_LISTED:
            break
    return sorted(files)[:MAX_LISTED]


def list_files(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Files of the workspace, relative paths (symlinks are neither listed nor followed)."""
    return ToolOutcome({"files": _workspace_files(ctx.workspace)})


def search_docs(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """The workspace's passages (blank-line separated) sharing most words with `query`."""
    query = args.get("query")
    words = _words(query) if isinstance(query, str) else set()
    if not words:
        return ToolOutcome(error=ToolError("invalid_arguments", "query must hold words",
                                           "Pass query: the words to look for."))
    scored = []
    for rel in _workspace_files(ctx.workspace):
        try:
            data = fsaccess.workspace_read(ctx.workspace, rel, max_bytes=MAX_FILE_BYTES)
        except A4AError:
            continue  # too large, vanished or not readable: not a document to search
        passages = re.split(r"\n\s*\n", data.decode("utf-8", errors="replace"))
        scored += [(-len(words & _words(p)), rel, n, p.strip()[:PASSAGE_CHARS])
                   for n, p in enumerate(passages) if words & _words(p)]
    scored.sort()
    return ToolOutcome({"passages": [{"file": rel, "text": text, "shared_words": -score}
                                     for score, rel, _, text in scored[:PASSAGES]],
                        "found": len(scored)})


def current_time(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """The run clock's current time (injected, so recorded runs replay identically)."""
    clock = ctx.services.get("clock")
    return ToolOutcome({"now": clock.iso() if clock else "1970-01-01T00:00:00Z"})


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def remember(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Keep a note in the run's memory, which every agent of the run shares (never on disk)."""
    note = args.get("note")
    if not isinstance(note, str) or not note.strip() or len(note) > MAX_NOTE_CHARS:
        return ToolOutcome(error=ToolError("invalid_arguments", "note must be non-empty text",
                                           f"Pass note: at most {MAX_NOTE_CHARS} characters."))
    notes: list[str] = ctx.storage.setdefault(MEMORIES, [])
    if len(notes) >= MAX_NOTES:
        return ToolOutcome(error=ToolError("memory_full", f"the run keeps {MAX_NOTES} notes",
                                           "Recall what is kept instead of adding more."))
    notes.append(note.strip())
    return ToolOutcome({"remembered": note.strip(), "notes": len(notes)})


def recall(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """The run's notes sharing a word with `query` (every note without one), newest first."""
    query = args.get("query")
    words = _words(query) if isinstance(query, str) else set()
    notes = reversed(ctx.storage.get(MEMORIES, []))
    found = [n for n in notes if not words or words & _words(n)]
    return ToolOutcome({"notes": found[:RECALLED], "found": len(found)})


def ask_human(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Ask the human seam; with nobody to answer, the default is a rejection."""
    human = ctx.services.get("human")
    answer = human(str(args["question"])) if human else "rejected: no human answered in time"
    return ToolOutcome({"answer": answer})


def network_off(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Network tools answer with an error unless the run enabled the network."""
    return ToolOutcome(error=ToolError("network_disabled", "network access is off for this run",
                                       "Work with the other tools; the network is disabled."))


_S = {"type": "string"}
BUILTINS: dict[str, FunctionTool] = {
    "calculator": FunctionTool(ToolSchema("calculator", "Evaluate an arithmetic expression.",
                                          _obj({"expression": _S}, ["expression"])), calculator),
    "read_file": FunctionTool(ToolSchema("read_file", "Read a text file of the workspace.",
                                         _obj({"path": _S}, ["path"])), read_file),
    "write_file": FunctionTool(ToolSchema("write_file", "Write a text file in the workspace.",
                                          _obj({"path": _S, "content": _S}, ["path", "content"])),
                               write_file, writes=True),
    "list_files": FunctionTool(ToolSchema("list_files", "List the workspace's files.",
                                          _obj({}, [])), list_files),
    "search_docs": FunctionTool(ToolSchema("search_docs", "Search the workspace's documents.",
                                           _obj({"query": _S}, ["query"])), search_docs),
    "current_time": FunctionTool(ToolSchema("current_time", "The current date and time.",
                                            _obj({}, [])), current_time),
    "remember": FunctionTool(ToolSchema("remember", "Keep a note in the run's memory.",
                                        _obj({"note": _S}, ["note"])), remember),
    "recall": FunctionTool(ToolSchema("recall", "Recall notes of the run's memory.",
                                      _obj({"query": _S}, [])), recall),
    "ask_human": FunctionTool(ToolSchema("ask_human", "Ask a human to approve or answer.",
                                         _obj({"question": _S}, ["question"])), ask_human),
    **{name: FunctionTool(ToolSchema(name, f"{name} (needs network access)",
                                     {"type": "object"}), network_off)
       for name in ("web_search", "web_read", "http_get")},
}
