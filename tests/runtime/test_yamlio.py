"""Safe YAML loading (caps, no tags, no aliases) and the canonical dumper's round trip."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a4a.runtime.errors import SpecError
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_text

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{c}: &{c} [{','.join(['*' + p] * 9)}]"
       for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (BILLION_LAUGHS, "yaml.alias"),
        ("a: !!python/object/apply:os.system ['id']", "yaml.tag"),
        ("!!python/name:os.system", "yaml.tag"),
        ("a: !custom 1", "yaml.tag"),
        ("[" * 200 + "]" * 200, "yaml.too_deep"),
        ("x" * 1_000_001, "yaml.too_large"),
        (b"name: \xff\xfe", "yaml.encoding"),
        ("a: [", "yaml.syntax"),
    ],
)
def test_hostile_yaml_is_rejected(text: str | bytes, code: str) -> None:
    with pytest.raises(SpecError) as info:
        load_yaml_text(text)
    assert info.value.code == code


def test_plain_yaml_loads() -> None:
    assert load_yaml_text("a: 1\nb: [x, 'y']\nc: {d: null}\n") == {"a": 1, "b": ["x", "y"],
                                                                     "c": {"d": None}}


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=True), st.text(max_size=40),
    st.sampled_from(["yes", "no", "on", "null", "~", "1e3", "0x1F", "- a", "a: b", "#c", "x\n",
                     "a\nb", " lead", "tail ", "\u2028", "\x85", "'q'", '"d"', "&a", "*b"]),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(_json)
def test_dump_round_trips_through_the_safe_loader(data: Any) -> None:
    assert load_yaml_text(dump_yaml(data)) == data


def test_dump_is_canonical() -> None:
    assert dump_yaml({"b": 1, "a": [1, {"d": 2, "c": 3}]}) == dump_yaml(
        {"a": [1, {"c": 3, "d": 2}], "b": 1})
