"""A batch's final outputs, written from its journals in canonical order.

- requests.yaml: every drawn request with its factors and what became of it (a manifest);
- environments.jsonl: the environments used (framework, shape, task ids);
- trajectories.jsonl: every run record of those environments, environment by environment;
- export/: kept runs split by framework (runs.train.jsonl, runs.eval.jsonl) and, for each
  format and style, conversational JSONL for SFT (FORMAT.STYLE.train.jsonl / .eval.jsonl);
- report.json, report.md and plots/*.png (see `a4a.synth.report`).
Every file is written to a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from a4a.generator.requests import Request
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.yamlio import dump_yaml
from a4a.synth import report, units
from a4a.synth.batch import Batch, run_ids


def finish(batch: Batch, requests: Sequence[Request], envs: Sequence[dict[str, Any]]
           ) -> dict[str, Any]:
    """Write every output of the batch; returns the report."""
    out, cfg = batch.out, batch.config
    _clear_stale(out)
    used = {e["framework_id"] for e in envs}
    _write(out / "requests.yaml", dump_yaml({"requests": [
        {**r.to_dict(), "outcome": _outcome(batch, r, used)} for r in requests]}))
    _write_lines(out / "environments.jsonl", (
        {k: v for k, v in e.items() if k != "entry"} for e in envs))
    rows = [row for e in envs for row in _rows(batch, e)]
    _write_lines(out / "trajectories.jsonl", (r["record"] for r in rows))
    kept = [r for r in rows if units.keep(r)]
    exports = _export(out / "export", kept, cfg.formats, cfg.styles, cfg.eval_fraction)
    rep = report.build_report(batch, requests, envs, rows, exports)
    report.write(out, rep, _write)
    return rep


# Temporary files of the atomic writers (fsaccess, training.export, the report's plots).
_STALE = (".*.tmp", "*.jsonl.tmp", "*.tmp.png")


def _clear_stale(out: Path) -> None:
    """Remove what a writer killed mid-file left (the batch is locked: none is running)."""
    for pattern in _STALE:
        for stale in out.rglob(pattern):
            if stale.is_file() and not stale.is_symlink():
                stale.unlink(missing_ok=True)


def _rows(batch: Batch, env: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for rid, _ in run_ids(batch, env):
        row = batch.runs.get(rid)
        if row is not None:
            judged = batch.judged.get(rid) if batch.judged is not None else None
            out.append({**row, "judge": judged} if judged else row)
    return out


def _outcome(batch: Batch, r: Request, used: set[str]) -> str:
    b = batch.build_of(r)
    if b is None:
        return "not_built"
    if b.get("error"):
        return str(b["error"])
    if not b["valid"]:
        return "invalid"
    if b["framework_id"] in used:
        return "used"
    t = batch.tasks_of(b)
    return "too_few_tasks" if t and len(t["tasks"]) < batch.config.tasks_per_env else "unused"


def _export(folder: Path, kept: Sequence[dict[str, Any]], formats: Sequence[str],
            styles: Sequence[str], eval_fraction: float) -> list[dict[str, Any]]:
    from a4a.training.data import is_held_out
    from a4a.training.export import export_runs

    split = {"train": [r["record"] for r in kept
                       if not is_held_out(r["framework_id"], eval_fraction)],
             "eval": [r["record"] for r in kept if is_held_out(r["framework_id"], eval_fraction)]}
    made = []
    for part, records in split.items():
        src = folder / f"runs.{part}.jsonl"
        _write_lines(src, records)
        for fmt in formats:
            for style in styles:
                rep = export_runs(src, folder / f"{fmt}.{style}.{part}.jsonl", fmt, style)
                made.append({"split": part, "runs": len(records), **rep.to_dict(),
                             "out": str(Path(rep.out).relative_to(folder.parent))})
    return made


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fsaccess.write_text(path, text)


def _write_lines(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    _write(path, "".join(json.dumps(r, sort_keys=True, ensure_ascii=False,
                                    separators=(",", ":")) + "\n" for r in rows))
