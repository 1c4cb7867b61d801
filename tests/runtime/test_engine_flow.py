"""Orchestration semantics, one edge kind at a time, driven by scripted models."""

from __future__ import annotations

import asyncio
from typing import Any

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock, RunRecord
from a4a.runtime.ir.spec import AgentSpec, EdgeSpec, FrameworkSpec, Limits, PatternNode, ToolSpec
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step

GET_ISSUE = ToolSpec(name="get_issue", description="Read an issue.",
                     implementation="world:code_hosting.get_issue",
                     input_schema={"type": "object", "required": ["issue_id"],
                                   "properties": {"issue_id": {"type": "string"}}})
CLOSE = ToolSpec(name="close_issue", description="Close an issue.", writes=True,
                 implementation="world:code_hosting.close_issue",
                 input_schema={"type": "object", "required": ["issue_id"],
                               "properties": {"issue_id": {"type": "string"}}})


def spec(agents: list[str], edges: list[dict[str, Any]], tools: dict[str, list[str]] | None = None,
         pattern: str = "orchestrator_workers", **limits: Any) -> FrameworkSpec:
    tools = tools or {}
    return FrameworkSpec(
        name="t", description="test", pattern=pattern, patterns=PatternNode(pattern=pattern),
        entry=agents[0], tools=[GET_ISSUE, CLOSE],
        agents=[AgentSpec(name=a, system_prompt=f"You are {a}.", tools=tools.get(a, []),
                          max_iterations=4) for a in agents],
        edges=[EdgeSpec.model_validate(e) for e in edges], limits=Limits(**limits))


def call(name: str, **args: Any) -> Step:
    return Step(tool_calls=(ToolCall(f"c_{name}", name, args),))


def say(text: str) -> Step:
    return Step(content=text)


def run(s: FrameworkSpec, script: dict[str, list[Step]]) -> tuple[RunRecord, ScriptedLLM]:
    llm = ScriptedLLM(script)
    record = asyncio.run(run_framework(s, "task", llm, RunOptions(clock=FixedClock())))
    return record, llm


def agents_run(record: RunRecord) -> list[str]:
    return [e["agent"] for e in record.events if e["type"] == "agent_start"]


def test_sequence_feeds_output_forward() -> None:
    s = spec(["a", "b"], [{"source": "a", "target": "b", "kind": "sequence"}],
             pattern="prompt_chaining")
    record, llm = run(s, {"a": [say("from a")], "b": [say("done")]})
    assert record.status == "completed" and record.final_answer == "done"
    assert "from a" in llm.requests[1].messages[1].content
    llm.assert_consumed()


def test_route_goes_to_the_pick_or_the_default() -> None:
    edges = [{"source": "r", "target": "x", "kind": "route", "condition": "x things"},
             {"source": "r", "target": "y", "kind": "route", "default": True}]
    s = spec(["r", "x", "y"], edges, pattern="routing")
    picked, _ = run(s, {"r": [call("route_to", target="x")], "x": [say("x did it")]})
    assert agents_run(picked) == ["r", "x"] and picked.final_answer == "x did it"
    default, _ = run(s, {"r": [say("not sure")], "y": [say("y did it")]})
    assert agents_run(default) == ["r", "y"]


def test_routers_on_a_cycle_can_finish() -> None:
    edges = [{"source": "sup", "target": "w", "kind": "route", "default": True},
             {"source": "w", "target": "sup", "kind": "loop", "max_iterations": 3,
              "condition": "done"}]
    s = spec(["sup", "w"], edges, pattern="supervisor")
    record, llm = run(s, {"sup": [call("route_to", target="w"), call("route_to",
                                                                      target="FINISH")],
                          "w": [say("worked")]})
    assert agents_run(record) == ["sup", "w", "sup"]
    llm.assert_consumed()


def test_loop_repeats_until_exit_or_cap() -> None:
    edges = [{"source": "gen", "target": "rev", "kind": "sequence"},
             {"source": "rev", "target": "gen", "kind": "loop", "max_iterations": 2,
              "condition": "approved"}]
    s = spec(["gen", "rev"], edges, pattern="evaluator_optimizer")
    capped, _ = run(s, {"gen": [say("v1"), say("v2"), say("v3")],
                        "rev": [say("fix"), say("fix"), say("fix")]})
    assert agents_run(capped) == ["gen", "rev"] * 3
    approved, llm = run(s, {"gen": [say("v1"), say("v2")],
                            "rev": [say("fix it"), call("exit_loop", reason="good")]})
    assert agents_run(approved) == ["gen", "rev", "gen", "rev"]
    assert "fix it" in llm.requests[2].messages[1].content
    llm.assert_consumed()


def test_parallel_branches_meet_at_the_join() -> None:
    edges = [{"source": "s", "target": "a", "kind": "parallel", "join": "j"},
             {"source": "s", "target": "b", "kind": "parallel", "join": "j"},
             {"source": "a", "target": "j", "kind": "sequence"},
             {"source": "b", "target": "j", "kind": "sequence"}]
    s = spec(["s", "a", "b", "j"], edges, pattern="parallel_sectioning")
    record, llm = run(s, {"s": [say("split")], "a": [say("A part")], "b": [say("B part")],
                          "j": [say("merged")]})
    assert record.final_answer == "merged"
    join_input = llm.requests[-1].messages[1].content
    assert "[a] A part" in join_input and "[b] B part" in join_input


