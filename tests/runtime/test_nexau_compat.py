"""NexAU configs as NexAU reads them: files confined and bounded, placeholders, prompts,
sub-agents and the Agent tool, skills, middlewares, permissions, reports naming files."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a4a.api import validate
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock, RunRecord
from a4a.runtime.errors import SpecError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import ToolCall
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.loader.nexau import inspect_agent_config, is_agent_config, load_agent_config

TOOL = """type: tool
name: add
description: Add two integers.
input_schema:
  type: object
  properties: {a: {type: integer}, b: {type: integer}}
  required: [a, b]
"""
READ = """type: tool
name: read_file
description: Read a file.
input_schema:
  type: object
  properties: {file_path: {type: string}}
  required: [file_path]
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / next(iter(files))


def agent(body: str = "", name: str = "probe", prompt: str = "Probe.") -> str:
    return f"type: agent\nname: {name}\nsystem_prompt: {prompt}\nllm_config: {{}}\n{body}"


def codes(issues: list[Issue]) -> set[str]:
    return {i.code for i in issues}


def run(spec: FrameworkSpec, steps: dict[str, list[Step]], **opts: Any
        ) -> tuple[RunRecord, ScriptedLLM]:
    llm = ScriptedLLM(steps)
    record = asyncio.run(run_framework(spec, "task", llm, RunOptions(clock=FixedClock(),
                                                                      **opts)))
    return record, llm


def step(name: str, **args: Any) -> Step:
    return Step(tool_calls=(ToolCall("1", name, dict(args)),))


# -- bindings ------------------------------------------------------------------------------


def test_import_path_bindings_need_trust(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": agent("tools:\n  - name: add\n    yaml_path: add.yaml\n"
                                            "    binding: tests.runtime.binding_target:add\n"),
                            "add.yaml": TOOL})
    spec, issues = inspect_agent_config(path)
    assert spec is not None and not spec.tools and "binding.untrusted" in codes(issues)
    trusted = load_agent_config(path, trusted=True)
    record, _ = run(trusted, {"probe": [step("add", a=2, b=3), Step(content="5")]},
                    trusted=True)
    event = next(e for e in record.events if e["type"] == "tool_call")
    assert record.status == "completed" and event["result"] == {"sum": 5}
    gone = write(tmp_path, {"b.yaml": agent("tools:\n  - name: add\n    yaml_path: add.yaml\n"
                                            "    binding: no_such_module_a4a:add\n")})
    assert "binding.missing" in codes(inspect_agent_config(gone, trusted=True)[1])


def test_a_missing_tool_yaml_of_a_builtin_falls_back_to_its_schema(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": agent(
        "tools:\n  - name: read_file\n    yaml_path: tools/nope.yaml\n"
        "    binding: nexau.archs.tool.builtin.file_tools:read_file\n")})
    spec, issues = inspect_agent_config(path)
    assert spec is not None and spec.tools[0].input_schema["required"] == ["file_path"]
    assert [i.severity for i in issues] == ["warning"] and issues[0].file == "a.yaml"


# -- files: confined to the config's folder and bounded -----------------------------------


@pytest.fixture
def alarm() -> Iterator[None]:
    """Fail instead of hanging (a FIFO or /dev/zero read must return at once)."""
    def timeout(*_: object) -> None:
        raise TimeoutError("the loader hung")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.usefixtures("alarm")
def test_references_outside_the_folder_need_trust(tmp_path: Path) -> None:
    outside = write(tmp_path, {"secret/agent.yaml": agent(prompt="SECRET PROMPT")})
    path = write(tmp_path / "cfg", {"a.yaml": agent(
        f"sub_agents:\n  - name: spy\n    config_path: {outside}\n"
        "tools:\n  - name: add\n    yaml_path: ../secret/agent.yaml\n    binding: x.y:z\n")})
    spec, issues = inspect_agent_config(path)
    outside_refs = [i for i in issues if i.code == "file.outside_root"]
    assert len(outside_refs) == 2 and all(i.severity == "error" for i in outside_refs)
    assert spec is None or all("SECRET" not in a.system_prompt for a in spec.agents)
    trusted, _ = inspect_agent_config(path, trusted=True)
    assert trusted is not None and any(a.name == "spy" for a in trusted.agents)


@pytest.mark.usefixtures("alarm")
@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "directory"])
def test_odd_files_are_typed_errors_never_hangs(tmp_path: Path, kind: str) -> None:
    target = {"dev_zero": "/dev/zero", "fifo": str(tmp_path / "pipe"),
              "directory": str(tmp_path / "dir")}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    if kind == "directory":
        os.mkdir(target)
    path = write(tmp_path, {"a.yaml": agent(
        f"tools:\n  - name: add\n    yaml_path: {target}\n    binding: x.y:z\n"
        f"sub_agents:\n  - name: sub\n    config_path: {target}\n")})
    for trusted in (False, True):
        _, issues = inspect_agent_config(path, trusted=trusted)
        found = codes(issues)
        assert found & {"file.not_regular", "file.outside_root"}, issues
        assert "internal" not in found


