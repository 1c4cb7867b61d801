"""Agent rewards with TRL's reward-function signature: `fn(completions, **kwargs) -> list[float]`.

`completions` are strings or chat message lists (the last message's content is read). Per-example
columns arrive as keyword lists aligned with the completions; a scalar (not a list) applies to
every example. Columns read here:

- `task`: a task dict (plan and checker, as `a4a tasks` writes them): verifiable scoring;
- `record` or `trajectory`: the run record of the completion (its events and world diff);
  without one, the completion's text stands for the run: its tool calls are parsed from the
  text (`tool_call_mode`, default `hermes`: <tool_call> tags) and it is the final answer;
- `expected_tools`, `success_markers`, `max_steps`: references where no task exists;
- `parser`: a callable `text -> list[ParsedToolCall]` that reads the calls of a completion in
  a format of its own (instead of `tool_call_mode`).

The seed's per-sample form, `tool_use_quality_reward(prompt, response, **columns) -> float`
(and `task_completion_reward`, `efficiency_reward`, `agent_composite_reward`), wraps these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.llm import textmodes
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.world.rewards import score, tool_accuracy, tool_calls
from a4a.training.evaluate import as_dict, reply_validity

RewardFn = Callable[..., list[float]]


@dataclass(frozen=True)
class ParsedToolCall:
    """One tool call read out of a completion by a custom `parser`."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

DEFAULT_WEIGHTS = {"quality": 0.4, "completion": 0.4, "efficiency": 0.2}


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the last message's content of a chat."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        return str(completion[-1].get("content") or "")
    return ""


def _column(kwargs: Mapping[str, Any], name: str, i: int, default: Any = None) -> Any:
    value = kwargs.get(name)
    if isinstance(value, list | tuple) and name not in ("expected_tools", "success_markers"):
        return value[i] if i < len(value) else default
    if isinstance(value, list | tuple) and value and isinstance(value[0], list | tuple):
        return value[i]  # a per-example column of name lists
    return default if value is None else value


def _parsed(text: str, kwargs: Mapping[str, Any], i: int) -> textmodes.Parsed:
    parser = kwargs.get("parser")
    if parser is not None:
        return textmodes.Parsed(text, tuple(_custom_calls(parser, text)), ())
    return textmodes.parse(text, _column(kwargs, "tool_call_mode", i, "hermes"))


def _custom_calls(parser: Callable[[str], Any], text: str) -> list[ToolCall]:
    """The calls a custom parser reads, as the runtime's calls.

    Raises:
        UserError: `reward.parser` when the parser returns something other than calls.
    """
    from a4a.runtime.errors import UserError

    out = []
    for n, c in enumerate(parser(text) or []):
        name, args = getattr(c, "name", None), getattr(c, "arguments", None)
        if not isinstance(name, str) or not isinstance(args, Mapping):
            raise UserError("reward.parser", f"the parser's item {n} is {c!r}, not a call",
                            "Return a list of ParsedToolCall(name=..., arguments={...}).")
        out.append(ToolCall(f"call_{n}", name, dict(args)))
    return out


def _record(completion: Any, kwargs: Mapping[str, Any], i: int) -> dict[str, Any]:
    """The run behind a completion: the given record, else one read from the text."""
    given = _column(kwargs, "record", i) or _column(kwargs, "trajectory", i)
    if given is not None:
        return as_dict(given)
    text = completion_text(completion)
    parsed = _parsed(text, kwargs, i)
    events = [{"type": "tool_call", "name": c.name, "arguments": c.arguments, "ok": True}
              for c in parsed.calls]
    return {"events": events, "world_diff": [], "final_answer": text}


def format_ok(completion: Any, **kwargs: Any) -> bool:
    """Whether every tool call of a completion could be read (text and recorded replies)."""
    i = int(kwargs.pop("_index", 0))
    if _parsed(completion_text(completion), kwargs, i).errors:
        return False
    given = _column(kwargs, "record", i) or _column(kwargs, "trajectory", i)
    return given is None or all(reply_validity(as_dict(given)))


def _names(record: Mapping[str, Any]) -> list[str]:
    return [c["name"] for c in tool_calls(dict(record))]


