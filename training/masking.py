"""Loss masking in one pass: render the chat once, tokenize once, map trainable spans to tokens.

The chat template renders every message with a placeholder for its content; the real contents
go in while their character spans are recorded. An assistant turn's span runs from its content
through the end-of-turn token that closes it (so the model learns to stop); role headers and
system, user and tool text stay masked (-100). Tokens straddling a span edge are trained and
counted. Labels are built before truncation. The tokenizer is any Hugging Face fast tokenizer
(it needs `return_offsets_mapping`); torch is not needed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training.data import Message
from a4a.training.formats import (
    format_function_calling,
    format_multi_agent,
    format_react,
    format_trajectory,
    require_trainable,
    to_chat,
)

__all__ = ["CHATML_GENERATION_TEMPLATE", "Rendered", "Stats", "format_function_calling",
           "format_multi_agent", "format_react", "format_trajectory", "render_with_spans",
           "token_labels", "tokenize_agent_dataset"]

IGNORE = -100

# ChatML with {% generation %} markers around what is trained, for
# apply_chat_template(..., return_assistant_tokens_mask=True).
CHATML_GENERATION_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\n"
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}"
    "{% if message['role'] == 'assistant' %}{{ '<|im_start|>assistant\n' }}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n' }}{% endif %}{% endfor %}")

_MARK = "\x00{}\x00"
_MARK_RE = re.compile("\x00(\\d+)\x00")


@dataclass(frozen=True)
class Rendered:
    """A chat rendered to text, with the character spans to train on (sorted, disjoint)."""

    text: str
    spans: tuple[tuple[int, int], ...]


@dataclass
class Stats:
    """Counts from one tokenize pass."""

    examples: int = 0
    tokens: int = 0
    trainable: int = 0
    straddlers: int = 0
    truncated: int = 0
    dropped_after_truncation: int = 0
    per_example: list[int] = field(default_factory=list)


def _end_of_turn(tokenizer: Any, eot: str | None) -> str:
    token = eot or getattr(tokenizer, "eos_token", None)
    if not token:
        raise UserError("masking.eot", "the tokenizer names no end-of-turn token",
                        "Pass eot=... (for ChatML: '<|im_end|>').")
    return str(token)


def render_with_spans(chat: Sequence[dict[str, Any]], tokenizer: Any,
                      eot: str | None = None) -> Rendered:
    """Render `chat` with the tokenizer's chat template, recording trainable spans.

    Args:
        chat: Messages with role and text content (see formats.to_chat).
        tokenizer: A Hugging Face tokenizer with a chat template.
        eot: The end-of-turn string; the tokenizer's eos_token by default.

    Raises:
        UserError: `masking.template` when the template drops a message's content or an
            assistant turn is not closed by the end-of-turn token.
    """
    end = _end_of_turn(tokenizer, eot)
    _check_verbatim(tokenizer)
    marked = [{**m, "content": _MARK.format(i)} for i, m in enumerate(chat)]
    template = tokenizer.apply_chat_template(marked, tokenize=False)
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos, last, seen = 0, 0, 0
    for m in _MARK_RE.finditer(template):
        i = int(m.group(1))
        parts.append(template[last:m.start()])
        pos += m.start() - last
        content = chat[i].get("content") or ""
        parts.append(content)
        if chat[i]["role"] == "assistant":
            spans.append((pos, pos + len(content)))
        pos += len(content)
        last, seen = m.end(), seen + 1
    parts.append(template[last:])
    text = "".join(parts)
    if seen != len(chat):
        raise UserError("masking.template", "the chat template dropped a message's content",
                        "Use a template that writes every message's content verbatim.")
    return Rendered(text, tuple(_close(text, s, e, end) for s, e in spans))


_VERBATIM: dict[str, bool] = {}  # chat template -> writes contents verbatim
_PROBE = [{"role": "system", "content": " s \n"}, {"role": "user", "content": "\n u "},
          {"role": "assistant", "content": " a\n\n"}]


def _check_verbatim(tokenizer: Any) -> None:
    """Raise unless the template writes contents untouched (no trim): checked once per template.

    Raises:
        UserError: `masking.template`.
    """
    key = str(getattr(tokenizer, "chat_template", "") or "")
    if key not in _VERBATIM:
        real = tokenizer.apply_chat_template(_PROBE, tokenize=False)
        marked = [{**m, "content": _MARK.format(i)} for i, m in enumerate(_PROBE)]
        text = tokenizer.apply_chat_template(marked, tokenize=False)
        filled = _MARK_RE.sub(lambda m: _PROBE[int(m.group(1))]["content"], text)
        _VERBATIM[key] = filled == real
    if not _VERBATIM[key]:
        raise UserError("masking.template", "the chat template changes message contents "
                        "(it trims or escapes them), so spans cannot be placed",
                        "Use a template that writes contents verbatim.")


def _close(text: str, start: int, stop: int, eot: str) -> tuple[int, int]:
    at = text.find(eot, stop)
    if at < 0:
        raise UserError("masking.template", f"an assistant turn is not closed by {eot!r}",
                        "Pass the template's end-of-turn string as eot=...")
    return start, at + len(eot)


def _check_calls_rendered(messages: Sequence[Message], r: Rendered) -> None:
    trained = "".join(r.text[s:e] for s, e in r.spans)
    for m in messages:
        for c in m.get("tool_calls") or []:
            if c["name"] not in trained:
                raise UserError("masking.template", "the chat template does not write the "
                                "structured tool calls", "Use a text style (hermes, ...) or a "
                                "template that renders tool_calls.", tool=c["name"])


def token_labels(ids: Sequence[int], offsets: Sequence[tuple[int, int]],
                 spans: Sequence[tuple[int, int]]) -> tuple[list[int], int]:
    """Labels (id where a token overlaps a trainable span, else -100) and the straddler count.

    Tokens and spans are both in text order, so one merge-like walk suffices.
    """
    labels = [IGNORE] * len(ids)
    straddlers, j = 0, 0
    for k, (s, e) in enumerate(offsets):
        while j < len(spans) and spans[j][1] <= s:
            j += 1
        if j == len(spans):
            break
        lo, hi = spans[j]
        if (s < hi and e > lo) or (s == e and lo <= s < hi):
            labels[k] = ids[k]
            straddlers += s < lo or e > hi
    return labels, straddlers


def _example(ids: list[int], offsets: list[tuple[int, int]], spans: tuple[tuple[int, int], ...],
             max_len: int, stats: Stats) -> dict[str, list[int]] | None:
    labels, straddlers = token_labels(ids, offsets, spans)
    if all(x == IGNORE for x in labels):
        raise UserError("masking.all_masked", "an example has no trainable token",
                        "Check that its assistant turns are not empty.")
    stats.straddlers += straddlers
    if len(ids) > max_len:  # labels first, then truncate (keep the start)
        stats.truncated += 1
        ids, labels = ids[:max_len], labels[:max_len]
        if all(x == IGNORE for x in labels):
            stats.dropped_after_truncation += 1
            return None
    n_train = sum(x != IGNORE for x in labels)
    stats.examples += 1
    stats.tokens += len(ids)
    stats.trainable += n_train
    stats.per_example.append(n_train)
    return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": labels}


def tokenize_agent_dataset(samples: Sequence[list[Message]], tokenizer: Any,
                           max_seq_length: int = 2048, style: str = "hermes", *,
                           eot: str | None = None, stats: Stats | None = None
                           ) -> list[dict[str, list[int]]]:
    """Tokenize neutral conversations (from the format_* functions) with loss masks.

    Args:
        samples: One list of neutral messages per example.
        tokenizer: A Hugging Face fast tokenizer with a chat template.
        max_seq_length: Examples are cut to this many tokens after labelling; one left with
            no trainable token is dropped (and counted in `stats`).
        style: The tool-call style to write calls and results in (styles.STYLES).
        eot: The end-of-turn string; the tokenizer's eos_token by default.
        stats: Filled with token, trainable, straddler and truncation counts.

    Returns:
        One dict per kept example: input_ids, attention_mask, labels (-100 where masked).

    Raises:
        UserError: `style.unknown`, `sample.untrainable`, `masking.template`,
            `masking.all_masked`.
    """
    stats = stats if stats is not None else Stats()
    rendered = []
    for messages in samples:
        require_trainable(messages)
        r = render_with_spans(to_chat(messages, style), tokenizer, eot)
        if style == "openai":
            _check_calls_rendered(messages, r)
        rendered.append(r)
    out = []
    for r, (ids, offsets) in zip(rendered, _encode(tokenizer, [r.text for r in rendered]),
                                 strict=True):
        ex = _example(ids, offsets, r.spans, max_seq_length, stats)
        if ex is not None:
            out.append(ex)
    return out


def _encode(tokenizer: Any, texts: list[str]) -> list[tuple[list[int], list[tuple[int, int]]]]:
    """Ids and character offsets per text, without special tokens added (the template has them)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:  # the Rust tokenizer itself: skips per-call Python conversions
        return [(e.ids, e.offsets) for e in backend.encode_batch(texts, add_special_tokens=False)]
    enc = tokenizer(texts, return_offsets_mapping=True, add_special_tokens=False)
    return [(list(ids), [tuple(o) for o in offs])
            for ids, offs in zip(enc["input_ids"], enc["offset_mapping"], strict=True)]
