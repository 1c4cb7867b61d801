"""Prompt templates: the budgeted worker beside in-process Jinja, and hostile templates.

Prints the worker's start time, the median render of an ordinary prompt through the worker
(`a4a.runtime.templating.render`) and through an in-process sandboxed Jinja environment (how
prompts were rendered before the worker; it has no budget), for a new template (compiled)
and the same one again (the worker keeps compiled templates), the worker's own CPU time
beside its wall time (on a busy machine each hand-over waits for a core), and the time each
hostile template takes to end in a typed error. Usage: python bench/templating.py [--n N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from a4a.runtime import templating
from a4a.runtime.errors import SpecError

PROMPT = ("You are {{ agent_name }} of {{ framework_name }} ({{ date }}).\n"
          "{% for t in tools %}- {{ t }}\n{% endfor %}"
          "{% if sub_agents %}Delegate to: {{ sub_agents | join(', ') }}{% endif %}\n"
          "Task: {{ task }}\n")
CONTEXT = {"agent_name": "triager", "framework_name": "triage", "date": "2025-01-01",
           "tools": ["list_issues", "get_issue", "add_label"], "sub_agents": ["writer"],
           "task": "Label the open bugs."}
HOSTILE = {
    "nested range(100000) loops": "{% for i in range(100000) %}{% for j in range(100000) %}"
                                  "x{% endfor %}{% endfor %}",
    "lipsum(n=2000000)": "{{ lipsum(n=2000000) }}",
    "'x' * 400000000": "{{ 'x' * 400000000 }}",
    "'x'.center(400000000)": "{{ 'x'.center(400000000) }}",
    "2 ** 100000000": "{{ 2 ** 100000000 }}",
    "exponential macro recursion": "{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "10^12 empty loop steps": "{% set s = 'abcdefghij' * 1000 %}{% for a in s %}"
                              "{% for b in s %}{% for c in s %}{% endfor %}{% endfor %}"
                              "{% endfor %}",
}


def _median_us(fn, n: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def _worker_cpu_s() -> float:
    fields = Path(f"/proc/{templating.worker_pid()}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    args = parser.parse_args()
    starts = []
    for _ in range(5):
        templating._shutdown()
        templating._worker = None
        start = time.perf_counter()
        templating.render("{{ 1 }}", {})
        starts.append(time.perf_counter() - start)
    print(f"worker start (first render in a process): {statistics.median(starts) * 1e3:.0f} ms")
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    assert env.from_string(PROMPT).render(CONTEXT) == templating.render(PROMPT, CONTEXT)
    fresh = iter(range(10**9))  # a new source each time: compiled on every render
    cpu = _worker_cpu_s()
    cold = _median_us(lambda: templating.render(f"{PROMPT}{{# {next(fresh)} #}}", CONTEXT),
                      args.n)
    cold_cpu = (_worker_cpu_s() - cpu) / args.n * 1e6
    warm = _median_us(lambda: templating.render(PROMPT, CONTEXT), args.n)
    compiled = env.from_string(PROMPT)
    inproc_cold = _median_us(lambda: env.from_string(PROMPT).render(CONTEXT), args.n)
    inproc_warm = _median_us(lambda: compiled.render(CONTEXT), args.n)
    print(f"ordinary prompt, median of {args.n} renders (us): new template: worker {cold:.0f}"
          f" (worker CPU, mean {cold_cpu:.0f}), in-process {inproc_cold:.0f}; "
          f"same template again: worker {warm:.0f}, in-process {inproc_warm:.0f}")
    for name, source in HOSTILE.items():
        start = time.perf_counter()
        try:
            templating.render(source, {})
            outcome = "rendered"
        except SpecError as err:
            outcome = err.code
        print(f"{name:32s} {outcome:18s} {time.perf_counter() - start:6.2f} s")


if __name__ == "__main__":
    main()
