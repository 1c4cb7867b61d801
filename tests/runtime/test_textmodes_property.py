"""Round trip for every text mode: parse(render_calls(calls)) == calls.

`xml` values are text on the wire, so its round trip passes the schema that types them, and
uses what the grammar can express: parameter names are XML names other than the grammar's
block tags, and top-level strings have no surrounding whitespace and no "</" (nested values
travel as JSON, where "</" is escaped).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from a4a.runtime.llm import textmodes as tm
from a4a.runtime.llm.base import ToolCall

NAMES = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)
XML_KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True).filter(
    lambda k: k not in ("tool_use", "parallel_tool", "use_parallel_tool_calls"))
SCALARS = (st.none() | st.booleans() | st.integers()
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
XML_STRINGS = st.text(max_size=20).filter(lambda s: s == s.strip() and "</" not in s)
XML_VALUES = XML_STRINGS | JSON.filter(lambda v: not isinstance(v, str))


def _calls(keys: st.SearchStrategy[str], values: st.SearchStrategy[Any]) -> Any:
    one = st.tuples(NAMES, st.dictionaries(keys, values, max_size=5))
    return st.lists(one, min_size=1, max_size=4).map(
        lambda items: tuple(ToolCall(f"call_{i}", n, a) for i, (n, a) in enumerate(items)))


def _type(value: Any) -> str:
    for kind, cls in (("boolean", bool), ("integer", int), ("number", float), ("string", str),
                      ("array", list), ("object", dict)):
        if isinstance(value, cls):
            return kind
    return "null"


def _schemas(calls: tuple[ToolCall, ...]) -> dict[str, dict[str, Any]]:
    """Schemas that type each argument as generated (a name used twice keeps one schema)."""
    out: dict[str, dict[str, Any]] = {}
    for c in calls:
        props = out.setdefault(c.name, {"properties": {}})["properties"]
        props.update({k: {"type": _type(v)} for k, v in c.arguments.items()})
    return out


def _consistent(calls: tuple[ToolCall, ...]) -> bool:
    schemas = _schemas(calls)
    return all(schemas[c.name]["properties"][k]["type"] == _type(v)
               for c in calls for k, v in c.arguments.items())


def _unclosed(text: str) -> str:
    """The text cut before its last closing tag, as a model stopped early would leave it."""
    return text[:text.rfind("</")] if text.endswith(">") else text


@settings(max_examples=150, deadline=None)
@given(calls=_calls(st.text(max_size=10), JSON))
def test_json_modes_round_trip(calls: tuple[ToolCall, ...]) -> None:
    for mode in ("hermes", "react"):
        text = tm.render_calls(calls, mode)
        got = tm.parse(text, mode)
        assert (got.calls, got.errors, got.content) == (calls, (), ""), text
    cut = tm.parse(_unclosed(tm.render_calls(calls, "hermes")), "hermes")
    assert cut.calls == calls


@settings(max_examples=150, deadline=None)
@given(calls=_calls(XML_KEYS, XML_VALUES).filter(_consistent))
def test_xml_round_trips_with_schemas(calls: tuple[ToolCall, ...]) -> None:
    text = tm.render_calls(calls, "xml")
    got = tm.parse(text, "xml", _schemas(calls))
    assert (got.calls, got.errors, got.content) == (calls, (), ""), text
    assert tm.parse(_unclosed(text), "xml", _schemas(calls)).calls == calls


@settings(max_examples=60, deadline=None)
@given(calls=_calls(XML_KEYS, XML_VALUES), prose=st.text(max_size=30).filter(
    lambda s: "<" not in s and ":" not in s))
def test_parse_never_raises_on_noise(calls: tuple[ToolCall, ...], prose: str) -> None:
    for mode in tm.MODES:
        text = prose + tm.render_calls(calls, mode)
        for cut in range(0, len(text), max(1, len(text) // 7)):
            got = tm.parse(text[:cut], mode)  # any prefix: a model may stop anywhere
            assert isinstance(got.errors, tuple)
