"""The catalog web server under load and abuse, on loopback, with its default limits.

The server runs in its own process over a catalog of a few built frameworks and a few
hundred synthetic entries. Phase 1 sends `--requests` requests paced evenly over
`--seconds` (open loop: latency counts from the moment a request was due, so a stalled
server cannot hide behind slow clients), a mix of pages, API calls, files, assets and abuse
(40-parameter queries, over-long request lines, traversal probes). Phase 2 opens `--idle`
connections that never send a byte, then sends more requests and checks each is answered;
finally it waits out the read timeout and counts the idle connections the server closed.
Figures: p50/p99/max latency, statuses, and whether the server stayed up.

Usage: python bench/web_abuse.py [--requests 2000] [--seconds 20] [--idle 400] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

SERVE = ("import sys; from pathlib import Path; "
         "from a4a.catalog.web.server import make_server; "
         "s = make_server(Path(sys.argv[1]), port=0); "
         "print(s.server_address[1], flush=True); s.serve_forever()")


def make_catalog(folder: Path, synthetic: int) -> tuple[Path, list[str]]:
    """A catalog of three built frameworks and `synthetic` entries; the built ids."""
    import a4a
    from a4a.catalog.entry import entry_from_dir
    from a4a.catalog.store import Catalog

    db = folder / "catalog.db"
    ids = []
    with Catalog(db) as cat:
        for i, text in enumerate(["a team that triages GitHub issues",
                                  "route each support ticket to the right specialist",
                                  "research a topic in parallel and merge the findings"]):
            a4a.build(text, out=folder / f"fw{i}")
            entry = entry_from_dir(folder / f"fw{i}", source="build")
            cat.add(entry)
            ids.append(entry.id)
            cat.add_many(dataclasses.replace(entry, id=f"{i:x}{n:015x}", name=f"{entry.name}-{n}")
                         for n in range(synthetic // 3))
    return db, ids


def targets(ids: list[str]) -> list[str]:
    """The request mix: ordinary pages first, abuse after."""
    a, b = ids[0], ids[1]
    many = "&".join(f"p{i}=x" for i in range(40))
    return ["/", "/?q=support+ticket", "/?page=3", f"/f/{a}", f"/f/{a}/file/README.md",
            f"/api/frameworks/{b}", "/api/frameworks?q=triage&limit=50", f"/diff?a={a}&b={b}",
            "/static/app.js", "/api/frameworks?" + many, "/?q=" + "x" * 5000,
            "/f/../../etc/passwd", "/nowhere"]


def fetch(port: int, target: str, timeout: float = 30.0) -> int:
    """GET `target` on a fresh connection; the status (0 when no answer came)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    except (OSError, ValueError, IndexError):
        return 0


def paced(port: int, mix: list[str], n: int, seconds: float, workers: int = 32
          ) -> dict[str, Any]:
    """`n` requests due evenly over `seconds`; latency from when each was due."""
    start = time.perf_counter() + 0.5
    lat: list[float] = []
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def one(i: int) -> None:
        due = start + i * seconds / n
        time.sleep(max(0.0, due - time.perf_counter()))
        status = fetch(port, mix[i % len(mix)])
        took = time.perf_counter() - due
        with lock:
            lat.append(took)
            statuses[status] += 1

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, range(n)))
    lat.sort()
    return {"requests": n, "seconds": seconds,
            "p50_ms": round(1000 * statistics.median(lat), 1),
            "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 1),
            "max_ms": round(1000 * lat[-1], 1),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "unanswered": statuses.get(0, 0)}


def idle_phase(port: int, mix: list[str], idle: int, n: int, seconds: float,
               read_timeout: float) -> dict[str, Any]:
    """Hold `idle` silent connections open while `n` requests run; then count closes."""
    socks = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(idle)]
    time.sleep(1.0)
    under = paced(port, mix, n, seconds)
    time.sleep(read_timeout + 2.0)
    closed = 0
    for sock in socks:
        sock.settimeout(0.2)
        try:
            closed += sock.recv(1) == b""
        except (TimeoutError, OSError):
            pass
        sock.close()
    return {"idle_connections": idle, "under_idle": under,
            "idle_closed_after_read_timeout": closed}


def main() -> None:
    """Parse arguments, run both phases, print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--idle", type=int, default=400)
    p.add_argument("--synthetic", type=int, default=300)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    from a4a.catalog.web.server import Limits

    with tempfile.TemporaryDirectory() as tmp:
        db, ids = make_catalog(Path(tmp), args.synthetic)
        env = {**os.environ, "A4A_HOME": tmp}
        proc = subprocess.Popen([sys.executable, "-c", SERVE, str(db)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            port = int(proc.stdout.readline())
            mix = targets(ids)
            load = paced(port, mix, args.requests, args.seconds)
            idle = idle_phase(port, mix, args.idle, args.requests // 4, args.seconds / 4,
                              Limits().read_timeout_s)
            alive = fetch(port, "/") == 200 and proc.poll() is None
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=10)
    result = {"load": load, **idle, "server_up_after": alive,
              "server_stderr_lines": len(err.splitlines()),
              "tracebacks": err.count("Traceback")}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    u = idle["under_idle"]
    print(f"load: {load['requests']} requests in {load['seconds']} s: p50 {load['p50_ms']} ms, "
          f"p99 {load['p99_ms']} ms, max {load['max_ms']} ms; statuses {load['statuses']}")
    print(f"with {args.idle} idle connections open: {u['requests']} requests, p50 "
          f"{u['p50_ms']} ms, p99 {u['p99_ms']} ms, unanswered {u['unanswered']}; "
          f"{idle['idle_closed_after_read_timeout']}/{args.idle} idle closed by the server")
    print(f"server up afterwards: {alive}; tracebacks on its stderr: {result['tracebacks']}")


if __name__ == "__main__":
    main()
