"""One NexAU agent config -> an a4a AgentSpec with its NexAU settings (and its children).

The file is read confined (see files.py), its placeholders resolved (values.py), plugins
expanded, the mapping checked against NexAU's schema, then every field mapped: tools,
skills, prompt, middlewares, hooks, tracers, MCP servers, llm_config; what a4a drops or
maps is a warning of the report, what cannot work an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from a4a.runtime.errors import A4AError
from a4a.runtime.graph.issues import from_pydantic
from a4a.runtime.ir.nexau import NexauSettings
from a4a.runtime.ir.spec import AgentSpec, LLMConfig, SubAgentRef, ToolSpec
from a4a.runtime.loader.nexau import extensions, prompts
from a4a.runtime.loader.nexau.files import Access
from a4a.runtime.loader.nexau.plugins import PluginScope, expand
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.schema import AgentConfig
from a4a.runtime.loader.nexau.skills import load_skills
from a4a.runtime.loader.nexau.tools import load_tools
from a4a.runtime.loader.nexau.values import (
    PlaceholderError,
    scope,
    strip_unset,
    substitute,
    unset_paths,
)

DEFAULT_PROMPT = "You are {{ agent_name }}, a helpful agent."
MODES = {"xml": "xml", "structured": "openai", "openai": "openai", "anthropic": "openai",
         "anthorpic": "openai"}
# Where an unset ${env.X} does no harm: fields a4a drops, or connection fields the command
# line gives instead (--llm, --base-url).
_DROPPED = re.compile(r"^(tracers|middlewares|token_counter|sandbox_config|initial_state|"
                      r"initial_config|(before|after)_(model|tool)_hooks)\b")
_CONNECTION = re.compile(r"^llm_config\.(model|base_url|api_key|api_type)$")
# llm_config keys that change what a run does but a4a cannot honour.
_LLM_MAPPED = {"stream": "a4a makes non-streaming calls",
               "tool_streaming": "a4a makes non-streaming calls"}
_API_TYPES = {"openai_chat_completion", None}


@dataclass
class Child:
    """A sub-agent to load: its file, the name its parent calls it, the plugin it is from."""

    file: Path
    visible: str
    parent: str
    plugin: PluginScope | None = None
    ancestors: tuple[Path, ...] = ()


@dataclass
class Loaded:
    """One agent and what it brought: its tools and the children still to load."""

    agent: AgentSpec
    tools: list[ToolSpec] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)


@dataclass
class Raw:
    """A config's mapping after placeholders and plugins, with what the plugins added."""

    data: dict[str, Any]
    fragments: list[str] = field(default_factory=list)
    plugin_scopes: dict[str, PluginScope] = field(default_factory=dict)


def read_config(file: Path, access: Access, report: Report, *, plugin: PluginScope | None,
                root_agent: bool) -> Raw | None:
    """The config's mapping with placeholders resolved and plugins merged (None: unusable)."""
    try:
        raw = access.read_yaml(file)
    except A4AError as err:
        report.failed(file, "", err)
        return None
    if not isinstance(raw, dict):
        report.error(file, "", "yaml.not_mapping", "the config is not a YAML mapping",
                     "Write the agent config as a mapping.")
        return None
    base = file.parent.resolve()
    try:
        env_scope = scope(str(base), plugin_dir=str(plugin.folder) if plugin else None,
                          plugin_config=plugin.config if plugin else None)
        variables = substitute(raw.pop("variables", None) or {}, env_scope)
        if not isinstance(variables, dict):
            raise PlaceholderError("`variables` must be a mapping")
        data = substitute(raw, replace(env_scope, variables=variables))
    except PlaceholderError as err:
        report.error(file, "", "nexau.placeholder", str(err), "Define what the placeholder "
                     "names, in `variables` or the plugin's config.")
        return None
    out = Raw(data)
    if data.get("plugins") and not root_agent:
        report.warn(file, "plugins", "plugin.ignored", "plugins of a sub-agent are ignored, "
                    "as NexAU ignores them", "Enable the plugin on the top-level agent.")
        data.pop("plugins")
    elif data.get("plugins"):
        expansion = expand(data, base, file, access, report)
        out.fragments, out.plugin_scopes = expansion.fragments, expansion.sub_agent_scopes
    out.data = _unset(data, file, report)
    return out


