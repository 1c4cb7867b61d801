"""Trajectory JSONL to training JSONL: each line reads back through its format's formatter.

function_calling rows are conversational (`messages` and `tools`), written in one tool-call
style; TRL's SFTTrainer and `datasets.load_dataset("json", ...)` read them as is. In the
openai style, call arguments are JSON strings, as on the wire, so rows with different tools
share one Arrow schema. react, trajectory and multi_agent rows are the seed's JSON shapes of
those formats (calls kept structured; the style is chosen when they are tokenized).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from a4a.training import data, formats, styles


@dataclass
class ExportReport:
    """What an export read, wrote and dropped."""

    out: str
    format: str
    style: str
    records: int = 0
    samples: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape `a4a export --json` prints."""
        return asdict(self)


def _wire_args(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for m in chat:
        for tc in m.get("tool_calls") or []:
            fn = tc["function"]
            fn["arguments"] = json.dumps(fn["arguments"], ensure_ascii=False)
    return chat


def row(sample: dict[str, Any], fmt: str, style: str) -> dict[str, Any]:
    """One row: the seed shape of `fmt`, or for function_calling the messages in `style`."""
    if fmt != "function_calling":
        shaped = {k: v for k, v in sample.items() if k != "meta"}
        if "meta" in sample:
            shaped["meta"] = json.dumps(sample["meta"], sort_keys=True)
        return shaped
    msgs = formats.format_sample(sample, fmt)
    chat = formats.to_chat(msgs, style)
    out: dict[str, Any] = {"messages": _wire_args(chat) if style == "openai" else chat,
                           "tools": data.tools_of(msgs)}
    if "meta" in sample:
        out["meta"] = json.dumps(sample["meta"], sort_keys=True)  # one Arrow type for all rows
    return out


def export_runs(src: Path, out: Path, fmt: str = "function_calling", style: str | None = None,
                *, perspective: str = "system", statuses: tuple[str, ...] | None = (
                    "completed",), min_reward: float | None = None) -> ExportReport:
    """Write the samples of the runs in `src` to `out` as conversational JSONL.

    Samples without an assistant turn and duplicates are dropped and counted. `style` (default
    openai) applies to function_calling rows; the other formats keep calls structured.

    Raises:
        UserError: `format.unknown`, `style.unknown`, `export.style` (a style with a format
            other than function_calling), `data.missing`, `data.invalid`,
            `perspective.unknown`.
    """
    data.check_format(fmt)
    if style is not None and fmt != "function_calling":
        from a4a.runtime.errors import UserError

        raise UserError("export.style", f"--style applies to function_calling rows, not {fmt}",
                        f"Drop --style: {fmt} rows keep their calls structured and are styled "
                        "when tokenized (finetune(style=...)).", format=fmt, style=style)
    style = style or "openai"
    styles.check_style(style)
    report = ExportReport(str(out), fmt, style)
    filt = data.FilterReport()
    records = data.filter_records(data.read_jsonl(src), statuses=statuses,
                                  min_reward=min_reward, report=filt)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        samples = (s for r in records for s in _samples(r, fmt, perspective, filt))
        for s in data.dedup(samples, filt):
            fh.write(json.dumps(row(s, fmt, style), ensure_ascii=False) + "\n")
            report.samples += 1
    tmp.replace(out)
    report.records = filt.kept
    report.dropped = filt.dropped
    return report


def _samples(record: dict[str, Any], fmt: str, perspective: str,
             filt: data.FilterReport) -> list[dict[str, Any]]:
    kept = []
    for s in data.samples_from_record(record, fmt, perspective):
        if any(m["role"] == "assistant" for m in formats.format_sample(s, fmt)):
            kept.append(s)
        else:
            filt.drop("no_assistant_turn")
    return kept
