"""Text tool-call modes: what models actually write, read leniently; errors, never exceptions."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from a4a.runtime.errors import UserError
from a4a.runtime.llm import textmodes as tm
from a4a.runtime.llm.base import ToolCall, ToolSchema

SEARCH = ToolSchema("search", "Search the issues.", {
    "type": "object",
    "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                   "open": {"type": "boolean"}, "labels": {"type": "array"},
                   "score": {"type": ["number", "null"]}, "any": {}},
    "required": ["query"]})
SCHEMAS = tm.schemas_of([SEARCH])


def call(name: str, i: int = 0, **arguments: object) -> ToolCall:
    return ToolCall(f"call_{i}", name, dict(arguments))


# ---- hermes ----------------------------------------------------------------------------


def test_hermes_reads_prose_fences_and_a_missing_closing_tag() -> None:
    text = ('Let me look.\n<tool_call>\n```json\n{"name": "search", "arguments": '
            '{"query": "bug"}}\n```\n</tool_call>\n<tool_call>{"name": "close", '
            '"arguments": {"id": 3}}')
    got = tm.parse(text, "hermes")
    assert got.content == "Let me look."
    assert got.calls == (call("search", query="bug"), call("close", 1, id=3))
    assert got.errors == ()


def test_hermes_accepts_string_arguments_lists_and_parameters_key() -> None:
    text = ('<tool_call>{"name": "a", "arguments": "{\\"x\\": 1}"}</tool_call>'
            '<tool_call>[{"name": "b", "parameters": {"y": 2}}, {"name": "c"}]</tool_call>')
    got = tm.parse(text, "hermes")
    assert got.calls == (call("a", x=1), call("b", 1, y=2), call("c", 2))


@pytest.mark.parametrize(("body", "needle"), [
    ('{"name": "a", "arguments": {"x": 1}', "not valid JSON"),
    ('{"arguments": {}}', "no `name`"),
    ('{"name": "a", "arguments": [1]}', "must be a JSON object"),
    ('{"name": "a", "arguments": "{oops"}', "not valid JSON"),
    ('"just text"', "expected a JSON object"),
    ('{"name": "a", "arguments": {"x": NaN}}', "NaN"),
    ("", "not valid JSON"),
])
def test_hermes_malformed_pieces_become_errors(body: str, needle: str) -> None:
    got = tm.parse(f"ok <tool_call>{body}</tool_call> "
                   '<tool_call>{"name": "fine", "arguments": {}}</tool_call>', "hermes")
    assert got.calls == (call("fine"),)
    assert len(got.errors) == 1 and needle in got.errors[0] and "tool call 1" in got.errors[0]
    assert "<tool_call>" in got.errors[0]  # the message says how to write it


def test_plain_text_has_no_calls() -> None:
    for mode in tm.MODES:
        got = tm.parse("  The answer is 4.  ", mode)
        assert (got.content, got.calls, got.errors, got.final) == ("The answer is 4.", (), (),
                                                                   None)


# ---- xml (NexAU) ------------------------------------------------------------------------


def test_xml_converts_values_to_the_schema_types() -> None:
    text = ("I will search.\n<tool_use>\n<tool_name>search</tool_name>\n<parameter>\n"
            "<query>\n  crash on start\n</query>\n<limit>5</limit>\n<open>True</open>\n"
            '<labels>["bug", "p1"]</labels>\n<score>null</score>\n<any>7</any>\n'
            "<extra>9</extra>\n</parameter>\n</tool_use>")
    got = tm.parse(text, "xml", SCHEMAS)
    assert got.content == "I will search."
    assert got.calls == (call("search", query="crash on start", limit=5, open=True,
                              labels=["bug", "p1"], score=None, any="7", extra="9"),)
    assert tm.parse(text, "xml").calls[0].arguments["limit"] == "5"  # no schema: text


def test_xml_parallel_wrapper_and_missing_closing_tags() -> None:
    text = ("<use_parallel_tool_calls>\n<parallel_tool>\n<tool_name>search</tool_name>\n"
            "<parameter><query>a</query><score>1.5</score></parameter>\n</parallel_tool>\n"
            "<parallel_tool>\n<tool_name>Agent</tool_name>\n<parameter>\n"
            "<sub_agent_name>triager</sub_agent_name><message>look</message>\n</parameter>")
    got = tm.parse(text, "xml", SCHEMAS)
    assert got.calls == (call("search", query="a", score=1.5),
                         call("Agent", 1, sub_agent_name="triager", message="look"))
    assert got.errors == ()


def test_xml_reads_parameters_without_the_parameter_wrapper() -> None:
    text = "<tool_use><tool_name>search</tool_name><query>x</query></tool_use>"
    assert tm.parse(text, "xml").calls == (call("search", query="x"),)


@pytest.mark.parametrize(("body", "needle"), [
    ("<parameter><query>x</query></parameter>", "no <tool_name>"),
    ("<tool_name>search</tool_name><parameter><limit>many</limit></parameter>",
     "<limit> must be integer, got 'many'"),
    ("<tool_name>search</tool_name><parameter><open>yes</open></parameter>",
     "<open> must be boolean"),
    ("<tool_name>search</tool_name><parameter><labels>[1,</labels></parameter>",
     "<labels> must be array"),
    ("<tool_name>search</tool_name><parameter><query>x</query><query>y</query>",
     "given twice"),
    ("<tool_name>search</tool_name><parameter><query>cut off", "<query> is not closed"),
])
def test_xml_malformed_pieces_become_errors(body: str, needle: str) -> None:
    got = tm.parse(f"<tool_use>{body}</tool_use>", "xml", SCHEMAS)
    assert got.calls == ()
    assert len(got.errors) == 1 and needle in got.errors[0], got.errors


# ---- react ------------------------------------------------------------------------------


def test_react_action_thought_and_invented_observation() -> None:
    text = ("Thought: I should search.\nAction: search\nAction Input: ```json\n"
            '{"query": "bug"}\n```\nObservation: 3 issues\nThought: done\nFinal Answer: 3')
    got = tm.parse(text, "react")
    assert got.content == "Thought: I should search."
    assert got.calls == (call("search", query="bug"),)
    assert (got.errors, got.final) == ((), None)  # all after "Observation:" was invented


def test_react_final_answer() -> None:
    got = tm.parse("Thought: I now know.\nFinal Answer: It is\nfour.", "react")
    assert (got.content, got.calls, got.final) == ("Thought: I now know.", (), "It is\nfour.")


def test_react_action_without_input_and_parallel_actions() -> None:
    text = "Action: `list_open`\nAction: search\nAction Input: {\"query\": \"x\"}"
    assert tm.parse(text, "react").calls == (call("list_open"), call("search", 1, query="x"))


@pytest.mark.parametrize(("text", "needle"), [
    ("Action: search\nAction Input: {query: x}", "not valid JSON"),
    ("Action: search\nAction Input: [1]", "must be a JSON object"),
    ("Action Input: {}", "follows no Action"),
    ("Action:\nAction Input: {}", "names no tool"),
    ('Action: s\nAction Input: {}\nFinal Answer: 2', "not both"),
])
def test_react_malformed_pieces_become_errors(text: str, needle: str) -> None:
    got = tm.parse(text, "react")
    assert got.final is None
    assert any(needle in e for e in got.errors), got.errors


# ---- rendering --------------------------------------------------------------------------


def test_results_render_per_mode() -> None:
    assert tm.render_result("search", {"n": 1}, "hermes") == (
        '<tool_response>\n{"n": 1}\n</tool_response>')
    assert tm.render_result("search", "none", "xml", is_error=True) == (
        "<tool_result>\n<tool_name>search</tool_name>\n<error>none</error>\n</tool_result>")
    assert tm.render_result("search", "3 issues", "react") == "Observation: 3 issues"


def test_tool_instructions_list_every_tool_and_the_call_shape() -> None:
    other = ToolSchema("close_issue", "Close one issue.", {"type": "object"})
    shapes = {"hermes": "<tool_call>", "xml": "<tool_use>", "react": "Action Input:"}
    for mode, shape in shapes.items():
        text = tm.render_tools((SEARCH, other), mode)
        assert "search" in text and "close_issue" in text and "Close one issue." in text
        assert shape in text


def test_single_call_renders_without_the_parallel_wrapper() -> None:
    assert tm.render_call(call("a", q="x"), "xml").startswith("<tool_use>")
    assert tm.render_calls([], "hermes") == ""


@pytest.mark.parametrize("fn", [
    lambda: tm.parse("x", "openai"),
    lambda: tm.render_tools((), "json"),
    lambda: tm.render_call(call("a"), "qwen"),
    lambda: tm.render_result("a", "x", "OPENAI"),
])
def test_unknown_modes_are_usage_errors(fn: Callable[[], object]) -> None:
    with pytest.raises(UserError) as err:
        fn()
    assert err.value.code == "textmode.unknown" and "hermes" in err.value.hint
