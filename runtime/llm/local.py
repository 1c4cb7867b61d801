"""The embedded backend: SmolLM2-135M-Instruct on the CPU, one torch thread, fully offline.

It loads the safetensors cache that `a4a models pull` writes, applies the model's chat
template (plain ChatML) to the neutral messages and returns the generated tokens with their
log-probabilities. It has no structured tool calling: tools reach it as text, written by the
agent loop with `textmodes.render_tools` and read back with `textmodes.parse`, so replies come
back as plain content. torch and transformers are imported on first use only.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import LLMError
from a4a.runtime.llm import models, textmodes
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, Usage
from a4a.runtime.llm.guard import ensure_real_calls_allowed


def chat_messages(messages: tuple[Message, ...], tool_mode: str) -> list[dict[str, str]]:
    """Neutral messages as chat-template turns for a model without tool roles.

    Assistant tool calls are written back as the text of `tool_mode` (hermes when the mode is
    structured); tool results become one user turn of observations per run of tool messages.
    """
    mode = tool_mode if tool_mode in textmodes.MODES else "hermes"
    out: list[dict[str, str]] = []
    after_tool = False
    for m in messages:
        if m.role == "tool":
            text = textmodes.render_result(m.name or "tool", m.content, mode)
            if after_tool:  # results of parallel calls share one turn
                out[-1]["content"] += "\n" + text
            else:
                out.append({"role": "user", "content": text})
            after_tool = True
            continue
        content = m.content
        if m.role == "assistant" and m.tool_calls:
            calls = textmodes.render_calls(m.tool_calls, mode)
            content = f"{content}\n{calls}" if content else calls
        out.append({"role": m.role, "content": content})
        after_tool = False
    return out


def _cut_at_stop(text: str, stops: tuple[str, ...]) -> tuple[str, bool]:
    """The text before the first stop string (which is left out), and whether one was found."""
    hits = [i for i in (text.find(s) for s in stops if s) if i != -1]
    return (text[:min(hits)], True) if hits else (text, False)


@dataclass(frozen=True)
class _Loaded:
    torch: Any
    transformers: Any
    model: Any
    tokenizer: Any


class LocalLLM:
    """The embedded model behind the LLM protocol.

    Greedy when the request has no temperature (or 0), else sampled from the full
    distribution at that temperature with the request's seed (or this backend's): the same
    seed gives the same text. `logprobs` are those of the distribution each token was chosen
    from; `token_ids` include the end-of-turn token when the model wrote it. Calls run one at
    a time, each on one torch thread, in a worker thread so the event loop stays free.
    """

    name = "local"
    structured_tools = False  # the chat template ignores `tools`: agents use a text mode

    def __init__(self, model_dir: Path | None = None, *, max_new_tokens: int = 256,
                 seed: int = 0) -> None:
        self.model_dir = model_dir or models.model_dir()
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.load_seconds: float | None = None  # reading the cached tokenizer and weights
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request (see `generate`)."""
        return await asyncio.to_thread(self.generate, request)

    def generate(self, request: LLMRequest, prefill: str = "") -> LLMResponse:
        """Answer one request synchronously; with `prefill`, the reply starts with that text.

        The prefill is written after the generation prompt and decoding goes on from it; the
        reply's text starts with it, while `token_ids` and `logprobs` are those decoded after it.

        Raises:
            LLMError: `llm.blocked` where real calls are switched off, `llm.model_missing`
                without a cached model, `llm.extra_missing` without torch/transformers.
        """
        ensure_real_calls_allowed("local")
        with self._lock:
            return self._generate(self._model(), request, prefill)

    def load(self) -> None:
        """Load the cached model now instead of on the first call; `load_seconds` tells the time.

        Raises:
            LLMError: `llm.blocked`, `llm.model_missing`, `llm.extra_missing`.
        """
        with self._lock:
            self._model()

    def _model(self) -> _Loaded:
        """The loaded model, loading it on first use.

        Raises:
            LLMError: `llm.model_missing`, `llm.extra_missing`.
        """
        if self._loaded is None:
            ensure_real_calls_allowed("local")
            if not (self.model_dir / "config.json").is_file():
                raise LLMError("llm.model_missing", f"no model cached at {self.model_dir}",
                               "Run `a4a models pull` (or `make model`) first.",
                               path=str(self.model_dir), retryable=False)
            torch, transformers = models.require_train_extra()
            torch.set_num_threads(1)
            folder = str(self.model_dir)
            # Reading the config pays transformers' lazy module imports (seconds, once per
            # process), so that `load_seconds` times the cached files alone.
            config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
            start = time.perf_counter()
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
            model = transformers.AutoModelForCausalLM.from_pretrained(
                folder, config=config, local_files_only=True).train(False)
            self.load_seconds = time.perf_counter() - start
            self._loaded = _Loaded(torch, transformers, model, tokenizer)
        return self._loaded

    def _config(self, lm: _Loaded, request: LLMRequest) -> Any:
        tok = lm.tokenizer
        opts: dict[str, Any] = {
            "max_new_tokens": request.max_tokens or self.max_new_tokens,
            "eos_token_id": tok.eos_token_id, "pad_token_id": tok.pad_token_id,
            "return_dict_in_generate": True, "output_scores": True, "do_sample": False}
        if request.temperature:
            # top_k=0 turns off the library's default top-k so the seed alone decides.
            opts.update(do_sample=True, temperature=request.temperature, top_k=0, top_p=1.0)
        if request.stop:
            opts["stop_strings"] = list(request.stop)
        return lm.transformers.GenerationConfig(**opts)

    def _generate(self, lm: _Loaded, request: LLMRequest, prefill: str = "") -> LLMResponse:
        torch, tok = lm.torch, lm.tokenizer
        # Again here: complete() runs in a worker thread, and OpenMP settings can be per thread.
        torch.set_num_threads(1)
        prompt = tok.apply_chat_template(chat_messages(request.messages, request.tool_mode),
                                         add_generation_prompt=True, tokenize=False)
        enc = tok(prompt + prefill, return_tensors="pt", add_special_tokens=False)
        config = self._config(lm, request)
        seed = self.seed if request.seed is None else request.seed
        # A private RNG state: seeding here must not disturb anyone else's torch randomness.
        with torch.inference_mode(), torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            out = lm.model.generate(**enc, generation_config=config, tokenizer=tok)
        n_prompt = int(enc["input_ids"].shape[1])
        ids = [int(t) for t in out.sequences[0, n_prompt:].tolist()]
        scores = torch.log_softmax(torch.stack(out.scores)[:, 0, :].float(), dim=-1)
        logprobs = [float(scores[i, t]) for i, t in enumerate(ids)]
        text, stopped = _cut_at_stop(prefill + tok.decode(ids, skip_special_tokens=True),
                                     request.stop)
        ended = stopped or (bool(ids) and ids[-1] == tok.eos_token_id)
        reason = "length" if not ended and len(ids) >= config.max_new_tokens else "stop"
        return LLMResponse(Message("assistant", text), Usage(n_prompt, len(ids)), reason,
                           f"{self.name}:{self.model_dir.name}", tuple(ids), tuple(logprobs))
