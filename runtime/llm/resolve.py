"""Model backends by spec string: `openai:<model>`, `scripted:<file>`, `fake:schema`, `local`.

Backends are imported only when their spec is resolved, so naming one costs nothing.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.ir.spec import LLMConfig
from a4a.runtime.llm.base import LLM

SPEC_FORMS = ("openai:<model>", "config", "scripted:<file>", "fake:schema", "local", "oracle")
# NexAU's environment fallbacks for a config's connection fields.
_ENV = {"model": ("MODEL", "OPENAI_MODEL", "LLM_MODEL"),
        "base_url": ("OPENAI_BASE_URL", "BASE_URL", "LLM_BASE_URL"),
        "api_key": ("LLM_API_KEY", "OPENAI_API_KEY", "API_KEY")}


def resolve_llm(spec: str, *, base_url: str | None = None, capture_tokens: bool = False,
                config: LLMConfig | None = None) -> LLM:
    """The backend a spec string names.

    Args:
        spec: one of `SPEC_FORMS`; `config` is the model the agent config names.
        base_url: the server of an `openai:` backend (else the config's, else
            OPENAI_BASE_URL).
        capture_tokens: ask an `openai:` backend for token ids and logprobs.
        config: the entry agent's llm_config (NexAU configs): its model, base URL, API key
            and timeout serve `config`, and its base URL and key serve `openai:<model>`.

    Raises:
        UserError: `llm.unknown_spec` for a spec of no known form, or a bad `openai:`
            or `scripted:` argument; `llm.no_model` for `config` without a model.
        LLMError: `llm.local_unavailable` when the local model cannot be loaded;
            `llm.oracle_needs_task` for `oracle`, which only a task can answer.
    """
    kind, _, arg = spec.strip().partition(":")
    if config is not None and (kind == "config" or (kind == "openai" and arg)):
        return _from_config(arg if kind == "openai" else None, config, base_url,
                            capture_tokens)
    if kind == "config":
        raise UserError("llm.no_model", "`--llm config` takes the model from a NexAU agent "
                        "config's llm_config", "Run a NexAU agent YAML, or name the model: "
                        "--llm openai:<model>.")
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


def _from_config(model: str | None, config: LLMConfig, base_url: str | None,
                 capture_tokens: bool) -> LLM:
    from a4a.runtime.llm.openai_backend import OpenAIBackend

    def field(name: str) -> str | None:
        value = getattr(config, name, None)
        return str(value) if value else next(
            (os.environ[v] for v in _ENV[name] if os.environ.get(v)), None)

    name = model or field("model")
    if not name:
        raise UserError("llm.no_model", "the config's llm_config names no model (and MODEL, "
                        "OPENAI_MODEL, LLM_MODEL are unset)", "Set the variable the config "
                        "reads, or name the model: --llm openai:<model>.")
    timeout = getattr(config, "timeout", None)
    return OpenAIBackend(name, base_url=base_url or field("base_url"), api_key=field("api_key"),
                         capture_tokens=capture_tokens or bool(getattr(config, "logprobs", None)),
                         timeout_s=float(timeout) if isinstance(timeout, int | float)
                         and timeout > 0 else 60.0)


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
