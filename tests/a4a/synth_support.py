"""Helpers of the batch tests: compare a batch's outputs byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

# The work journals hold units in completion order, and the Throughput part of the report
# describes the invocation that wrote it; everything else must be the same bytes.
_SKIP = ("work/", "job.json")


def outputs(out: Path) -> dict[str, bytes]:
    """Every output file of a batch by relative path (timings taken out of the report)."""
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if not path.is_file() or rel.startswith(_SKIP):
            continue
        data = path.read_bytes()
        if rel == "report.json":
            rep = json.loads(data)
            rep.pop("throughput")
            data = json.dumps(rep, sort_keys=True).encode()
        elif rel == "report.md":
            data = re.sub(rb"## Throughput.*", b"", data, flags=re.S)
        files[rel] = data
    return files


def journal_ids(out: Path, name: str) -> list[str]:
    """The unit ids of every line of a work journal, duplicates included."""
    lines = (out / "work" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["id"] for line in lines if line.strip()]
