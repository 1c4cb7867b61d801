"""Tool calls written as text, for models without structured tool calling.

Three modes: `hermes` (JSON in <tool_call> blocks), `xml` (NexAU <tool_use> blocks) and
`react` (Thought / Action / Action Input / Final Answer). Each mode describes the tools for the
system prompt, parses a reply into content, calls and errors, and renders calls and results
back to text so a text-mode transcript can be rebuilt. Parsing never raises on model output:
each malformed piece becomes a message in `errors` for the agent loop to show the model.

A call is only returned once it was read in full; a call with unreadable arguments is left out
and described in `errors` instead, so every returned call can be validated and run as is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.llm import _textprompts
from a4a.runtime.llm import _textscan as scan
from a4a.runtime.llm.base import ToolCall, ToolSchema

MODES = ("hermes", "xml", "react")
Schemas = Mapping[str, Mapping[str, Any]]  # tool name -> the JSON Schema of its parameters


@dataclass(frozen=True)
class Parsed:
    """A model reply read in one text mode.

    Attributes:
        content: The text apart from the calls (for `react`: the thought before them).
        calls: The calls read in full, in the order written, with ids `<prefix>0`, `<prefix>1`...
        errors: One message per malformed piece, written to be shown to the model.
        final: The `react` Final Answer when the reply gives one and calls no tool.
    """

    content: str
    calls: tuple[ToolCall, ...] = ()
    errors: tuple[str, ...] = ()
    final: str | None = None


def _check(mode: str) -> None:
    if mode not in MODES:
        raise UserError("textmode.unknown", f"unknown text tool-call mode {mode!r}",
                        f"Use one of {', '.join(MODES)}; `openai` is structured and needs no "
                        "text rendering.", mode=mode)


def schemas_of(tools: Sequence[ToolSchema]) -> dict[str, Mapping[str, Any]]:
    """The `schemas` mapping that `parse` takes, from the tools offered to the model."""
    return {t.name: t.parameters for t in tools}


# ---- hermes -------------------------------------------------------------------------------

_HERMES_HINT = ('Write each call as <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call> '
                "with valid JSON.")


def _hermes_call(item: Any) -> tuple[str, dict[str, Any]] | str:
    if not isinstance(item, dict):
        return "expected a JSON object with `name` and `arguments`"
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        return "the call has no `name`"
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):  # some models double-encode arguments, as the OpenAI wire does
        args, err = scan.json_value(args)
        if err:
            return f"the arguments of {name!r} are not valid JSON ({err})"
    if not isinstance(args, dict):
        return f"the arguments of {name!r} must be a JSON object"
    return name.strip(), args


def _parse_hermes(text: str, id_prefix: str) -> Parsed:
    blocks = scan.blocks(text, "tool_call")
    calls: list[ToolCall] = []
    errors: list[str] = []
    for n, block in enumerate(blocks, 1):
        value, err = scan.json_value(block.inner)
        if err:
            errors.append(f"tool call {n}: not valid JSON ({err}). {_HERMES_HINT}")
            continue
        for item in value if isinstance(value, list) else [value]:
            read = _hermes_call(item)
            if isinstance(read, str):
                errors.append(f"tool call {n}: {read}. {_HERMES_HINT}")
            else:
                calls.append(ToolCall(f"{id_prefix}{len(calls)}", *read))
    return Parsed(scan.outside(text, blocks), tuple(calls), tuple(errors))


def _json_in_tags(value: Any) -> str:
    # "<\/" is JSON for "</": a value holding "</tool_call>" cannot end the block early.
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def _render_hermes(calls: Sequence[ToolCall]) -> str:
    return "\n".join(
        "<tool_call>\n" + _json_in_tags({"name": c.name, "arguments": c.arguments})
        + "\n</tool_call>" for c in calls)


# ---- xml (NexAU) --------------------------------------------------------------------------

_XML_HINT = ("Write <tool_use><tool_name>TOOL</tool_name><parameter><ARG>value</ARG>"
             "</parameter></tool_use>.")


def _xml_call(body: str, schemas: Schemas | None) -> tuple[str, dict[str, Any]] | str:
    names = scan.blocks(body, "tool_name")
    if not names or not names[0].inner.strip():
        return "the block has no <tool_name>"
    name = names[0].inner.strip()
    params = scan.xml_params(scan.parameter_body(body, names[0].end))
    if isinstance(params, str):
        return f"{name}: {params}"
    schema = (schemas or {}).get(name)
    if schema is None:  # no schema: XML values stay text, as NexAU leaves them
        return name, params
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for key, raw in params.items():
        value, err = scan.coerce(raw, props.get(key) or {})
        if err:
            return f"{name}: parameter <{key}> {err}, got {raw!r}"
        out[key] = value
    return name, out


def _parse_xml(text: str, schemas: Schemas | None, id_prefix: str) -> Parsed:
    spans, bodies = scan.xml_units(text)
    calls: list[ToolCall] = []
    errors: list[str] = []
    for n, body in enumerate(bodies, 1):
        read = _xml_call(body, schemas)
        if isinstance(read, str):
            errors.append(f"tool call {n}: {read}. {_XML_HINT}")
        else:
            calls.append(ToolCall(f"{id_prefix}{len(calls)}", *read))
    return Parsed(scan.outside(text, spans), tuple(calls), tuple(errors))


def _xml_value(value: Any) -> str:
    return value if isinstance(value, str) else _json_in_tags(value)


def _xml_body(call: ToolCall) -> str:
    params = "".join(f"<{k}>{_xml_value(v)}</{k}>\n" for k, v in call.arguments.items())
    return f"<tool_name>{call.name}</tool_name>\n<parameter>\n{params}</parameter>\n"


def _render_xml(calls: Sequence[ToolCall]) -> str:
    if len(calls) == 1:
        return f"<tool_use>\n{_xml_body(calls[0])}</tool_use>"
    inner = "".join(f"<parallel_tool>\n{_xml_body(c)}</parallel_tool>\n" for c in calls)
    return f"<use_parallel_tool_calls>\n{inner}</use_parallel_tool_calls>"


# ---- react --------------------------------------------------------------------------------

_REACT_HINT = 'Write "Action: TOOL" and, on the next line, "Action Input: {...JSON object...}".'


def _react_input(raw: str | None, name: str) -> dict[str, Any] | str:
    if raw is None or not raw.strip():  # a tool without arguments needs no input line
        return {}
    value, err = scan.json_value(raw)
    if err:
        return f"the Action Input of {name!r} is not valid JSON ({err})"
    if not isinstance(value, dict):
        return f"the Action Input of {name!r} must be a JSON object"
    return value


def _parse_react(text: str, id_prefix: str) -> Parsed:
    steps, content = scan.react_steps(text)
    calls: list[ToolCall] = []
    errors: list[str] = []
    final: str | None = None
    for step in steps:
        if step.kind == "final":
            final = step.value
        elif step.kind == "orphan":
            errors.append(f"an Action Input follows no Action. {_REACT_HINT}")
        elif not step.value:
            errors.append(f"an Action names no tool. {_REACT_HINT}")
        elif isinstance(read := _react_input(step.given, step.value), str):
            errors.append(f"action {step.value!r}: {read}. {_REACT_HINT}")
        else:
            calls.append(ToolCall(f"{id_prefix}{len(calls)}", step.value, read))
    if calls and final is not None:
        errors.append("write either Actions or a Final Answer, not both; the Final Answer was "
                      "ignored.")
        final = None
    return Parsed(content, tuple(calls), tuple(errors), final)


def _render_react(calls: Sequence[ToolCall]) -> str:
    return "\n".join(f"Action: {c.name}\nAction Input: "
                     f"{json.dumps(c.arguments, ensure_ascii=False)}" for c in calls)


# ---- public API ---------------------------------------------------------------------------


def parse(text: str, mode: str, schemas: Schemas | None = None, *,
          id_prefix: str = "call_") -> Parsed:
    """Read the tool calls in a model reply.

    Args:
        text: The reply, possibly cut off before a closing tag.
        mode: One of MODES.
        schemas: Tool name -> JSON Schema of its parameters. In `xml` mode string values are
            converted to the schema's types (JSON modes carry types already).
        id_prefix: Call ids are this prefix plus the call's index in the reply.

    Returns:
        The content, the calls read in full and one error message per malformed piece.

    Raises:
        UserError: `textmode.unknown` for a mode that is not a text mode.
    """
    _check(mode)
    if mode == "hermes":
        return _parse_hermes(text, id_prefix)
    if mode == "xml":
        return _parse_xml(text, schemas, id_prefix)
    return _parse_react(text, id_prefix)


def render_calls(calls: Sequence[ToolCall], mode: str) -> str:
    """The text a model writes to make these calls (several at once where allowed).

    In `xml` mode string values are written as they are: a string with surrounding
    whitespace, or holding a closing tag of the grammar or of its own parameter, does not
    read back unchanged (the grammar has no escaping). Other values are written as JSON.

    Raises:
        UserError: `textmode.unknown` for a mode that is not a text mode.
    """
    _check(mode)
    if not calls:
        return ""
    if mode == "hermes":
        return _render_hermes(calls)
    if mode == "xml":
        return _render_xml(calls)
    return _render_react(calls)


def render_call(call: ToolCall, mode: str) -> str:
    """The text a model writes to make one call; see `render_calls`."""
    return render_calls((call,), mode)


def render_result(name: str, result: Any, mode: str, *, is_error: bool = False) -> str:
    """A tool's result as the model reads it (a user/observation turn in text modes).

    Args:
        name: The tool that ran.
        result: Its result; anything but a string is written as JSON.
        mode: One of MODES.
        is_error: The result is an error message (NexAU writes <error> instead of <result>).

    Raises:
        UserError: `textmode.unknown` for a mode that is not a text mode.
    """
    _check(mode)
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    if mode == "hermes":
        return f"<tool_response>\n{text}\n</tool_response>"
    if mode == "xml":
        tag = "error" if is_error else "result"
        return (f"<tool_result>\n<tool_name>{name}</tool_name>\n<{tag}>{text}</{tag}>\n"
                "</tool_result>")
    return f"Observation: {'Error: ' if is_error else ''}{text}"


def render_tools(tools: Sequence[ToolSchema], mode: str) -> str:
    """Instructions and the tool list, to append to the system prompt.

    Raises:
        UserError: `textmode.unknown` for a mode that is not a text mode.
    """
    _check(mode)
    return _textprompts.instructions(tuple(tools), mode)
