"""An optional LLM judge for trajectories: a structured JSON issue report per run.

A trajectory is rendered as a readable transcript and cut into chunks of at most `max_chars`;
chunks of several runs are packed into one request up to the same size, so long traces are
read in parts and short ones share a call. The model must answer
`{"reports": [{"run_id": ..., "part": ..., "keep": bool, "issues": [{"code", "detail"}]}]}`.
A run is kept unless some part of it is judged not to be; a part the model did not report on
(or a reply that is not that JSON) leaves the run kept with a `judge_error` issue, so a
misbehaving judge never silently drops data.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from a4a.runtime.engine.transcript import lines
from a4a.runtime.llm.base import LLM, LLMRequest, Message

SYSTEM = (
    "You review agent trajectories for a training set. For each part below, report problems: "
    "hallucinated facts (stated in an answer but never observed), claims of success the "
    "observations contradict, ignored tool errors, loops, unsafe actions, off-task replies. "
    'Answer with JSON only: {"reports": [{"run_id": "...", "part": 0, "keep": true, '
    '"issues": [{"code": "short_snake_case", "detail": "one sentence"}]}]}, one report per '
    "part, keep=false only for a part with a problem that makes the run unfit for training."
)


@dataclass
class JudgeReport:
    """The judge's verdict on one run."""

    run_id: str
    keep: bool = True
    issues: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"id": self.run_id, "keep": self.keep, "issues": self.issues}


def chunks(record: dict[str, Any], max_chars: int) -> list[str]:
    """The run's transcript in parts of at most `max_chars` characters (lines kept whole)."""
    parts: list[str] = []
    cur = ""
    for _, text in lines(record):
        text = text[:max_chars]
        if cur and len(cur) + len(text) + 1 > max_chars:
            parts.append(cur)
            cur = ""
        cur = f"{cur}\n{text}" if cur else text
    return [*parts, cur] if cur else parts


def requests(records: Sequence[dict[str, Any]], max_chars: int
             ) -> list[list[tuple[str, int, str]]]:
    """(run id, part, text) items packed into requests of at most `max_chars` characters."""
    packed: list[list[tuple[str, int, str]]] = []
    size = 0
    for r in records:
        for i, text in enumerate(chunks(r, max_chars)):
            if not packed or size + len(text) > max_chars:
                packed.append([])
                size = 0
            packed[-1].append((r["run_id"], i, text))
            size += len(text)
    return packed


def _prompt(items: Sequence[tuple[str, int, str]]) -> str:
    return "\n\n".join(f"### run_id={rid} part={part}\n{text}" for rid, part, text in items)


def _parse(content: str) -> list[dict[str, Any]]:
    text = content.strip()
    start, end = text.find("{"), text.rfind("}")
    data = json.loads(text[start:end + 1]) if 0 <= start < end else None
    rows = data.get("reports") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ValueError("no reports list")
    return [r for r in rows if isinstance(r, dict)]


async def judge_records(records: Sequence[dict[str, Any]], llm: LLM, max_chars: int = 6000
                        ) -> dict[str, JudgeReport]:
    """The judge's report on every record, by run id."""
    out = {r["run_id"]: JudgeReport(r["run_id"]) for r in records}
    for items in requests(records, max_chars):
        want = {(rid, part) for rid, part, _ in items}
        reply = await llm.complete(LLMRequest(
            (Message("system", SYSTEM), Message("user", _prompt(items))), temperature=0.0))
        try:
            rows = _parse(reply.message.content)
        except (ValueError, json.JSONDecodeError):
            rows = []
        for row in rows:
            key = (str(row.get("run_id")), row.get("part"))
            if key not in want:
                continue
            want.discard(key)
            rep = out[key[0]]
            rep.keep = rep.keep and row.get("keep") is not False
            rep.issues += [{"code": str(i.get("code", "issue")), "detail": str(i.get("detail", ""))}
                           for i in row.get("issues") or [] if isinstance(i, dict)]
        for rid, part in sorted(want):
            out[rid].issues.append({"code": "judge_error",
                                    "detail": f"no valid report for part {part}"})
    return out
