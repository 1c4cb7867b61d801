"""The one exception tree of a4a. Errors carry data and say the fix.

A4AError                  base; .code (stable), .message, .hint, .data
├── UserError             the caller misused a command or the API (exit 2)
├── SpecError             a framework or agent config is invalid (exit 1); .issues
├── GenerationError       a request could not be compiled; RefusedError when policy denies it
│   └── RefusedError      .reason is a policy reason code (exit 1)
├── RunError              a run failed (exit 1)
├── LLMError              a model backend failed
└── CatalogError          the catalog store failed
"""

from __future__ import annotations

from typing import Any


class A4AError(Exception):
    """Base of every a4a error: a stable code, a message and a hint that says the fix."""

    exit_code = 1

    def __init__(self, code: str, message: str, hint: str = "", **data: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape printed by `--json` commands."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        out.update(self.data)
        return out


class UserError(A4AError):
    """The caller misused a command or the API."""

    exit_code = 2


class SpecError(A4AError):
    """A framework or agent config is invalid; `.data['issues']` lists every issue."""


class GenerationError(A4AError):
    """A request could not be compiled into a framework."""


class RefusedError(GenerationError):
    """The security policy refused the request; `.code` is the reason code."""


class RunError(A4AError):
    """A run failed."""


class LLMError(A4AError):
    """A model backend failed."""


class CatalogError(A4AError):
    """The catalog store failed."""
