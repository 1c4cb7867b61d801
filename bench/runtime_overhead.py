"""Agent-loop overhead per step: a4a beside smolagents, LangGraph, OpenAI Agents, pydantic-ai.

Every framework runs the same one-agent tool loop with a zero-latency function model, side by
side in one process, so the time measured is the framework's own loop: message handling, tool
dispatch, argument validation, bookkeeping. No network and no real model anywhere.

The workload, for every framework:

- one agent, one tool `calculator(expression: str)` whose body is a4a's builtin calculator
  (`ast`-parsed arithmetic, about 10 µs), called with `{"expression": "2 + 3"}`;
- the model is a function of the conversation it is sent: while fewer than `TURNS` (10) tool
  results are in it, it answers with one call to `calculator`; then it answers "5";
- so a run makes 11 model calls and 10 calculator calls, and its conversation ends as
  system + user + 10 x (assistant tool call, tool result) + final assistant text (23 messages,
  in each framework's own types);
- "per step" is one model call: a run's time divided by 11, in wall-clock time and in CPU time
  of the process (steadier when the machine is busy). A third figure, the marginal cost of one
  tool turn, is (run with 10 tool turns - run with 0 tool turns) / 10, which takes each
  framework's fixed per-run cost out;
- agents (and compiled graphs) are built once; each timed run starts a fresh conversation;
- async frameworks run inside one long-lived event loop (no loop is created per run);
- before timing, every framework is checked once: the answer is "5" after exactly 10 tool
  calls and 11 model calls; sockets refuse to connect for the whole benchmark.

What each side does (the setups are in bench/overhead_loops.py), and the differences that
cannot be removed:

- a4a: `run_framework` on a one-agent FrameworkSpec (tool `builtin:calculator`,
  max_iterations 20) with a `FunctionLLM`; the answer is plain assistant text. Each run also
  does what every a4a run does: validate the spec (cached), bind tools, check budgets, record
  a full trajectory (every model call with the messages it was sent, every tool call with its
  arguments, result and latency) and return a RunRecord. The tool is synchronous and runs
  inline; its arguments are checked against the tool's JSON Schema.
- smolagents `ToolCallingAgent` (verbosity off, no planning) with a `Model` subclass whose
  `generate` returns a `ChatMessage`. smolagents ends a run only through its `final_answer`
  tool, so the 11th model call is a `final_answer` tool call: 11 tool executions instead of
  10, and its memory renders 3 messages per step (35 in all). The tool is synchronous; a lone
  call per turn runs inline.
- LangGraph `create_react_agent` (langgraph.prebuilt; deprecated in LangGraph 1.x in favour of
  `langchain.agents.create_agent`, which needs the `langchain` package) with a `BaseChatModel`
  subclass that returns `AIMessage`s with `tool_calls` and whose `bind_tools` returns itself;
  the system prompt is the `prompt` argument. Measured twice: `ainvoke` with an async tool
  (the prebuilt agent's sync routing function then runs in a thread once per model call) and
  `invoke` with a sync tool (each tool call then runs in a thread pool).
- OpenAI Agents SDK `Runner.run` (max_turns 20, tracing off in code and by environment) with
  a `Model` subclass whose `get_response` returns Responses-API items (`function_call`, then
  an assistant `message`). The tool is an async `function_tool` (sync ones run in a thread).
- pydantic-ai `Agent.run` with a `FunctionModel` over an async function returning a
  `ToolCallPart`, then a `TextPart`; the tool is an async `tool_plain` (sync ones run in a
  thread, and so would a sync model function).

Medians over interleaved rounds (the machine's other core may be busy); ratios are of medians.
Frameworks that are not installed are reported as missing. Peers install with `make bench-peers`.
Usage: python bench/runtime_overhead.py [--rounds N] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.metadata
import socket
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from overhead_loops import ANSWER, CALLS, FACTORIES, TURNS, Subject


def offline() -> None:
    """Make every connection attempt fail loudly: nothing here may touch the network."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("the runtime overhead benchmark runs offline")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.getaddrinfo = refuse
    socket.create_connection = refuse


def _once(subject: Subject, loop: asyncio.AbstractEventLoop) -> Any:
    out = subject.run()
    return loop.run_until_complete(out) if subject.is_async else out


async def _batch(subject: Subject, runs: int) -> None:
    for _ in range(runs):
        await subject.run()


