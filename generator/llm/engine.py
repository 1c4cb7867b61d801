"""The DSPy side of the LLM seam: a dspy engine over a4a's model backends, with a ledger.

Every model call the builders make goes through `SeamEngine`, which forwards it to an a4a
backend (`openai:<model>` is the official openai client) and counts it; DSPy's own cache,
kept under $A4A_HOME, answers repeated requests without reaching the engine.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.llm.base import LLM, LLMRequest, Message

_LOCK = threading.Lock()
_CACHE_DIR: list[str] = []


@dataclass
class Ledger:
    """What the builders asked of the model: calls that reached it, their tokens and stages.

    `stage` is the builder program being asked (the session sets it before each call), so
    `stages` lists, call by call, which program each call that reached the model was for.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stage: str = ""
    stages: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, prompt: int, completion: int) -> None:
        """Count one model call (of the current stage)."""
        with self.lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.stages.append(self.stage)

    def to_dict(self) -> dict[str, Any]:
        """The ledger as `--json` reports it."""
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "stages": list(self.stages)}


def require_dspy() -> None:
    """Raise UserError `llm.dspy_missing` (with the fix) when the dspy extra is absent."""
    import importlib.util

    if importlib.util.find_spec("dspy") is None:
        raise UserError("llm.dspy_missing", "the LLM-backed builders need the dspy extra",
                        "pip install 'a4a[dspy]', or omit --llm to use the rules.")


def home() -> Path:
    """$A4A_HOME (default ~/.local/share/a4a)."""
    return Path(os.environ.get("A4A_HOME") or Path.home() / ".local" / "share" / "a4a")


def prepare_env(cache_dir: Path) -> None:
    """Keep litellm offline and DSPy's cache under `cache_dir`; call before importing dspy."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("DSPY_CACHEDIR", str(home() / "dspy-cache"))
    import dspy

    with _LOCK:
        if _CACHE_DIR != [str(cache_dir)]:
            dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=False,
                                 disk_cache_dir=str(cache_dir))
            _CACHE_DIR[:] = [str(cache_dir)]


class SeamEngine:
    """A dspy engine (`complete(Request) -> Response`) that calls an a4a backend."""

    def __init__(self, backend: LLM, ledger: Ledger, max_tokens: int = 4096) -> None:
        self.backend = backend
        self.ledger = ledger
        self.max_tokens = max_tokens

    def complete(self, request: Any) -> Any:
        """Answer one DSPy request through the backend; counts it in the ledger."""
        from dspy import lm15

        system = request.system if isinstance(request.system, str) or request.system is None \
            else "".join(p.text for p in request.system)
        msgs = ([Message("system", system)] if system else []) + [
            Message(m.role, m.text or "") for m in request.messages]
        cfg = request.config
        call = LLMRequest(tuple(msgs), temperature=cfg.temperature,
                          max_tokens=cfg.max_tokens or self.max_tokens, seed=cfg.seed,
                          agent="builder")
        try:
            response = _run(self.backend.complete(call))
        except Exception:
            self.ledger.add(0, 0)  # a failed call reached the server all the same
            raise
        usage = response.usage
        self.ledger.add(usage.prompt_tokens, usage.completion_tokens)
        finish = "length" if response.finish_reason == "length" else "stop"
        return lm15.Response(
            id=None, model=response.model or "a4a", finish_reason=finish,
            message=lm15.Message.assistant([lm15.TextPart(response.message.content or "")]),
            usage=lm15.Usage(input_tokens=usage.prompt_tokens,
                             output_tokens=usage.completion_tokens,
                             total_tokens=usage.prompt_tokens + usage.completion_tokens))


def _run(coro: Any) -> Any:
    # Builders run synchronously (DSPy's sync path); each call gets its own loop, and the
    # openai backend opens fresh connections per loop.
    return asyncio.run(coro)


def make_lm(spec: str, ledger: Ledger, *, base_url: str | None = None,
            temperature: float = 0.0, backend: LLM | None = None) -> Any:
    """A dspy.LM whose calls go to the a4a backend `spec` names (or `backend`)."""
    import dspy

    from a4a.runtime.llm.resolve import resolve_llm

    if spec in ("rules", ""):
        raise UserError("llm.not_a_model", f"{spec!r} names no model",
                        "Pass --llm openai:<model> (with --base-url for a local server).")
    chosen = backend or resolve_llm(spec, base_url=base_url)
    return dspy.LM(model=f"a4a/{spec}", engine=SeamEngine(chosen, ledger),
                   temperature=temperature, max_tokens=4096, cache=True, num_retries=0)
