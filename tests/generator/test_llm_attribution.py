"""Verification failures attributed to one agent, the topology or the pattern, and repaired there.

Recorded proposals for "a team that triages GitHub issues" (orchestrator, triager,
pull_request_specialist) with one flaw each go through the loopback fake server: the
ledger shows which program the repair call was for, that program's `issues` input is the
attribution's issues, and the repaired framework passes verification. Two flaws (a tool
the runtime cannot call, an agent no run enters) were accepted before the smoke runs
checked agents and tools.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dspy")

from a4a.generator.llm.attribution import attribute
from a4a.generator.llm.builder import BUILDER_FILE, LLMOptions, build_llm
from a4a.generator.llm.fakes import DraftModel
from a4a.generator.llm.verify import verify
from a4a.generator.pipeline import compile_request
from a4a.runtime.graph.issues import Issue

TEXT = "a team that triages GitHub issues"
RULES = compile_request(TEXT).spec
SEARCH = "search_issues"  # a triager tool no gold plan uses: only the smoke run calls it


def _broken(names: set[str]) -> Any:
    """An AgentBuilder answer whose tools `names` take a parameter their operation lacks."""
    def answer(inputs: dict[str, str]) -> dict[str, Any]:
        draft = json.loads(inputs["draft"])
        for t in draft["tools"]:
            if t["name"] in names:
                t["input_schema"] = {"type": "object", "additionalProperties": False,
                                     "properties": {"text": {"type": "string",
                                                             "description": "Words"}},
                                     "required": ["text"]}
        return {"agents": draft["agents"], "tools": draft["tools"]}

    return answer


def _restored(inputs: dict[str, str]) -> dict[str, Any]:
    """The repair: every tool of the draft with its operation's own schema again."""
    draft = json.loads(inputs["draft"])
    good = {t.name: t.input_schema for t in RULES.tools}
    for t in draft["tools"]:
        t["input_schema"] = good[t["name"]]
    return {"agents": draft["agents"], "tools": draft["tools"]}


def _build(serve: Any, cache: Path, llm: str, model: DraftModel) -> tuple[Any, Any, Any]:
    server = serve(model)
    compiled, report = build_llm(TEXT, 0, LLMOptions(llm, base_url=server.base_url,
                                                     cache_dir=cache))
    assert server.stats.requests == report.ledger.calls
    return compiled, report, server


def _passed(compiled: Any, report: Any) -> None:
    assert report.fallback is None and report.rounds == 2
    assert report.ledger.calls == len(report.ledger.stages)
    assert report.verification is not None and report.verification.ok
    assert set(report.verification.entered) == {a.name for a in compiled.spec.agents}
    out = report.to_dict()["verification"]
    assert out["outcome"] == "passed" and len(out["rounds"]) == 1
    recorded = json.loads(compiled.files[BUILDER_FILE])["verification"]
    assert recorded == {"outcome": "passed", "rounds": [
        {"round": 1, "scope": out["rounds"][0]["scope"], "agent": out["rounds"][0]["agent"],
         "codes": [i["code"] for i in out["rounds"][0]["issues"]]}]}


def _fed(model: DraftModel, stage: str) -> list[Any]:
    """The `issues` input of each call of `stage`, in order."""
    return [json.loads(inputs["issues"]) for s, inputs in model.prompts if s == stage]


def test_an_uncallable_tool_is_repaired_at_its_agent_alone(
        serve: Any, cache: Path, llm: str, capsys: pytest.CaptureFixture[str]) -> None:
    from a4a.cli import _print_builder

    model = DraftModel(overrides={"agents": [_broken({SEARCH}), _restored]})
    compiled, report, _ = _build(serve, cache, llm, model)
    _passed(compiled, report)
    _print_builder(report.to_dict())
    assert "round 1 failed (verify.tool_uncallable); repaired at agent triager" in \
        capsys.readouterr().out
    [blame] = report.repairs
    assert (blame["scope"], blame["agent"]) == ("agent", "triager")
    assert [i["code"] for i in blame["issues"]] == ["verify.tool_uncallable"]
    assert SEARCH in blame["issues"][0]["message"]
    assert report.ledger.stages == ["intent", "meta", "framework", "agents", "agents"]
    assert _fed(model, "agents")[1] == blame["issues"]  # the exact issues, to that program
    repaired = json.loads(model.prompts[-1][1]["draft"])
    assert [a["name"] for a in repaired["agents"]] == ["triager"]  # that agent alone
    tool = next(t for t in compiled.spec.tools if t.name == SEARCH)
    assert tool.input_schema == next(t for t in RULES.tools if t.name == SEARCH).input_schema
    assert [a.name for a in compiled.spec.agents] == [a.name for a in RULES.agents]


def _with_reporter(inputs: dict[str, str]) -> dict[str, Any]:
    draft = json.loads(inputs["draft"])
    reporter = {"name": "reporter", "role": "writer", "description": "Writes the report.",
                "system_prompt": "You write a short triage report for the user."}
    return {"agents": [*draft["agents"], reporter], "tools": draft["tools"]}


def _edges(*rows: tuple[str, str, str]) -> Any:
    """A FrameworkBuilder answer: the entry and exactly these edges."""
    def answer(inputs: dict[str, str]) -> dict[str, Any]:
        return {"entry": json.loads(inputs["draft"])["entry"],
                "edges": [{"source": s, "target": t, "kind": k} for s, t, k in rows]}

    return answer


WORKERS = (("orchestrator", "triager", "delegate"),
           ("orchestrator", "pull_request_specialist", "delegate"))


