"""Which fields of an agent's llm_config reach the model server, and how.

NexAU sends every llm_config key it does not itself consume as a request parameter; a4a
does the same, minus the keys that configure the client (connection, timeouts, streaming,
retries) and those `additional_drop_params` names. `extra_body` is merged into the body as
the official client merges it. A Responses-API `reasoning: {effort}` becomes chat
completions' `reasoning_effort`.
"""

from __future__ import annotations

from typing import Any

from a4a.runtime.ir.spec import LLMConfig

# Read by the client or by a4a, never sent: connection, client behaviour, a4a's own fields.
CLIENT_KEYS = frozenset({
    "model", "base_url", "api_key", "api_type", "timeout", "max_retries", "debug", "stream",
    "additional_drop_params", "cache_control_ttl", "tokenizer_path", "stream_idle_timeout_ms",
    "connect_timeout_ms", "tool_streaming", "allow_unsigned_thinking", "temperature",
    "max_tokens", "extra_headers"})


def request_options(config: LLMConfig) -> dict[str, Any]:
    """The wire parameters of `config` beyond temperature and max_tokens."""
    data = config.model_dump(exclude_none=True)
    dropped = set(data.get("additional_drop_params") or [])
    out = {k: v for k, v in data.items() if k not in CLIENT_KEYS and k not in dropped}
    reasoning = out.get("reasoning")
    if data.get("api_type") == "openai_responses" and isinstance(reasoning, dict):
        out.pop("reasoning")
        if reasoning.get("effort"):
            out["reasoning_effort"] = reasoning["effort"]
    return out
