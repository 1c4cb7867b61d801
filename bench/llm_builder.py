"""The LLM-backed builders against the loopback fake server: builds/s and LLM calls per build.

Rows, side by side: a model whose first proposal is valid, one that needs one repair round,
one that never gets valid (falls back to the rules after K rounds), each at several repair
budgets K and thread concurrencies; and a replay row, where every answer comes from the DSPy
cache. The server answers with a fixed latency (a stand-in for the model's time); each build
is verified by running (oracle on its tasks, a fake-model smoke run). Medians over --rounds
(each row aggregates --builds builds). The fake's request count is checked against the
builders' own ledger on every row.

Usage: python bench/llm_builder.py [--builds 4] [--rounds 1] [--concurrency 1 4]
    [--k 1 3] [--latency-s 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from a4a.generator.llm.builder import LLMOptions, build_llm
from a4a.generator.llm.engine import prepare_env
from a4a.generator.llm.fakes import DraftModel
from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models

TEXTS = ["a team that triages GitHub issues", "a support desk that answers customer tickets",
         "an assistant that books travel and hotels", "a crew that reconciles invoices",
         "agents that plan a marketing campaign on social media",
         "a recruiting team that screens candidates", "an incident response on-call team",
         "a research team that summarises news"]


def _ghost(inputs: dict[str, str]) -> dict[str, Any]:
    draft = json.loads(inputs["draft"])
    ghost = {"source": draft["entry"], "target": "ghost", "kind": "delegate"}
    return {"entry": draft["entry"], "edges": [*draft["edges"], ghost]}


def _fixed(inputs: dict[str, str]) -> dict[str, Any]:
    draft = json.loads(inputs["draft"])
    return {"entry": draft["entry"], "edges": [e for e in draft["edges"]
                                               if e["target"] != "ghost"]}


SCENARIOS: dict[str, Callable[[], list[Any]]] = {
    "valid first": lambda: [],
    "one repair": lambda: [_ghost, _fixed],
    "never valid": lambda: [_ghost] * 99,
}


class Router:
    """One DraftModel per request text, so concurrent builds keep their own scripts."""

    def __init__(self, script: Callable[[], list[Any]]) -> None:
        self.script = script
        self.models: dict[str, DraftModel] = {}

    def responder(self, body: dict[str, Any]) -> Any:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        text = next(t for t in TEXTS if t in user)
        model = self.models.setdefault(text, DraftModel(overrides={"framework": self.script()}))
        return model.responder(body)


def run_row(scenario: str, k: int, concurrency: int, builds: int, latency: float,
            cache: Path, replay: bool = False) -> dict[str, Any]:
    """Build `builds` requests (distinct texts) with `concurrency` threads; one row."""
    router = Router(SCENARIOS[scenario])
    prepare_env(cache)  # opening DSPy's disk cache is a one-off cost per process, not timed
    with FakeOpenAIServer(responder=router.responder, latency_s=latency) as server:
        opts = LLMOptions("openai:fake-model", base_url=server.base_url, rounds=k,
                          cache_dir=cache)
        texts = [TEXTS[i % len(TEXTS)] for i in range(builds)]
        started = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            reports = [r for _, r in pool.map(lambda t: build_llm(t, 0, opts), texts)]
        wall = time.perf_counter() - started
    calls = sum(r.ledger.calls for r in reports)
    assert calls == server.stats.requests, (calls, server.stats.requests)
    return {"scenario": "replay (cache)" if replay else scenario, "k": k,
            "concurrency": concurrency, "builds_per_s": builds / wall,
            "calls_per_build": calls / builds,
            "fallbacks": sum(1 for r in reports if r.fallback),
            "verified": sum(1 for r in reports if r.verification and r.verification.ok)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--builds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1, help="timing rounds per row")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--k", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--latency-s", type=float, default=0.05)
    args = parser.parse_args()
    os.environ.setdefault("A4A_HOME", tempfile.mkdtemp(prefix="a4a-bench-home-"))
    print(f"{'scenario':<16}{'K':>3}{'conc':>6}{'builds/s':>10}{'calls/build':>13}"
          f"{'fallbacks':>11}{'verified':>10}")
    with allow_real_models():
        build_llm(TEXTS[0], 0, LLMOptions("openai:x", backend=DraftModel().backend(),
                                          cache_dir=Path(tempfile.mkdtemp())))  # warm-up
        for scenario in SCENARIOS:
            for k in args.k:
                for conc in args.concurrency:
                    rows = [run_row(scenario, k, conc, args.builds, args.latency_s,
                                    Path(tempfile.mkdtemp(prefix="a4a-bench-cache-")))
                            for _ in range(args.rounds)]
                    _print(rows)
        cache = Path(tempfile.mkdtemp(prefix="a4a-bench-cache-"))
        run_row("one repair", 3, 1, args.builds, args.latency_s, cache)
        for conc in args.concurrency:
            _print([run_row("one repair", 3, conc, args.builds, args.latency_s, cache,
                            replay=True) for _ in range(args.rounds)])


def _print(rows: list[dict[str, Any]]) -> None:
    r = rows[0]
    rate = statistics.median(x["builds_per_s"] for x in rows)
    print(f"{r['scenario']:<16}{r['k']:>3}{r['concurrency']:>6}{rate:>10.2f}"
          f"{r['calls_per_build']:>13.1f}{r['fallbacks']:>11}{r['verified']:>10}", flush=True)


if __name__ == "__main__":
    main()
