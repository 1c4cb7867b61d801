"""Loss-masking throughput on one core: the one-pass offsets route against per-prefix diffing.

The workload is every agent turn of the golden trajectories in all four formats and the six
text styles. Three methods label the same conversations:
  offsets      a4a.training.masking: render once, tokenize once, map spans to tokens
  gen-markers  apply_chat_template(return_assistant_tokens_mask=True), one call per sample
  prefix-diff  render and tokenize every prefix, label the new tokens (what naive pipelines do)
Prints median tokens/s over --runs timed repeats and how often each agrees with `offsets`.

Usage: python bench/masking.py [--runs N] [--copies N]   (needs `make train` and `make model`)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from a4a.training import data, formats, masking, styles

ROOT = Path(__file__).resolve().parents[1]
MODEL = Path(os.environ.get("A4A_HOME") or Path.home() / ".local/share/a4a") / "models"


def workload(copies: int) -> list[tuple[list[dict[str, Any]], str]]:
    """(neutral messages, style) pairs: every golden agent turn, format and text style."""
    out = []
    for path in sorted((ROOT / "tests/data/golden").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for fmt in data.FORMATS:
            for i, s in enumerate(data.samples_from_record(record, fmt, "agents")):
                style = [x for x in styles.STYLES if x != "openai"][i % 6]
                out.append((formats.format_sample(s, fmt), style))
    return out * copies


def offsets(tok: Any, work: list[tuple[list[dict[str, Any]], str]]) -> list[list[int]]:
    """The one-pass route, one batch per style as a data loader would call it."""
    out: list[list[int]] = [[] for _ in work]
    for style in dict.fromkeys(s for _, s in work):
        picked = [k for k, (_, s) in enumerate(work) if s == style]
        batch = masking.tokenize_agent_dataset([work[k][0] for k in picked], tok, 1 << 20, style)
        for k, ex in zip(picked, batch, strict=True):
            out[k] = ex["labels"]
    return out


def gen_markers(tok: Any, work: list[tuple[list[dict[str, Any]], str]]) -> list[list[int]]:
    """Hugging Face's generation-marker route."""
    out = []
    for msgs, style in work:
        enc = tok.apply_chat_template(
            formats.to_chat(msgs, style), chat_template=masking.CHATML_GENERATION_TEMPLATE,
            tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
        out.append([i if m else -100 for i, m in zip(enc["input_ids"], enc["assistant_masks"],
                                                     strict=True)])
    return out


def prefix_diff(tok: Any, work: list[tuple[list[dict[str, Any]], str]]) -> list[list[int]]:
    """Tokenize each prefix; the tokens a message adds are trained when it is the assistant's.

    The header is cut by its token count and the turn's trailing newline is trained, the
    off-by-one such pipelines usually carry.
    """
    header = len(tok("<|im_start|>assistant\n", add_special_tokens=False)["input_ids"])
    out = []
    for msgs, style in work:
        chat = formats.to_chat(msgs, style)
        labels: list[int] = []
        prev: list[int] = []
        for k in range(len(chat)):
            ids = tok(tok.apply_chat_template(chat[:k + 1], tokenize=False),
                      add_special_tokens=False)["input_ids"]
            new = ids[len(prev):]
            if chat[k]["role"] == "assistant":
                labels += [-100] * header + new[header:]
            else:
                labels += [-100] * len(new)
            prev = ids
        out.append(labels)
    return out


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    # One core: the Rust tokenizer reads these when it is first loaded.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(MODEL / "SmolLM2-135M-Instruct"))
    work = workload(args.copies)
    ref = offsets(tok, work)
    tokens = sum(len(x) for x in ref)
    print(f"workload: {len(work)} conversations, {tokens} tokens, "
          f"{sum(sum(t != -100 for t in x) for x in ref)} trainable; one thread")
    rates = {}
    for name, fn in (("offsets", offsets), ("gen-markers", gen_markers),
                     ("prefix-diff", prefix_diff)):
        times, got = [], ref
        for _ in range(args.runs):
            t0 = time.perf_counter()
            got = fn(tok, work)
            times.append(time.perf_counter() - t0)
        rates[name] = tokens / statistics.median(times)
        agree = sum(a == b for a, b in zip(got, ref, strict=True)) / len(ref)
        print(f"{name:12s} {rates[name]:>12,.0f} tokens/s (median of {args.runs})   "
              f"same labels as offsets: {agree:.0%}")
    print(f"offsets / prefix-diff: {rates['offsets'] / rates['prefix-diff']:.1f}x")


if __name__ == "__main__":
    main()
