"""The public API: build results, skills, and validation of directories on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

import a4a
from a4a.runtime.errors import RefusedError


def test_build_writes_skills_for_every_domain_an_agent_uses(tmp_path: Path) -> None:
    result = a4a.build("route each request to a specialist: order returns and refunds for our "
                       "online shop, or helpdesk support tickets", out=tmp_path / "fw")
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


def test_first_run_pins_mcp_schemas_and_a_rug_pull_aborts(tmp_path: Path) -> None:
    from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, McpServer, PatternNode, Provenance
    from a4a.runtime.loader.files import render_files, write_files
    from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

    agent = AgentSpec(name="clerk", system_prompt="Tell the time.",
                      mcp_servers=[McpServer(name="time", id="time")])
    spec = FrameworkSpec(name="clock", description="t", pattern="single_agent",
                         patterns=PatternNode(pattern="single_agent"), entry="clerk",
                         agents=[agent], provenance=Provenance(a4a_version="0", builder="hand"))
    root = tmp_path / "fw"
    write_files(root, render_files(spec, "# clock\n"))
    script = tmp_path / "s.yaml"
    script.write_text("clerk:\n  - content: noon\n")
    first = a4a.run(root, "time?", f"scripted:{script}")
    assert first.status == "completed"
    lock = load_yaml_file(root / "a4a.lock")
    assert "get_current_time" in lock["mcp"]["time"]
    lock["mcp"]["time"]["get_current_time"] = "0" * 64
    (root / "a4a.lock").write_text(dump_yaml(lock))
    second = a4a.run(root, "time?", f"scripted:{script}")
    assert second.status == "error:aborted" and second.error["code"] == "mcp.schema_changed"
