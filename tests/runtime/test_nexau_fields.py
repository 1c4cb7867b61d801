"""Every NexAU field the corpus uses, and what a4a does with it: used as NexAU uses it,
mapped to a4a's own equivalent, or dropped with a warning. README's NexAU table is this
table (a test compares them)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.engine.trace import FixedClock
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm.base import LLMRequest
from a4a.runtime.llm.fakes import ScriptedLLM, Step
from a4a.runtime.llm.params import request_options
from a4a.runtime.loader.nexau import inspect_agent_config

ROOT = Path(__file__).resolve().parents[2]
BASE: dict[str, Any] = {"type": "agent", "name": "probe", "system_prompt": "Probe.",
                        "llm_config": {}}
READ = {"type": "tool", "name": "read_file", "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}},
                         "required": ["file_path"]}}
BUILTIN = "nexau.archs.tool.builtin.file_tools:read_file"
MW = "nexau.archs.main_sub.execution.middleware"
SKILL = "---\nname: style\ndescription: Style rules.\n---\nShort sentences.\n"
PLUGIN = {"type": "plugin", "name": "p", "version": "0.1.0", "description": "d",
          "engines": {"nexau": ">=0.4"},
          "config": {"properties": {"team": {"type": "string", "default": "core"}}},
          "system_prompt_fragment": "Work for ${config.team}.",
          "contributes": {"tools": [{"name": "read_file", "yaml_path": "${plugin.dir}/r.yaml",
                                     "binding": BUILTIN}]}}
Check = Callable[[FrameworkSpec, list[Issue]], None]


@dataclass(frozen=True)
class Field:
    """One NexAU field, what a4a does with it, and the config that shows it."""

    section: str
    name: str
    treatment: str  # used | mapped | dropped
    what: str
    config: dict[str, Any]
    check: Check
    files: dict[str, Any] = field(default_factory=dict)


def warns(code: str) -> Check:
    def check(spec: FrameworkSpec, issues: list[Issue]) -> None:
        assert code in {i.code for i in issues if i.severity == "warning"}, issues
    return check


def clean(pred: Callable[[FrameworkSpec], bool]) -> Check:
    def check(spec: FrameworkSpec, issues: list[Issue]) -> None:
        assert pred(spec), spec
    return check


def request(spec: FrameworkSpec) -> LLMRequest:
    llm = ScriptedLLM([Step(content="ok")])
    asyncio.run(run_framework(spec, "t", llm, RunOptions(clock=FixedClock())))
    return llm.requests[0]


def first(spec: FrameworkSpec) -> Any:
    return spec.agents[0]


def tool(name: str = "read_file", **entry: Any) -> dict[str, Any]:
    return {"tools": [{"name": name, "yaml_path": "r.yaml", "binding": BUILTIN, **entry}]}


def tool_yaml(**extra: Any) -> dict[str, Any]:
    return {"r.yaml": {**READ, **extra}}


def llm(**extra: Any) -> dict[str, Any]:
    return {"llm_config": extra}


def mcp(**extra: Any) -> dict[str, Any]:
    return {"mcp_servers": [{"name": "srv", "type": "http",
                             "url": "https://mcp.example.com/mcp", **extra}]}


def mw(ref: str, **params: Any) -> dict[str, Any]:
    return {"middlewares": [{"import": ref, "params": params}]}


def opts(**extra: Any) -> Check:
    def check(spec: FrameworkSpec, issues: list[Issue]) -> None:
        assert extra.items() <= request_options(first(spec).llm_config).items()
    return check


SUB = {"sub_agents": [{"name": "helper", "config_path": "sub.yaml"}]}
SUB_FILE = {"sub.yaml": {**BASE, "name": "other_name", "description": "Helps."}}
FIELDS = [
    Field("agent", "type", "used", "marks an agent config (detection also works without it)",
          {}, clean(lambda s: first(s).name == "probe")),
    Field("agent", "name", "used", "the agent's name; `configured_agent` when missing",
          {"name": "scout"}, clean(lambda s: s.entry == "scout")),
    Field("agent", "description", "used", "the sub-agent's line in its parent's Agent tool",
          {"description": "Finds things."},
          clean(lambda s: first(s).description == "Finds things.")),
    Field("agent", "system_prompt", "used", "the prompt text, or the file(s) it names; a list "
          "is joined", {"system_prompt": ["One.", "Two."]},
          clean(lambda s: request(s).messages[0].content == "One.\n\nTwo.")),
    Field("agent", "system_prompt_type", "used", "`file` and `jinja` read files relative to "
          "the config; every prompt renders as lenient Jinja with NexAU's runtime variables",
          {"system_prompt": "p.md", "system_prompt_type": "jinja"},
          clean(lambda s: request(s).messages[0].content == "In /workspace."),
          {"p.md": "In {{ working_directory }}."}),
    Field("agent", "system_prompt_suffix", "used", "appended to the prompt",
          {"system_prompt_suffix": "Be brief."},
          clean(lambda s: request(s).messages[0].content.endswith("\n\nBe brief."))),
    Field("agent", "context", "used", "template variables of the prompt (the run's own "
          "context wins)", {"system_prompt": "{{ who }}", "context": {"who": "Ada"}},
          clean(lambda s: request(s).messages[0].content == "Ada")),
    Field("agent", "tool_call_mode", "mapped", "`structured`/`openai` are OpenAI tool calls, "
          "`xml` NexAU's XML; `anthropic` is structured (warning)",
          {"tool_call_mode": "anthropic"}, warns("nexau.tool_call_mode_mapped")),
    Field("agent", "llm_config", "used", "the model settings (see the llm_config rows)",
          llm(temperature=0.2), clean(lambda s: request(s).temperature == 0.2)),
    Field("agent", "tools", "used", "each entry becomes a tool bound to an a4a implementation",
          tool(), clean(lambda s: s.tools[0].implementation == "builtin:nexau_read_file"),
          tool_yaml()),
    Field("agent", "sub_agents", "used", "agents with delegate edges; the parent gets NexAU's "
          "Agent tool and one tool per sub-agent", SUB,
          clean(lambda s: {"Agent", "helper"} <= {t.name for t in request(s).tools}), SUB_FILE),
    Field("agent", "skills", "used", "SKILL.md folders, offered through a LoadSkill tool",
          {"skills": ["./skills/style"]},
          clean(lambda s: "LoadSkill" in {t.name for t in request(s).tools}),
          {"skills/style/SKILL.md": SKILL}),
    Field("agent", "stop_tools", "used", "calling one ends the agent; its result is the answer",
          {**tool(), "stop_tools": ["read_file"]},
          clean(lambda s: first(s).stop_tools == ["read_file"]), tool_yaml()),
    Field("agent", "max_iterations", "used", "the agent's step cap (default 100); the run's "
          "step limit is derived from all agents'", {"max_iterations": 5000},
          clean(lambda s: s.limits.max_steps == 5000)),
    Field("agent", "max_context_tokens", "used", "the context budget: compacted (with the "
          "compaction middleware) or the run ends `budget_exceeded:tokens`",
          {"max_context_tokens": 9000}, clean(lambda s: first(s).max_context_tokens == 9000)),
    Field("agent", "global_storage", "used", "initial data of the storage every agent of the "
          "run shares", {"global_storage": {"k": 1}},
          clean(lambda s: first(s).nexau.global_storage == {"k": 1})),
    Field("agent", "mcp_servers", "used", "MCP servers (see the mcp_servers rows)", mcp(),
          clean(lambda s: first(s).mcp_servers[0].type == "http")),
    Field("agent", "middlewares", "mapped", "well-known ones are a4a behaviour; others are "
          "dropped with a warning (see the middlewares rows)", {"middlewares": []},
          clean(lambda s: first(s).nexau.tool_output is None)),
    Field("agent", "before_model_hooks", "dropped", "not imported or called (warning)",
          {"before_model_hooks": ["mylib.hooks:h"]}, warns("nexau.import_untrusted")),
    Field("agent", "after_model_hooks", "mapped", "NexAU's logging hooks map to the "
          "trajectory; others dropped (warning)",
          {"after_model_hooks": [{"import": "nexau.archs.main_sub.execution.hooks:"
                                            "create_logging_hook"}]},
          warns("nexau.logging_mapped")),
    Field("agent", "after_tool_hooks", "mapped", "as after_model_hooks",
          {"after_tool_hooks": ["nexau.archs.main_sub.execution.hooks:"
                                "create_tool_logging_hook"]}, warns("nexau.logging_mapped")),
    Field("agent", "tracers", "mapped", "the in-memory tracer is a4a's trajectory (exported "
          "as its spans); other tracers dropped (warning)",
          {"tracers": [{"import": "nexau.archs.tracer.adapters.langfuse:LangfuseTracer"}]},
          warns("nexau.tracer_dropped")),
    Field("agent", "token_counter", "dropped", "a4a counts usage or estimates 4 characters a "
          "token (warning)", {"token_counter": "mylib.count:tokens"},
          warns("nexau.token_counter_dropped")),
    Field("agent", "sandbox_config", "mapped", "code runs in a4a's bubblewrap sandbox in the "
          "run's workspace (warning)", {"sandbox_config": {"type": "local", "work_dir": "/w"}},
          warns("nexau.sandbox_mapped")),
    Field("agent", "plugins", "used", "`path:` plugins expand: their tools, skills, "
          "sub-agents, MCP servers, middlewares and prompt fragment join the agent",
          {"plugins": [{"use": "path:./plug", "config": {"team": "infra"}}]},
          clean(lambda s: s.tools[0].name == "read_file"
                and first(s).system_prompt.endswith("Work for infra.")),
          {"plug/plugin.yaml": PLUGIN, "plug/r.yaml": READ}),
    Field("agent", "variables", "used", "`${variables.a.b}` placeholders, then removed",
          {"variables": {"m": {"t": 0.4}}, "llm_config": {"temperature": "${variables.m.t}"}},
          clean(lambda s: first(s).llm_config.temperature == 0.4)),
    Field("tool entry", "name", "used", "the tool's name (overrides the tool YAML's)",
          tool("lookup"), clean(lambda s: s.tools[0].name == "lookup"), tool_yaml()),
    Field("tool entry", "yaml_path", "used", "the tool YAML, relative to the config and inside "
          "its folder unless trusted; a missing one of a builtin falls back to a4a's schema",
          tool(), clean(lambda s: s.tools[0].description == "Read a file."), tool_yaml()),
    Field("tool entry", "binding", "mapped", "NexAU builtin paths (current and older) map to "
          "a4a's implementations; other import paths need --trust", tool(),
          clean(lambda s: s.tools[0].implementation == "builtin:nexau_read_file"), tool_yaml()),
    Field("tool entry", "as_skill", "used", "the tool is also a skill LoadSkill returns",
          tool(as_skill=True), clean(lambda s: first(s).nexau.skills[0].name == "read_file"),
          tool_yaml(skill_description="Reads.")),
    Field("tool entry", "permissions", "used", "deny wins, then allow; otherwise the run's "
          "human is asked (allowed when there is none)", tool(permissions={"deny": ["*"]}),
          clean(lambda s: first(s).nexau.permissions["read_file"].deny == ["*"]),
          tool_yaml()),
    Field("tool YAML", "type", "used", "marker", tool(),
          clean(lambda s: len(s.tools) == 1), tool_yaml()),
    Field("tool YAML", "name", "used", "the name unless the entry overrides it", tool(),
          clean(lambda s: s.tools[0].name == "read_file"), tool_yaml()),
    Field("tool YAML", "description", "used", "what the model reads", tool(),
          clean(lambda s: request(s).tools[0].description == "Read a file."), tool_yaml()),
    Field("tool YAML", "input_schema", "used", "the JSON Schema the model sees and calls are "
          "checked against", tool(),
          clean(lambda s: request(s).tools[0].parameters["required"] == ["file_path"]),
          tool_yaml()),
    Field("tool YAML", "skill_description", "used", "the skill's line in LoadSkill",
          tool(as_skill=True),
          clean(lambda s: first(s).nexau.skills[0].description == "Reads."),
          tool_yaml(skill_description="Reads.")),
    Field("tool YAML", "disable_parallel", "used", "calls of the tool run one at a time",
          tool(), clean(lambda s: first(s).nexau.serial_tools == ["read_file"]),
          tool_yaml(disable_parallel=True)),
    Field("tool YAML", "formatter", "dropped", "not imported; results are shown as they are "
          "(warning)", tool(), warns("nexau.formatter_dropped"),
          tool_yaml(formatter="nexau.archs.tool.formatters.shell:format")),
    Field("tool YAML", "kind", "mapped", "an `external` tool without a binding runs a4a's "
          "builtin of that name (warning)",
          {"tools": [{"name": "read_file", "yaml_path": "r.yaml"}]},
          warns("nexau.external_tool"), tool_yaml(kind="external")),
    Field("llm_config", "model", "used", "the model when the run takes it from the config "
          "(`--llm config`, the Python API); `--llm openai:<model>` overrides",
          llm(model="m1"), clean(lambda s: first(s).llm_config.model == "m1")),
    Field("llm_config", "base_url", "used", "the server (`--base-url` overrides)",
          llm(base_url="http://127.0.0.1:9/v1"),
          clean(lambda s: first(s).llm_config.base_url == "http://127.0.0.1:9/v1")),
    Field("llm_config", "api_key", "used", "the key for that server", llm(api_key="k"),
          clean(lambda s: getattr(first(s).llm_config, "api_key", None) == "k")),
    Field("llm_config", "api_type", "mapped", "a4a calls chat completions; other API types "
          "warn", llm(api_type="openai_responses"), warns("llm.api_type_mapped")),
    Field("llm_config", "temperature", "used", "sent with every request", llm(temperature=1),
          clean(lambda s: request(s).temperature == 1)),
    Field("llm_config", "max_tokens", "used", "sent with every request", llm(max_tokens=99),
          clean(lambda s: request(s).max_tokens == 99)),
    Field("llm_config", "logprobs", "used", "sent; token ids and logprobs are recorded and "
          "exported", llm(logprobs=True), opts(logprobs=True)),
    Field("llm_config", "extra_body", "used", "merged into the request body",
          llm(extra_body={"train_mode": True}), opts(extra_body={"train_mode": True})),
    Field("llm_config", "reasoning", "mapped", "sent; with `openai_responses` its effort "
          "becomes `reasoning_effort`", llm(api_type="openai_responses",
                                            reasoning={"effort": "low"}),
          opts(reasoning_effort="low")),
    Field("llm_config", "stream", "mapped", "a4a makes non-streaming calls (warning)",
          llm(stream=True), warns("llm.mapped")),
    Field("llm_config", "provider", "used", "like any other key, sent as a request parameter",
          llm(provider="openai"), opts(provider="openai")),
    Field("mcp_servers", "name", "used", "its tools are called `name__tool`", mcp(),
          clean(lambda s: first(s).mcp_servers[0].name == "srv")),
    Field("mcp_servers", "type", "used", "stdio, or http (streamable HTTP) / sse through the "
          "mcp client", mcp(), clean(lambda s: first(s).mcp_servers[0].type == "http")),
    Field("mcp_servers", "command", "used", "started only with --trust; otherwise the server "
          "is left out (warning)", {"mcp_servers": [{"name": "s", "command": "npx"}]},
          warns("mcp.untrusted")),
    Field("mcp_servers", "args", "used", "the command's arguments (with --trust)",
          {"mcp_servers": [{"name": "s", "command": "npx", "args": ["-y", "x"]}]},
          warns("mcp.untrusted")),
    Field("mcp_servers", "env", "used", "the command's environment (with --trust)",
          {"mcp_servers": [{"name": "s", "command": "npx", "env": {"K": "v"}}]},
          warns("mcp.untrusted")),
    Field("mcp_servers", "url", "used", "the endpoint; a remote one is reached only with "
          "--network (warning), plain HTTP only on loopback", mcp(),
          warns("mcp.needs_network")),
    Field("mcp_servers", "headers", "used", "sent with every request", mcp(headers={"X": "1"}),
          clean(lambda s: first(s).mcp_servers[0].headers == {"X": "1"})),
    Field("mcp_servers", "timeout", "used", "the per-call timeout", mcp(timeout=7),
          clean(lambda s: first(s).mcp_servers[0].timeout == 7)),
    Field("mcp_servers", "permissions", "used", "rules for the server's tools, as tool "
          "permissions", mcp(permissions={"deny": ["srv__drop"]}),
          clean(lambda s: first(s).nexau.permissions["srv__*"].deny == ["srv__drop"])),
    Field("sub_agents", "name", "used", "the name the parent calls it by (deduplicated "
          "across the tree)", SUB, clean(lambda s: s.agents[1].name == "helper"), SUB_FILE),
    Field("sub_agents", "config_path", "used", "its config, inside the folder unless trusted",
          SUB, clean(lambda s: s.agents[1].description == "Helps."), SUB_FILE),
    Field("middlewares", "LongToolOutputMiddleware", "mapped", "long tool outputs cut to head "
          "and tail; the full text saved in the workspace",
          mw(f"{MW}.long_tool_output:LongToolOutputMiddleware", max_output_chars=500),
          clean(lambda s: first(s).nexau.tool_output.max_chars == 500)),
    Field("middlewares", "ContextCompactionMiddleware", "mapped", "old tool results, then "
          "old turns compacted from the threshold on; no summary model (warning)",
          mw(f"{MW}.context_compaction:ContextCompactionMiddleware",
             compaction_strategy="llm_summary", threshold=0.6),
          warns("nexau.compaction_mapped")),
    Field("middlewares", "RuntimeEnvironmentMiddleware", "mapped", "the runtime environment "
          "block is appended to the prompt",
          mw(f"{MW}.runtime_environment:RuntimeEnvironmentMiddleware"),
          clean(lambda s: "# Runtime Environment" in request(s).messages[0].content)),
    Field("middlewares", "LoggingMiddleware", "mapped", "the trajectory records every call "
          "(warning)", mw("nexau.archs.main_sub.execution.hooks:LoggingMiddleware"),
          warns("nexau.logging_mapped")),
    Field("middlewares", "import path of the config's own code", "dropped", "never imported "
          "(warning); the run goes on without it", mw("./middleware.py:Custom"),
          warns("nexau.import_untrusted")),
    Field("tracers", "InMemoryTracer", "mapped", "the run's trajectory; `a4a trace export "
          "--format nexrl` writes its spans",
          {"tracers": ["nexau.archs.tracer.adapters.in_memory:InMemoryTracer"]},
          clean(lambda s: True)),
    Field("tracers", "LangfuseTracer", "dropped", "not used (warning)",
          {"tracers": [{"import": "nexau.archs.tracer.adapters.langfuse:LangfuseTracer",
                        "params": {"host": "https://x"}}]}, warns("nexau.tracer_dropped")),
    Field("plugin", "contributes", "used", "tools, skills, sub_agents, mcp_servers, "
          "middlewares join the agent", {"plugins": [{"use": "path:./plug"}]},
          clean(lambda s: s.tools[0].name == "read_file"),
          {"plug/plugin.yaml": PLUGIN, "plug/r.yaml": READ}),
    Field("plugin", "config", "used", "defaults and required keys of the entry's `config`; "
          "`${config.x}` inside the plugin", {"plugins": [{"use": "path:./plug"}]},
          clean(lambda s: first(s).system_prompt.endswith("Work for core.")),
          {"plug/plugin.yaml": PLUGIN, "plug/r.yaml": READ}),
    Field("plugin", "system_prompt_fragment", "used", "appended to the prompt",
          {"plugins": [{"use": "path:./plug", "config": {"team": "x"}}]},
          clean(lambda s: "Work for x." in first(s).system_prompt),
          {"plug/plugin.yaml": PLUGIN, "plug/r.yaml": READ}),
    Field("plugin", "type, name, version, description, engines", "dropped", "read, not "
          "checked (no warning: they do not change a run)",
          {"plugins": [{"use": "path:./plug"}]}, clean(lambda s: True),
          {"plug/plugin.yaml": PLUGIN, "plug/r.yaml": READ}),
]


def _write(root: Path, config: dict[str, Any], files: dict[str, Any]) -> Path:
    for rel, data in {"a.yaml": {**BASE, **config}, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    return root / "a.yaml"


@pytest.mark.parametrize("row", FIELDS, ids=lambda f: f"{f.section}:{f.name}")
def test_field(row: Field, tmp_path: Path) -> None:
    spec, issues = inspect_agent_config(_write(tmp_path, row.config, row.files))
    assert spec is not None and not [i for i in issues if i.severity == "error"], issues
    row.check(spec, issues)
    if row.treatment == "dropped":
        assert row.check.__qualname__.startswith("warns") or "no warning" in row.what


def _readme_rows() -> list[tuple[str, str, str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- nexau-fields -->")[1].split("<!-- /nexau-fields -->")[0]
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("section", "") and not set(cells[0]) <= {"-"}:
            rows.append((cells[0], cells[1].strip("`"), cells[2], cells[3]))
    return rows


def test_readme_table_is_this_table() -> None:
    def norm(text: str) -> str:
        return re.sub(r"\s+", " ", text.replace("\\|", "|")).strip()

    expected = [(f.section, f.name, f.treatment, norm(f.what)) for f in FIELDS]
    assert [(s, n, t, norm(w)) for s, n, t, w in _readme_rows()] == expected
