"""Validation issues: every problem found, each with a stable code, a path and a fix."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Issue:
    """One validation finding. `code` is stable; `path` points into the spec."""

    code: str
    path: str
    message: str
    hint: str
    severity: Literal["error", "warning"] = "error"
    file: str | None = None  # the file the issue is in, when a config spans several

    def to_dict(self) -> dict[str, Any]:
        """JSON shape (`file` only when known)."""
        out = asdict(self)
        if self.file is None:
            del out["file"]
        return out

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{self.severity} {self.code} at {where}{self.path or '<root>'}: {self.message}"


def errors(issues: list[Issue]) -> list[Issue]:
    """Only the issues that make a framework invalid."""
    return [i for i in issues if i.severity == "error"]


def from_pydantic(err: Any, prefix: str = "") -> list[Issue]:
    """Turn a pydantic ValidationError into issues with schema.* codes."""
    out = []
    for e in err.errors():
        path = _path(prefix, e["loc"])
        kind = e["type"]
        if kind == "extra_forbidden":
            code, hint = "schema.unknown_field", "Remove the key or fix its spelling."
        elif kind == "missing":
            code, hint = "schema.missing_field", "Add the required key."
        elif kind.endswith("_type") or kind in ("model_type", "list_type", "dict_type"):
            code, hint = "schema.type", "Give the value the type the schema expects."
        else:
            code, hint = "schema.value", "Give a value the schema allows."
        out.append(Issue(code, path, e["msg"], hint))
    return out


def _path(prefix: str, loc: tuple[Any, ...]) -> str:
    parts = [prefix] if prefix else []
    for item in loc:
        if isinstance(item, int):
            parts[-1 if parts else 0:] = [f"{parts[-1] if parts else ''}[{item}]"]
        elif not (isinstance(item, str) and (item in ("str", "ToolEntry") or "[" in item)):
            parts.append(str(item))
    return ".".join(parts)
