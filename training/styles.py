"""The seven tool-call styles: render calls and results as a model writes them, parse them back.

openai (structured `tool_calls` and role=tool), nexau (<tool_use> XML), hermes (<tool_call> JSON),
qwen_xml (<function=N><parameter=k>), minimax (<invoke name=N>), glm (<arg_key>/<arg_value>) and
deepseek (special tokens). A sample uses one style for both its calls and its results.
In the XML styles a string is written as is when it reads back unchanged; every other value
(numbers, lists, objects, and strings that look like JSON or hold markup) is written as JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.errors import UserError

STYLES = ("openai", "nexau", "hermes", "qwen_xml", "minimax", "glm", "deepseek")


@dataclass(frozen=True)
class Call:
    """One tool call, style-neutral: a name and typed arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def check_style(style: str) -> None:
    """Raise UserError `style.unknown` unless `style` is one of STYLES."""
    if style not in STYLES:
        raise UserError("style.unknown", f"unknown tool-call style {style!r}",
                        f"Use one of {', '.join(STYLES)}.", style=style)


# ---- values -------------------------------------------------------------------------------


def _json(value: Any) -> str:
    # "<\/" is JSON for "</": a value cannot close the block it sits in.
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def _reads_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def encode_value(value: Any) -> str:
    """A value as text in the XML styles: plain strings as is, anything else as JSON."""
    if (isinstance(value, str) and value and value == value.strip() and "<" not in value
            and "\n" not in value and not _reads_as_json(value)):
        return value
    return _json(value)


