"""Every style reads back what it writes: parse(render(calls)) == calls."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a4a.runtime.errors import UserError
from a4a.training import styles
from a4a.training.styles import Call

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="｜▁"),
               max_size=20) | st.sampled_from(["", " x ", "12", "true", "null", "a</b>",
                                               "</tool_call>", "line\nbreak", '{"a": 1}'])
SCALARS = st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT | st.floats(
    allow_nan=False, allow_infinity=False, width=32)
VALUES = st.recursive(SCALARS, lambda v: st.lists(v, max_size=3)
                      | st.dictionaries(NAMES, v, max_size=3), max_leaves=6)
CALLS = st.lists(st.builds(Call, NAMES, st.dictionaries(NAMES, VALUES, max_size=4)),
                 min_size=1, max_size=3)
TEXT_STYLES = [s for s in styles.STYLES if s != "openai"]


@pytest.mark.parametrize("style", TEXT_STYLES)
@settings(max_examples=150, deadline=None)
@given(calls=CALLS)
def test_text_styles_round_trip(style: str, calls: list[Call]) -> None:
    assert styles.parse_calls(styles.render_calls(calls, style), style) == calls


@settings(max_examples=150, deadline=None)
@given(calls=CALLS)
def test_openai_round_trips(calls: list[Call]) -> None:
    assert styles.parse_openai(styles.openai_tool_calls(calls)) == calls


@pytest.mark.parametrize("style", TEXT_STYLES)
def test_values_keep_their_types(style: str) -> None:
    call = Call("f", {"n": 3, "s": "3", "b": False, "l": [1, "x"], "o": {"k": None}, "t": "hi"})
    assert styles.parse_calls(styles.render_calls([call], style), style) == [call]


SHAPES: dict[str, str] = {
    "nexau": "<tool_use>\n<tool_name>f</tool_name>\n<parameter>\n<q>hi</q>\n</parameter>\n"
             "</tool_use>",
    "hermes": '<tool_call>\n{"name": "f", "arguments": {"q": "hi"}}\n</tool_call>',
    "qwen_xml": "<tool_call>\n<function=f>\n<parameter=q>\nhi\n</parameter>\n</function>\n"
                "</tool_call>",
    "minimax": "<invoke name=f>\n<parameter name=q>hi</parameter>\n</invoke>",
    "glm": "<tool_call>f\n<arg_key>q</arg_key>\n<arg_value>hi</arg_value>\n</tool_call>",
    "deepseek": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n"
                '{"q": "hi"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
}


@pytest.mark.parametrize("style", TEXT_STYLES)
def test_the_shape_each_model_family_writes(style: str) -> None:
    assert styles.render_calls([Call("f", {"q": "hi"})], style) == SHAPES[style]


def test_nexau_parallel_calls_use_the_wrapper() -> None:
    text = styles.render_calls([Call("a"), Call("b", {"x": 1})], "nexau")
    assert text.startswith("<use_parallel_tool_calls>")
    assert styles.parse_calls(text, "nexau") == [Call("a"), Call("b", {"x": 1})]


@pytest.mark.parametrize("style", styles.STYLES)
def test_results_use_the_style_grammar(style: str) -> None:
    result: Any = {"ok": True}
    text = styles.render_result("f", result, style)
    assert '{"ok": true}' in text
    marks = {"nexau": "<tool_result>", "hermes": "<tool_response>", "qwen_xml": "<tool_response>",
             "glm": "<tool_response>", "minimax": "<response>", "deepseek": "tool▁output",
             "openai": "{"}
    assert marks[style] in text


def test_unknown_style_is_a_user_error() -> None:
    with pytest.raises(UserError) as err:
        styles.render_calls([Call("f")], "yaml")
    assert err.value.code == "style.unknown"
