"""Tasks per framework on the generation corpus: how many verifiable tasks each compiled
framework gets, and whether the oracle solves each one through the real runtime.

Every request of tests/data/generation/ (tuning.yaml and heldout.yaml) is compiled with the
rule-based compiler (generator.pipeline.compile_request); refused builds do not count. For each
framework, up to N tasks are synthesized (runtime.world.synthesis.synthesize, as `a4a tasks`
and the synth batch do) and each is run with the oracle policy (runtime.engine.oracle) through
runtime.engine.run; the reward is runtime.world.rewards.score's composite.

Printed per split: frameworks built, those with >= 3 tasks (%), tasks, tasks the oracle solves
with reward 1.0 (%), and the tasks by family (the packs' templates, lookups derived from held
read operations, arithmetic questions for frameworks without world tools). Held-out cases are
reported as aggregate counts only; --show-failures lists tuning cases only.

Usage: python bench/corpus_tasks.py [--split both|tuning|heldout] [--n N] [--limit K]
           [--show-failures] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.generation_quality import SPLITS, load_cases

FLOOR = 3  # tasks a framework needs


@dataclass
class Outcome:
    """What one request's framework got: its tasks and how many the oracle solved."""

    id: str
    refused: bool = False
    pattern: str = ""
    domains: tuple[str, ...] = ()
    tasks: int = 0
    solved: int = 0
    failed: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)  # pack templates, lookups, arithmetic


def oracle_reward(spec: Any, task: Any) -> float:
    """The composite reward of the oracle on `task`, run through the real runtime."""
    from a4a.runtime.engine.oracle import OracleLLM
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.engine.trace import FixedClock
    from a4a.runtime.world.rewards import score

    llm = OracleLLM(spec, task.plan, task.checker["answer"])
    record = asyncio.run(run_framework(spec, task.query, llm, RunOptions(
        clock=FixedClock(), seed=task.world_seed, task_id=task.id, policy=llm.name)))
    return float(score(json.loads(task.to_json()), json.loads(record.to_json()))["composite"])


def measure(case: dict[str, Any], n: int, seed: int = 0) -> Outcome:
    """Compile one request, synthesize up to `n` tasks and run the oracle on each."""
    from a4a.generator.pipeline import compile_request
    from a4a.runtime.world.synthesis import synthesize

    out = Outcome(case["id"])
    try:
        spec = compile_request(case["request"]).spec
    except Exception:  # a refusal or an unusable request: not a framework
        out.refused = True
        return out
    out.pattern = spec.pattern
    out.domains = tuple(spec.environment.domains if spec.environment else ())
    made = synthesize(spec, n, seed)
    out.tasks = len(made)
    out.sources = dict(Counter(_source(t.template) for t in made))
    for task in made:
        if oracle_reward(spec, task) >= 1.0:
            out.solved += 1
        else:
            out.failed.append(task.id)
    return out


def _source(template: str) -> str:
    """Which family a task came from."""
    from a4a.runtime.world.derived import is_derived

    if not is_derived(template):
        return "pack template"
    return "arithmetic" if template == "arithmetic" else "lookup"


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Aggregate counts of one split."""
    built = [o for o in outcomes if not o.refused]
    enough = sum(1 for o in built if o.tasks >= FLOOR)
    tasks = sum(o.tasks for o in built)
    solved = sum(o.solved for o in built)
    return {"requests": len(outcomes), "built": len(built), "enough": enough,
            "enough_pct": round(100 * enough / len(built), 1) if built else None,
            "tasks": tasks, "solved": solved,
            "solved_pct": round(100 * solved / tasks, 1) if tasks else None,
            "sources": dict(sum((Counter(o.sources) for o in built), Counter())),
            "short_by_pattern": dict(Counter(o.pattern for o in built if o.tasks < FLOOR)),
            "short_no_pack": sum(1 for o in built if o.tasks < FLOOR and not o.domains)}


def main(argv: list[str] | None = None) -> int:
    """Measure and print; exit status 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("both", *SPLITS), default="both")
    ap.add_argument("--n", type=int, default=5, help="tasks asked per framework")
    ap.add_argument("--limit", type=int, default=0, help="first K cases of each split")
    ap.add_argument("--show-failures", action="store_true", help="tuning cases only")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    splits = SPLITS if args.split == "both" else (args.split,)
    report = {}
    for split in splits:
        cases = load_cases(split)[: args.limit or None]
        outcomes = [measure(c, args.n) for c in cases]
        report[split] = summary(outcomes)
        if args.show_failures and split == "tuning":
            for o in outcomes:
                if not o.refused and (o.tasks < FLOOR or o.failed):
                    print(json.dumps(asdict(o), ensure_ascii=False))
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    print(f"{'split':8s} {'built':>6s} {'>=3 tasks':>14s} {'tasks':>6s} {'oracle 1.0':>16s}")
    for split, r in report.items():
        print(f"{split:8s} {r['built']:6d} {r['enough']:6d} ({r['enough_pct']:5.1f}%) "
              f"{r['tasks']:6d} {r['solved']:6d} ({r['solved_pct'] or 0:5.1f}%)")
        print(f"         tasks by family: {r['sources']}")
        print(f"         short of {FLOOR}: by pattern {r['short_by_pattern']}, "
              f"no pack {r['short_no_pack']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
