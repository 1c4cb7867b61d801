"""Checks the tests of every newer domain pack share: gold plans, read-only tasks, builds.

Each returns what fails (empty when all holds), so a test asserts `== []` and shows the
failures by name.
"""

from __future__ import annotations

import itertools
from typing import Any

from a4a.generator.intent import RuleIntentParser
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.world.synthesis import synthesize
from a4a.runtime.world.tasks import check
from tests.runtime.test_packs_b import OTHER_LANGS, _holding, _reads_only, template_task
from tests.runtime.test_tasks import oracle, pack_framework, run


def domains(text: str) -> tuple[str, ...]:
    """The packs the compiler's parser selects for `text`."""
    return RuleIntentParser().parse(text).domains


def depth_problems(pack: DomainPack, *, tasks: int, resources: int, recoveries: int,
                   terms: tuple[int, int], operations: int = 0,
                   english_senses: bool = False) -> list[str]:
    """The ways a pack falls short of the depth of the others (empty when it has it).

    Templates the checker faults, too few tasks, resources, operations, read-only tasks or
    recovery tasks, a missing difficulty, language or problem type, vocabulary outside
    `terms` per language, sense rules for words the pack does not match (with
    `english_senses`, for words not among its English keywords), too few personas or roles.
    """
    words = set(pack.keywords) if english_senses else set(pack.keywords) | {
        t for ts in pack.vocabulary.values() for t in ts}
    wanted = {
        "templates check": check(pack, range(8)) == [],
        "size": (len(pack.tasks) >= tasks and len(pack.resources) >= resources
                 and len(pack.operations) >= operations),
        "difficulties": {t.difficulty for t in pack.tasks} == {"easy", "medium", "hard"},
        "read-only tasks": sum(_reads_only(pack, t) for t in pack.tasks) >= 5,
        "recoveries": sum(any(s.expect_error for s in t.plan) for t in pack.tasks) >= recoveries,
        "languages": set(pack.vocabulary) == OTHER_LANGS,
        "terms": all(terms[0] <= len(ts) <= terms[1] for ts in pack.vocabulary.values()),
        "senses": bool(pack.senses) and all(x.term in words for x in pack.senses),
        "people": len(pack.personas) >= 3 and len(pack.roles) >= 4,
        "problem types": ({t.problem_type[0] for t in pack.tasks}
                          == {x.id for x in pack.problem_types}),
    }
    return [name for name, holds in wanted.items() if not holds]


def gold_plan_problems(pack: DomainPack) -> list[tuple[str, Any]]:
    """Templates whose gold plan earns less than 1.0, or whose plan still earns 1.0 with a
    call dropped (the call it names by index)."""
    spec = pack_framework(pack)
    out: list[tuple[str, Any]] = []
    for t in pack.tasks:
        task = template_task(pack, t)
        got = run(spec, task, oracle(spec, task))
        if got["composite"] < 1.0 or got["tool"] < 1.0:
            out.append((t.id, got))
        for i in range(len(task.plan)):
            dropped = task.plan[:i] + task.plan[i + 1:]
            if run(spec, task, oracle(spec, task, dropped))["composite"] >= 1.0:
                out.append((t.id, f"unchanged without call {i}"))
    return out


def short_read_only_pairs(pack: DomainPack, own: bool = False) -> list[tuple[str, str, int]]:
    """Pairs of resources whose read-only tools give fewer than three tasks (with `own`, three
    of the pack's own: debaters and voters get no arithmetic filler)."""
    spec = pack_framework(pack)
    short = []
    for a, b in itertools.combinations([r.name for r in pack.resources], 2):
        reads = {op.name for op in pack.operations if not op.writes and op.resource in (a, b)}
        got = [t for t in synthesize(_holding(spec, reads), 3, seed=2)
               if not own or t.pack == pack.id]
        if len(got) < 3:
            short.append((a, b, len(got)))
    return short


def compiled_task_problems(text: str, pid: str) -> list[str]:
    """What keeps a request's build from three of the pack's tasks the oracle solves."""
    from a4a.generator.pipeline import compile_request

    spec = compile_request(text).spec
    if spec is None or spec.environment is None or pid not in spec.environment.domains:
        return [f"{pid} not selected"]
    tasks = [t for t in synthesize(spec, 6, seed=2) if t.pack == pid]
    if len(tasks) < 3:
        return [f"{spec.pattern}: {len(tasks)} tasks"]
    return [t.id for t in tasks if run(spec, t, oracle(spec, t))["composite"] < 1.0]
