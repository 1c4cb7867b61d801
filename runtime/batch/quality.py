"""Quality filter for trajectories: each rule has a reason code; flagged runs are dropped.

- truncated: the run ended on a budget or step cap, or with no answer;
- repetition_loop: one agent makes the same tool call (name and arguments) three times in a
  row, or gives the same reply three times in a row (a sub-agent's answer relayed up a
  hierarchy by its leads is not a loop);
- invalid_format: malformed tool calls (unparseable text calls, invalid JSON arguments,
  unknown tools) in more than a quarter of the model's replies;
- hallucinated_result: the answer cites record ids that no observation (nor the task) shows;
- reward_hacking: the answer claims success while the checker denies it (state reward 0 on a
  task that must change the world).
Runs that hit a structured tool error and still succeeded are tagged `error_recovery` (kept).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

RULES = ("truncated", "repetition_loop", "invalid_format", "hallucinated_result",
         "reward_hacking")
_IDS = re.compile(r"\b[A-Z]{2,5}-\d{3}\b")
_CLAIMS = re.compile(r"\b(done|completed|resolved|fixed|closed|merged|finished|success\w*|"
                     r"all set|taken care of)\b", re.IGNORECASE)
_FORMAT_CODES = frozenset({"invalid_json", "unknown_tool"})


@dataclass(frozen=True)
class Verdict:
    """Why a run is dropped (empty: kept) and its tags."""

    reasons: tuple[str, ...]
    tags: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def keep(self) -> bool:
        """Whether the run passes every rule."""
        return not self.reasons


def _truncated(record: dict[str, Any]) -> bool:
    last = [e for e in record["events"] if e["type"] == "llm_call"][-1:]
    return (record["status"] != "completed" or not (record.get("final_answer") or "").strip()
            or bool(last and last[0].get("finish_reason") == "length"))


def _repetition(record: dict[str, Any]) -> bool:
    seqs: dict[tuple[str, str], list[str]] = {}
    for e in record["events"]:
        if e["type"] == "tool_call":
            seqs.setdefault(("call", e.get("agent", "")), []).append(
                json.dumps([e["name"], e["arguments"]], sort_keys=True))
        elif e["type"] == "llm_call":
            seqs.setdefault(("reply", e.get("agent", "")), []).append(
                json.dumps(e["response"], sort_keys=True))
    return any(seq[i] == seq[i + 1] == seq[i + 2]
               for seq in seqs.values() for i in range(len(seq) - 2))


def _invalid_format(record: dict[str, Any]) -> bool:
    replies = sum(1 for e in record["events"] if e["type"] == "llm_call")
    bad = sum(1 for e in record["events"] if e["type"] == "format_error") + sum(
        1 for e in record["events"] if e["type"] == "tool_call" and not e["ok"]
        and (e.get("result") or {}).get("error", {}).get("code") in _FORMAT_CODES)
    return replies > 0 and bad / replies > 0.25


def _hallucinated(record: dict[str, Any]) -> list[str]:
    seen = record.get("task", "") + " ".join(
        json.dumps(e.get("result"), ensure_ascii=False) for e in record["events"]
        if e["type"] == "tool_call")
    return sorted({i for i in _IDS.findall(record.get("final_answer") or "") if i not in seen})


def _reward_hacking(record: dict[str, Any], task: dict[str, Any] | None) -> bool:
    rewards = record.get("rewards") or {}
    needs_change = bool(task and task["checker"]["expected_diff"])
    return (needs_change and rewards.get("state") == 0.0
            and bool(_CLAIMS.search(record.get("final_answer") or "")))


def judge(record: dict[str, Any], task: dict[str, Any] | None = None) -> Verdict:
    """Apply every rule to one trajectory record."""
    reasons = []
    if _truncated(record):
        reasons.append("truncated")
    if _repetition(record):
        reasons.append("repetition_loop")
    if _invalid_format(record):
        reasons.append("invalid_format")
    invented = _hallucinated(record)
    if invented:
        reasons.append("hallucinated_result")
    if _reward_hacking(record, task):
        reasons.append("reward_hacking")
    errors = any(e["type"] == "tool_call" and not e["ok"] for e in record["events"])
    ok = record["status"] == "completed" and (record.get("rewards") or {}).get(
        "composite", 1.0) >= 1.0
    tags = ("error_recovery",) if errors and ok and not reasons else ()
    return Verdict(tuple(reasons), tags, {"invented_ids": invented} if invented else {})
