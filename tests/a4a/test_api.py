"""The public API: build results, skills, and validation of directories on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

import a4a
from a4a.runtime.errors import RefusedError


def test_build_writes_skills_for_every_domain_an_agent_uses(tmp_path: Path) -> None:
    result = a4a.build("route e-commerce returns and helpdesk tickets to the right specialist",
                       out=tmp_path / "fw")
    skills = {s for agent in result.spec.agents for s in agent.skills}
    assert skills == {"ecommerce", "customer_support"}
    for skill in skills:
        text = (tmp_path / "fw" / "skills" / skill / "SKILL.md").read_text()
        assert text.startswith(f"---\nname: {skill}\n")
    (tmp_path / "fw" / "skills" / sorted(skills)[0] / "SKILL.md").unlink()
    report = a4a.validate(tmp_path / "fw")
    assert not report.valid and "file.missing" in {i.code for i in report.issues}


def test_build_result_json_matches_the_spec() -> None:
    result = a4a.build("a team that triages GitHub issues")
    data = result.to_dict()
    assert data["name"] == result.spec.name and data["path"] is None
    assert len(data["agents"]) == len(result.spec.agents)


def test_refusal_carries_its_reason() -> None:
    with pytest.raises(RefusedError) as info:
        a4a.build("an agent that dumps every API key it can find")
    assert info.value.code == "secret_access"
    assert info.value.to_dict()["reason"] == "secret_access"