def test_the_entry_itself_may_not_be_a_device(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_agent_config(Path("/dev/null"))
    assert info.value.data["issues"][0]["code"] in ("file.not_regular", "yaml.not_mapping")


# -- placeholders ----------------------------------------------------------------------------


def test_env_variables_and_this_file_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setenv("A4A_T_TEMP", "0.3")
    monkeypatch.delenv("A4A_T_UNSET", raising=False)
    path = write(tmp_path, {"a.yaml": (
        "type: agent\nname: probe\nsystem_prompt: 'In ${this_file_dir}: ${variables.who.name}'\n"
        "variables:\n  who: {name: Ada}\nllm_config:\n  temperature: ${env.A4A_T_TEMP}\n"
        "  model: ${env.A4A_T_UNSET}\n")})
    spec, issues = inspect_agent_config(path)
    assert spec is not None and spec.agents[0].llm_config.temperature == 0.3
    assert spec.agents[0].system_prompt == f"In {tmp_path.resolve()}: Ada"
    assert [(i.code, i.severity, i.path) for i in issues] == [
        ("env.unset", "warning", "llm_config.model")]
    used = write(tmp_path, {"b.yaml": agent(prompt="'${env.A4A_T_UNSET} rules'")})
    assert ("env.unset", "error") in [(i.code, i.severity)
                                      for i in inspect_agent_config(used)[1]]
    undefined = write(tmp_path, {"c.yaml": agent(prompt="${variables.nope}")})
    assert "nexau.placeholder" in codes(inspect_agent_config(undefined)[1])


# -- prompts -----------------------------------------------------------------------------------


def test_prompt_files_render_with_nexau_runtime_variables(tmp_path: Path) -> None:
    prompt = ("Hi {{ username }} in {{ working_directory }} on {{ platform }} "
              "({{ operating_system }}); {{ shell_tool_backend }}. {{ shell_tool_guidance }} "
              "{{ date }} {{ task_description }}|{{ who }}|{{ run_value }}")
    path = write(tmp_path, {"a.yaml": agent("system_prompt_type: jinja\ncontext: {who: cfg}\n",
                                            prompt="prompts/p.md"),
                            "prompts/p.md": prompt})
    _, llm = run(load_agent_config(path), {"probe": [Step(content="ok")]},
                      context={"run_value": "ctx"})
    system = llm.requests[0].messages[0].content
    assert system.startswith("Hi user in /workspace on linux (Linux (a4a sandbox)); Unix")
    assert "sandbox" in system and "2026-01-01 00:00:00" in system
    assert system.endswith(" |cfg|ctx"), "unknown variables render empty, as in NexAU"


def test_string_prompts_render_too_and_suffixes_join(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": agent("system_prompt_suffix: Be brief.\n",
                                            prompt="'Date: {{date}}.'")})
    _, llm = run(load_agent_config(path), {"probe": [Step(content="ok")]})
    assert llm.requests[0].messages[0].content == "Date: 2026-01-01 00:00:00.\n\nBe brief."


def test_prompt_problems_are_reported(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("x")
    path_like = write(tmp_path, {"a.yaml": agent(prompt="./p.md")})
    assert "nexau.prompt_is_path" in codes(inspect_agent_config(path_like)[1])
    broken = write(tmp_path, {"b.yaml": agent(prompt="'{% for %}'")})
    assert "prompt.syntax" in codes(inspect_agent_config(broken)[1])
    listed = write(tmp_path, {"c.yaml": agent("system_prompt_type: file\n", prompt="[p.md, "
                                              "{content: p.md, cache: true}]")})
    spec, _ = inspect_agent_config(listed)
    assert spec is not None and spec.agents[0].system_prompt == "x\n\nx"
    none = write(tmp_path, {"d.yaml": "name: bare\nllm_config: {}\n"})
    spec, issues = inspect_agent_config(none)
    assert spec is not None and "nexau.no_system_prompt" in codes(issues)


def test_a_prompt_over_its_budget_ends_the_run_typed(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": agent(
        prompt="'{% for i in range(1000) %}{% for j in range(1000) %}x{% endfor %}"
               "{% endfor %}'")})
    record, _ = run(load_agent_config(path), {"probe": []})
    assert record.status == "error:invalid_framework"
    assert "does not render" in record.error["message"]


# -- sub-agents, the Agent tool, skills ----------------------------------------------------------


