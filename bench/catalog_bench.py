"""Catalog at scale: ingest rate, search and list latency at 10,000 and 100,000 entries.

How the entries are made: every request of the benign corpus is compiled for real (a few
seeds each) and turned into a catalog entry (WL hashes and all); those real entries are
then cloned with fresh ids, names and request texts (each request gets a phrase of another
appended, so the text index sees varied documents), and spread over a year of creation
times. Ingest is timed over all of them, in batches of 1,000 per transaction, into a fresh
database; searches and lists are timed through `Catalog.query`, results decoded into entries.

Usage: python bench/catalog_bench.py [--sizes 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from a4a.api import build
from a4a.catalog.entry import Entry, entry_from_dir, entry_from_spec
from a4a.catalog.query import Query
from a4a.catalog.store import Catalog
from a4a.generator.pipeline import compile_request

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "requests_benign.yaml"
STOP = set("a an the and or of to for that with who which in on by it its is are be as "
           "from into their them then each every".split())


def real_entries(texts: list[str], seeds: int) -> tuple[list[Entry], float]:
    """Compile every request for `seeds` seeds; returns entries and the derive rate (1/s)."""
    compiled = [compile_request(t, s) for s in range(seeds) for t in texts]
    start = time.perf_counter()
    out = [entry_from_spec(c.spec, c.framework_id, c.issues, source="build", path=None)
           for c in compiled]
    return out, len(out) / (time.perf_counter() - start)


def synthesize(real: list[Entry], n: int, texts: list[str]) -> list[Entry]:
    """`n` entries cloned from the real ones with new ids, names, texts and times."""
    rng = random.Random(7)
    t0 = time.time() - 365 * 86400
    out = []
    for i in range(n):
        base = real[i % len(real)]
        words = texts[rng.randrange(len(texts))].split()
        k = rng.randrange(len(words))
        extra = " ".join(words[k:k + rng.randint(3, 6)])
        out.append(dataclasses.replace(
            base, id=hashlib.sha256(f"synthetic {i}".encode()).hexdigest()[:16],
            name=f"{base.name}-{i}"[:64], request=f"{base.request} {extra}",
            created=t0 + i * (365 * 86400 / n), source="synthetic"))
    return out


def queries(texts: list[str], n: int) -> list[str]:
    """Search texts a user might type: one word, two words, or a prefix being typed."""
    rng = random.Random(11)
    vocab = [w for t in texts for w in re.findall(r"[a-z]+", t.lower())
             if w not in STOP and len(w) > 2]
    out = []
    for i in range(n):
        w1, w2 = rng.choice(vocab), rng.choice(vocab)
        out.append([w1 + " ", f"{w1} {w2} ", w1[:4]][i % 3])
    return out


def median_ms(cat: Catalog, qs: list[Query]) -> tuple[float, float]:
    """Median and 95th-percentile wall time of `cat.query` over `qs`, in ms."""
    times = []
    for q in qs:
        start = time.perf_counter()
        cat.query(q)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def bench_size(size: int, real: list[Entry], texts: list[str], n_queries: int
               ) -> dict[str, str]:
    """Ingest `size` entries into a fresh catalog and time searches and lists."""
    entries = synthesize(real, size, texts)
    with tempfile.TemporaryDirectory() as tmp, Catalog(Path(tmp) / "catalog.db") as cat:
        start = time.perf_counter()
        cat.add_many(entries)
        ingest = size / (time.perf_counter() - start)
        patterns = [p for p, _ in cat.facets()["pattern"]]
        domains = [d for d, _ in cat.facets()["domain"]]
        search = median_ms(cat, [Query(text=t) for t in queries(texts, n_queries)])
        lists = {
            "list, newest first": [Query()] * 50,
            "list, page 50": [Query(offset=980)] * 50,
            "list --pattern": [Query(pattern=p) for p in patterns] * 4,
            "list --domain": [Query(domain=d) for d in domains] * 2,
            "list --min-agents 5 --has-cycle": [Query(min_agents=5, has_cycle=True)] * 50,
            "search + --pattern": [Query(text=t, pattern=patterns[i % len(patterns)])
                                   for i, t in enumerate(queries(texts, n_queries))],
        }
        out = {"ingest (entries/s, batches of 1,000)": f"{ingest:,.0f}",
               "search p50 / p95 (ms)": f"{search[0]:.1f} / {search[1]:.1f}"}
        for name, qs in lists.items():
            p50, p95 = median_ms(cat, qs)
            out[f"{name} p50 / p95 (ms)"] = f"{p50:.1f} / {p95:.1f}"
        sample = entries[: 50]
        sim = []
        for e in sample:
            s = time.perf_counter()
            cat.similar(e)
            sim.append((time.perf_counter() - s) * 1000)
        out["similar p50 (ms)"] = f"{statistics.median(sim):.1f}"
        out["database size (MB)"] = f"{(Path(tmp) / 'catalog.db').stat().st_size / 1e6:.0f}"
    return out


def disk_rate(texts: list[str]) -> tuple[float, float]:
    """`a4a catalog add DIR` rate and in-build registration rate, over 100 written dirs."""
    with tempfile.TemporaryDirectory() as tmp, Catalog(Path(tmp) / "c.db") as cat:
        dirs = []
        results = []
        for i, t in enumerate(texts[:100]):
            results.append(build(t, out=Path(tmp) / str(i)))
            dirs.append(Path(tmp) / str(i))
        start = time.perf_counter()
        for d in dirs:
            cat.add(entry_from_dir(d))
        from_dir = len(dirs) / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp, Catalog(Path(tmp) / "c.db") as cat:
        start = time.perf_counter()
        for r in results:
            cat.add(entry_from_spec(r.spec, r.id, r.issues, source="build", path=r.path))
        in_build = len(results) / (time.perf_counter() - start)
    return from_dir, in_build


def main() -> None:
    """Run the benchmark and print its figures side by side."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    texts = yaml.safe_load(CORPUS.read_text())["requests"]
    real, derive = real_entries(texts, args.seeds)
    from_dir, in_build = disk_rate(texts)
    print(f"{len(real)} real frameworks compiled from {len(texts)} requests x {args.seeds} seeds")
    print(f"entry from an in-memory spec (WL hashes, counts): {derive:,.0f} entries/s")
    print(f"register in a build (entry + one-transaction insert): {in_build:,.0f} frameworks/s")
    print(f"`a4a catalog add DIR` (read, validate, hash, insert): {from_dir:,.0f} frameworks/s")
    results = {size: bench_size(size, real, texts, args.queries) for size in args.sizes}
    keys = list(next(iter(results.values())))
    width = max(len(k) for k in keys)
    print(f"\n{'':{width}}  " + "  ".join(f"{s:>14,}" for s in args.sizes))
    for k in keys:
        print(f"{k:{width}}  " + "  ".join(f"{results[s][k]:>14}" for s in args.sizes))


if __name__ == "__main__":
    main()
