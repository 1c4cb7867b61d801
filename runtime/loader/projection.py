"""An agent file of an a4a framework directory (agents/<name>.yaml), loaded on its own.

Such a file is the agent's projection: a4a's own fields (`role`, tools by `yaml_path` to
the framework's tools/*.yaml, sub-agents by `config_path`). It loads into a small
hand-written framework; every file read stays inside the framework directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from a4a.runtime.errors import SpecError
from a4a.runtime.graph.issues import Issue, from_pydantic
from a4a.runtime.ir.spec import (
    AgentSpec,
    EdgeSpec,
    FrameworkSpec,
    PatternNode,
    Provenance,
    ToolEntry,
    ToolSpec,
)
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.yamlio import MAX_BYTES, load_yaml_text

MAX_AGENTS = 64


def is_projection(data: Any, path: Path) -> bool:
    """Whether parsed YAML is an a4a agent projection rather than a NexAU config.

    It is when it carries a4a's `role`, or is an agent file of a framework directory
    (agents/<name>.yaml beside framework.yaml).
    """
    if not isinstance(data, dict) or "agents" in data:
        return False
    folder = path.resolve().parent
    return "role" in data or (folder.name == "agents"
                              and (folder.parent / "framework.yaml").is_file())


def _read(path: Path, root: Path) -> Any:
    return load_yaml_text(fsaccess.read_bytes(path, root=root, max_bytes=MAX_BYTES), str(path))


def _invalid(path: Path, issues: list[Issue]) -> SpecError:
    return SpecError("spec.invalid", f"{path}: {len(issues)} issue(s)", "Fix the listed fields.",
                     issues=[i.to_dict() for i in issues])


def _agent(path: Path, root: Path) -> AgentSpec:
    data = _read(path, root)
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as err:
        raise _invalid(path, from_pydantic(err)) from err


def _tool(path: Path, root: Path, entry: ToolEntry, where: str) -> ToolSpec:
    data = _read(path, root)
    try:
        return ToolSpec.model_validate(data).model_copy(update={"name": entry.name})
    except ValidationError as err:
        raise _invalid(path, from_pydantic(err, where)) from err


def load_projection(path: Path) -> FrameworkSpec:
    """The framework of one agent file and the agents it delegates to."""
    entry = path.resolve()
    root = entry.parent.parent if entry.parent.name == "agents" else entry.parent
    agents: list[AgentSpec] = []
    tools: dict[str, ToolSpec] = {}
    edges: list[EdgeSpec] = []
    seen: dict[Path, str] = {}
    stack: list[tuple[Path, str | None]] = [(entry, None)]
    while stack:
        file, parent = stack.pop(0)
        if file in seen:
            edges.append(EdgeSpec(source=str(parent), target=seen[file], kind="delegate"))
            continue
        if len(agents) >= MAX_AGENTS:
            raise SpecError("agents.too_many", f"more than {MAX_AGENTS} agents under {path}",
                            "Split the configuration.")
        agent = _agent(file, root)
        seen[file] = agent.name
        for j, t in enumerate(agent.tools):
            if isinstance(t, ToolEntry) and t.yaml_path:
                tools.setdefault(t.name, _tool(file.parent / t.yaml_path, root, t,
                                               f"agents[{len(agents)}].tools[{j}]"))
        agents.append(agent)
        if parent:
            edges.append(EdgeSpec(source=parent, target=agent.name, kind="delegate"))
        stack += [((file.parent / s.config_path).resolve(), agent.name) for s in agent.sub_agents]
    pattern = "single_agent" if len(agents) == 1 else "orchestrator_workers"
    return FrameworkSpec(
        name=agents[0].name, description=agents[0].description or f"agent file {path.name}",
        pattern=pattern, patterns=PatternNode(pattern=pattern, agents=[a.name for a in agents]),
        entry=agents[0].name, agents=agents, edges=edges, tools=list(tools.values()),
        provenance=Provenance(a4a_version="0.1.0", builder="hand"))
