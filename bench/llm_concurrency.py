"""Concurrent single-call runs through OpenAIBackend against the loopback fake server.

With a fixed server latency L, N fully parallel requests ideally take L: efficiency is
L / measured wall time. Rows, side by side: a bare asyncio HTTP client (the floor the server
and the kernel set), OpenAIBackend, and OpenAIBackend behind RetryingLLM. The server runs in
its own process, as a real one would. Medians over rounds after one warm-up round; the
client's CPU per request is printed too, since it sets the ceiling: N requests cannot finish
before N times that CPU has been spent on one event loop.

Usage: python bench/llm_concurrency.py [--requests 512] [--latency-s 0.2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from a4a.runtime.llm.base import LLM, LLMRequest, Message
from a4a.runtime.llm.guard import allow_real_models
from a4a.runtime.llm.openai_backend import OpenAIBackend
from a4a.runtime.llm.retry import CallLedger, RetryingLLM

Round = Callable[[int], Awaitable[None]]


def _request(i: int) -> LLMRequest:
    return LLMRequest((Message("system", "be brief"), Message("user", f"question {i}")))


async def _raw_round(url: str, n: int) -> None:
    parts = urlsplit(url)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    head = (f"POST {parts.path}/chat/completions HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()

    async def one() -> None:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(head + body)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode().lower().split("\r\n")
        size = next(int(x.split(":")[1]) for x in lines if x.startswith("content-length"))
        await reader.readexactly(size)
        writer.close()
        await writer.wait_closed()

    await asyncio.gather(*(one() for _ in range(n)))


async def _llm_round(llm: LLM, n: int) -> None:
    answers = await asyncio.gather(*(llm.complete(_request(i)) for i in range(n)))
    if len(answers) != n:
        raise RuntimeError("lost answers")


async def _measure(run: Round, n: int, rounds: int) -> tuple[float, float]:
    """Median wall seconds of a round, and median client CPU seconds per request."""
    await run(n)  # warm-up: imports, connections
    walls, cpus = [], []
    for _ in range(rounds):
        cpu, start = time.process_time(), time.perf_counter()
        await run(n)
        walls.append(time.perf_counter() - start)
        cpus.append((time.process_time() - cpu) / n)
    return statistics.median(walls), statistics.median(cpus)


async def _bench(url: str, n: int, rounds: int) -> list[tuple[str, tuple[float, float]]]:
    rows = [("bare asyncio client", await _measure(lambda k: _raw_round(url, k), n, rounds))]
    async with OpenAIBackend("m", base_url=url, api_key="EMPTY", max_concurrency=n) as backend:
        rows.append(("OpenAIBackend", await _measure(
            lambda k: _llm_round(backend, k), n, rounds)))
        ledger = CallLedger()
        retrying = RetryingLLM(backend, ledger=ledger)
        rows.append(("RetryingLLM(OpenAIBackend)", await _measure(
            lambda k: _llm_round(retrying, k), n, rounds)))
        if ledger.attempts != n * (rounds + 1):
            raise RuntimeError(f"ledger {ledger.attempts} != {n * (rounds + 1)} requests")
    return rows


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=512)
    parser.add_argument("--latency-s", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "a4a.runtime.llm.fakeserver", "--latency-s", str(args.latency_s)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = (server.stdout.readline() if server.stdout else "").strip()
        with allow_real_models():
            rows = asyncio.run(_bench(url, args.requests, args.rounds))
    finally:
        if server.stdin:
            server.stdin.close()
        server.wait(10)
    print(f"{args.requests} concurrent requests, server latency {args.latency_s * 1000:.0f} ms, "
          f"median of {args.rounds} rounds (ideal {args.latency_s * 1000:.0f} ms)")
    for name, (wall, cpu) in rows:
        print(f"  {name:28s} {wall * 1000:7.0f} ms  {args.requests / wall:7.0f} req/s  "
              f"efficiency {args.latency_s / wall:4.0%}  client CPU {cpu * 1000:.2f} ms/req")


if __name__ == "__main__":
    main()
