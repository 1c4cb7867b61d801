"""a4a: compile natural language into validated, runnable multi-agent frameworks.

The package root stays light (``a4a --help`` imports almost nothing); the API loads lazily.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["BuildResult", "SynthConfig", "SynthOptions", "ValidationReport", "__version__",
           "build", "load", "run", "synthesize", "validate"]


def __getattr__(name: str) -> Any:
    if name in ("build", "validate", "load", "run", "BuildResult", "ValidationReport"):
        from a4a import api

        return getattr(api, name)
    if name in ("synthesize", "SynthConfig", "SynthOptions"):
        from a4a import synth

        return getattr(synth, name)
    raise AttributeError(f"module 'a4a' has no attribute {name!r}")
