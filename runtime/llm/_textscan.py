"""Lenient scanners under the text tool-call modes: tagged blocks, JSON, XML values, ReAct.

Model output is raw text, not well-formed XML or JSON, so these scan with `str.find` and
small regexes (an XML parser would choke on a `<` in a value) and tolerate what models do:
a closing tag missing at the very end (generation stopped), code fences and prose around JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

_PARAM_OPEN = re.compile(r"<([A-Za-z_][\w.\-]*)>")
_REACT_MARK = re.compile(
    r"^[ \t]*(thought|action[ \t]+input|action|observation|final[ \t]+answer)[ \t]*:[ \t]*",
    re.I | re.M)
_TYPE_ORDER = ("null", "boolean", "integer", "number", "array", "object", "string")


@dataclass(frozen=True)
class Block:
    """One `<tag>...</tag>` span of a text; `closed` is False when it runs to the end."""

    start: int
    end: int
    inner: str
    closed: bool


def blocks(text: str, tag: str, start: int = 0) -> list[Block]:
    """Every `<tag>...</tag>` from `start` on, not nested; an unclosed last one runs to the end."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    out: list[Block] = []
    pos = start
    while (i := text.find(opening, pos)) != -1:
        body = i + len(opening)
        j = text.find(closing, body)
        if j == -1:
            out.append(Block(i, len(text), text[body:], False))
            break
        out.append(Block(i, j + len(closing), text[body:j], True))
        pos = j + len(closing)
    return out


def outside(text: str, spans: list[Block]) -> str:
    """The text outside the spans (sorted, not overlapping), stripped."""
    pieces, pos = [], 0
    for span in spans:
        pieces.append(text[pos:span.start])
        pos = span.end
    pieces.append(text[pos:])
    return "".join(pieces).strip()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def json_value(text: str) -> tuple[Any, str | None]:
    """The JSON value in `text`, tolerating code fences and prose around it.

    Decoding starts at the first `{` or `[` (or at the start when there is none) and ignores
    what follows the value.

    Returns:
        (value, None), or (None, a short description of the decoding error).
    """
    stripped = text.strip()
    start = min((i for i in (stripped.find("{"), stripped.find("[")) if i != -1), default=0)
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    try:
        return decoder.raw_decode(stripped, start)[0], None
    except json.JSONDecodeError as err:
        return None, f"{err.msg} at line {err.lineno} column {err.colno}"
    except ValueError as err:  # NaN or Infinity, which JSON does not have
        return None, str(err)


def xml_units(text: str) -> tuple[list[Block], list[str]]:
    """The NexAU call blocks of a reply: their outer spans and the body of each call.

    A `<use_parallel_tool_calls>` wrapper yields one body per `<parallel_tool>` (or, from a
    model that mixed the forms, per `<tool_use>`) inside it.
    """
    spans: list[Block] = []
    bodies: list[str] = []
    pos = 0
    while True:
        found = [(i, tag) for tag in ("use_parallel_tool_calls", "tool_use")
                 if (i := text.find(f"<{tag}>", pos)) != -1]
        if not found:
            return spans, bodies
        i, tag = min(found)
        outer = blocks(text, tag, i)[0]
        spans.append(outer)
        if tag == "tool_use":
            bodies.append(outer.inner)
        else:
            inner = blocks(outer.inner, "parallel_tool") or blocks(outer.inner, "tool_use")
            bodies.extend(b.inner for b in inner)
        pos = outer.end


def parameter_body(body: str, after: int) -> str:
    """The inside of a call's `<parameter>` element, or what follows the tool name if absent."""
    opening = body.find("<parameter>", after)
    if opening == -1:
        return body[after:]
    start = opening + len("<parameter>")
    # The last closing tag: a parameter may itself be named "parameter".
    close = body.rfind("</parameter>")
    return body[start:close] if close >= start else body[start:]


def xml_params(inner: str) -> dict[str, str] | str:
    """`<key>value</key>` pairs, values stripped; an error message when one is unclosed."""
    out: dict[str, str] = {}
    pos = 0
    while m := _PARAM_OPEN.search(inner, pos):
        key = m.group(1)
        close = inner.find(f"</{key}>", m.end())
        if close == -1:
            return f"parameter <{key}> is not closed"
        if key in out:
            return f"parameter <{key}> is given twice"
        out[key] = inner[m.end():close].strip()
        pos = close + len(key) + 3
    return out


def _as_type(raw: str, kind: str) -> tuple[bool, Any]:
    if kind == "string":
        return True, raw
    if kind == "boolean":
        low = raw.lower()
        return low in ("true", "false"), low == "true"
    try:
        value = _loads(raw)
    except ValueError:
        return False, None
    ok = {"null": value is None,
          "integer": isinstance(value, int) and not isinstance(value, bool),
          "number": isinstance(value, int | float) and not isinstance(value, bool),
          "array": isinstance(value, list),
          "object": isinstance(value, dict)}.get(kind, False)
    return ok, value


def coerce(raw: str, schema: Mapping[str, Any]) -> tuple[Any, str | None]:
    """An XML text value converted to its JSON Schema type.

    Returns:
        (value, None); the text itself when the schema names no type; (raw, error) when the
        text is not of the type.
    """
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else [k for k in kind or [] if isinstance(k, str)]
    if not kinds:
        return raw, None
    # Most specific first, so that "5" under ["integer", "string"] becomes 5.
    for k in sorted(kinds, key=lambda k: _TYPE_ORDER.index(k) if k in _TYPE_ORDER else 99):
        ok, value = _as_type(raw, k)
        if ok:
            return value, None
    return raw, f"must be {' or '.join(kinds)}"


@dataclass(frozen=True)
class ReactStep:
    """One piece of a ReAct reply.

    An `action` (value: the tool name, given: its input text), a `final` answer, or an
    `orphan` Action Input that follows no Action.
    """

    kind: Literal["action", "final", "orphan"]
    value: str
    given: str | None = None


def _react_marks(text: str) -> list[tuple[str, int, int]]:
    """(kind, start of the marker, start of its value) for each ReAct marker line."""
    return [(" ".join(m.group(1).lower().split()), m.start(), m.end())
            for m in _REACT_MARK.finditer(text)]


def react_steps(text: str) -> tuple[list[ReactStep], str]:
    """The actions and final answer of a ReAct reply, and the thought before them.

    Text from the first `Observation:` on is dropped: the model invented it (observations come
    from the tools).
    """
    marks = _react_marks(text)
    cut = next((s for k, s, _ in marks if k == "observation"), len(text))
    marks = [m for m in marks if m[1] < cut]
    values = [text[v:(marks[i + 1][1] if i + 1 < len(marks) else cut)].strip()
              for i, (_, _, v) in enumerate(marks)]
    first = next((s for k, s, _ in marks if k in ("action", "action input", "final answer")),
                 cut)
    steps: list[ReactStep] = []
    for i, (kind, _, _) in enumerate(marks):
        if kind == "final answer":
            steps.append(ReactStep("final", values[i]))
        elif kind == "action":
            name = values[i].split("\n", 1)[0].strip().strip("`'\" ")
            has_input = i + 1 < len(marks) and marks[i + 1][0] == "action input"
            steps.append(ReactStep("action", name, values[i + 1] if has_input else None))
        elif kind == "action input" and (i == 0 or marks[i - 1][0] != "action"):
            steps.append(ReactStep("orphan", values[i]))
    return steps, text[:first].strip()
