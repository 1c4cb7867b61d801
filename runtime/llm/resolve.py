"""Model backends by spec string: `openai:<model>`, `scripted:<file>`, `fake:schema`, `local`.

Backends are imported only when their spec is resolved, so naming one costs nothing.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.base import LLM

SPEC_FORMS = ("openai:<model>", "scripted:<file>", "fake:schema", "local", "oracle")


def resolve_llm(spec: str, *, base_url: str | None = None, capture_tokens: bool = False) -> LLM:
    """The backend a spec string names.

    Args:
        spec: one of `SPEC_FORMS`.
        base_url: the server of an `openai:` backend (else OPENAI_BASE_URL).
        capture_tokens: ask an `openai:` backend for token ids and logprobs.

    Raises:
        UserError: `llm.unknown_spec` for a spec of no known form, or a bad `openai:`
            or `scripted:` argument.
        LLMError: `llm.local_unavailable` when the local model cannot be loaded;
            `llm.oracle_needs_task` for `oracle`, which only a task can answer.
    """
    kind, _, arg = spec.strip().partition(":")
    if kind == "openai" and arg:
        from a4a.runtime.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(arg, base_url=base_url, capture_tokens=capture_tokens)
    if kind == "scripted" and arg:
        from a4a.runtime.llm.fakes import ScriptedLLM, load_script

        return ScriptedLLM(load_script(Path(arg)))
    if spec == "fake:schema":
        from a4a.runtime.llm.fakes import SchemaLLM

        return SchemaLLM()
    if spec == "local":
        return _local()
    if spec == "oracle":
        raise LLMError("llm.oracle_needs_task", "the oracle policy answers from a task's "
                       "reference solution, so it cannot stand alone",
                       "Run with --task <task> so the oracle can follow its solution.",
                       retryable=False)
    raise UserError("llm.unknown_spec", f"unknown model spec {spec!r}",
                    f"Use one of: {', '.join(SPEC_FORMS)}.", valid=list(SPEC_FORMS))


def _local() -> LLM:
    try:
        # By name, so this module neither depends on nor type-checks against the backend.
        module = importlib.import_module("a4a.runtime.llm.local")
        factory = module.LocalLLM
    except (ImportError, AttributeError) as err:
        missing = (err.name if isinstance(err, ImportError) else None) or "a4a.runtime.llm.local"
        hint = ("This installation has no embedded model backend; use openai:<model> with "
                "a local server instead." if missing.startswith("a4a.") else
                f"Install the model extras (pip install 'a4a[train]'); {missing} is missing.")
        raise LLMError("llm.local_unavailable", f"the local model backend cannot be loaded: "
                       f"{err}", hint, retryable=False, missing=missing) from err
    llm: LLM = factory()
    return llm