def _per_run(subject: Subject, runs: int, loop: asyncio.AbstractEventLoop) -> tuple[float, float]:
    """Wall-clock and CPU seconds per run, over `runs` runs back to back."""
    wall, cpu = time.perf_counter(), time.process_time()
    if subject.is_async:
        loop.run_until_complete(_batch(subject, runs))
    else:
        for _ in range(runs):
            subject.run()
    return (time.perf_counter() - wall) / runs, (time.process_time() - cpu) / runs


def _checked(factory: Callable[[int], Subject], turns: int,
             loop: asyncio.AbstractEventLoop) -> Subject:
    """Build a subject and check one run: the answer after `turns` tool calls and one more
    model call than that."""
    subject = factory(turns)
    CALLS.count = CALLS.model = 0
    answer = str(_once(subject, loop)).strip()
    if (answer, CALLS.count, CALLS.model) != (ANSWER, turns, turns + 1):
        raise RuntimeError(f"{subject.name}: answered {answer!r} after {CALLS.count} tool "
                           f"calls and {CALLS.model} model calls; expected {ANSWER!r} after "
                           f"{turns} and {turns + 1}")
    for _ in range(3):  # warm caches and lazy imports
        _once(subject, loop)
    return subject


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _subjects(loop: asyncio.AbstractEventLoop) -> tuple[dict[str, tuple[Subject, Subject]],
                                                       dict[str, str]]:
    """Each installed framework with TURNS and with 0 tool turns; missing ones by reason."""
    ready, missing = {}, {}
    for name, factory in FACTORIES:
        try:
            ready[name] = (_checked(factory, TURNS, loop), _checked(factory, 0, loop))
        except ImportError as err:
            missing[name] = f"not installed ({err.name})"
    return ready, missing


@dataclass(frozen=True)
class Figures:
    """One framework's medians, in microseconds."""

    version: str
    step: float  # wall clock per model call
    cpu: float  # CPU time of this process per model call
    turn: float  # marginal wall clock of one tool turn


def _figures(version: str, samples: list[tuple[float, float, float]]) -> Figures:
    """Medians of (wall, cpu, wall with no tool turn) samples, each in seconds per run."""
    return Figures(
        version, statistics.median(w for w, _, _ in samples) * 1e6 / (TURNS + 1),
        statistics.median(c for _, c, _ in samples) * 1e6 / (TURNS + 1),
        statistics.median(w - z for w, _, z in samples) * 1e6 / TURNS)


def measure(rounds: int, runs: int) -> tuple[dict[str, Figures], dict[str, str]]:
    """Figures per installed framework, and why the others are missing."""
    loop = asyncio.new_event_loop()
    ready, missing = _subjects(loop)
    samples: dict[str, list[tuple[float, float, float]]] = {n: [] for n in ready}
    for _ in range(rounds):  # interleaved, so load on the other core hits everyone alike
        for name, (full, empty) in ready.items():
            gc.collect()
            wall, cpu = _per_run(full, runs, loop)
            samples[name].append((wall, cpu, _per_run(empty, runs, loop)[0]))
    loop.close()
    return {n: _figures(_version(ready[n][0].package), s) for n, s in samples.items()}, missing


def table(figures: dict[str, Figures], missing: dict[str, str]) -> str:
    """The printed table, fastest first, with each figure's ratio to a4a's."""
    nan = float("nan")
    base = figures.get("a4a", Figures("", nan, nan, nan))
    lines = [f"{'framework':<14} {'version':<8} {'us/step':>8} {'x a4a':>6} "
             f"{'cpu us/step':>12} {'x a4a':>6} {'us/tool turn':>13} {'x a4a':>6}"]
    for name, f in sorted(figures.items(), key=lambda kv: kv[1].step):
        lines.append(f"{name:<14} {f.version:<8} {f.step:>8.0f} {f.step / base.step:>6.2f} "
                     f"{f.cpu:>12.0f} {f.cpu / base.cpu:>6.2f} "
                     f"{f.turn:>13.0f} {f.turn / base.turn:>6.2f}")
    lines += [f"{name:<14} {reason}" for name, reason in missing.items()]
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=20, help="runs per framework per round")
    args = parser.parse_args()
    offline()
    figures, missing = measure(args.rounds, args.runs)
    print(f"one agent, {TURNS} tool turns + 1 answer = {TURNS + 1} model calls per run, "
          f"zero-latency function model; medians of {args.rounds} interleaved rounds of "
          f"{args.runs} runs")
    print(f"us/step = run / {TURNS + 1} (wall clock); cpu us/step = the same in CPU time of "
          f"this process; us/tool turn = (run with {TURNS} tool turns - run with 0) / {TURNS}")
    print(table(figures, missing))


if __name__ == "__main__":
    main()
