"""The policy being trained behind the runtime's LLM protocol, and the loop's sampling.

`PolicyLLM` answers in-process from a transformers model (LoRA-wrapped while it trains) with
prompt ids, completion ids and sampling logprobs; `Sampling` gives every call of a rollout the
loop's temperature, token cap and a seed of its own; `plan_responder` is a policy for the
loopback fake server (runtime.llm.fakeserver) that follows each task's gold plan or stops
early, by the request's seed, so the runs of a group earn different checker rewards.
torch is imported inside the functions.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from a4a.runtime.errors import LLMError
from a4a.runtime.llm.base import LLM, LLMRequest, LLMResponse, Message, Usage


class PolicyLLM:
    """The model being trained behind the LLM protocol, in-process.

    Samples at the request's temperature with the request's seed (a private RNG state), and
    returns prompt ids, completion ids (the end-of-turn token included) and the sampling
    logprobs. Tools reach it as text (the runtime picks a text tool-call mode).
    """

    name = "policy"
    structured_tools = False

    def __init__(self, net: Any, tokenizer: Any, max_new_tokens: int = 48) -> None:
        self.net, self.tokenizer, self.max_new_tokens = net, tokenizer, max_new_tokens

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request (in this thread: the loop's rollouts stay deterministic)."""
        return self.generate(request)

    def generate(self, request: LLMRequest) -> LLMResponse:
        """Sample one reply.

        Raises:
            LLMError: `llm.context_overflow` (not retryable) when the prompt and the new
                tokens do not fit the model's positions; the run ends with an LLM error.
        """
        import torch

        tok = self.tokenizer
        prompt = prompt_ids(tok, request.messages, request.tool_mode)
        budget = request.max_tokens or self.max_new_tokens
        limit = getattr(getattr(self.net, "config", None), "max_position_embeddings", None)
        if isinstance(limit, int) and len(prompt) + budget > limit:
            raise LLMError("llm.context_overflow", f"a prompt of {len(prompt)} tokens and "
                           f"{budget} new ones exceed the model's {limit} positions",
                           "Lower max_calls or max_new_tokens, or train a longer-context "
                           "model.", retryable=False, prompt_tokens=len(prompt))
        opts: dict[str, Any] = {"do_sample": False}
        if request.temperature:
            opts = {"do_sample": True, "temperature": request.temperature, "top_k": 0,
                    "top_p": 1.0}
        with torch.inference_mode(), torch.random.fork_rng(devices=[]):
            torch.manual_seed(request.seed or 0)
            out = self.net.generate(
                input_ids=torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt),
                                                                            dtype=torch.long),
                max_new_tokens=budget, output_scores=True,
                return_dict_in_generate=True, eos_token_id=tok.eos_token_id,
                pad_token_id=tok.pad_token_id, **opts)
        ids = [int(t) for t in out.sequences[0, len(prompt):].tolist()]
        scores = torch.log_softmax(torch.stack(out.scores)[:, 0, :].float(), dim=-1)
        logprobs = tuple(float(scores[i, t]) for i, t in enumerate(ids))
        ended = bool(ids) and ids[-1] == tok.eos_token_id
        return LLMResponse(Message("assistant", tok.decode(ids, skip_special_tokens=True)),
                           Usage(len(prompt), len(ids)), "stop" if ended else "length",
                           self.name, tuple(ids), logprobs, tuple(prompt))


def prompt_ids(tokenizer: Any, messages: Sequence[Message], tool_mode: str) -> list[int]:
    """The ids of a chat as the model sees it: its chat template, the generation prompt on."""
    from a4a.runtime.llm.local import chat_messages

    text = tokenizer.apply_chat_template(chat_messages(tuple(messages), tool_mode),
                                         add_generation_prompt=True, tokenize=False)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


class Sampling:
    """An LLM with the loop's sampling: temperature, token cap and a seed per call.

    The seed of a call is drawn from the rollout's seed, the agent and the conversation's
    length, so a rollout replays identically whatever order concurrent calls run in.
    """

    def __init__(self, inner: LLM, temperature: float, max_tokens: int, seed: int) -> None:
        self.inner, self.temperature, self.max_tokens, self.seed = (inner, temperature,
                                                                    max_tokens, seed)
        self.name = inner.name
        self.structured_tools = bool(getattr(inner, "structured_tools", True))

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """The inner model's answer to the request with the loop's sampling settings."""
        seed = seed_of(self.seed, request.agent, len(request.messages))
        return await self.inner.complete(replace(request, temperature=self.temperature,
                                                 max_tokens=self.max_tokens, seed=seed))


def seed_of(*parts: Any) -> int:
    """A stable 31-bit seed from the parts' text."""
    return zlib.crc32(":".join(map(str, parts)).encode()) % 2**31


def plan_responder(tasks: Sequence[dict[str, Any]], follow: float = 0.8
                   ) -> Callable[[dict[str, Any]], Any]:
    """A fake-server responder that follows the tasks' gold plans, now and then stopping early.

    Per request: the task's next gold call with chance `follow` (drawn from the request's
    seed), else the answer facts (the run ends there). The task is the one whose query the
    request's user turns hold; the next call is the plan's step after as many steps as the
    conversation has tool results.
    """
    from a4a.runtime.llm.fakeserver import Reply

    def reply(body: dict[str, Any]) -> Reply:
        text = " ".join(str(m.get("content") or "") for m in body["messages"]
                        if m["role"] == "user")
        task = next(t for t in tasks if t["query"] in text)
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if done < len(task["plan"]) and random.Random(body.get("seed")).random() < follow:
            step = task["plan"][done]
            return Reply(tool_calls=((step["tool"], step["args"]),))
        return Reply("Done. " + "; ".join(task["checker"]["answer"]))

    return reply