def _unset(data: dict[str, Any], file: Path, report: Report) -> dict[str, Any]:
    for at, value in unset_paths(data):
        names = ", ".join(value.names)
        if _DROPPED.match(at) or at.startswith("mcp_servers"):
            continue
        if _CONNECTION.match(at):
            report.warn(file, at, "env.unset", f"{names} is not set: the run takes this from "
                        "the command line", f"Set {names}, or run with --llm openai:<model> "
                        "(and --base-url).")
        else:
            report.error(file, at, "env.unset", f"environment variable {names} is not set",
                         f"Set {names} before loading the config.")
    cleaned: dict[str, Any] = strip_unset(data)
    return cleaned


def check_schema(data: dict[str, Any], file: Path, report: Report) -> AgentConfig | None:
    """The mapping checked as NexAU checks it; issues reported with the file."""
    try:
        config = AgentConfig.model_validate(data)
    except ValidationError as err:
        for issue in from_pydantic(err):
            report.error(file, issue.path, issue.code, issue.message, issue.hint)
        return None
    if not config.name:
        report.warn(file, "name", "nexau.no_name", "the config has no name: it is "
                    "`configured_agent`, as in NexAU", "Give the agent a name.")
    return config


def build_agent(name: str, config: AgentConfig, file: Path, access: Access, report: Report,
                *, fragments: list[str], plugin_scopes: dict[str, PluginScope],
                ancestors: tuple[Path, ...]) -> Loaded:
    """The AgentSpec of a checked config, the tools it uses and its children."""
    base = file.parent.resolve()
    sc = scope(str(base))
    tools = load_tools(config.tools, base, file, access, report, sc)
    skills = load_skills(config.skills, base, file, access, report) + tools.skills
    behaviour = extensions.middlewares(config, file, report, access.trusted)
    extensions.hooks_and_tracers(config, file, report, access.trusted)
    servers, mcp_rules = extensions.mcp_servers(config, file, report, access.trusted)
    prompt = prompt_text(config, base, file, access, report, fragments,
                         behaviour.runtime_environment)
    _other_fields(config, file, report)
    names = [t.name for t in tools.specs]
    children = [Child((base / s.config_path), s.name, name,
                      plugin_scopes.get(s.config_path), (*ancestors, file.resolve()))
                for s in config.sub_agents or []]
    settings = NexauSettings(
        source=report.name(file), context=dict(config.context or {}),
        skills=skills, permissions={**tools.permissions, **mcp_rules},
        tool_output=behaviour.tool_output, compaction=behaviour.compaction,
        tool_kwargs=tools.kwargs, serial_tools=tools.serial,
        global_storage=dict(config.global_storage),
        retry_attempts=config.retry_attempts,
        retry_backoff_max_s=float(config.retry_backoff_max_seconds))
    agent = AgentSpec(
        name=name, description=(config.description or "").strip(), system_prompt=prompt,
        system_prompt_type="jinja", tool_call_mode=_mode(config, file, report),
        llm_config=_llm(config, file, report), tools=list(names),
        sub_agents=[SubAgentRef(name=c.visible, config_path=str(c.file)) for c in children],
        stop_tools=_stop_tools(config, names, file, report),
        max_iterations=config.max_iterations,
        max_context_tokens=max(config.max_context_tokens, 256),
        mcp_servers=servers, nexau=settings)
    return Loaded(agent, tools.specs, children)


def _mode(config: AgentConfig, file: Path, report: Report) -> str:
    mode = MODES.get(config.tool_call_mode)
    if mode is None:
        report.error(file, "tool_call_mode", "nexau.tool_call_mode", f"unknown tool_call_mode "
                     f"{config.tool_call_mode!r}", "Use structured or xml.")
        return "openai"
    if config.tool_call_mode in ("anthropic", "anthorpic"):
        report.warn(file, "tool_call_mode", "nexau.tool_call_mode_mapped",
                    f"tool_call_mode {config.tool_call_mode!r} is structured tool calling in "
                    "the OpenAI wire format", "a4a talks to OpenAI-compatible servers.")
    return mode


def _llm(config: AgentConfig, file: Path, report: Report) -> LLMConfig:
    data = {k: v for k, v in config.llm_config.items() if v is not None}
    api_type = data.get("api_type")
    if api_type not in _API_TYPES:
        report.warn(file, "llm_config.api_type", "llm.api_type_mapped", f"api_type "
                    f"{api_type!r}: a4a calls chat completions on an OpenAI-compatible server",
                    "Point base_url at an OpenAI-compatible /v1 server.")
    for key, why in _LLM_MAPPED.items():
        if data.get(key):
            report.warn(file, f"llm_config.{key}", "llm.mapped", f"llm_config.{key}: {why}",
                        "Nothing to do; results are the same, delivered at once.")
    try:
        return LLMConfig.model_validate(data)
    except ValidationError as err:
        for issue in from_pydantic(err, "llm_config"):
            report.error(file, issue.path, issue.code, issue.message, issue.hint)
        return LLMConfig()


