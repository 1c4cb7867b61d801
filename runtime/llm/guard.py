"""The switch that keeps real model calls out of places that must stay offline (tests).

Set `A4A_BLOCK_REAL_LLM=1` to make every real backend refuse to run. The embedded local
model can be let through on its own with `A4A_ALLOW_LOCAL_LLM=1`: it is offline and
deterministic, so slow tests may use it on purpose.
"""

from __future__ import annotations

import os

from a4a.runtime.errors import LLMError


def ensure_real_calls_allowed(backend: str) -> None:
    """Raise unless a real call to `backend` is allowed here.

    Args:
        backend: The backend about to run a real model, e.g. "local" or "openai".

    Raises:
        LLMError: code "llm.blocked" when real calls are switched off.
    """
    if os.environ.get("A4A_BLOCK_REAL_LLM") != "1":
        return
    if backend == "local" and os.environ.get("A4A_ALLOW_LOCAL_LLM") == "1":
        return
    raise LLMError(
        "llm.blocked", f"real model calls are switched off here (backend {backend!r})",
        "Use a fake model (scripted, function, schema); a test that must run the embedded "
        "model sets A4A_ALLOW_LOCAL_LLM=1.", backend=backend, retryable=False)
