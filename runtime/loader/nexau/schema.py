"""NexAU's YAML schemas as NexAU checks them: unknown keys are errors, values typed.

These models only validate; the loader reads the checked mapping and maps each field
(see README, "NexAU configs"). `system_prompt` is checked by hand so a wrong value gets one
clear message instead of one per member of a union.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field


class _Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class HookImport(_Forbid):
    """`{import: "pkg.mod:attr", params: {...}}` (plugins also give a `name`)."""

    import_path: str = Field(alias="import")
    params: dict[str, Any] | None = None
    name: str | None = None


Hook = HookImport | str


class ToolEntry(_Forbid):
    """One `tools:` item of an agent config."""

    name: str
    yaml_path: str | None = None
    binding: str | None = None
    lazy: bool = False
    as_skill: bool = False
    defer_loading: bool = False
    extra_kwargs: dict[str, Any] | None = None
    source_id: str | None = None
    permissions: dict[str, list[str]] | None = None


class SkillEntry(_Forbid):
    """A `skills:` item given as a mapping."""

    name: str | None = None
    path: str
    source_id: str | None = None


class SubAgentEntry(_Forbid):
    """A `sub_agents:` item."""

    name: str
    config_path: str
    source_id: str | None = None


class McpEntry(_Forbid):
    """An `mcp_servers:` item (stdio, or http / streamable-http / sse by URL)."""

    name: str
    type: Literal["stdio", "http", "streamable-http", "sse"] = "stdio"
    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    auth: dict[str, Any] | None = None
    timeout: float | None = Field(default=None, gt=0)
    disable_parallel: bool = False
    permissions: dict[str, list[str]] | None = None
    tool_permissions: dict[str, dict[str, list[str]] | None] | None = None
    source_id: str | None = None


class PluginEntry(_Forbid):
    """A `plugins:` item."""

    use: str
    config: dict[str, Any] = Field(default_factory=dict)


class AgentConfig(_Forbid):
    """A NexAU agent YAML (after placeholders, `variables` and plugins are resolved)."""

    type: Literal["agent"] | None = None
    name: str | None = None
    description: str | None = None
    source_id: str | None = None
    system_prompt: Any = None
    system_prompt_type: Literal["string", "file", "jinja"] = "string"
    system_prompt_suffix: str | None = None
    tools: list[ToolEntry] = Field(default_factory=list)
    sub_agents: list[SubAgentEntry] | None = None
    skills: list[SkillEntry | str] = Field(default_factory=list)
    llm_config: dict[str, Any]
    stop_tools: list[str] | None = None
    initial_state: dict[str, Any] | None = None
    initial_config: dict[str, Any] | None = None
    context: dict[str, Any] | None = Field(
        default=None, validation_alias=AliasChoices("context", "initial_context"))
    mcp_servers: list[McpEntry] = Field(default_factory=list)
    before_model_hooks: list[Hook] | None = None
    after_model_hooks: list[Hook] | None = None
    before_tool_hooks: list[Hook] | None = None
    after_tool_hooks: list[Hook] | None = None
    middlewares: list[Hook] | None = None
    token_counter: Hook | None = None
    tracers: list[Hook] = Field(default_factory=list)
    global_storage: dict[str, Any] = Field(default_factory=dict)
    max_context_tokens: int = Field(default=128_000, ge=1)
    max_running_subagents: int = Field(default=5, ge=0)
    max_iterations: int = Field(default=100, ge=1)
    tool_call_mode: str = "structured"
    retry_attempts: int = Field(default=5, ge=0)
    retry_backoff_max_seconds: int = Field(default=30, ge=0)
    timeout: int = Field(default=300, ge=1)
    sandbox_config: dict[str, Any] | None = None
    plugins: list[PluginEntry] = Field(default_factory=list)


class ToolYaml(_Forbid):
    """A NexAU tool YAML (`type: tool`)."""

    type: Literal["tool"] | None = None
    name: str
    description: str
    input_schema: dict[str, Any] = Field(default_factory=dict)
    skill_description: str | None = None
    disable_parallel: bool | None = None
    lazy: bool | None = None
    defer_loading: bool | None = None
    search_hint: str | None = None
    template_override: str | None = None
    builtin: str | None = None
    binding: str | None = None
    formatter: str | None = None
    kind: str | None = None  # RFC-0018 `external` (NexAU reverted it later)


# Fields that mark a YAML mapping as a NexAU agent config rather than a4a's framework.yaml.
AGENT_FIELDS = frozenset({"system_prompt", "llm_config", "sub_agents", "max_iterations",
                          "tool_call_mode", "middlewares", "tracers", "plugins", "skills"})
FRAMEWORK_FIELDS = frozenset({"apiVersion", "agents", "entry", "patterns"})


def is_agent_config(data: Any) -> bool:
    """Whether parsed YAML is a NexAU agent config (by its fields, not only `type`)."""
    if not isinstance(data, dict) or FRAMEWORK_FIELDS & set(data):
        return False
    return data.get("type") == "agent" or bool(AGENT_FIELDS & set(data))
