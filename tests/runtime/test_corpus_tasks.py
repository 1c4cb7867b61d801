"""Tasks for frameworks compiled from the generation corpus (bench/corpus_tasks.py) and the
derived task families that serve frameworks the packs' templates do not (runtime.world.derived).
"""

from __future__ import annotations

import random

import pytest

from a4a.runtime import knowledge
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, Limits, PatternNode, ToolSpec
from a4a.runtime.world import derived
from a4a.runtime.world.synthesis import synthesize
from a4a.runtime.world.tasks import instantiate
from bench import corpus_tasks as bench
from tests.runtime.test_tasks import FunctionLLM, _noop, oracle, pack_framework, run


def test_every_sampled_tuning_framework_gets_three_tasks_the_oracle_solves() -> None:
    cases = bench.load_cases("tuning")[::4]
    outcomes = [bench.measure(c, 3) for c in cases]
    report = bench.summary(outcomes)
    assert report["built"] >= 25, report
    assert report["enough"] == report["built"], report
    assert report["tasks"] >= 3 * report["built"]
    assert report["solved"] == report["tasks"], [o.failed for o in outcomes if o.failed]


def _reasoner(tools: list[ToolSpec]) -> FrameworkSpec:
    """Two agents in sequence that only reason (no world tools), optionally a calculator."""
    agents = [AgentSpec(name="pro", system_prompt="Argue.", tools=[t.name for t in tools]),
              AgentSpec(name="judge", system_prompt="Decide.")]
    return FrameworkSpec(name="reasoners", description="t", pattern="prompt_chaining",
                         patterns=PatternNode(pattern="prompt_chaining"), entry="pro",
                         agents=agents, tools=tools, limits=Limits(max_steps=60),
                         edges=[{"source": "pro", "target": "judge", "kind": "sequence"}])


CALC = ToolSpec(name="calculator", description="Evaluate arithmetic.",
                input_schema={"type": "object", "properties": {"expression": {"type": "string"}},
                              "required": ["expression"]}, implementation="builtin:calculator")


@pytest.mark.parametrize("tools", [[], [CALC]], ids=["no tools", "calculator"])
def test_frameworks_without_world_tools_get_arithmetic_tasks(tools: list[ToolSpec]) -> None:
    spec = _reasoner(tools)
    made = synthesize(spec, 4, seed=1)
    assert len(made) == 4 and {t.template for t in made} == {"arithmetic"}
    for t in made:
        assert t.checker["answer"][0] not in t.query
        assert len(t.plan) == len(tools)
        assert run(spec, t, oracle(spec, t))["composite"] == 1.0
        assert run(spec, t, FunctionLLM(_noop))["composite"] == 0.0
    assert made[0].to_json() == synthesize(spec, 4, seed=1)[0].to_json()


def test_a_wrong_calculator_call_lowers_the_reward() -> None:
    spec = _reasoner([CALC])
    task = synthesize(spec, 1, seed=2)[0]
    bad = [{**task.plan[0], "args": {"expression": "1 + 1"}}]
    assert run(spec, task, oracle(spec, task, bad))["composite"] < 1.0


@pytest.mark.parametrize("pack", sorted(knowledge.domain_packs()))
def test_lookup_templates_instantiate_read_only_with_a_record_fact(pack: str) -> None:
    p = knowledge.domain_packs()[pack]
    for t in derived.lookups(p, {op.name for op in p.operations}):
        inst = instantiate(t, p, 0, random.Random(0))
        assert inst.expected_diff == [] and inst.answer and all(inst.answer)
        assert "{" not in inst.query


def test_lookups_fill_a_framework_whose_templates_give_few_tasks() -> None:
    pack = knowledge.domain_packs()["travel"]
    full = pack_framework(pack)
    reads = {o.name for o in pack.operations if o.action == "get"}
    spec = full.model_copy(update={
        "agents": [full.agents[0].model_copy(update={"tools": sorted(reads)})],
        "tools": [t for t in full.tools if t.name in reads]})
    made = synthesize(spec, 5, seed=0)
    assert len(made) == 5 and all(t.template.startswith("lookup_") for t in made)
    assert all(run(spec, t, oracle(spec, t))["composite"] == 1.0 for t in made)
    assert all(run(spec, t, FunctionLLM(_noop))["composite"] == 0.0 for t in made)
