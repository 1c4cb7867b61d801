"""The base of every IR model: unknown keys are errors, instances are immutable."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Base: unknown keys are errors; instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)