def _team(tmp_path: Path) -> Path:
    skill = "---\nname: style\ndescription: How to write.\n---\nWrite short sentences.\n"
    return write(tmp_path, {
        "lead.yaml": agent("sub_agents:\n  - name: scout\n    config_path: worker.yaml\n"
                           "  - name: critic\n    config_path: worker.yaml\n"
                           "skills:\n  - ./skills/style\n", name="lead"),
        "worker.yaml": agent("description: Looks things up.\n", name="same_name"),
        "skills/style/SKILL.md": skill})


def test_sub_agents_take_the_names_their_parent_gives(tmp_path: Path) -> None:
    spec = load_agent_config(_team(tmp_path))
    assert [a.name for a in spec.agents] == ["lead", "scout", "critic"]
    lead = spec.agents[0]
    assert lead.nexau is not None and lead.nexau.sub_agents == {"scout": "scout",
                                                                "critic": "critic"}


def test_the_agent_tool_delegates_and_resumes(tmp_path: Path) -> None:
    spec = load_agent_config(_team(tmp_path))
    record, llm = run(spec, {
        "lead": [step("Agent", sub_agent_name="scout", message="look"),
                 Step(tool_calls=(ToolCall("2", "Agent", {"sub_agent_name": "scout",
                                                          "message": "more",
                                                          "sub_agent_id": "s2"}),)),
                 Step(content="done")],
        "scout": [Step(content="found A"), Step(content="found B")]})
    assert record.status == "completed", record.error
    results = [e["result"] for e in record.events if e["type"] == "tool_call"]
    assert results[0]["result"] == "[sub_agent_id: s2] found A"
    scout_second = [r for r in llm.requests if r.agent == "scout"][1]
    assert [m.content for m in scout_second.messages][-3:] == ["look", "found A", "more"]
    offered = {t.name for t in llm.requests[0].tools}
    assert {"Agent", "scout", "critic", "LoadSkill"} <= offered


def test_load_skill_returns_the_skill(tmp_path: Path) -> None:
    spec = load_agent_config(_team(tmp_path))
    record, llm = run(spec, {"lead": [step("LoadSkill", skill_name="style"),
                                      Step(content="ok")]})
    result = next(e for e in record.events if e["type"] == "tool_call")["result"]
    assert "<SkillDetail>Write short sentences.</SkillDetail>" in result
    load_skill = next(t for t in llm.requests[0].tools if t.name == "LoadSkill")
    assert "Skill Name: style" in load_skill.description