def decode_value(text: str) -> Any:
    """The inverse of `encode_value`."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _result_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


# ---- renderers ----------------------------------------------------------------------------


def _hermes(c: Call) -> str:
    return "<tool_call>\n" + _json({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"


def _nexau_body(c: Call) -> str:
    params = "".join(f"<{k}>{encode_value(v)}</{k}>\n" for k, v in c.arguments.items())
    return f"<tool_name>{c.name}</tool_name>\n<parameter>\n{params}</parameter>\n"


def _qwen(c: Call) -> str:
    params = "".join(f"<parameter={k}>\n{encode_value(v)}\n</parameter>\n"
                     for k, v in c.arguments.items())
    return f"<tool_call>\n<function={c.name}>\n{params}</function>\n</tool_call>"


def _minimax(c: Call) -> str:
    params = "".join(f"<parameter name={k}>{encode_value(v)}</parameter>\n"
                     for k, v in c.arguments.items())
    return f"<invoke name={c.name}>\n{params}</invoke>"


def _glm(c: Call) -> str:
    params = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{encode_value(v)}</arg_value>\n"
                     for k, v in c.arguments.items())
    return f"<tool_call>{c.name}\n{params}</tool_call>"


DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
DS_OUT, DS_OUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"


def _deepseek(c: Call) -> str:
    return (f"{DS_CALL}function{DS_SEP}{c.name}\n```json\n"
            f"{json.dumps(c.arguments, ensure_ascii=False)}\n```{DS_CALL_END}")


def _render_nexau(calls: Sequence[Call]) -> str:
    if len(calls) == 1:
        return f"<tool_use>\n{_nexau_body(calls[0])}</tool_use>"
    inner = "".join(f"<parallel_tool>\n{_nexau_body(c)}</parallel_tool>\n" for c in calls)
    return f"<use_parallel_tool_calls>\n{inner}</use_parallel_tool_calls>"


_PER_CALL: dict[str, Callable[[Call], str]] = {
    "hermes": _hermes, "qwen_xml": _qwen, "minimax": _minimax, "glm": _glm}


def render_calls(calls: Sequence[Call], style: str) -> str:
    """The text a model writes to make `calls` in a text style ("" for none).

    Raises:
        UserError: `style.unknown`; `style.structured` for openai, whose calls are not text
            (use `openai_tool_calls`).
    """
    check_style(style)
    if style == "openai":
        raise UserError("style.structured", "openai tool calls are structured, not text",
                        "Use openai_tool_calls for the openai style.")
    if not calls:
        return ""
    if style == "nexau":
        return _render_nexau(calls)
    if style == "deepseek":
        return DS_BEGIN + "".join(_deepseek(c) for c in calls) + DS_END
    return "\n".join(_PER_CALL[style](c) for c in calls)


def render_result(name: str, result: Any, style: str, *, is_error: bool = False) -> str:
    """A tool result as the model reads it, in the grammar of `style` (openai: plain text).

    Raises:
        UserError: `style.unknown`.
    """
    check_style(style)
    text = _result_text(result)
    if style == "nexau":
        tag = "error" if is_error else "result"
        return (f"<tool_result>\n<tool_name>{name}</tool_name>\n<{tag}>{text}</{tag}>\n"
                "</tool_result>")
    if style in ("hermes", "qwen_xml", "glm"):
        return f"<tool_response>\n{text}\n</tool_response>"
    if style == "minimax":
        return f"<response>\n{text}\n</response>"
    if style == "deepseek":
        return f"{DS_OUT}{text}{DS_OUT_END}"
    return text


def openai_tool_calls(calls: Sequence[Call], ids: Sequence[str] | None = None
                      ) -> list[dict[str, Any]]:
    """OpenAI wire tool calls: arguments as a JSON string."""
    ids = list(ids) if ids is not None else [f"call_{i}" for i in range(len(calls))]
    return [{"id": i, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments,
                                                                  ensure_ascii=False)}}
            for i, c in zip(ids, calls, strict=True)]


# ---- parsers ------------------------------------------------------------------------------

_HERMES = re.compile(r"<tool_call>\n?(\{.*?\})\n?</tool_call>", re.S)
_NEXAU = re.compile(r"<tool_name>(.*?)</tool_name>\n?<parameter>\n?(.*?)</parameter>", re.S)
_NEXAU_PARAM = re.compile(r"<([^\s<>/]+)>(.*?)</\1>\n?", re.S)
_QWEN = re.compile(r"<function=([^>\n]+)>\n?(.*?)</function>", re.S)
_QWEN_PARAM = re.compile(r"<parameter=([^>\n]+)>\n?(.*?)\n?</parameter>", re.S)
_MINIMAX = re.compile(r"<invoke name=([^>\n]+)>\n?(.*?)</invoke>", re.S)
_MINIMAX_PARAM = re.compile(r"<parameter name=([^>\n]+)>(.*?)</parameter>", re.S)
_GLM = re.compile(r"<tool_call>([^\n<]+)\n?(.*?)</tool_call>", re.S)
_GLM_PARAM = re.compile(r"<arg_key>(.*?)</arg_key>\n?<arg_value>(.*?)</arg_value>", re.S)
_DEEPSEEK = re.compile(re.escape(DS_CALL) + r"function" + re.escape(DS_SEP)
                       + r"(.*?)\n```json\n(.*?)\n```" + re.escape(DS_CALL_END), re.S)


def _xml_calls(text: str, outer: re.Pattern[str], param: re.Pattern[str]) -> list[Call]:
    return [Call(m.group(1).strip(), {k: decode_value(v) for k, v in param.findall(m.group(2))})
            for m in outer.finditer(text)]


def _json_calls(text: str, style: str) -> list[Call]:
    if style == "hermes":
        items = [json.loads(m) for m in _HERMES.findall(text)]
        return [Call(i["name"], i.get("arguments", {})) for i in items]
    return [Call(n.strip(), json.loads(a)) for n, a in _DEEPSEEK.findall(text)]


_XML_PATTERNS = {"nexau": (_NEXAU, _NEXAU_PARAM), "qwen_xml": (_QWEN, _QWEN_PARAM),
                 "minimax": (_MINIMAX, _MINIMAX_PARAM), "glm": (_GLM, _GLM_PARAM)}


def parse_calls(text: str, style: str) -> list[Call]:
    """The calls written in `text` in a text style, in order.

    Raises:
        UserError: `style.unknown`; `style.structured` for openai (use `parse_openai`).
        ValueError: a JSON style block that is not valid JSON.
    """
    check_style(style)
    if style == "openai":
        raise UserError("style.structured", "openai tool calls are structured, not text",
                        "Use parse_openai for the openai style.")
    if style in _XML_PATTERNS:
        return _xml_calls(text, *_XML_PATTERNS[style])
    return _json_calls(text, style)


def parse_openai(tool_calls: Sequence[dict[str, Any]]) -> list[Call]:
    """The calls of OpenAI wire tool calls (arguments as a JSON string or an object)."""
    out = []
    for tc in tool_calls:
        fn = tc.get("function", tc)
        args = fn.get("arguments") or {}
        out.append(Call(fn["name"], json.loads(args) if isinstance(args, str) else dict(args)))
    return out
