"""The software, investment, marketing and literature packs: every template is solved by the
oracle, breaking its gold plan costs reward, its vocabulary and sense rules are well formed,
and frameworks compiled for the pack, debates and votes included, get tasks."""

from __future__ import annotations

import random
from typing import Any

import pytest

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.world.synthesis import Task, synthesize
from a4a.runtime.world.tasks import check
from tests.runtime.test_tasks import oracle, pack_framework, run

PACKS = ("software_dev", "investment_research", "marketing_content", "scientific_literature")
LANGS = {"zh", "ja", "es", "de", "fr", "pt", "ru"}
# Requests in each pack's domain, in the shapes that give agents few tools (debate, vote).
REQUESTS = {
    "software_dev": [
        "a coding crew: a programmer writes code to fix the bug, a tester runs the tests and "
        "a reviewer reviews the diff",
        "two developers debate whether to refactor the search module of our codebase, a "
        "judge decides",
        "three independent coding agents each propose a patch for the failing test, majority "
        "vote picks one",
    ],
    "investment_research": [
        "Automate the process of analyzing a stock: a research analyst gathers news and "
        "market sentiment, a financial analyst analyzes the 10-Q and 10-K filings, and an "
        "investment advisor writes the recommendation",
        "Two agents debate whether we should buy Candle Semiconductor stock for our "
        "portfolio; a judge weighs the bull case and the bear case",
        "five independent analysts each give a buy, hold or sell call on a ticker and a "
        "majority vote decides",
    ],
    "marketing_content": [
        "a writer and an editor who keep revising a blog post until the editor approves it",
        "a copywriter drafts ad copy for our spring campaign, a brand reviewer checks it "
        "against the brand guidelines, then a campaign manager schedules it on the "
        "publishing schedule",
        "three copywriters each propose a tagline for the product launch and a vote picks "
        "the best one",
    ],
    "scientific_literature": [
        "a summarizer reads research papers from arXiv and writes a summary of each, and a "
        "curator adds the best ones to our reading list",
        "two researchers debate whether the retracted CRISPR preprint should stay on our "
        "reading list; a judge decides",
        "a single agent that tracks citation counts and h-index of our lab's authors",
    ],
}


def _pack(pid: str) -> DomainPack:
    return knowledge.domain_packs()[pid]


def _one_per_template(pack: DomainPack) -> list[tuple[FrameworkSpec, Task]]:
    """One task of every template of the pack, on the one-agent framework of the pack."""
    spec = pack_framework(pack)
    tasks = synthesize(spec, 80, seed=1)
    firsts = {t.template: t for t in reversed(tasks)}
    return [(spec, firsts[t.id]) for t in pack.tasks if t.id in firsts]


@pytest.mark.parametrize("pid", PACKS)
def test_pack_is_deep_and_every_template_instantiates(pid: str) -> None:
    pack = _pack(pid)
    assert check(pack, range(8)) == []
    assert len(pack.tasks) >= 12 and len(pack.resources) >= 4
    assert {t.difficulty for t in pack.tasks} == {"easy", "medium", "hard"}
    ops = {o.name: o for o in pack.operations}
    assert any(all(not ops[s.op].writes for s in t.plan) for t in pack.tasks)
    assert any(s.expect_error for t in pack.tasks for s in t.plan), "no recovery template"
    # every resource has a read-only template of its own, so read-only agents get tasks
    for res in pack.resources:
        assert any(all(ops[s.op].resource == res.name and not ops[s.op].writes for s in t.plan)
                   for t in pack.tasks), res.name


@pytest.mark.parametrize("pid", PACKS)
def test_vocabulary_speaks_eight_languages_and_senses_name_keywords(pid: str) -> None:
    pack = _pack(pid)
    assert set(pack.vocabulary) == LANGS
    assert all(len(terms) >= 10 for terms in pack.vocabulary.values())
    assert pack.senses and all(s.term in pack.keywords for s in pack.senses)
    assert len(pack.personas) >= 3 and all(p.zh for p in pack.personas)


@pytest.mark.parametrize("pid", PACKS)
def test_oracle_solves_every_template_and_a_broken_plan_costs_reward(pid: str) -> None:
    pairs = _one_per_template(_pack(pid))
    assert len(pairs) == len(_pack(pid).tasks)
    failed, unchanged = [], []
    for spec, task in pairs:
        if run(spec, task, oracle(spec, task))["composite"] < 1.0:
            failed.append(task.template)
        i = random.Random(task.id).randrange(len(task.plan))
        dropped: list[dict[str, Any]] = task.plan[:i] + task.plan[i + 1:]
        if run(spec, task, oracle(spec, task, dropped))["composite"] >= 1.0:
            unchanged.append((task.template, i))
    assert failed == [] and unchanged == []


@pytest.mark.parametrize("pid", PACKS)
def test_frameworks_compiled_for_the_pack_get_three_solvable_tasks(pid: str) -> None:
    from a4a.generator.pipeline import compile_request

    for text in REQUESTS[pid]:
        spec = compile_request(text).spec
        assert spec.environment is not None and pid in spec.environment.domains, text
        tasks = synthesize(spec, 3, seed=2)
        assert len(tasks) == 3, (text, spec.pattern)
        assert [run(spec, t, oracle(spec, t))["composite"] for t in tasks] == [1.0] * 3, text
