"""Prompt templates render under a budget: validate and run stay bounded and typed."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import a4a
from a4a.runtime import templating
from a4a.runtime.errors import SpecError
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, PatternNode, Provenance

HOSTILE = {
    "nested ranges": ("{% for i in range(100000) %}{% for j in range(100000) %}x"
                      "{% endfor %}{% endfor %}", "prompt.budget"),
    "lipsum": ("{{ lipsum(n=2000000) }}", "prompt.render"),
    "repeated string": ("{{ 'x' * 400000000 }}", "prompt.too_large"),
    "padding": ("{{ 'x'.center(20000000) }}", "prompt.too_large"),
    "huge power": ("{{ 2 ** 100000000 }}", "prompt.budget"),
    "recursion": ("{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}{{ f(1) }}",
                  "prompt.budget"),
    "output from a loop": ("{% for i in range(10000) %}{{ 'y' * 100 }}{% endfor %}",
                           "prompt.too_large"),
    "division by zero": ("{{ 1 / 0 }}", "prompt.render"),
    "unsafe attribute": ("{{ ''.__class__.__mro__ }}", "prompt.render"),
}


def _spec(prompt: str) -> FrameworkSpec:
    agent = AgentSpec(name="clerk", system_prompt=prompt, system_prompt_type="jinja")
    return FrameworkSpec(name="desk", description="d", pattern="single_agent",
                         patterns=PatternNode(pattern="single_agent"), entry="clerk",
                         agents=[agent], provenance=Provenance(a4a_version="0", builder="hand"))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_validate_reports_a_hostile_template_with_a_typed_issue(
        name: str, finishes: Callable[..., Any]) -> None:
    source, code = HOSTILE[name]
    issues = finishes(lambda: validate(_spec(source)))
    found = [i for i in issues if i.path == "agents[0].system_prompt"]
    assert [i.code for i in found] == [code], [str(i) for i in issues]
    assert found[0].severity == "error" and found[0].hint


def test_the_wall_clock_bounds_work_no_cap_catches() -> None:
    loops = ("{% set s = 'abcdefghij' * 1000 %}{% for a in s %}{% for b in s %}"
             "{% for c in s %}{% endfor %}{% endfor %}{% endfor %}")  # 10^12 empty steps
    with pytest.raises(SpecError) as err:
        templating.render(loops, {}, timeout_s=0.3)
    assert err.value.code == "prompt.budget" and "in time" in err.value.message
    assert templating.render("still {{ n }}", {"n": 1}) == "still 1"


def test_a_dead_worker_is_replaced() -> None:
    assert templating.render("{{ a }}", {"a": "x"}) == "x"
    pid = templating.worker_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    for _ in range(500):  # until it is dead (a zombie until reaped)
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.01)
    assert templating.render("{{ a }}-{{ b|join(',') }}", {"a": "y", "b": ["1", "2"]}) == "y-1,2"
    assert templating.worker_pid() not in (None, pid)


def test_ordinary_templates_render_as_before() -> None:
    source = ("{{ agent_name }} of {{ framework_name }} on {{ date }}:\n"
              "{% for t in tools %}- {{ t | upper }}\n{% endfor %}"
              "{% if not sub_agents %}alone{% endif %}{{ range(3) | list | length }}")
    out = templating.render(source, {"agent_name": "a", "framework_name": "f",
                                     "date": "2025-01-01", "tools": ["x", "y"],
                                     "sub_agents": []})
    assert out == "a of f on 2025-01-01:\n- X\n- Y\nalone3"
    assert not validate(_spec(source))
    for _ in range(3):  # the range cap counts per render, not per worker
        assert templating.render("{{ range(6000) | list | length }}", {}) == "6000"


def test_a_run_refuses_a_prompt_over_the_cap_and_records_little(tmp_path: Path) -> None:
    from a4a.runtime.loader.files import render_files, write_files

    root = tmp_path / "fw"
    write_files(root, render_files(_spec("{{ task * 20 }}"), "# desk\n"))
    script = tmp_path / "s.yaml"
    script.write_text("clerk:\n  - content: done\n")
    runs = tmp_path / "runs.jsonl"
    record = a4a.run(root, "t" * 2_000_000, f"scripted:{script}", out=runs)
    assert record.status == "error:invalid_framework", record.error
    assert record.error["code"] == "prompt.too_large" and record.error["hint"]
    assert runs.stat().st_size < 3 * 2_000_000  # the task itself, not twenty copies
    assert json.loads(runs.read_text())["status"] == record.status