def tool_use_quality(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Right tools with right arguments: AST match against the task's gold plan.

    Without a task, the share of `expected_tools` that were called; without either, 1 for a
    completion that makes at least one readable call and 0 otherwise.
    """
    out = []
    for i, completion in enumerate(completions):
        record, task = _record(completion, kwargs, i), _column(kwargs, "task", i)
        expected = _column(kwargs, "expected_tools", i)
        if task is not None:
            out.append(tool_accuracy(task["plan"], tool_calls(record)))
        elif expected:
            called = set(_names(record))
            out.append(sum(1 for t in expected if t in called) / len(expected))
        else:
            out.append(1.0 if _names(record) and format_ok(completion, _index=i, **kwargs)
                       else 0.0)
    return out


def task_completion(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Did the agent finish the task: the checker's state and answer rewards, averaged.

    Without a task: 1 when the final answer holds one of `success_markers`; without markers, 1
    for a completed run (or a non-empty completion) and 0 otherwise.
    """
    out = []
    for i, completion in enumerate(completions):
        record, task = _record(completion, kwargs, i), _column(kwargs, "task", i)
        markers = _column(kwargs, "success_markers", i)
        answer = str(record.get("final_answer") or "")
        if task is not None:
            s = score(dict(task), record)
            out.append(round((s["state"] + s["answer"]) / 2, 6))
        elif markers:
            out.append(1.0 if any(m.lower() in answer.lower() for m in markers) else 0.0)
        else:
            done = record.get("status", "completed") == "completed" and answer.strip()
            out.append(1.0 if done else 0.0)
    return out


def efficiency(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Fewer calls score higher: min/max of the call count and the gold plan's length.

    Without a task the reference length is that of `expected_tools`; without either, calls up
    to `max_steps` (default 5) lose score linearly: 1 - (calls - 1) / max_steps, floored at 0.
    A given `max_steps` also caps the reference forms: more calls than it scores 0.
    """
    out = []
    for i, completion in enumerate(completions):
        n = len(_names(_record(completion, kwargs, i)))
        task, expected = _column(kwargs, "task", i), _column(kwargs, "expected_tools", i)
        gold = len(task["plan"]) if task is not None else len(expected or [])
        given = _column(kwargs, "max_steps", i)
        budget = max(1, int(given if given is not None else 5))
        if given is not None and n > budget:
            out.append(0.0)
        elif task is not None or expected:
            out.append(min(gold, n) / max(gold, n) if gold or n else 1.0)
        else:
            out.append(max(0.0, 1.0 - max(0, n - 1) / budget))
    return out


def agent_composite(weights: Mapping[str, float] | None = None, **defaults: Any) -> RewardFn:
    """A reward fn: the weighted sum of quality, completion and efficiency, 0 on bad format.

    Args:
        weights: `quality`, `completion`, `efficiency` (default 0.4, 0.4, 0.2).
        **defaults: Columns applied where the call does not pass them (for example
            `expected_tools`, `success_markers`, `max_steps`, `tool_call_mode`).
    """
    w = {**DEFAULT_WEIGHTS, **(weights or {})}

    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
        cols = {**defaults, **kwargs}
        parts = zip(tool_use_quality(completions, **cols), task_completion(completions, **cols),
                    efficiency(completions, **cols), strict=True)
        return [round(w["quality"] * q + w["completion"] * c + w["efficiency"] * e, 6)
                if format_ok(comp, _index=i, **cols) else 0.0
                for i, (comp, (q, c, e)) in enumerate(zip(completions, parts, strict=True))]

    reward.__name__ = "agent_composite"
    return reward


def _per_sample(fn: Callable[..., list[float]]) -> Callable[..., float]:
    def one(prompt: Any, response: Any, **columns: Any) -> float:
        return fn([response], prompts=[prompt], **columns)[0]

    one.__name__ = f"{fn.__name__}_reward"
    one.__doc__ = f"`{fn.__name__}` of one (prompt, response) pair, as a float."
    return one


tool_use_quality_reward = _per_sample(tool_use_quality)
task_completion_reward = _per_sample(task_completion)
efficiency_reward = _per_sample(efficiency)


def agent_composite_reward(prompt: Any, response: Any, **columns: Any) -> float:
    """`agent_composite` of one (prompt, response) pair; `weights` picks the mix."""
    return agent_composite(columns.pop("weights", None))([response], prompts=[prompt],
                                                          **columns)[0]


REWARDS: dict[str, Callable[..., Any]] = {
    "tool_use_quality": tool_use_quality, "task_completion": task_completion,
    "efficiency": efficiency, "agent_composite": agent_composite,
}
