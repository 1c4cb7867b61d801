"""A fake builder model for tests and benches: it accepts the draft, unless told otherwise.

`DraftModel` reads the stage from the signature's instructions and the draft from the
prompt, and answers with the draft as the stage's JSON output, so a build with it equals
the rule-based one. `overrides` replace a stage's answer (raw text, or data to dump) per
call, which is how tests script invalid, hostile, malformed or truncated proposals. It
answers the loopback fake server (`responder`) and the a4a seam (`backend`) alike.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, Usage
from a4a.runtime.llm.fakes import FunctionLLM
from a4a.runtime.llm.fakeserver import Reply

# The first words of each signature's instructions.
MARKERS = {"intent": "Choose the domain packs", "domain": "Write a domain pack",
           "meta": "Choose the workflow pattern", "framework": "Lay out the topology",
           "agents": "Write every agent"}
_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond |\Z)", re.S)
Answer = str | dict[str, Any] | Callable[[dict[str, str]], str | dict[str, Any]]


def stage_of(system: str) -> str:
    """Which builder a prompt is for."""
    return next((s for s, m in MARKERS.items() if m in system), "unknown")


def fields_of(user: str) -> dict[str, str]:
    """The input fields of a DSPy prompt, by name."""
    return {m.group(1): m.group(2) for m in _FIELD.finditer(user)}


@dataclass
class DraftModel:
    """Accepts the draft at every stage; `overrides[stage]` answers (in order) come first."""

    overrides: dict[str, list[Answer]] = field(default_factory=dict)
    intent: dict[str, Any] | None = None  # the intent answer (default: the draft's domains)
    seen: Counter[str] = field(default_factory=Counter)
    prompts: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def answer(self, system: str, user: str) -> str:
        """The reply text to one builder prompt."""
        stage = stage_of(system)
        inputs = fields_of(user)
        self.seen[stage] += 1
        self.prompts.append((stage, inputs))
        queue = self.overrides.get(stage) or []
        out: Any = queue.pop(0) if queue else self.accept(stage, inputs)
        if callable(out):
            out = out(inputs)
        return out if isinstance(out, str) else json.dumps(out)

    def accept(self, stage: str, inputs: dict[str, str]) -> dict[str, Any]:
        """The draft, as the stage's answer."""
        draft = json.loads(inputs.get("draft") or "{}")
        if stage == "intent":
            return {"intent": self.intent or {"domains": draft.get("domains", []),
                                              "new_domain": ""}}
        if stage == "meta":
            return {"patterns": draft}
        if stage == "framework":
            return {"entry": draft["entry"], "edges": draft["edges"]}
        if stage == "agents":
            return {"agents": draft["agents"], "tools": draft["tools"]}
        raise ValueError(f"no default answer for the {stage} stage; script it in overrides")

    def responder(self, body: dict[str, Any]) -> Reply:
        """Answer a chat-completions body (FakeOpenAIServer's `responder`)."""
        msgs = body.get("messages") or []
        system = next((m["content"] for m in msgs if m.get("role") == "system"), "")
        user = next((m["content"] for m in reversed(msgs) if m.get("role") == "user"), "")
        return Reply(self.answer(system, user))

    def backend(self) -> FunctionLLM:
        """The same model as an a4a backend (no HTTP)."""

        def reply(request: LLMRequest) -> LLMResponse:
            system = next((m.content for m in request.messages if m.role == "system"), "")
            user = next((m.content for m in reversed(request.messages) if m.role == "user"),
                        "")
            text = self.answer(system, user)
            return LLMResponse(Message("assistant", text),
                               Usage(len(user.split()), len(text.split())), "stop", "draft")

        return FunctionLLM(reply)
