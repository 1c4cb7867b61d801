"""New worlds for new domains: recorded DomainBuilder outputs for requests no pack covers.

Each pack must pass the same checks as the shipped packs (`python -m
a4a.runtime.world.tasks check`), the oracle must solve every task generated from it through
the real runtime, and the framework built on it must validate and run.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dspy")

from a4a.generator.llm.builder import LLMOptions, build_llm
from a4a.generator.llm.domain import PACK_DIR, extra_packs
from a4a.generator.llm.fakes import DraftModel
from a4a.runtime import knowledge
from a4a.runtime.graph.issues import errors
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models
from a4a.runtime.loader.yamlio import load_yaml_text
from a4a.runtime.world.tasks import check


def recorded_pack(pid: str, title: str, thing: str, owner: str, states: list[str],
                  names: list[str], people: list[str], keywords: list[str],
                  broken: bool = False) -> dict[str, Any]:
    """A DomainBuilder answer: a record kind moving through states, owned by people."""
    first, second = states[0], states[1]
    tid, oid = f"{thing}_id", f"{owner}_id"
    ref = lambda n, r, d: {"name": n, "type": "ref", "required": r, "description": d}  # noqa: E731
    advance_from = second if broken else first  # broken: the gold plan hits invalid_state
    return {
        "id": pid, "title": title, "description": f"{title}: {thing}s and their {owner}s.",
        "keywords": keywords,
        "resources": [
            {"name": owner, "description": f"A {owner}.", "id_prefix": "OWN", "seed_count": 3,
             "fields": [{"name": "name", "type": "string", "seed": people},
                        {"name": "active", "type": "boolean", "seed": [True, True, False]}]},
            {"name": thing, "description": f"A {thing}.", "id_prefix": "ITM", "seed_count": 8,
             "fields": [{"name": "name", "type": "string", "seed": names},
                        {"name": "status", "type": "string", "enum": states,
                         "seed": [first, first, second, states[2], first, second]},
                        {"name": oid, "type": "ref", "ref": owner},
                        {"name": "priority", "type": "integer", "seed": [1, 2, 3]}]}],
        "operations": [
            {"name": f"list_{thing}s", "description": f"List {thing}s, optionally by status.",
             "action": "list", "resource": thing, "keywords": [f"{thing}s"],
             "params": [{"name": "status", "type": "string", "enum": states,
                         "description": "Only this status"},
                        ref(oid, False, f"Only {thing}s of this {owner}")]},
            {"name": f"get_{thing}", "description": f"Read one {thing}.", "action": "get",
             "resource": thing, "params": [ref(tid, True, f"Id of the {thing}")]},
            {"name": f"advance_{thing}", "description": f"Move a {first} {thing} to {second}.",
             "action": "update", "resource": thing, "set": {"status": second},
             "requires": {"status": first}, "params": [ref(tid, True, f"Id of the {thing}")]},
            {"name": f"assign_{thing}", "description": f"Give a {thing} to a {owner}.",
             "action": "update", "resource": thing,
             "params": [ref(tid, True, f"Id of the {thing}"),
                        ref(oid, True, f"Id of the {owner}")]},
            {"name": f"list_{owner}s", "description": f"List {owner}s.", "action": "list",
             "resource": owner, "params": []}],
        "problem_types": [{"id": "reporting", "en": "Reporting", "zh": "报告"},
                          {"id": "workflow", "en": "Workflow", "zh": "流程"}],
        "personas": [{"en": f"a {owner} at the {title.lower()}", "zh": "一名员工"}],
        "tasks": [
            {"id": f"count_{first}", "difficulty": "easy", "problem_type": ["reporting"],
             "queries": [f"How many {thing}s are {first}?"],
             "slots": {"n": {"resource": thing, "where": {"status": first}, "count": True}},
             "plan": [{"op": f"list_{thing}s", "args": {"status": first}}], "answer": ["{n}"]},
            {"id": f"advance_one_{thing}", "difficulty": "easy", "problem_type": ["workflow"],
             "queries": [f"Move {thing} {{t.id}} ({{t.name}}) on to {second}."],
             "slots": {"t": {"resource": thing, "where": {"status": advance_from}}},
             "plan": [{"op": f"get_{thing}", "args": {tid: "{t.id}"}},
                      {"op": f"advance_{thing}", "args": {tid: "{t.id}"}}],
             "answer": ["{t.id}"]},
            {"id": f"reassign_{thing}", "difficulty": "medium", "problem_type": ["workflow"],
             "queries": [f"Give {thing} {{t.id}} to {{o.name}}."],
             "slots": {"t": {"resource": thing}, "o": {"resource": owner}},
             "plan": [{"op": f"list_{owner}s", "args": {}},
                      {"op": f"get_{thing}", "args": {tid: "{t.id}"}},
                      {"op": f"assign_{thing}", "args": {tid: "{t.id}", oid: "{o.id}"}}],
             "answer": ["{t.id}"]}],
    }


DOMAINS = [
    ("a beekeeping cooperative team that inspects hives and plans honey harvests",
     recorded_pack("apiary_coop", "Apiary cooperative", "hive", "beekeeper",
                   ["inspected", "treated", "harvested"],
                   ["Hive North", "Hive Clover", "Hive Linden", "Hive Heather"],
                   ["Ada", "Bo", "Cy"], ["beekeeping", "hive", "honey harvest"])),
    ("a brewery production planning team that schedules batches and tanks",
     recorded_pack("brewery_production", "Brewery production", "batch", "brewer",
                   ["planned", "fermenting", "packaged"],
                   ["Pale Ale 12", "Stout 7", "Pilsner 3", "IPA 21"],
                   ["Dana", "Eli", "Fay"], ["brewery", "batch", "fermentation"])),
    ("a wedding planner assistant that books vendors and tracks the guest list",
     recorded_pack("wedding_planning", "Wedding planning", "booking", "planner",
                   ["requested", "confirmed", "paid"],
                   ["Florist", "Caterer", "Band", "Venue"],
                   ["Gil", "Hana", "Ivo"], ["wedding", "vendor", "guest list"])),
    ("a clinical-trial recruiter team that screens candidates and enrols participants",
     recorded_pack("trial_recruiting", "Clinical trial recruiting", "candidate", "coordinator",
                   ["referred", "screened", "enrolled"],
                   ["Candidate A", "Candidate B", "Candidate C", "Candidate D"],
                   ["Jo", "Kai", "Lu"], ["clinical trial", "recruitment", "screening"])),
    ("a podcast producer crew that plans episodes and books guests",
     recorded_pack("podcast_production", "Podcast production", "episode", "producer",
                   ["pitched", "recorded", "released"],
                   ["Pilot", "Season Opener", "Guest Special", "Finale"],
                   ["Mo", "Noa", "Oz"], ["podcast", "episode", "guest booking"])),
]


def _build(text: str, model: DraftModel, tmp_path: Path, cache: Path
           ) -> tuple[Any, Any, FakeOpenAIServer]:
    name = f"openai:fake-{zlib.crc32(str(tmp_path).encode())}"
    with FakeOpenAIServer(responder=model.responder) as server, allow_real_models():
        compiled, report = build_llm(text, 0, LLMOptions(
            name, base_url=server.base_url, cache_dir=cache, keep_packs=tmp_path / "packs"))
    return compiled, report, server


@pytest.mark.parametrize(("text", "data"), DOMAINS, ids=[d[1]["id"] for d in DOMAINS])
def test_new_domain_pack_is_checked_proven_and_used(text: str, data: dict[str, Any],
                                                    tmp_path: Path, cache: Path) -> None:
    pid = data["id"]
    assert pid not in knowledge.domain_packs()
    model = DraftModel(intent={"domains": [], "new_domain": pid},
                       overrides={"domain": [{"pack": data}]})
    compiled, report, server = _build(text, model, tmp_path, cache)
    assert report.fallback is None and report.new_domains == [pid]
    assert server.stats.requests == report.ledger.calls == 5
    pack = DomainPack.model_validate(load_yaml_text(
        compiled.files[f"{PACK_DIR}/{pid}.yaml"], "pack", trusted=True))
    assert check(pack) == []  # the shipped packs' check
    assert (tmp_path / "packs" / f"{pid}.yaml").is_file()  # kept for reuse
    assert compiled.spec.environment is not None and compiled.spec.environment.domains == [pid]
    assert any(t.implementation.startswith(f"world:{pid}.") for t in compiled.spec.tools)
    v = report.verification
    assert v is not None and v.ok and v.tasks > 0 and v.solved == v.tasks
    assert v.smoke_status in ("completed", "max_steps")
    assert pid not in knowledge.domain_packs()  # the build does not leak its pack
    with extra_packs([pack]):
        assert errors(validate(compiled.spec)) == []


def test_a_written_new_domain_framework_validates_and_runs(tmp_path: Path, cache: Path) -> None:
    from a4a import api
    from a4a.runtime.loader.files import write_files

    text, data = DOMAINS[4]
    model = DraftModel(intent={"domains": [], "new_domain": data["id"]},
                       overrides={"domain": [{"pack": data}]})
    compiled, _, _ = _build(text, model, tmp_path, cache)
    root = tmp_path / "fw"
    write_files(root, compiled.files)
    assert api.validate(root).valid  # the framework's own pack is read from environment/
    made = api.tasks(root, 3)
    assert made and {t.pack for t in made} == {data["id"]}
    record = api.run(root, "", "oracle", task_id=made[0].id)
    assert record.status == "completed" and record.rewards["state"] == 1.0
    assert data["id"] not in knowledge.domain_packs()


def test_a_pack_whose_oracle_fails_is_repaired(tmp_path: Path, cache: Path) -> None:
    text, good = DOMAINS[1]
    bad = recorded_pack("brewery_production", "Brewery production", "batch", "brewer",
                        ["planned", "fermenting", "packaged"], ["Pale Ale 12", "Stout 7"],
                        ["Dana", "Eli", "Fay"], ["brewery"], broken=True)
    model = DraftModel(intent={"domains": [], "new_domain": good["id"]},
                       overrides={"domain": [{"pack": bad}, {"pack": good}]})
    _, report, server = _build(text, model, tmp_path, cache)
    assert report.fallback is None and report.new_domains == [good["id"]]
    fed = [i["issues"] for s, i in model.prompts if s == "domain"]
    assert fed[0] == "[]" and "pack.check" in fed[1] and "invalid_state" in fed[1]
    assert server.stats.requests == report.ledger.calls == 6
    assert report.verification is not None and report.verification.ok
