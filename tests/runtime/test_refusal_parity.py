"""`a4a validate` reports, with the same code, everything `a4a run` refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import a4a
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

AGENT = {"type": "agent", "name": "clerk", "system_prompt": "Answer briefly.",
         "llm_config": {"model": "test-model"}}
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "a server command": ({"mcp_servers": [{"name": "sh", "command": "python3",
                                            "args": ["-c", "print(1)"]}]},
                         "mcp.untrusted", "warning"),
    "an import-path binding": ({"tools": [{"name": "shell", "yaml_path": "./shell.yaml"}]},
                               "binding.untrusted", "warning"),
}


def _run_codes(record: Any) -> set[str]:
    error = record.error or {}
    return {error.get("code")} | {i["code"] for i in error.get("issues", [])}


def _script(tmp_path: Path) -> str:
    script = tmp_path / "script.yaml"
    script.write_text("- content: done\n")
    return f"scripted:{script}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hand_written_config(case: str, tmp_path: Path) -> None:
    extra, code, severity = CASES[case]
    (tmp_path / "shell.yaml").write_text(dump_yaml({
        "type": "tool", "name": "shell", "description": "Run a command.",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
        "binding": "os:system"}))
    config = tmp_path / "agent.yaml"
    config.write_text(dump_yaml({**AGENT, **extra}))
    found = {(i.code, i.severity) for i in a4a.validate(config).issues}
    assert (code, severity) in found, found
    # a hand-written config runs without what it may not use: no tool of it is offered
    record = a4a.run(config, "hi", _script(tmp_path))
    assert record.status == "completed"
    offered = {t["name"] if isinstance(t, dict) else str(t) for e in record.events
               if e.get("type") == "agent_start" for t in e.get("tools", [])}
    assert not {n for n in offered if n == "shell" or n.startswith("sh__")}, offered


def test_a_vetted_server_draws_no_refusal(tmp_path: Path) -> None:
    config = tmp_path / "agent.yaml"
    config.write_text(dump_yaml({**AGENT, "mcp_servers": [{"name": "clock", "id": "time"}]}))
    assert not [i for i in a4a.validate(config).issues if i.code.startswith("mcp.")]


def test_a_generated_framework_edited_to_reach_any_host(tmp_path: Path) -> None:
    # generated frameworks may run code in the sandbox and search the web (off until a run
    # enables the network), but never fetch from any host they like
    root = tmp_path / "fw"
    a4a.build("an agent that summarises my notes", out=root)
    data = load_yaml_file(root / "framework.yaml")
    data["tools"] = [*data.get("tools", []), {
        "name": "fetch", "description": "Fetch a URL.", "implementation": "builtin:http_get",
        "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}}}]
    data["agents"][0]["tools"] = [*data["agents"][0].get("tools", []), "fetch"]
    (root / "framework.yaml").write_text(dump_yaml(data))
    found = {(i.code, i.severity) for i in a4a.validate(root).issues}
    assert ("policy.capability", "error") in found
    record = a4a.run(root, "hi", _script(tmp_path))
    assert record.status == "error:invalid_framework"
    assert "policy.capability" in _run_codes(record)
