"""Hand-written NexAU-style agent configs -> a single-agent (or small tree) FrameworkSpec.

Tool YAMLs are read from `yaml_path`; a `binding:` import path maps to an a4a builtin when it
is on the allowlist, and otherwise stays a `binding:` reference that runs only under trust.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from a4a.runtime import knowledge
from a4a.runtime.errors import SpecError
from a4a.runtime.graph.issues import Issue, from_pydantic
from a4a.runtime.ir.spec import (
    AgentSpec,
    EdgeSpec,
    FrameworkSpec,
    PatternNode,
    Provenance,
    Strict,
    ToolEntry,
    ToolSpec,
)
from a4a.runtime.loader.yamlio import load_yaml_file

MAX_AGENTS = 64
# NexAU agent-config keys a4a accepts and ignores (runtime wiring a4a does its own way).
IGNORED_AGENT_KEYS = frozenset({"source_id", "system_prompt_suffix", "initial_state",
                                "initial_config", "context", "global_storage", "retry_attempts",
                                "retry_backoff_max_seconds", "timeout", "max_running_subagents"})


class NexauTool(Strict):
    """A NexAU tool YAML (`type: tool`)."""

    type: str = Field(default="tool", description="Marker.")
    name: str = Field(description="Tool name.")
    description: str = Field(description="What the tool does.")
    input_schema: dict[str, Any] = Field(default_factory=dict, description="JSON Schema.")
    skill_description: str | None = Field(default=None, description="Skill blurb.")
    disable_parallel: bool | None = Field(default=None, description="Serial within a turn.")
    lazy: bool | None = Field(default=None, description="Lazy import.")
    defer_loading: bool | None = Field(default=None, description="Hidden until searched.")
    search_hint: str | None = Field(default=None, description="ToolSearch hint.")
    template_override: str | None = Field(default=None, description="XML usage block.")
    builtin: str | None = Field(default=None, description="NexAU builtin name.")
    binding: str | None = Field(default=None, description="Import path.")
    formatter: str | None = Field(default=None, description="Output formatter import path.")


def _issue_error(path: Path, issues: list[Issue]) -> SpecError:
    return SpecError("spec.invalid", f"{path}: {len(issues)} issue(s)", "Fix the listed fields.",
                     issues=[i.to_dict() for i in issues])


def _implementation(binding: str | None, name: str) -> str:
    if binding in knowledge.NEXAU_BINDINGS:
        return f"builtin:{knowledge.NEXAU_BINDINGS[binding]}"
    if binding:
        return f"binding:{binding}"
    return f"builtin:{name}"


def _load_tool(base: Path, entry: ToolEntry, prefix: str) -> ToolSpec:
    if not entry.yaml_path:
        return ToolSpec(name=entry.name, description=entry.name, input_schema={"type": "object"},
                        implementation=_implementation(entry.binding, entry.name))
    path = (base / entry.yaml_path).resolve()
    data = load_yaml_file(path)
    try:
        if isinstance(data, dict) and "implementation" in data:  # an a4a tool file
            return ToolSpec.model_validate(data).model_copy(update={"name": entry.name})
        tool = NexauTool.model_validate(data)
    except ValidationError as err:
        raise _issue_error(path, from_pydantic(err, prefix)) from err
    schema = dict(tool.input_schema)
    schema.setdefault("type", "object")
    return ToolSpec(name=entry.name or tool.name, description=tool.description,
                    input_schema=schema,
                    implementation=_implementation(entry.binding or tool.binding, tool.name))


def _load_agent(path: Path) -> AgentSpec:
    data = load_yaml_file(path)
    if not isinstance(data, dict):
        raise _issue_error(path, [Issue("yaml.not_mapping", "", "top level is not a mapping",
                                        "Write the agent as a YAML mapping.")])
    _check_tracers(path, data.pop("tracers", None))
    data = {k: v for k, v in data.items() if k not in IGNORED_AGENT_KEYS}
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as err:
        raise _issue_error(path, from_pydantic(err)) from err


# NexAU tracers that a4a's own trajectory recorder replaces (every run is recorded anyway).
RECORDER_TRACERS = frozenset({
    "nexau.archs.tracer.adapters.in_memory:InMemoryTracer",
    "nexau.archs.tracer.adapters.in_memory.InMemoryTracer",
})


def _check_tracers(path: Path, tracers: Any) -> None:
    entries = tracers if isinstance(tracers, list) else [] if tracers is None else [tracers]
    for i, entry in enumerate(entries):
        ref = entry.get("import") if isinstance(entry, dict) else entry
        if ref not in RECORDER_TRACERS:
            raise _issue_error(path, [Issue("tracer.unsupported", f"tracers[{i}]",
                                            f"tracer {ref!r} has no a4a equivalent",
                                            "Remove it: a4a records every run as a trajectory "
                                            "(the in-memory tracer maps to it).")])


def load_agent_config(path: Path) -> FrameworkSpec:
    """Load a NexAU-style agent YAML (and its sub-agents) as a hand-written framework."""
    agents: list[AgentSpec] = []
    tools: dict[str, ToolSpec] = {}
    edges: list[EdgeSpec] = []
    seen: dict[Path, str] = {}
    stack: list[tuple[Path, str | None]] = [(path.resolve(), None)]
    while stack:
        file, parent = stack.pop(0)
        if file in seen:
            if parent:
                edges.append(EdgeSpec(source=parent, target=seen[file], kind="delegate"))
            continue
        if len(agents) >= MAX_AGENTS:
            raise SpecError("agents.too_many", f"more than {MAX_AGENTS} agents under {path}",
                            "Split the configuration.")
        agent = _load_agent(file)
        seen[file] = agent.name
        i = len(agents)
        for j, t in enumerate(agent.tools):
            if isinstance(t, ToolEntry):
                tools.setdefault(t.name, _load_tool(file.parent, t, f"agents[{i}].tools[{j}]"))
        agents.append(agent)
        if parent:
            edges.append(EdgeSpec(source=parent, target=agent.name, kind="delegate"))
        stack += [((file.parent / s.config_path).resolve(), agent.name) for s in agent.sub_agents]
    root = agents[0]
    return FrameworkSpec(
        name=root.name, description=root.description or f"NexAU agent config {path.name}",
        pattern="single_agent" if len(agents) == 1 else "orchestrator_workers",
        patterns=PatternNode(pattern="single_agent" if len(agents) == 1 else
                             "orchestrator_workers", agents=[a.name for a in agents]),
        entry=root.name, agents=agents, edges=edges, tools=list(tools.values()),
        provenance=Provenance(a4a_version="0.1.0", builder="hand"),
    )