def _stop_tools(config: AgentConfig, names: list[str], file: Path, report: Report
                ) -> list[str]:
    out = []
    for i, stop in enumerate(config.stop_tools or []):
        if stop in names:
            out.append(stop)
        else:
            report.warn(file, f"stop_tools[{i}]", "nexau.stop_tool_missing", f"stop tool "
                        f"{stop!r} is not one of the agent's tools: ignored",
                        "Name a tool the agent has.")
    return out


def _other_fields(config: AgentConfig, file: Path, report: Report) -> None:
    if config.sandbox_config:
        report.warn(file, "sandbox_config", "nexau.sandbox_mapped", "sandbox_config is "
                    "mapped to a4a's sandbox", "Code runs under bubblewrap in the run's own "
                    "workspace; work_dir and remote sandboxes are not used.")
    for key in ("initial_state", "initial_config"):
        if getattr(config, key):
            report.warn(file, key, "nexau.state_dropped", f"{key} is not used",
                        "a4a's builtins read no agent state; use global_storage.")


def prompt_text(config: AgentConfig, base: Path, file: Path, access: Access, report: Report,
                fragments: list[str], runtime_environment: bool) -> str:
    """The prompt template of a config: the text, or the files it names, joined."""
    items = _prompt_items(config.system_prompt, file, report)
    if items is None:
        items = [DEFAULT_PROMPT]
        report.warn(file, "system_prompt", "nexau.no_system_prompt", "the config has no "
                    "system_prompt: a4a gives it a one-line default", "Write a system prompt.")
        kind = "string"
    else:
        kind = config.system_prompt_type
    parts = []
    for i, item in enumerate(items):
        if kind == "string":
            _path_like(item, base, file, access, report)
            parts.append(item)
            continue
        if _inline(item):
            report.warn(file, "system_prompt", "nexau.prompt_inline", f"system_prompt_type "
                        f"{kind!r} names a file, but this prompt is template text: a4a renders "
                        "the text", "Use `system_prompt_type: string` for inline prompts.")
            parts.append(item)
            continue
        try:
            parts.append(access.read_text(access.path(base, item)).strip())
        except A4AError as err:
            report.failed(file, f"system_prompt[{i}]" if len(items) > 1 else "system_prompt",
                          err)
    text = "\n\n".join(p for p in [*parts, config.system_prompt_suffix or "", *fragments] if p)
    if runtime_environment:
        text += prompts.RUNTIME_ENVIRONMENT
    try:
        prompts.check(text, report.name(file))
    except A4AError as err:
        report.failed(file, "system_prompt", err)
    return text or DEFAULT_PROMPT


def _prompt_items(value: Any, file: Path, report: Report) -> list[str] | None:
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        return [value]
    items = [v.get("content") if isinstance(v, dict) else v for v in value] \
        if isinstance(value, list) else None
    if items is None or not all(isinstance(v, str) for v in items):
        report.error(file, "system_prompt", "nexau.system_prompt", "system_prompt must be "
                     "text, or a list of texts or {content, cache} blocks",
                     "Write the prompt as a string (or a list of them).")
        return None
    return [str(v) for v in items]


def _inline(text: str) -> bool:
    """Whether a `file`/`jinja` prompt is really the template itself (not a path)."""
    return "\n" in text.strip() or "{{" in text or "{%" in text or len(text) > 255


def _path_like(text: str, base: Path, file: Path, access: Access, report: Report) -> None:
    stripped = text.strip()
    if "\n" in stripped or not stripped.endswith((".md", ".txt", ".j2", ".jinja")):
        return
    try:
        access.read_text(access.path(base, stripped), max_bytes=1)
    except A4AError as err:
        if err.code != "file.too_large":
            return
    report.warn(file, "system_prompt", "nexau.prompt_is_path", f"system_prompt {stripped!r} "
                "names a file but its type is string: the model gets the path itself, as "
                "in NexAU", "Set `system_prompt_type: file` (or jinja) to send the file.")
