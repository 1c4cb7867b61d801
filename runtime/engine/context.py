"""An agent's context window: its size estimated, compacted or refused past the budget.

Size is estimated at four characters a token (messages and tool-call arguments), which is
what an agent can know before the call. Past `max_context_tokens` a run ends with
`budget_exceeded:tokens`, unless the agent compacts (NexAU's ContextCompactionMiddleware):
from `threshold` of the budget on, old tool results are replaced by a note, then whole old
turns are dropped, always keeping the system prompt, the task and the latest turns.
"""

from __future__ import annotations

import json

from a4a.runtime.engine.state import RunStatus, StopRun
from a4a.runtime.ir.nexau import Compaction
from a4a.runtime.ir.spec import AgentSpec
from a4a.runtime.llm.base import Message

CHARS_PER_TOKEN = 4


def estimate(messages: list[Message]) -> int:
    """Tokens of `messages`, estimated."""
    chars = sum(len(m.content) + 16 + sum(len(c.name) + len(json.dumps(c.arguments))
                                          for c in m.tool_calls) for m in messages)
    return chars // CHARS_PER_TOKEN


def fit(agent: AgentSpec, messages: list[Message]) -> tuple[list[Message], int | None]:
    """The messages to send (compacted when needed) and the size before, if compacted.

    Raises:
        StopRun: budget_exceeded:tokens when the context stays over max_context_tokens.
    """
    size = estimate(messages)
    comp = agent.nexau.compaction if agent.nexau else None
    limit = agent.max_context_tokens
    if comp is not None:
        target = int((comp.max_context_tokens or limit) * comp.threshold)
        if size > min(target, limit):
            compacted = compact(messages, comp, min(target, limit))
            if estimate(compacted) <= limit:
                return compacted, size
            size = estimate(compacted)
    if size > limit:
        raise StopRun(RunStatus.BUDGET_TOKENS, f"the context of {agent.name} is about {size} "
                      f"tokens, over its max_context_tokens of {limit}")
    return messages, None


def _turns(messages: list[Message]) -> list[list[Message]]:
    turns: list[list[Message]] = []
    for m in messages:
        if m.role == "assistant" or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


def compact(messages: list[Message], comp: Compaction, target: int) -> list[Message]:
    """Old tool results replaced by notes, then old turns dropped, until under `target`."""
    head, rest = messages[:2], messages[2:]
    turns = _turns(rest)
    keep = max(comp.keep_iterations, 1)
    old, recent = turns[:-keep] if len(turns) > keep else [], turns[-keep:]
    old = [[Message(m.role, f"[tool result compacted: {len(m.content)} characters]",
                    m.tool_calls, m.tool_call_id, m.name) if m.role == "tool" else m
            for m in turn] for turn in old]
    dropped = 0
    while old and estimate([*head, *(m for t in old for m in t),
                            *(m for t in recent for m in t)]) > target:
        old.pop(0)
        dropped += 1
    note = [Message("user", f"[{dropped} earlier turn(s) were compacted away.]")] if dropped \
        else []
    return [*head, *note, *(m for t in old for m in t), *(m for t in recent for m in t)]
