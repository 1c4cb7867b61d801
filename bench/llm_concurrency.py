"""Concurrent single-call runs through OpenAIBackend against the loopback fake server.

With a fixed server latency L, N fully parallel requests ideally take L: efficiency is
L / measured wall time. Rows, side by side: a bare asyncio HTTP client (a new connection per
request; the floor the server and the kernel set), and OpenAIBackend behind RetryingLLM (as
the runtime calls it) on each HTTP transport. Each row shards its N requests over W worker
processes, each with its own event loop and backend, released together by a barrier; the
server runs in its own process, as a real one would. Medians over rounds after one warm-up
round. Client CPU per request (all workers) sets the ceiling: a worker cannot finish before
it has spent its share on one core; the server's CPU per request is printed too.

Usage: python bench/llm_concurrency.py [--requests 512 64] [--workers 1 2] [--latency-s 0.2]
    [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from typing import Any
from urllib.parse import urlsplit

from a4a.runtime.llm.base import LLMRequest, Message
from a4a.runtime.llm.guard import allow_real_models
from a4a.runtime.llm.openai_backend import OpenAIBackend
from a4a.runtime.llm.retry import CallLedger, RetryingLLM

CLIENTS = {"bare": "bare asyncio client", "httpx": "OpenAIBackend, httpx",
           "aiohttp": "OpenAIBackend, aiohttp (default)"}
Round = Callable[[int], Awaitable[None]]
WAIT_S = 120  # the longest wait for a worker at the barrier or for its figures


@dataclass(frozen=True)
class Row:
    client: str
    requests: int
    workers: int
    wall_s: float  # median round: first worker's start to last worker's end
    client_cpu_s: float  # median client CPU per request, all workers together
    server_cpu_s: float | None  # server CPU per request over the row, warm-up included


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


async def _worker_rounds(url: str, client: str, n: int, rounds: int,
                         barrier: Barrier) -> list[tuple[float, float, float]]:
    """(start, end, CPU seconds) of each measured round in this worker."""
    backend = OpenAIBackend("m", base_url=url, api_key="EMPTY", max_concurrency=n,
                            http="httpx" if client == "httpx" else "aiohttp")
    ledger = CallLedger()
    retrying = RetryingLLM(backend, ledger=ledger)

    async def llm_round(k: int) -> None:
        if len(await asyncio.gather(*(retrying.complete(_request(i)) for i in range(k)))) != k:
            raise RuntimeError("lost answers")

    run: Round = (lambda k: _raw_round(url, k)) if client == "bare" else llm_round
    out = []
    async with backend:
        await run(n)  # warm-up: imports, connections
        for _ in range(rounds):
            barrier.wait(WAIT_S)  # blocks this idle loop until every worker is ready
            cpu, start = time.process_time(), time.monotonic()
            await run(n)
            out.append((start, time.monotonic(), time.process_time() - cpu))
    if client != "bare" and ledger.attempts != n * (rounds + 1):
        raise RuntimeError(f"ledger {ledger.attempts} != {n * (rounds + 1)} requests")
    return out


def _worker(url: str, client: str, n: int, rounds: int, barrier: Barrier,
            results: Any) -> None:
    with allow_real_models():
        results.put(asyncio.run(_worker_rounds(url, client, n, rounds, barrier)))


def _server_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux /proc); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _row(url: str, server_pid: int, client: str, n: int, workers: int, rounds: int) -> Row:
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(workers), ctx.Queue()
    shares = [n // workers + (w < n % workers) for w in range(workers)]
    procs = [ctx.Process(target=_worker, args=(url, client, k, rounds, barrier, results))
             for k in shares]
    server_before = _server_cpu_s(server_pid)
    for proc in procs:
        proc.start()
    per_worker = [results.get(timeout=WAIT_S) for _ in procs]  # a crashed worker: Empty
    for proc in procs:
        proc.join(10)
    server_after = _server_cpu_s(server_pid)
    server_cpu = (None if server_before is None or server_after is None
                  else (server_after - server_before) / (n * (rounds + 1)))
    walls = [max(w[r][1] for w in per_worker) - min(w[r][0] for w in per_worker)
             for r in range(rounds)]
    cpus = [sum(w[r][2] for w in per_worker) / n for r in range(rounds)]
    return Row(client, n, workers, statistics.median(walls), statistics.median(cpus),
               server_cpu)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, nargs="+", default=[512, 64])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", nargs="+", choices=list(CLIENTS), default=list(CLIENTS))
    parser.add_argument("--latency-s", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "a4a.runtime.llm.fakeserver", "--latency-s", str(args.latency_s)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = (server.stdout.readline() if server.stdout else "").strip()
        rows = [_row(url, server.pid, client, n, workers, args.rounds)
                for n in args.requests for workers in args.workers for client in args.clients]
    finally:
        if server.stdin:
            server.stdin.close()
        server.wait(10)
    print(f"server latency {args.latency_s * 1000:.0f} ms, median of {args.rounds} rounds; "
          f"{os.cpu_count()} cores shared by the server and the workers")
    for row in rows:
        ideal = row.requests / args.latency_s
        server = "n/a" if row.server_cpu_s is None else f"{row.server_cpu_s * 1000:.2f}"
        print(f"  {row.requests:4d} in flight  {row.workers} worker(s)  "
              f"{CLIENTS[row.client]:33s} {row.wall_s * 1000:6.0f} ms  "
              f"{row.requests / row.wall_s:6.0f} req/s of {ideal:.0f}  "
              f"efficiency {args.latency_s / row.wall_s:4.0%}  client CPU "
              f"{row.client_cpu_s * 1000:.2f} ms/req  server CPU {server} ms/req")


if __name__ == "__main__":
    main()
