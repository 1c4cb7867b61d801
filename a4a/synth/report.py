"""The per-batch report: validity, coverage, shape, diversity, rewards, drops, cost, speed.

report.json holds the figures; report.md shows them as tables, with PNG plots under plots/
when matplotlib is installed (the train extra). Everything above the Throughput section
depends only on the batch's config and seed; Throughput describes the invocation that wrote
the report.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from a4a.generator.requests import Request
from a4a.synth.units import keep

Writer = Callable[[Path, str], None]
REWARD_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def build_report(batch: Any, requests: Sequence[Request], envs: Sequence[dict[str, Any]],
                 rows: Sequence[dict[str, Any]], exports: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    """The report's figures."""
    cfg = batch.config
    builds = [batch.build_of(r) for r in requests]
    built = [b for b in builds if b]
    valid = [b for b in built if b["valid"]]
    by_req = {r.id: r for r in requests}
    rewards = [r["record"]["rewards"]["composite"] for r in rows]
    kept = [r for r in rows if keep(r)]
    return {
        "config": cfg.to_dict(),
        "requests": {"drawn": len(requests), "built": len(built),
                     "refused": Counter(b["error"] for b in built if b.get("error")),
                     "valid": len(valid), "validity_rate": _rate(len(valid), len(requests)),
                     "environments": len(envs),
                     "pattern_as_requested": _rate(sum(
                         1 for e in envs if by_req[e["request"]].pattern in ("", e["pattern"])),
                         len(envs))},
        "patterns": _sorted(Counter(e["pattern"] for e in envs)),
        "domains": _sorted(Counter(d for e in envs for d in e["domains"])),
        "graph_sizes": dict(sorted(Counter(e["agents"] for e in envs).items())),
        "structure": {"distinct_shapes": len({e["wl_hash"] for e in envs}),
                      "environments": len(envs),
                      "diversity": _rate(len({e["wl_hash"] for e in envs}), len(envs))},
        "runs": {"total": len(rows), "statuses": _sorted(Counter(r["record"]["status"]
                                                                 for r in rows)),
                 "reward_mean": round(sum(rewards) / len(rewards), 4) if rewards else None,
                 "reward_histogram": _histogram(rewards),
                 "perfect": sum(1 for x in rewards if x >= 1.0)},
        "filter": {"kept": len(kept), "dropped": len(rows) - len(kept),
                   "reasons": _sorted(Counter(x for r in rows for x in r["verdict"]["reasons"])),
                   "judge_dropped": sum(1 for r in rows if not (r.get("judge") or {}).get(
                       "keep", True)),
                   "tags": _sorted(Counter(x for r in rows for x in r["verdict"]["tags"]))},
        "cost": _cost(rows),
        "exports": exports,
        "throughput": _throughput(batch.session),
    }


def _rate(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def _sorted(c: Counter[Any]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))}


def _histogram(values: Sequence[float]) -> dict[str, int]:
    out = {f"{lo:.1f}-{hi:.1f}": 0 for lo, hi in pairwise(REWARD_BINS)}
    keys = list(out)
    for v in values:
        out[keys[min(int(max(v, 0.0) / 0.2), len(keys) - 1)]] += 1
    return out


def _cost(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for r in rows:
        total.update({k: v for k, v in r["record"]["counts"].items() if isinstance(v, int)})
    return dict(sorted(total.items()))


def _throughput(session: Any) -> dict[str, Any]:
    out = {}
    for stage, secs in session.seconds.items():
        n = session.done.get(stage, 0)
        out[stage] = {"units": n, "seconds": round(secs, 3),
                      "per_second": round(n / secs, 2) if secs > 0 else None}
    return out


def write(out: Path, rep: dict[str, Any], writer: Writer) -> None:
    """report.json, report.md and the plots."""
    writer(out / "report.json", json.dumps(rep, indent=2, sort_keys=True) + "\n")
    plots = _plots(out / "plots", rep)
    writer(out / "report.md", markdown(rep, plots))


def markdown(rep: dict[str, Any], plots: Sequence[str] = ()) -> str:
    """The report as Markdown."""
    req, runs, filt, st = rep["requests"], rep["runs"], rep["filter"], rep["structure"]
    lines = [
        "# Batch report", "",
        f"Config: `{json.dumps(rep['config'], sort_keys=True)}`", "",
        "## Environments", "",
        "| requests drawn | built | valid | validity rate | environments used | "
        "pattern as requested |", "|---|---|---|---|---|---|",
        f"| {req['drawn']} | {req['built']} | {req['valid']} | {req['validity_rate']:.1%} "
        f"| {req['environments']} | {req['pattern_as_requested']:.1%} |", "",
        f"Refused requests: {_inline(req['refused'])}. Structural diversity: "
        f"{st['distinct_shapes']} distinct graph shapes (Weisfeiler-Lehman hash) over "
        f"{st['environments']} environments ({st['diversity']:.1%}).", "",
        *_table("Patterns", "pattern", rep["patterns"]),
        *_table("Domains", "domain", rep["domains"]),
        *_table("Graph sizes", "agents", rep["graph_sizes"]),
        "## Runs", "",
        f"{runs['total']} runs; statuses: {_inline(runs['statuses'])}; mean composite "
        f"reward {runs['reward_mean']}; {runs['perfect']} scored 1.0.", "",
        *_table("Reward distribution", "composite", runs["reward_histogram"]),
        "## Quality filter", "",
        f"Kept {filt['kept']}, dropped {filt['dropped']} (judge: {filt['judge_dropped']}).",
        "",
        *_table("Drops per reason", "reason", filt["reasons"] or {"(none)": 0}),
        *_table("Tags (kept runs)", "tag", filt["tags"] or {"(none)": 0}),
        *_table("Cost", "counter", rep["cost"], "##"),
        "## Exports", "", "| file | split | runs | samples |", "|---|---|---|---|",
        *[f"| {e['out']} | {e['split']} | {e['runs']} | {e['samples']} |"
          for e in rep["exports"]], "",
        *[f"![{Path(p).stem}]({p})" for p in plots], *([""] if plots else []),
        "## Throughput (this invocation)", "",
        "| stage | units | seconds | units/s |", "|---|---|---|---|",
        *[f"| {k} | {v['units']} | {v['seconds']} | {v['per_second']} |"
          for k, v in rep["throughput"].items()], "",
    ]
    return "\n".join(lines)


def _inline(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _table(title: str, key: str, counts: dict[Any, int], level: str = "###") -> list[str]:
    return [f"{level} {title}", "",
            f"| {key} | count |", "|---|---|",
            *[f"| {k} | {v} |" for k, v in counts.items()], ""]


def _plots(folder: Path, rep: dict[str, Any]) -> list[str]:
    """Bar charts of the distributions; none without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    charts = {"patterns": rep["patterns"], "domains": rep["domains"],
              "graph_sizes": {str(k): v for k, v in rep["graph_sizes"].items()},
              "rewards": rep["runs"]["reward_histogram"]}
    for name, counts in charts.items():
        fig, ax = plt.subplots(figsize=(8, 3.5))
        ax.bar(list(counts), list(counts.values()), color="#4a7bb7")
        ax.set_title(name.replace("_", " "))
        ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        fig.tight_layout()
        tmp = folder / f"{name}.tmp.png"
        fig.savefig(tmp, metadata={"Software": None})
        plt.close(fig)
        tmp.replace(folder / f"{name}.png")
        made.append(f"plots/{name}.png")
    return made
