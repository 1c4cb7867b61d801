"""Loss masking on the real SmolLM2 tokenizer: golden decodes, invariants, template agreement."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a4a.runtime.errors import UserError
from a4a.training import data, formats, masking, styles

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
EOT = "<|im_end|>"
TURN = re.compile(r"<\|im_start\|>assistant\n(.*?<\|im_end\|>)", re.S)
TEXT_STYLES = [s for s in styles.STYLES if s != "openai"]
# ChatML that writes structured tool calls (as Qwen2.5's template does), for the openai style.
TOOLS_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
    "{% for tc in m.get('tool_calls') or [] %}\n<tool_call>\n{\"name\": \"{{ tc.function.name }}"
    "\", \"arguments\": {{ tc.function.arguments | tojson }}}\n</tool_call>{% endfor %}"
    "<|im_end|>\n{% endfor %}")


def _samples(fmt: str) -> list[list[dict[str, Any]]]:
    out = []
    for name in ("supervisor", "routing", "map_reduce"):
        record = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
        for s in data.samples_from_record(record, fmt, "agents")[:2]:
            out.append(formats.format_sample(s, fmt))
    return out


def _trained_text(tok: Any, ex: dict[str, list[int]]) -> str:
    return str(tok.decode([t for t in ex["labels"] if t != masking.IGNORE]))


@pytest.mark.parametrize("style", TEXT_STYLES)
@pytest.mark.parametrize("fmt", data.FORMATS)
def test_golden_decode_is_the_assistant_payloads_and_their_eot(
        tokenizer: Any, fmt: str, style: str) -> None:
    samples = _samples(fmt)
    stats = masking.Stats()
    out = masking.tokenize_agent_dataset(samples, tokenizer, 100_000, style, stats=stats)
    assert len(out) == len(samples)
    for msgs, ex in zip(samples, out, strict=True):
        chat = formats.to_chat(msgs, style)
        want = "".join(m["content"] + EOT for m in chat if m["role"] == "assistant")
        assert _trained_text(tokenizer, ex) == want
    assert stats.straddlers == 0


@pytest.mark.parametrize("fmt", ["function_calling", "trajectory", "multi_agent"])
def test_openai_style_trains_the_calls_the_template_writes(tokenizer: Any, fmt: str) -> None:
    tok = _with_template(tokenizer, TOOLS_TEMPLATE)
    samples = _samples(fmt)
    out = masking.tokenize_agent_dataset(samples, tok, 100_000, "openai")
    for msgs, ex in zip(samples, out, strict=True):
        text = tok.apply_chat_template(formats.to_chat(msgs, "openai"), tokenize=False)
        assert _trained_text(tok, ex) == "".join(TURN.findall(text))
        assert "<tool_call>" in _trained_text(tok, ex)


def test_openai_style_refuses_a_template_that_drops_calls(tokenizer: Any) -> None:
    with pytest.raises(UserError) as err:
        masking.tokenize_agent_dataset(_samples("function_calling"), tokenizer, 4096, "openai")
    assert err.value.code == "masking.template"


def _with_template(tokenizer: Any, template: str) -> Any:
    import copy

    tok = copy.copy(tokenizer)
    tok.chat_template = template
    return tok


def test_seed_example_matches_the_seed_semantics(tokenizer: Any) -> None:
    sample = {"task": "Find the population of France", "steps": [
        {"thought": "Search.", "action": "search", "action_input": "France population",
         "observation": "68 million"},
        {"thought": "Done.", "action": "finish", "action_input": "68 million"}]}
    (ex,) = masking.tokenize_agent_dataset([masking.format_react(sample)], tokenizer, 2048)
    assert _trained_text(tokenizer, ex) == (
        "Thought: Search.\nAction: search\nAction Input: France population<|im_end|>"
        "Thought: Done.\nFinal Answer: 68 million<|im_end|>")
    assert len(ex["input_ids"]) == len(ex["labels"]) == len(ex["attention_mask"])


SAFE = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<|\x00"),
               max_size=30)
ARGS = st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True),
                       SAFE | st.integers() | st.booleans(), max_size=3)
CALL = st.fixed_dictionaries({"name": st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                              "arguments": ARGS})


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": draw(SAFE)},
                                  {"role": "user", "content": draw(SAFE)}]
    for _ in range(draw(st.integers(1, 4))):
        calls = draw(st.lists(CALL, max_size=2))
        content = draw(SAFE)
        msgs.append({"role": "assistant", "content": content, "tool_calls": calls})
        msgs += [{"role": "tool", "name": c["name"], "content": draw(SAFE)} for c in calls]
        if draw(st.booleans()):
            msgs.append({"role": "user", "content": draw(SAFE)})
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=conversations(), style=st.sampled_from(TEXT_STYLES))
def test_invariants(tokenizer: Any, msgs: list[dict[str, Any]], style: str) -> None:
    chat = formats.to_chat(msgs, style)
    (ex,) = masking.tokenize_agent_dataset([msgs], tokenizer, 100_000, style)
    text = tokenizer.apply_chat_template(chat, tokenize=False)
    enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    assert enc["input_ids"] == ex["input_ids"]
    assert len(ex["labels"]) == len(ex["input_ids"])
    regions = [(m.start(1), m.end(1)) for m in TURN.finditer(text)]
    for (s, e), label in zip(enc["offset_mapping"], ex["labels"], strict=True):
        inside = any(s < hi and e > lo for lo, hi in regions)
        assert (label != masking.IGNORE) == inside  # nothing trained outside assistant turns
    ends = {hi for _, hi in regions}
    eot_id = tokenizer.convert_tokens_to_ids(EOT)
    closing = [k for k, (s, e) in enumerate(enc["offset_mapping"]) if e in ends]
    assert len(closing) == len(regions)
    assert all(ex["labels"][k] == eot_id for k in closing)  # every turn ends in a trained EOT


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=conversations(), style=st.sampled_from(TEXT_STYLES))
def test_offsets_route_equals_generation_markers(
        tokenizer: Any, msgs: list[dict[str, Any]], style: str) -> None:
    chat = formats.to_chat(msgs, style)
    (ex,) = masking.tokenize_agent_dataset([msgs], tokenizer, 100_000, style)
    ref = tokenizer.apply_chat_template(
        chat, chat_template=masking.CHATML_GENERATION_TEMPLATE, tokenize=True, return_dict=True,
        return_assistant_tokens_mask=True)
    assert list(ref["input_ids"]) == ex["input_ids"]
    assert list(ref["assistant_masks"]) == [int(x != masking.IGNORE) for x in ex["labels"]]


def test_truncation_keeps_labels_aligned_and_drops_untrainable(tokenizer: Any) -> None:
    msgs = [{"role": "user", "content": "word " * 200}, {"role": "assistant", "content": "ok"}]
    stats = masking.Stats()
    assert masking.tokenize_agent_dataset([msgs], tokenizer, 50, stats=stats) == []
    assert stats.truncated == 1
    assert stats.dropped_after_truncation == 1
    long = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "word " * 200}]
    (ex,) = masking.tokenize_agent_dataset([long], tokenizer, 50)
    assert len(ex["input_ids"]) == len(ex["labels"]) == 50


def test_an_untrainable_sample_raises(tokenizer: Any) -> None:
    with pytest.raises(UserError) as err:
        masking.tokenize_agent_dataset([[{"role": "user", "content": "hi"}]], tokenizer, 64)
    assert err.value.code == "sample.untrainable"


def test_straddling_tokens_are_trained_and_counted() -> None:
    labels, straddlers = masking.token_labels(
        [1, 2, 3, 4], [(0, 3), (3, 6), (6, 9), (9, 12)], [(4, 10)])
    assert labels == [-100, 2, 3, 4]
    assert straddlers == 2


def test_a_template_that_trims_contents_is_refused(tokenizer: Any) -> None:
    tok = _with_template(tokenizer, "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
                         "{{ m['content'] | trim }}<|im_end|>\n{% endfor %}")
    with pytest.raises(UserError) as err:
        masking.tokenize_agent_dataset(_samples("trajectory")[:1], tok, 4096)
    assert err.value.code == "masking.template"


def test_an_all_masked_example_raises() -> None:
    with pytest.raises(UserError) as err:
        masking._example([1, 2], [(0, 1), (1, 2)], (), 10, masking.Stats())
    assert err.value.code == "masking.all_masked"
