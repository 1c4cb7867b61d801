"""The structured error world operations fail with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorldError(Exception):
    """A structured failure of an operation, shown to the agent as an observation."""

    code: str
    message: str
    hint: str = ""

    def to_dict(self) -> dict[str, str]:
        """JSON shape."""
        return {"code": self.code, "message": self.message, "hint": self.hint}
