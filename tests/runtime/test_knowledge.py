"""The shipped knowledge: patterns, domain packs, role archetypes, MCP registry, schema."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import input_schema
from a4a.runtime.ir.schema import schemas

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
REQUIRED_PATTERNS = {
    "single_agent", "prompt_chaining", "routing", "parallel_sectioning", "voting",
    "orchestrator_workers", "evaluator_optimizer", "reflection", "plan_execute", "supervisor",
    "hierarchical_teams", "handoff", "debate", "map_reduce", "group_chat", "human_gate",
}


def test_patterns_cover_the_catalogue() -> None:
    pats = knowledge.patterns()
    assert REQUIRED_PATTERNS <= set(pats)
    for p in pats.values():
        assert p["shape"] and p["invariants"] and p["cues"], p["id"]


def test_at_least_twenty_domain_packs_and_a_generic_one() -> None:
    packs = knowledge.domain_packs()
    assert "generic" in packs
    assert len([p for p in packs if p != "generic"]) >= 20


@pytest.mark.parametrize("pid", sorted(knowledge.domain_packs()))
def test_pack_is_rich_and_its_operations_have_valid_schemas(pid: str) -> None:
    pack = knowledge.domain_packs()[pid]
    assert len(pack.resources) >= 3 and len(pack.operations) >= 10
    assert any(op.writes for op in pack.operations)
    assert any(not op.writes for op in pack.operations)
    assert any(op.requires for op in pack.operations), "no invalid-state failure mode"
    assert pid == "generic" or len(pack.keywords) >= 12
    archetypes = knowledge.archetypes()
    assert all(r.archetype in archetypes for r in pack.roles)
    for op in pack.operations:
        jsonschema.Draft202012Validator.check_schema(input_schema(op))


def test_keywords_are_not_shared_between_packs() -> None:
    owner: dict[str, str] = {}
    for pid, pack in knowledge.domain_packs().items():
        for kw in pack.keywords:
            assert owner.setdefault(kw, pid) == pid, f"{kw!r} in {owner[kw]} and {pid}"


def test_mcp_registry_commands_are_fixed() -> None:
    for server in knowledge.mcp_registry().values():
        assert server["command"] == "python" and server["tools"]


def test_json_schema_files_match_the_ir() -> None:
    for name, text in schemas().items():
        path = TEMPLATES / "schema" / name
        assert path.read_text(encoding="utf-8") == text, (
            f"{name} drifted: run `python -m a4a.runtime.ir.schema`")
