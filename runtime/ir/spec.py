"""The framework IR: pydantic models every layer speaks (apiVersion a4a/v1).

Agent fields follow NexAU's names where they overlap so a framework's agent YAML files load
on their own like NexAU agent configs. Every field carries a description: the descriptions
become the JSON Schema in templates/schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from a4a.runtime.ir.base import Strict
from a4a.runtime.ir.nexau import NexauSettings

API_VERSION = "a4a/v1"
NAME = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
IMPLEMENTATION = (
    r"^(world:[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*|mcp:[a-z][a-z0-9_-]*\.[A-Za-z0-9_-]+"
    r"|builtin:[a-z][a-z0-9_]*|sandbox:python|binding:[A-Za-z_][\w.]*:[A-Za-z_]\w*)$"
)
EdgeKind = Literal["delegate", "handoff", "sequence", "route", "parallel", "loop"]
EDGE_KINDS: tuple[str, ...] = ("delegate", "handoff", "sequence", "route", "parallel", "loop")
CONTROL_KINDS = frozenset(EDGE_KINDS) - {"delegate"}


class ToolSpec(Strict):
    """A tool: schema plus an implementation named in a registry (never an import path)."""

    type: Literal["tool"] = Field(default="tool", description="Marker, as in NexAU tool YAML.")
    name: str = Field(pattern=NAME, description="Tool name the model calls.")
    description: str = Field(min_length=1, description="What the tool does, for the model.")
    input_schema: dict[str, Any] = Field(description="JSON Schema (object) of the arguments.")
    implementation: str = Field(
        pattern=IMPLEMENTATION,
        description="Registered implementation: world:<pack>.<op>, mcp:<server>.<tool>, "
        "builtin:<name> or sandbox:python; binding:<module>:<attr> only in hand-written "
        "NexAU configs, run only with an explicit trust flag.",
    )
    writes: bool = Field(default=False, description="Whether the tool changes the world.")


class ToolEntry(Strict):
    """A tool entry of an agent (NexAU `tools:` item)."""

    name: str = Field(pattern=NAME, description="Tool name.")
    yaml_path: str | None = Field(default=None, description="Path of the tool YAML file.")
    binding: str | None = Field(
        default=None,
        description="NexAU import-path binding; honoured only via the builtin allowlist or "
        "an explicit trust flag, never in generated frameworks.",
    )
    lazy: bool | None = Field(default=None, description="NexAU: import on first call.")
    as_skill: bool | None = Field(default=None, description="NexAU: expose as a skill.")
    source_id: str | None = Field(default=None, description="Provenance id.")


class SubAgentRef(Strict):
    """A sub-agent reference (NexAU `sub_agents:` item)."""

    name: str = Field(pattern=NAME, description="Sub-agent name.")
    config_path: str = Field(description="Path of the sub-agent's YAML, relative to this file.")


class McpServer(Strict):
    """An MCP server an agent uses (NexAU `mcp_servers:` shape)."""

    name: str = Field(pattern=NAME, description="Server name; its tools become name__tool.")
    type: Literal["stdio", "http", "streamable-http", "sse"] = Field(
        default="stdio", description="Transport (http is streamable HTTP).")
    id: str | None = Field(default=None, description="Id in the vetted registry (generated).")
    command: str | None = Field(default=None, description="stdio: executable to launch.")
    args: list[str] = Field(default_factory=list, description="stdio: arguments.")
    url: str | None = Field(default=None, description="http/sse: endpoint.")
    headers: dict[str, str] = Field(default_factory=dict, description="http/sse: headers.")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment.")
    timeout: float | None = Field(default=None, description="Per-call timeout in seconds.")


class LLMConfig(Strict):
    """Model settings (NexAU `llm_config`); the backend is chosen at run time by --llm."""

    model_config = ConfigDict(extra="allow", frozen=True)
    model: str | None = Field(default=None, description="Model name, if pinned.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL.")
    temperature: float | None = Field(default=None, ge=0, le=2, description="Sampling temp.")
    max_tokens: int | None = Field(default=None, ge=1, description="Max tokens per reply.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling.")
    api_type: str | None = Field(default=None, description="NexAU API type.")


class AgentSpec(Strict):
    """One agent; loadable on its own like a NexAU agent config."""

    type: Literal["agent"] = Field(default="agent", description="Marker, as in NexAU.")
    name: str = Field(pattern=NAME, description="Unique agent name.")
    role: str = Field(default="specialist", description="Role archetype id (templates/roles).")
    description: str = Field(default="", description="One line; parents show it as a tool.")
    system_prompt: str = Field(min_length=1, description="System prompt text or template.")
    system_prompt_type: Literal["string", "jinja", "file"] = Field(
        default="string", description="How system_prompt is read (NexAU)."
    )
    tool_call_mode: Literal["openai", "structured", "xml", "hermes", "react"] = Field(
        default="openai", description="How the model calls tools."
    )
    llm_config: LLMConfig = Field(default_factory=LLMConfig, description="Model settings.")
    tools: list[str | ToolEntry] = Field(default_factory=list, description="Tools it may call.")
    sub_agents: list[SubAgentRef] = Field(
        default_factory=list, description="Agents it calls as tools (delegate edges)."
    )
    skills: list[str] = Field(default_factory=list, description="Skill names or folders.")
    stop_tools: list[str] = Field(default_factory=list, description="Tools that end its run.")
    max_iterations: int = Field(default=20, ge=1, le=1_000_000, description="Loop step cap.")
    max_context_tokens: int = Field(default=32000, ge=256, description="Context budget.")
    mcp_servers: list[McpServer] = Field(default_factory=list, description="MCP servers.")
    nexau: NexauSettings | None = Field(
        default=None, description="NexAU behaviour the runtime honours; only agents loaded "
        "from NexAU YAML carry it.")

    def tool_names(self) -> list[str]:
        """Names of the tools this agent may call."""
        return [t if isinstance(t, str) else t.name for t in self.tools]


class EdgeSpec(Strict):
    """A typed edge between two agents."""

    source: str = Field(pattern=NAME, description="Agent the edge leaves.")
    target: str = Field(pattern=NAME, description="Agent the edge enters.")
    kind: EdgeKind = Field(description="delegate|handoff|sequence|route|parallel|loop.")
    condition: str | None = Field(
        default=None, description="route: when taken; loop: the exit condition."
    )
    default: bool = Field(default=False, description="route: the fallback route.")
    max_iterations: int | None = Field(
        default=None, ge=1, le=100, description="Cap on traversals (loops, cyclic handoffs)."
    )
    join: str | None = Field(default=None, description="parallel: agent that joins the branches.")


class PatternNode(Strict):
    """A node of the pattern tree: patterns nest (an orchestrator whose worker is a loop)."""

    pattern: str = Field(description="Pattern id (templates/patterns).")
    agents: list[str] = Field(default_factory=list, description="Agents this node introduces.")
    children: list[PatternNode] = Field(default_factory=list, description="Nested patterns.")


class Limits(Strict):
    """Run budgets."""

    max_steps: int = Field(default=200, ge=1, description="Worst-case steps across the run.")
    max_depth: int = Field(default=3, ge=1, le=8, description="Max delegation depth.")
    max_tokens: int = Field(default=200_000, ge=1, description="Token budget for one run.")
    timeout_s: float = Field(default=600, gt=0, description="Wall-clock budget in seconds.")


class Provenance(Strict):
    """Where a framework came from."""

    a4a_version: str = Field(description="a4a version that built it.")
    seed: int = Field(default=0, description="Build seed.")
    source_sha256: str = Field(default="", description="SHA-256 of the request text.")
    builder: str = Field(default="rules", description="Builder used (rules, dspy, hand).")
    llm: str | None = Field(default=None, description="Model used by an LLM builder.")


class EnvironmentSpec(Strict):
    """The verifiable environment a framework runs in."""

    domains: list[str] = Field(default_factory=list, description="Domain packs of the world.")
    seed: int = Field(default=0, description="World seed.")


class FrameworkSpec(Strict):
    """A multi-agent framework: agents, typed edges, tools, limits."""

    apiVersion: Literal["a4a/v1"] = Field(default="a4a/v1", description="IR version.")
    name: str = Field(pattern=NAME, description="Framework name.")
    description: str = Field(description="The natural-language request it was built from.")
    pattern: str = Field(description="Top-level pattern id.")
    patterns: PatternNode = Field(description="Pattern tree.")
    entry: str = Field(pattern=NAME, description="Agent that receives the task.")
    agents: list[AgentSpec] = Field(min_length=1, description="Agents.")
    edges: list[EdgeSpec] = Field(default_factory=list, description="Typed edges.")
    tools: list[ToolSpec] = Field(default_factory=list, description="Tool schemas.")
    environment: EnvironmentSpec | None = Field(default=None, description="World, if any.")
    limits: Limits = Field(default_factory=Limits, description="Budgets.")
    provenance: Provenance | None = Field(default=None, description="Origin.")

    def agent(self, name: str) -> AgentSpec | None:
        """The agent called `name`, if any."""
        return next((a for a in self.agents if a.name == name), None)
