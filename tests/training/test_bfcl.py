"""BFCL's own data and AST checker, wired to a4a's text tool-call modes.

Hand-made answers to a few BFCL items: the right calls must pass BFCL's checker and near
misses must fail; replies written as the embedded model writes them must parse to the calls.
"""

from __future__ import annotations

import json

import pytest

from a4a.runtime.errors import UserError
from a4a.training import bfcl


@pytest.fixture(scope="module")
def items() -> dict[str, bfcl.Item]:
    return {i.id: i for c in bfcl.CATEGORIES for i in bfcl.load(c, 3)}


def hermes(*calls: tuple[str, dict[str, object]]) -> str:
    blocks = "\n".join("<tool_call>\n" + json.dumps({"name": n, "arguments": a}) +
                       "\n</tool_call>" for n, a in calls)
    return f"Sure, let me do that.\n{blocks}"


def test_load_reads_bfcl_items_with_their_answers(items: dict[str, bfcl.Item]) -> None:
    assert len(items) == 3 * len(bfcl.CATEGORIES)
    simple = items["simple_python_0"]
    assert simple.functions[0]["name"] == "calculate_triangle_area"
    assert simple.answer[0]["calculate_triangle_area"]["base"] == [10]
    assert items["irrelevance_0"].answer == ()
    with pytest.raises(UserError) as err:
        bfcl.load("live_simple")
    assert err.value.code == "bfcl.category"


def test_prompt_is_the_text_mode_system_prompt_with_json_schema_types(
        items: dict[str, bfcl.Item]) -> None:
    system, user = bfcl.messages(items["simple_python_0"])
    assert "<tools>" in system.content and "<tool_call>" in system.content
    assert '"name": "calculate_triangle_area"' in system.content
    assert '"type": "object"' in system.content and '"type": "dict"' not in system.content
    assert user.role == "user" and "triangle" in user.content


@pytest.mark.parametrize(("item_id", "right", "wrong"), [
    ("simple_python_0",
     [("calculate_triangle_area", {"base": 10, "height": 5})],
     [("calculate_triangle_area", {"base": 5, "height": 10})]),
    ("simple_python_1",
     [("math.factorial", {"number": 5})],
     [("math_factorial", {"number": 5})]),
    ("multiple_0",
     [("triangle_properties.get", {"side1": 5, "side2": 4, "side3": 3})],
     [("circle_properties.get", {"radius": 5})]),
    ("parallel_0",  # BFCL's parallel checker ignores the order of the calls
     [("spotify.play", {"artist": "Maroon 5", "duration": 15}),
      ("spotify.play", {"artist": "Taylor Swift", "duration": 20})],
     [("spotify.play", {"artist": "Taylor Swift", "duration": 20})]),
    ("parallel_multiple_0",
     [("math_toolkit.sum_of_multiples", {"lower_limit": 1, "upper_limit": 1000,
                                         "multiples": [3, 5]}),
      ("math_toolkit.product_of_primes", {"count": 5})],
     [("math_toolkit.sum_of_multiples", {"lower_limit": 1, "upper_limit": 1000,
                                         "multiples": [3, 5]}),
      ("math_toolkit.product_of_primes", {"count": "5"})]),
])
def test_checker_passes_right_calls_and_fails_wrong_ones(
        items: dict[str, bfcl.Item], item_id: str, right: list[tuple[str, dict[str, object]]],
        wrong: list[tuple[str, dict[str, object]]]) -> None:
    item, check = items[item_id], bfcl.checker()
    assert bfcl.correct(item, bfcl.calls(hermes(*right), "hermes", item), check)
    assert not bfcl.correct(item, bfcl.calls(hermes(*wrong), "hermes", item), check)
    assert not bfcl.correct(item, [], check)


def test_irrelevance_is_correct_only_without_a_valid_call(items: dict[str, bfcl.Item]) -> None:
    item = items["irrelevance_0"]
    assert bfcl.correct(item, bfcl.calls("I cannot compute that with these tools.", "hermes"))
    # An unreadable call is no call, as in BFCL.
    assert bfcl.correct(item, bfcl.calls('<tool_call>{"name": "determine_bo', "hermes"))
    call = hermes(("determine_body_mass_index", {"weight": 10.0, "height": 5.0}))
    assert not bfcl.correct(item, bfcl.calls(call, "hermes"))


def test_parser_reads_model_style_replies_in_each_text_mode(
        items: dict[str, bfcl.Item]) -> None:
    item = items["simple_python_1"]
    hermes_reply = ('<tool_call>\n{"name": "math.factorial", "arguments": {"number": 5}}\n'
                    "</tool_call>\n<tool_call>\n{\"name\": \"math.fact")  # cut off
    xml_reply = ("<tool_use>\n<tool_name>math.factorial</tool_name>\n<parameter>\n"
                 "<number>5</number>\n</parameter>\n</tool_use>")
    react_reply = 'Thought: factorial\nAction: math.factorial\nAction Input: {"number": 5}'
    want = [{"math.factorial": {"number": 5}}]
    assert bfcl.calls(hermes_reply, "hermes", item) == want
    assert bfcl.calls(xml_reply, "xml", item) == want  # "5" read as the schema's integer
    assert bfcl.calls(react_reply, "react", item) == want
    assert bfcl.correct(item, want)


def test_accuracy_has_a_binomial_standard_error() -> None:
    s = bfcl.accuracy([True, False, False, True])
    assert s == {"n": 4, "accuracy": 0.5, "se": 0.25}
    assert bfcl.summary({"multiple": []})["multiple"]["n"] == 0