def test_map_runs_one_branch_per_item_up_to_the_cap() -> None:
    edges = [{"source": "m", "target": "w", "kind": "parallel", "join": "r",
              "max_iterations": 2},
             {"source": "w", "target": "r", "kind": "sequence"}]
    s = spec(["m", "w", "r"], edges, pattern="map_reduce")
    record, llm = run(s, {"m": [call("map_items", items=["i1", "i2", "i3"])],
                          "w": [say("did i1"), say("did i2")], "r": [say("reduced")]})
    assert agents_run(record).count("w") == 2 and record.final_answer == "reduced"
    llm.assert_consumed()


def test_handoff_moves_control() -> None:
    edges = [{"source": "front", "target": "spec", "kind": "handoff"},
             {"source": "spec", "target": "front", "kind": "loop", "max_iterations": 1,
              "condition": "resolved"}]
    s = spec(["front", "spec"], edges, pattern="handoff")
    record, _ = run(s, {"front": [call("handoff_to", target="spec", message="refund please")],
                        "spec": [call("exit_loop"), say("refunded")]})
    assert agents_run(record) == ["front", "spec"]


def test_delegation_is_isolated_and_returns_a_result() -> None:
    edges = [{"source": "lead", "target": "worker", "kind": "delegate"}]
    s = spec(["lead", "worker"], edges, tools={"worker": ["get_issue"]})
    record, llm = run(s, {
        "lead": [call("worker", message="read ISS-001"), say("summary")],
        "worker": [call("get_issue", issue_id="ISS-001"), say("it is open")]})
    assert record.final_answer == "summary"
    worker_msgs = next(r for r in llm.requests if r.agent == "worker").messages
    assert [m.content for m in worker_msgs[1:]] == ["read ISS-001"]
    tool_events = [e for e in record.events if e["type"] == "tool_call"]
    assert [e["name"] for e in tool_events] == ["get_issue", "worker"]
    starts = [e for e in record.events if e["type"] == "agent_start"]
    assert starts[1]["parent"] == starts[0]["span"]


def test_parallel_tool_calls_and_world_diff() -> None:
    s = spec(["a"], [], tools={"a": ["close_issue"]}, pattern="single_agent")
    both = Step(tool_calls=(ToolCall("1", "close_issue", {"issue_id": "ISS-001"}),
                            ToolCall("2", "close_issue", {"issue_id": "ISS-002"})))
    record, _ = run(s, {"a": [both, say("closed")]})
    assert record.counts["tool_calls"] == 2
    assert {d["id"] for d in record.world_diff} <= {"ISS-001", "ISS-002"}


def test_model_mistakes_become_observations() -> None:
    s = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent")
    bad = [Step(tool_calls=(ToolCall("1", "get_issue", {}, raw="{oops"),)),
           call("nope"), call("get_issue", wrong=1), call("get_issue", issue_id="ISS-999"),
           say("")]
    s = s.model_copy(update={"agents": [s.agents[0].model_copy(update={"max_iterations": 6})]})
    record, llm = run(s, {"a": [*bad, say("gave up")]})
    codes = [e["result"]["error"]["code"] for e in record.events if e["type"] == "tool_call"]
    assert codes == ["invalid_json", "unknown_tool", "invalid_arguments", "not_found"]
    assert record.status == "completed" and record.final_answer == "gave up"
    assert "empty" in llm.requests[-1].messages[-1].content


def test_budgets_end_runs_with_typed_statuses() -> None:
    s = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent")
    record, _ = run(s, {"a": [call("get_issue", issue_id="ISS-001")] * 4})
    assert record.status == "max_steps"
    invalid, _ = run(spec(["a"], [], pattern="single_agent", max_steps=2), {"a": []})
    assert invalid.status == "error:invalid_framework"
    s2 = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent", max_tokens=1)
    record2, _ = run(s2, {"a": [call("get_issue", issue_id="ISS-001"), say("x")]})
    assert record2.status == "budget_exceeded:tokens"


def test_stop_tools_end_the_agent() -> None:
    s = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent")
    s = s.model_copy(update={"agents": [s.agents[0].model_copy(
        update={"stop_tools": ["get_issue"]})]})
    record, llm = run(s, {"a": [call("get_issue", issue_id="ISS-001"), say("never")]})
    assert "ISS-001" in record.final_answer
    assert len(llm.requests) == 1


def test_infrastructure_failure_is_a_typed_status() -> None:
    s = spec(["a"], [], pattern="single_agent")
    record, _ = run(s, {"a": [Step(fail="llm.server_error")]})
    assert record.status == "error:llm" and record.error


def test_text_mode_agents_get_tools_in_the_prompt_and_calls_parsed() -> None:
    s = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent")
    s = s.model_copy(update={"agents": [s.agents[0].model_copy(
        update={"tool_call_mode": "hermes"})]})
    text = '<tool_call>{"name": "get_issue", "arguments": {"issue_id": "ISS-001"}}</tool_call>'
    record, llm = run(s, {"a": [Step(content=text), Step(content="<tool_call>{broken"),
                                say("it is open")]})
    assert llm.requests[0].tools == () and "get_issue" in llm.requests[0].messages[0].content
    event = next(e for e in record.events if e["type"] == "tool_call")
    assert event["name"] == "get_issue" and event["arguments"] == {"issue_id": "ISS-001"}
    assert "could not be read" in llm.requests[2].messages[-1].content
    assert record.final_answer == "it is open"


def test_backends_without_tool_support_switch_structured_agents_to_text() -> None:
    s = spec(["a"], [], tools={"a": ["get_issue"]}, pattern="single_agent")
    llm = ScriptedLLM({"a": [say("fine")]})
    llm.structured_tools = False  # type: ignore[attr-defined]
    asyncio.run(run_framework(s, "task", llm, RunOptions(clock=FixedClock())))
    assert llm.requests[0].tools == () and llm.requests[0].tool_mode == "hermes"
