"""The data analysis, security review, personal planning and games design packs: every
template's gold plan earns reward 1.0 and dropping any of its calls lowers it; agents that hold
only read-only tools still get tasks; frameworks compiled from requests in these domains
(debates and votes included) get at least 3 tasks the oracle solves."""

from __future__ import annotations

import itertools
import random

import pytest

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack, TaskTemplate
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.world.synthesis import Task, synthesize
from a4a.runtime.world.tasks import instantiate, task_id
from tests.runtime.test_tasks import oracle, pack_framework, run

PACK_IDS = ("data_analysis", "security_review", "personal_planning", "games_design")
OTHER_LANGS = {"zh", "ja", "es", "de", "fr", "pt", "ru"}
WORLD_SEED = 3  # the seed pack_framework's environment runs in

REQUESTS = {
    "data_analysis": [
        "Analyze this CSV dataset: clean the missing values, run summary statistics and a "
        "regression analysis, and draw a scatter plot for the analysis report.",
        "Two agents debate whether the correlation in the sales dataset is meaningful; a judge "
        "decides.",
        "Three analysts independently read the survey dataset and vote on which chart best "
        "shows the result.",
    ],
    "security_review": [
        "Review the pentest findings for our web app: a security analyst rates each "
        "vulnerability's severity by CVSS, a remediation engineer proposes a security patch, "
        "and a patch reviewer approves it.",
        "Two agents debate whether to accept the risk of the SSRF vulnerability; a judge "
        "decides.",
        "Three security analysts independently assess the severity of each pentest finding "
        "and vote.",
    ],
    "personal_planning": [
        "A meal planning assistant that picks recipes for the week, builds the grocery list "
        "and keeps my pantry in mind.",
        "Two agents debate whether my meal plan is healthy enough; a judge decides.",
        "Three nutrition experts independently review my weekly menu of recipes and vote on "
        "the best one.",
    ],
    "games_design": [
        "Help me design an indie game: pitch the game concept, then iterate on the core loop "
        "from playtest feedback.",
        "Two agents debate whether the grappling hook game mechanic should stay in our video "
        "game; a judge decides.",
        "Five playtesters independently rate the gameplay of our board game prototype and "
        "vote on the best mechanic.",
    ],
}


def _pack(pid: str) -> DomainPack:
    return knowledge.domain_packs()[pid]


def _reads_only(pack: DomainPack, t: TaskTemplate) -> bool:
    return not any(op.writes for s in t.plan if (op := pack.operation(s.op)))


def template_task(pack: DomainPack, t: TaskTemplate) -> Task:
    """`t` instantiated for pack_framework's single agent (tools named like operations)."""
    inst = instantiate(t, pack, WORLD_SEED, random.Random(WORLD_SEED))
    plan = [{"op": c.op, "tool": c.op, "agent": "clerk", "args": c.args,
             "expect_error": c.expect_error} for c in inst.calls]
    return Task(id=task_id(pack.id, t.id, WORLD_SEED, 0), pack=pack.id, template=t.id,
                difficulty=t.difficulty, problem_type=list(t.problem_type),
                problem_type_labels={}, persona={"en": "", "zh": ""}, query=inst.query,
                world_seed=WORLD_SEED, plan=plan,
                checker={"expected_diff": inst.expected_diff, "answer": list(inst.answer)})


@pytest.mark.parametrize("pid", PACK_IDS)
def test_pack_has_the_depth_of_the_others(pid: str) -> None:
    pack = _pack(pid)
    assert len(pack.tasks) >= 10
    assert {t.difficulty for t in pack.tasks} == {"easy", "medium", "hard"}
    assert sum(_reads_only(pack, t) for t in pack.tasks) >= 5
    recovering = [t.id for t in pack.tasks if any(s.expect_error for s in t.plan)]
    assert len(recovering) >= 2, recovering
    assert set(pack.vocabulary) == OTHER_LANGS and all(pack.vocabulary.values())
    # A sense rule reads a term the pack matches on, in English or another language.
    keywords = set(pack.keywords) | {t for terms in pack.vocabulary.values() for t in terms}
    assert [s.term for s in pack.senses if s.term not in keywords] == []
    assert len(pack.personas) >= 3 and len(pack.roles) >= 4
    used = {t.problem_type[0] for t in pack.tasks}
    assert used == {p.id for p in pack.problem_types}


@pytest.mark.parametrize("pid", PACK_IDS)
def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward(pid: str) -> None:
    pack = _pack(pid)
    spec = pack_framework(pack)
    failed, unchanged = [], []
    for t in pack.tasks:
        task = template_task(pack, t)
        got = run(spec, task, oracle(spec, task))
        if got["composite"] < 1.0 or got["tool"] < 1.0:
            failed.append((t.id, got))
        for i in range(len(task.plan)):
            dropped = task.plan[:i] + task.plan[i + 1:]
            if run(spec, task, oracle(spec, task, dropped))["composite"] >= 1.0:
                unchanged.append((t.id, i))
    assert failed == []
    assert unchanged == []


def _holding(spec: FrameworkSpec, names: set[str]) -> FrameworkSpec:
    """`spec` with its one agent holding only the tools in `names`."""
    tools = [t for t in spec.tools if t.name in names]
    agent = spec.agents[0].model_copy(update={"tools": [t.name for t in tools]})
    return spec.model_copy(update={"tools": tools, "agents": [agent]})


@pytest.mark.parametrize("pid", PACK_IDS)
def test_read_only_tools_of_any_two_resources_give_three_tasks(pid: str) -> None:
    """Debaters and voters hold the read-only tools of two resources."""
    pack = _pack(pid)
    spec = pack_framework(pack)
    short = []
    for a, b in itertools.combinations([r.name for r in pack.resources], 2):
        reads = {op.name for op in pack.operations if not op.writes and op.resource in (a, b)}
        got = synthesize(_holding(spec, reads), 3, seed=2)
        if len(got) < 3:
            short.append((a, b, len(got)))
    assert short == []


@pytest.mark.parametrize(("pid", "text"),
                         [(p, t) for p, texts in REQUESTS.items() for t in texts])
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(pid: str, text: str) -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request(text).spec
    assert spec is not None and spec.environment is not None
    assert pid in spec.environment.domains
    tasks = [t for t in synthesize(spec, 6, seed=2) if t.pack == pid]
    assert len(tasks) >= 3, (spec.pattern, len(tasks))
    assert [t.id for t in tasks if run(spec, t, oracle(spec, t))["composite"] < 1.0] == []
