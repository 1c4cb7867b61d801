"""Builtin tools: calculator, workspace files, time, human approval; network off by default."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from a4a.runtime.llm.base import ToolSchema
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


def _inside(ctx: ToolContext, rel: str) -> Path | ToolError:
    root = ctx.workspace.resolve()
    path = (root / rel).resolve()
    if path != root and root not in path.parents:
        return ToolError("not_allowed", f"{rel!r} is outside the workspace",
                         "Use a relative path inside the workspace.")
    return path


def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Read a text file of the run's workspace."""
    path = _inside(ctx, str(args["path"]))
    if isinstance(path, ToolError):
        return ToolOutcome(error=path)
    if not path.is_file():
        return ToolOutcome(error=ToolError("not_found", f"no file {args['path']!r}",
                                           "Call list_files to see what exists."))
    data = path.read_bytes()[:MAX_FILE_BYTES]
    return ToolOutcome(data.decode("utf-8", errors="replace"))


def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Write a text file inside the run's workspace."""
    path = _inside(ctx, str(args["path"]))
    if isinstance(path, ToolError):
        return ToolOutcome(error=path)
    text = str(args["content"])
    if len(text.encode()) > MAX_FILE_BYTES:
        return ToolOutcome(error=ToolError("invalid_arguments", "content too large",
                                           f"Write at most {MAX_FILE_BYTES} bytes."))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return ToolOutcome({"written": str(path.relative_to(ctx.workspace.resolve())),
                        "bytes": len(text.encode())})


def list_files(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Files of the workspace, relative paths."""
    root = ctx.workspace.resolve()
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    return ToolOutcome({"files": files[:500]})


def current_time(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """The run clock's current time (injected, so recorded runs replay identically)."""
    clock = ctx.services.get("clock")
    return ToolOutcome({"now": clock.iso() if clock else "1970-01-01T00:00:00Z"})


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
    "current_time": FunctionTool(ToolSchema("current_time", "The current date and time.",
                                            _obj({}, [])), current_time),
    "ask_human": FunctionTool(ToolSchema("ask_human", "Ask a human to approve or answer.",
                                         _obj({"question": _S}, ["question"])), ask_human),
    **{name: FunctionTool(ToolSchema(name, f"{name} (needs network access)",
                                     {"type": "object"}), network_off)
       for name in ("web_search", "web_read", "http_get")},
}