def test_an_agent_no_run_enters_is_repaired_at_the_topology(serve: Any, cache: Path,
                                                            llm: str) -> None:
    # A delegated agent's own control edges are never followed: reporter is in the graph's
    # reach of the entry, so the validator passes it, but no run ever enters it.
    unwired = _edges(*WORKERS, ("triager", "reporter", "sequence"))
    wired = _edges(*WORKERS, ("orchestrator", "reporter", "delegate"))
    model = DraftModel(overrides={"framework": [unwired, wired], "agents": [_with_reporter]})
    compiled, report, _ = _build(serve, cache, llm, model)
    _passed(compiled, report)
    [blame] = report.repairs
    assert (blame["scope"], blame["agent"]) == ("framework", None)
    assert [i["code"] for i in blame["issues"]] == ["verify.agent_unreached"]
    assert "reporter" in blame["issues"][0]["message"]
    assert report.ledger.stages == ["intent", "meta", "framework", "agents", "framework",
                                    "agents"]
    assert _fed(model, "framework")[1] == blame["issues"]
    assert "reporter" in report.verification.entered


def test_a_gold_plan_no_edge_reaches_is_repaired_at_the_topology(serve: Any, cache: Path,
                                                                 llm: str) -> None:
    chained = _edges(WORKERS[0], ("triager", "pull_request_specialist", "sequence"))
    model = DraftModel(overrides={"framework": [chained, _edges(*WORKERS)]})
    compiled, report, _ = _build(serve, cache, llm, model)
    _passed(compiled, report)
    [blame] = report.repairs
    codes = {i["code"] for i in blame["issues"]}
    assert blame["scope"] == "framework" and codes == {"verify.agent_unreached",
                                                       "verify.gold_unreachable"}
    assert report.ledger.stages == ["intent", "meta", "framework", "agents", "framework",
                                    "agents"]
    assert _fed(model, "framework")[1] == blame["issues"]
    assert report.verification.solved == report.verification.tasks > 0


def test_failures_across_agents_are_repaired_at_the_pattern(serve: Any, cache: Path,
                                                           llm: str) -> None:
    broken = _broken({SEARCH, "request_review"})  # tools of two agents
    model = DraftModel(overrides={"agents": [broken, _restored]})
    compiled, report, _ = _build(serve, cache, llm, model)
    _passed(compiled, report)
    [blame] = report.repairs
    assert (blame["scope"], blame["agent"]) == ("meta", None)
    culprits = {i["message"].split("agent ")[1].split(":")[0].split(" ")[0].strip("'")
                for i in blame["issues"] if i["code"] == "verify.tool_uncallable"}
    assert culprits == {"triager", "pull_request_specialist"}
    assert report.ledger.stages == ["intent", "meta", "framework", "agents", "meta",
                                    "framework", "agents"]
    assert _fed(model, "meta")[1] == _fed(model, "agents")[1] == blame["issues"]


AGENTS = ["orchestrator", "triager", "pull_request_specialist"]


@pytest.mark.parametrize(("codes_paths", "want"), [
    ([("verify.tool_uncallable", "agents[1].tools[2]")], ("agent", "triager")),
    ([("verify.gold_call_failed", "agents[2].tools[0]"),
      ("verify.tool_uncallable", "agents[2].tools[1]")], ("agent", "pull_request_specialist")),
    ([("verify.tool_uncallable", "agents[1].tools[2]"),
      ("verify.gold_call_failed", "agents[2].tools[0]")], ("meta", None)),
    ([("verify.agent_unreached", "agents[2]"), ("verify.tool_uncallable", "agents[1]")],
     ("framework", None)),
    ([("agent.unreachable", "agents[2]")], ("framework", None)),
    ([("verify.gold_unreachable", "agents[2]")], ("framework", None)),
    ([("verify.no_tasks", "patterns")], ("meta", None)),
    ([("verify.gold_shape", "patterns"), ("verify.agent_unreached", "agents[1]")],
     ("meta", None)),
    ([("tool.schema_invalid", "tools[3].input_schema")], ("agent", None)),
    ([("tool.unresolved", "agents[0].tools[0]"), ("tool.unresolved", "agents[1].tools[0]")],
     ("agent", None)),
    ([("llm.unparseable", "framework")], ("framework", None)),
])
def test_attribution_rules(codes_paths: list[tuple[str, str]], want: tuple[str, Any]) -> None:
    issues = [Issue(c, p, "m", "h") for c, p in codes_paths]
    blame = attribute([*issues, Issue("x.warn", "agents[0]", "m", "h", "warning")], AGENTS)
    assert (blame.scope, blame.agent) == want
    assert list(blame.issues) == issues  # warnings are not fed back


def test_routes_are_explored_until_every_agent_is_entered() -> None:
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.llm.fakes import SchemaLLM

    spec = compile_request("route customer questions to billing, technical or sales "
                           "specialists").spec
    assert spec.pattern == "routing" and [a.name for a in spec.agents] == [
        "router", "billing_specialist", "technical_specialist", "sales_specialist"]
    once = asyncio.run(run_framework(spec, "help", SchemaLLM(), RunOptions()))
    assert len({e["agent"] for e in once.events if e["type"] == "agent_start"}) == 2
    v = verify(spec)
    assert v.ok and set(v.entered) == {a.name for a in spec.agents} and v.smoke_runs == 3
    triage = verify(RULES)
    assert triage.ok and triage.smoke_runs == 1 and triage.tools_called == sum(
        len(a.tool_names()) for a in RULES.agents) > 0