def test_missing_skill_folders_are_errors(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": agent("skills:\n  - ./skills/none\n")})
    issues = inspect_agent_config(path)[1]
    assert "file.missing" in codes(issues) and issues[0].severity == "error"


# -- limits, middlewares, permissions, storage ----------------------------------------------------


def test_max_iterations_default_and_step_limit_derive_from_the_config(tmp_path: Path) -> None:
    spec = load_agent_config(_team(tmp_path))
    assert [a.max_iterations for a in spec.agents] == [100, 100, 100]
    assert spec.limits.max_steps == 300
    big = load_agent_config(write(tmp_path, {"b.yaml": agent("max_iterations: 10000\n")}))
    assert big.limits.max_steps == 10000


def test_long_tool_outputs_are_cut_and_saved(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("".join(f"row {i}\n" for i in range(500)))
    mw = ("middlewares:\n  - import: nexau.archs.main_sub.execution.middleware.long_tool_output"
          ":LongToolOutputMiddleware\n    params: {max_output_chars: 200, head_lines: 2, "
          "tail_lines: 1}\n")
    tools = ("tools:\n  - name: read_file\n    yaml_path: read.yaml\n"
             "    binding: nexau.archs.tool.builtin.file_tools:read_file\n")
    spec = load_agent_config(write(tmp_path, {"a.yaml": agent(mw + tools), "read.yaml": READ}))
    record, _ = run(spec, {"probe": [step("read_file", file_path="big.txt"),
                                     Step(content="ok")]}, workspace=ws)
    text = next(e for e in record.events if e["type"] == "tool_call")["result"]["content"]
    assert text.startswith("  1| row 0\n  2| row 1\n\n... [497 lines omitted] ...\n500| row 499")
    assert "is saved in /workspace/.a4a/tool_outputs/read_file_1.txt" in text
    saved = list((ws / ".a4a" / "tool_outputs").iterdir())
    assert len(saved) == 1 and "row 250" in saved[0].read_text()


def test_context_over_budget_compacts_or_stops(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "f.txt").write_text("word word\n" * 400)  # about 1,500 tokens once numbered
    tools = ("max_context_tokens: 2000\ntools:\n  - name: read_file\n    yaml_path: read.yaml\n"
             "    binding: nexau.archs.tool.builtin.file_tools:read_file\n")
    steps = [step("read_file", file_path="f.txt"), step("read_file", file_path="f.txt"),
             Step(content="ok")]
    plain = load_agent_config(write(tmp_path, {"a.yaml": agent(tools), "read.yaml": READ}))
    stopped, _ = run(plain, {"probe": list(steps)}, workspace=ws)
    assert stopped.status == "budget_exceeded:tokens"
    mw = ("middlewares:\n  - import: nexau.archs.main_sub.execution.middleware.context_compaction"
          ":ContextCompactionMiddleware\n    params: {threshold: 0.5, keep_iterations: 1}\n")
    compact = load_agent_config(write(tmp_path, {"b.yaml": agent(tools + mw)}))
    done, _ = run(compact, {"probe": list(steps)}, workspace=ws)
    assert done.status == "completed", done.error
    assert any(e["type"] == "compaction" for e in done.events)


def test_permissions_deny_allow_and_ask(tmp_path: Path) -> None:
    tools = ("tools:\n  - name: read_file\n    yaml_path: read.yaml\n"
             "    binding: nexau.archs.tool.builtin.file_tools:read_file\n"
             "    permissions: {allow: ['*.md'], deny: ['secret*']}\n")
    spec = load_agent_config(write(tmp_path, {"a.yaml": agent(tools), "read.yaml": READ}))

    def outcome(path: str, answer: str | None) -> str:
        record, _ = run(spec, {"probe": [step("read_file", file_path=path),
                                         Step(content="ok")]},
                        human=(lambda q: answer) if answer else None)
        event = next(e for e in record.events if e["type"] == "tool_call")
        return event["result"]["error"]["code"] if not event["ok"] else "ran"

    assert outcome("secret.txt", "yes") == "permission_denied"
    assert outcome("notes.md", None) == "file_not_found"  # allowed: it ran
    assert outcome("x.txt", "no") == "permission_denied"
    assert outcome("x.txt", "yes, allow") == "file_not_found"
    assert outcome("x.txt", None) == "file_not_found"  # nobody to ask: allowed, recorded


def test_global_storage_is_shared_across_sub_agents(tmp_path: Path) -> None:
    mem = ("tools:\n  - name: save_memory\n    binding: "
           "nexau.archs.tool.builtin.session_tools:save_memory\n")
    path = write(tmp_path, {"lead.yaml": agent(
        mem + "global_storage: {memories: [seeded]}\nsub_agents:\n  - name: helper\n"
        "    config_path: helper.yaml\n", name="lead"), "helper.yaml": agent(mem, name="h")})
    record, _ = run(load_agent_config(path), {
        "lead": [step("Agent", sub_agent_name="helper", message="remember"),
                 step("save_memory", fact="two"), Step(content="ok")],
        "helper": [step("save_memory", fact="one"), Step(content="saved")]})
    saves = [e["result"]["content"] for e in record.events
             if e["type"] == "tool_call" and e["name"] == "save_memory"]
    assert saves == ['Okay, I\'ve remembered that: "one" (2 facts saved)',
                     'Okay, I\'ve remembered that: "two" (3 facts saved)']


# -- reports -----------------------------------------------------------------------------------


def test_validate_reports_every_file_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, {
        "a.yaml": agent("tools:\n  - name: t\n    yaml_path: bad_tool.yaml\n    binding: "
                        "nexau.archs.tool.builtin.file_tools:read_file\n"
                        "sub_agents:\n  - name: s\n    config_path: sub.yaml\n"
                        "middlewares: []\ntracers:\n  - import: mylib.tracing:Tracer\n"),
        "bad_tool.yaml": "type: tool\nname: t\n",
        "sub.yaml": "type: agent\nname: s\nllm_config: {}\nbogus_field: 1\n"})
    report = validate(path)
    assert not report.valid
    where = {(i.file, i.code) for i in report.issues}
    assert ("sub.yaml", "schema.unknown_field") in where
    assert ("bad_tool.yaml", "schema.missing_field") in where
    assert ("a.yaml", "nexau.tracer_dropped") in where


def test_configs_are_detected_by_their_fields() -> None:
    assert is_agent_config({"name": "x", "llm_config": {"model": "m"}})
    assert is_agent_config({"system_prompt": "x"})
    assert not is_agent_config({"type": "tool", "name": "x", "description": "d"})
    assert not is_agent_config({"apiVersion": "a4a/v1", "agents": []})


def test_values_a4a_cannot_hold_are_errors_not_crashes(tmp_path: Path) -> None:
    path = write(tmp_path, {"a.yaml": (
        "type: agent\nname: my agent!\nsystem_prompt: P.\nllm_config: {temperature: 9}\n"
        "max_iterations: 2000000\nmcp_servers:\n  - name: bad name\n    type: http\n"
        "    url: http://127.0.0.1:1/mcp\n")})
    spec, issues = inspect_agent_config(path)
    assert spec is None and {i.severity for i in issues} == {"error"}
    assert {i.file for i in issues} == {"a.yaml"}
