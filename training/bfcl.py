"""BFCL v4's non-live categories, prompted as a4a's text tool-call modes and scored by BFCL.

The data (`bfcl_eval/data/`, answers in `possible_answer/`) and the AST checker come from the
`bfcl-eval` wheel, installed without its dependencies (its pins conflict with ours). The
checker module imports every model handler through `bfcl_eval.constants.model_config`; a stub
of that module, whose entries all keep dotted names, goes into `sys.modules` first.

A model sees a BFCL item as the embedded model sees an agent turn: a system prompt with the
tools and call grammar of one text mode appended, the question as user turns; its reply is
parsed back with the same mode. Irrelevance is scored as BFCL does: correct when the reply
holds no valid call. Nothing here writes BFCL data anywhere: it is for evaluation only.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.llm import textmodes
from a4a.runtime.llm.base import Message, ToolSchema

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
REQUIREMENT = "bfcl-eval==2026.3.23"
SYSTEM = "You are a helpful assistant."
_HINT = f'Install the checker without its dependencies: pip install --no-deps "{REQUIREMENT}".'
# BFCL's parameter types that JSON Schema spells differently.
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}

Checker = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class Item:
    """One BFCL test entry with its possible answers (none for irrelevance)."""

    id: str
    category: str
    question: tuple[dict[str, str], ...]
    functions: tuple[dict[str, Any], ...]
    answer: tuple[dict[str, Any], ...] = ()


def _package() -> Path:
    try:
        package = importlib.import_module("bfcl_eval")  # untyped, optional: not followed
    except ImportError as exc:
        raise UserError("bfcl.missing", "the bfcl-eval wheel is not installed", _HINT) from exc
    return Path(package.__file__ or "").parent


def _stub_model_config() -> None:
    """Keep BFCL's handler imports out: every model name maps to an entry keeping dots."""
    name = "bfcl_eval.constants.model_config"
    if name in sys.modules and hasattr(sys.modules[name], "MODEL_CONFIG_MAPPING"):
        return

    class _Every(dict[str, Any]):
        def __missing__(self, key: str) -> Any:
            return types.SimpleNamespace(underscore_to_dot=False)

    stub = types.ModuleType(name)
    stub.MODEL_CONFIG_MAPPING = _Every()  # type: ignore[attr-defined]
    sys.modules[name] = stub


def checker() -> Checker:
    """BFCL's `ast_checker`.

    Raises:
        UserError: `bfcl.missing` without the bfcl-eval wheel.
    """
    _package()
    _stub_model_config()
    module = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    return module.ast_checker


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def load(category: str, limit: int | None = None) -> list[Item]:
    """The first `limit` entries (all without one) of a category, with their answers.

    Raises:
        UserError: `bfcl.category` for a category outside CATEGORIES, `bfcl.missing`.
    """
    if category not in CATEGORIES:
        raise UserError("bfcl.category", f"unknown BFCL category {category!r}",
                        f"Use one of {', '.join(CATEGORIES)}.", category=category)
    data = _package() / "data"
    entries = _lines(data / f"BFCL_v4_{category}.json")[:limit]
    answers: dict[str, Any] = {}
    if category != "irrelevance":
        answers = {a["id"]: a["ground_truth"]
                   for a in _lines(data / "possible_answer" / f"BFCL_v4_{category}.json")}
    return [Item(e["id"], category, tuple(e["question"][0]), tuple(e["function"]),
                 tuple(answers.get(e["id"], ()))) for e in entries]


def _json_schema(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _json_schema(v) for k, v in node.items()}
        if isinstance(out.get("type"), str):
            out["type"] = _TYPES.get(out["type"], out["type"])
        return out
    if isinstance(node, list):
        return [_json_schema(v) for v in node]
    return node


def tool_schemas(item: Item) -> tuple[ToolSchema, ...]:
    """The item's functions as a4a tools (BFCL's `dict`, `float`... as JSON Schema types)."""
    return tuple(ToolSchema(f["name"], f.get("description", ""),
                            _json_schema(f.get("parameters", {}))) for f in item.functions)


def messages(item: Item, mode: str = "hermes") -> tuple[Message, ...]:
    """The item as the agent loop sends a turn to a text-mode backend."""
    from a4a.runtime.engine.textcalls import system_with_tools

    system = Message("system", system_with_tools(SYSTEM, tool_schemas(item), mode))
    return (system, *(Message("assistant" if q["role"] == "assistant" else "user",
                              q["content"]) for q in item.question))


def calls(text: str, mode: str = "hermes", item: Item | None = None) -> list[dict[str, Any]]:
    """The calls read in full from a reply, in BFCL's shape: [{name: {arg: value}}]."""
    schemas = textmodes.schemas_of(tool_schemas(item)) if item else None
    return [{c.name: dict(c.arguments)} for c in textmodes.parse(text, mode, schemas).calls]


def correct(item: Item, model_calls: list[dict[str, Any]],
            check: Checker | None = None) -> bool:
    """BFCL's AST verdict on the calls; irrelevance is correct when there is no call."""
    if item.category == "irrelevance":
        return not model_calls
    if not model_calls:
        return False
    check = check or checker()
    python = importlib.import_module("bfcl_eval.constants.enums").Language.PYTHON
    result = check(list(item.functions), model_calls, list(item.answer), python,
                   item.category, "a4a")
    return bool(result.get("valid"))


def accuracy(verdicts: list[bool]) -> dict[str, float | int]:
    """Accuracy and its standard error sqrt(p(1-p)/n) over n items."""
    n = len(verdicts)
    p = sum(verdicts) / n if n else 0.0
    return {"n": n, "accuracy": p, "se": (p * (1 - p) / n) ** 0.5 if n else 0.0}


def summary(per_category: Mapping[str, list[bool]]) -> dict[str, dict[str, float | int]]:
    """`accuracy` per category."""
    return {c: accuracy(v) for c, v in per_category.items()}
