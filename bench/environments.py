"""Figures of the verifiable environments: oracle, no-op and random-tool rewards over the
generated tasks of every domain pack and of frameworks compiled from the request corpus,
and how often breaking one gold call lowers the reward.

Usage: python bench/environments.py
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.runtime.test_tasks import (
    PACKS,
    FunctionLLM,
    _noop,
    _random_policy,
    oracle,
    pack_framework,
    run,
    synthesize,
)


def main() -> None:
    """Run every policy on every task and print the figures."""
    from a4a.generator.pipeline import compile_request
    from tests.conftest import load_data

    tasks = [(pack_framework(p), t) for p in PACKS for t in synthesize(pack_framework(p), 12, 1)]
    texts = load_data("requests_benign.yaml")["requests"]
    gen = [(s, t) for x in texts for s in [compile_request(x).spec] for t in synthesize(s, 3, 2)]
    both = tasks + gen
    print(f"tasks: {len(tasks)} on the {len(PACKS)} packs' frameworks + {len(gen)} on "
          f"{len({s.name for s, _ in gen})} compiled frameworks "
          f"({len({s.pattern for s, _ in gen})} patterns); difficulties "
          f"{dict(Counter(t.difficulty for _, t in both))}")
    for name, policy in (("oracle", lambda s, t, i: oracle(s, t)),
                         ("no-op", lambda s, t, i: FunctionLLM(_noop)),
                         ("random tools", lambda s, t, i: _random_policy(i))):
        scores = [run(s, t, policy(s, t, i))["composite"] for i, (s, t) in enumerate(both)]
        perfect = sum(1 for x in scores if x >= 1.0)
        print(f"{name:13s} mean composite {statistics.mean(scores):.3f}, "
              f"reward 1.0 on {perfect}/{len(scores)}")
    lowered = total = 0
    for s, t in tasks:
        for i, step in enumerate(t.plan):
            variants = [t.plan[:i] + t.plan[i + 1:]]
            if step["args"]:
                key = sorted(step["args"])[0]
                bad = [dict(x) for x in t.plan]
                bad[i] = {**step, "args": {**step["args"], key: "ALTERED-999"}}
                variants.append(bad)
            for plan in variants:
                total += 1
                lowered += run(s, t, oracle(s, t, plan))["composite"] < 1.0
    print(f"dropping or altering one gold call lowered the reward in {lowered}/{total} cases")


if __name__ == "__main__":
    main()
