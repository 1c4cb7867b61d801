"""Where a batch's CPU-bound units run: this process, a local process pool, or a Ray cluster.

Every engine maps a unit function over argument tuples and yields the results as units
finish; the caller journals each one. Results depend only on the arguments, never on the
engine or the order of completion, so every engine produces the same outputs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any, Protocol

from a4a.runtime.errors import UserError

ENGINES = ("local", "ray")


class Engine(Protocol):
    """Runs units of work; results arrive in completion order."""

    name: str

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """Run `fn(*args)` for each args tuple; yield each result as it is ready."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class LocalEngine:
    """A process pool of `workers` processes (in this process when `workers` is 1)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """See Engine.map; at most `2 * workers` units are queued ahead of the results."""
        if self.workers == 1 or len(jobs) <= 1:
            for args in jobs:
                yield fn(*args)
            return
        if self._pool is None:
            import multiprocessing

            self._pool = ProcessPoolExecutor(self.workers,
                                             mp_context=multiprocessing.get_context("fork"),
                                             initializer=die_with_parent,
                                             initargs=(os.getpid(),))
        pool, queue = self._pool, iter(jobs)
        pending: set[Future[Any]] = {pool.submit(fn, *a) for a in islice(queue, 2 * self.workers)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                pending.update(pool.submit(fn, *a) for a in islice(queue, 1))
                yield fut.result()

    def close(self) -> None:
        """Shut the pool down."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def die_with_parent(parent: int) -> None:
    """Make a pool worker end when the batch process does (a kill -9 leaves no orphans).

    On Linux the kernel delivers SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere
    a daemon thread polls the parent's pid.
    """
    import ctypes
    import signal
    import threading

    try:
        armed = ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) == 0
    except (OSError, AttributeError):  # not Linux: PR_SET_PDEATHSIG does not exist
        armed = False
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


class RayEngine:
    """Ray tasks on a cluster (`address`), or on a local instance of `workers` CPUs."""

    name = "ray"

    def __init__(self, workers: int, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as err:
            raise UserError("engine.ray_missing", "the ray engine needs the ray package",
                            "Install the extra: pip install 'a4a[ray]'.") from err
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        self._ray = ray
        self._tmp = None if address else tempfile.mkdtemp(prefix="a4a-ray-")
        opts: dict[str, Any] = {"address": address, "include_dashboard": False,
                                "log_to_driver": False, "ignore_reinit_error": True}
        if not address:
            opts.update(num_cpus=max(1, workers), _temp_dir=self._tmp)
        ray.init(**opts)
        self._remote: dict[Callable[..., Any], Any] = {}

    def map(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """See Engine.map."""
        if fn not in self._remote:
            self._remote[fn] = self._ray.remote(fn)
        remote = self._remote[fn]
        refs = [remote.remote(*args) for args in jobs]
        while refs:
            done, refs = self._ray.wait(refs, num_returns=1)
            yield self._ray.get(done[0])

    def close(self) -> None:
        """Leave the cluster (and stop a local instance, removing its files)."""
        self._ray.shutdown()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


def make_engine(name: str, workers: int, address: str | None = None) -> Engine:
    """The engine called `name`.

    Raises:
        UserError: `engine.unknown`, or `engine.ray_missing` without the ray package.
    """
    if name == "local":
        return LocalEngine(workers)
    if name == "ray":
        return RayEngine(workers, address)
    raise UserError("engine.unknown", f"unknown engine {name!r}",
                    f"Pick one of: {', '.join(ENGINES)}.")
