"""Code tools run in the sandbox; without one the call fails closed."""

from __future__ import annotations

import asyncio

import pytest

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, PatternNode, Provenance, ToolSpec
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.sandbox import FakeSandbox, scripted_result
from a4a.runtime.tools.code import PYTHON_SCHEMA
from tests.runtime.sandbox_support import real_sandbox

SPEC = FrameworkSpec(
    name="coder", description="t", pattern="single_agent",
    patterns=PatternNode(pattern="single_agent"), entry="coder",
    agents=[AgentSpec(name="coder", system_prompt="Write code.", tools=["python"])],
    tools=[ToolSpec(name="python", description="Run Python.", implementation="sandbox:python",
                    input_schema=PYTHON_SCHEMA, writes=True)],
    provenance=Provenance(a4a_version="0", builder="hand"))
CALL = Step(tool_calls=(ToolCall("1", "python", {"code": "print(6 * 7)"}),))


def _run(**opts: object):  # type: ignore[no-untyped-def]
    llm = ScriptedLLM({"coder": [CALL, Step(content="42")]})
    options = RunOptions(clock=FixedClock(), **opts)  # type: ignore[arg-type]
    record = asyncio.run(run_framework(SPEC, "compute", llm, options))
    return next(e for e in record.events if e["type"] == "tool_call"), record


def test_code_runs_in_the_given_sandbox() -> None:
    fake = FakeSandbox([scripted_result(stdout="42\n")])
    event, record = _run(sandbox=fake)
    assert event["ok"] and event["result"]["stdout"] == "42\n"
    assert fake.calls[0].code == "print(6 * 7)"
    assert record.status == "completed"


def test_code_runs_under_bubblewrap() -> None:
    real_sandbox()  # skips only outside `make test`, which installs and requires bubblewrap
    event, _ = _run()
    assert event["ok"] and event["result"]["stdout"].strip() == "42"


def test_missing_sandbox_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    import a4a.runtime.sandbox as sandbox_pkg
    from a4a.runtime.errors import RunError

    def unavailable(allow_unsafe: bool = False) -> object:
        if allow_unsafe:
            return FakeSandbox([scripted_result(stdout="unsafe\n")])
        raise RunError("sandbox.unavailable", "no bubblewrap", "install it")

    monkeypatch.setattr(sandbox_pkg, "get_sandbox", unavailable)
    event, record = _run()
    assert not event["ok"] and event["result"]["error"]["code"] == "sandbox.unavailable"
    assert record.status == "completed"
    unsafe, _ = _run(allow_unsafe=True)
    assert unsafe["ok"] and unsafe["result"]["stdout"] == "unsafe\n"
