"""A global switch that turns every real model call into an error (tests fail closed).

Real calls are blocked when `A4A_BLOCK_REAL_LLM=1` is set (tests set it for themselves and
every subprocess they start) or after `block_real_models()`. Loopback test servers stay
usable through an explicit opt-in: `allow_real_models()` or `A4A_ALLOW_LOOPBACK_LLM=1`,
both of which admit only 127.0.0.0/8, ::1 and localhost unless told otherwise; the embedded
model runs only with `A4A_ALLOW_LOCAL_LLM=1` (or `allow_real_models(loopback_only=False)`).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from a4a.runtime.errors import LLMError

BLOCK_ENV = "A4A_BLOCK_REAL_LLM"
LOOPBACK_ENV = "A4A_ALLOW_LOOPBACK_LLM"
LOCAL_ENV = "A4A_ALLOW_LOCAL_LLM"  # admits the embedded in-process model (slow tests opt in)

# Module state rather than a ContextVar: an opt-in must cover the event loops and threads a
# test starts inside it, which a context-local value would not reach.
_state = {"blocked": False, "allow_loopback": 0, "allow_any": 0}


def block_real_models(blocked: bool = True) -> None:
    """Block (or unblock) real model calls in this process, whatever the environment says."""
    _state["blocked"] = blocked


def real_calls_blocked() -> bool:
    """True when real model calls are blocked by `block_real_models()` or the environment."""
    return bool(_state["blocked"]) or os.environ.get(BLOCK_ENV, "") not in ("", "0")


@contextmanager
def allow_real_models(*, loopback_only: bool = True) -> Iterator[None]:
    """Within the block, admit real calls: only to loopback servers unless told otherwise.

    Args:
        loopback_only: when False, calls to any host are admitted (a test marked `llm`).
    """
    key = "allow_loopback" if loopback_only else "allow_any"
    _state[key] += 1
    try:
        yield
    finally:
        _state[key] -= 1


def is_loopback_url(url: str | None) -> bool:
    """True when the URL's host is 127.0.0.0/8, ::1 or localhost."""
    if not url:
        return False
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ensure_real_calls_allowed(backend_name: str, *, base_url: str | None = None) -> None:
    """Raise unless a real call from this backend is admitted right now.

    Args:
        backend_name: the backend about to call a model (named in the error).
        base_url: the server it calls; None for in-process models, which only
            `allow_real_models(loopback_only=False)` admits while blocked.

    Raises:
        LLMError: code `llm.blocked` (not retryable) while real calls are blocked.
    """
    if not real_calls_blocked() or _state["allow_any"]:
        return
    if base_url is None and backend_name == "local" and os.environ.get(LOCAL_ENV, "") not in (
            "", "0"):
        return
    loopback_ok = _state["allow_loopback"] or os.environ.get(LOOPBACK_ENV, "") not in ("", "0")
    if loopback_ok and is_loopback_url(base_url):
        return
    where = f" at {base_url}" if base_url else ""
    raise LLMError(
        "llm.blocked", f"real model calls are blocked; {backend_name}{where} was not called",
        "Use a fake model (scripted:, fake:schema) in tests, a loopback fake server inside "
        f"allow_real_models(), {LOCAL_ENV}=1 for the embedded model, or unset {BLOCK_ENV} "
        "outside tests.",
        retryable=False, backend=backend_name)
