"""NexAU agent configs, read as NexAU reads them, into a4a frameworks (hand-written).

    spec = load_agent_config(Path("code_agent.yaml"))          # SpecError with every issue
    spec, issues = inspect_agent_config(Path("code_agent.yaml"))  # spec None when unusable

The entry config and everything it references (tool YAMLs, prompt files, skills, plugins,
sub-agent configs) are read inside the entry's folder unless `trusted`. Sub-agents become
agents with delegate edges, named as their parent names them (deduplicated across the
tree); the step limit is derived from the agents' max_iterations. Issues name their file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
from pydantic import ValidationError

from a4a.runtime.errors import SpecError
from a4a.runtime.graph.convert import delegate_graph
from a4a.runtime.graph.flow import step_bound
from a4a.runtime.graph.issues import Issue, from_pydantic
from a4a.runtime.ir.spec import (
    AgentSpec,
    EdgeSpec,
    FrameworkSpec,
    Limits,
    PatternNode,
    Provenance,
    ToolSpec,
)
from a4a.runtime.loader.nexau.agent import Child, build_agent, check_schema, read_config
from a4a.runtime.loader.nexau.files import Access
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.schema import is_agent_config

__all__ = ["inspect_agent_config", "is_agent_config", "load_agent_config"]
MAX_AGENTS = 64
MAX_DEPTH = 8
NO_WALL_CLOCK_S = 86_400.0  # NexAU has no run-wide time limit: a day


def load_agent_config(path: Path, *, trusted: bool = False) -> FrameworkSpec:
    """The framework of a NexAU agent config; raises SpecError listing every error."""
    spec, issues = inspect_agent_config(path, trusted=trusted)
    errors = [i for i in issues if i.severity == "error"]
    if spec is None or errors:
        first = errors[0] if errors else None
        where = f"{first.file}: " if first and first.file else ""
        raise SpecError("spec.invalid", f"{path}: {len(errors)} issue(s); first: {where}"
                        f"{first.message if first else 'unusable config'}",
                        "Fix the listed issues (each names its file).",
                        issues=[i.to_dict() for i in issues])
    return spec


def inspect_agent_config(path: Path, *, trusted: bool = False
                         ) -> tuple[FrameworkSpec | None, list[Issue]]:
    """The framework (None when it cannot be built) and every issue, warnings included."""
    entry = Path(path).absolute()
    root = entry.resolve().parent
    report = Report(root)
    access = Access(root, trusted)
    agents: list[AgentSpec] = []
    tools: dict[str, ToolSpec] = {}
    edges: list[EdgeSpec] = []
    seen: dict[tuple[Path, str], str] = {}
    named: dict[tuple[str, str], str] = {}  # (parent, name it uses) -> agent
    queue: list[Child] = [Child(entry, "", "")]
    while queue:
        child = queue.pop(0)
        key = (child.file.resolve(), child.visible)
        if key in seen:
            edges.append(EdgeSpec(source=child.parent, target=seen[key], kind="delegate"))
            named[(child.parent, child.visible)] = seen[key]
            continue
        if not _admissible(child, agents, report):
            continue
        loaded = _load(child, access, report, {a.name for a in agents}, not agents)
        if loaded is None:
            if not agents:
                return None, report.issues
            continue
        agent, agent_tools, children = loaded
        seen[key] = agent.name
        agents.append(agent)
        _add_tools(tools, agent_tools, child.file, report)
        if child.parent:
            edges.append(EdgeSpec(source=child.parent, target=agent.name, kind="delegate"))
            named[(child.parent, child.visible)] = agent.name
        queue += children
    agents = _resolve_sub_agent_names(agents, named)
    return _framework(entry, agents, tools, edges, report), report.issues


def _admissible(child: Child, agents: list[AgentSpec], report: Report) -> bool:
    parent_file = child.ancestors[-1] if child.ancestors else child.file
    if child.file.resolve() in child.ancestors:
        report.error(parent_file, "sub_agents", "nexau.sub_agent_cycle", f"sub-agent "
                     f"{child.visible!r} loads a config that contains it", "Break the cycle.")
        return False
    if len(agents) >= MAX_AGENTS:
        report.error(parent_file, "sub_agents", "agents.too_many", f"more than {MAX_AGENTS} "
                     "agents in the tree", "Split the configuration.")
        return False
    return True


def _load(child: Child, access: Access, report: Report, taken: set[str], root_agent: bool
          ) -> tuple[AgentSpec, list[ToolSpec], list[Child]] | None:
    raw = read_config(child.file, access, report, plugin=child.plugin, root_agent=root_agent)
    config = check_schema(raw.data, child.file, report) if raw is not None else None
    if raw is None or config is None:
        return None
    name = _unique(_safe_name(child.visible or config.name or "configured_agent"), taken)
    try:
        loaded = build_agent(name, config, child.file, access, report,
                             fragments=raw.fragments, plugin_scopes=raw.plugin_scopes,
                             ancestors=child.ancestors)
    except ValidationError as err:  # a value NexAU takes that a4a's IR cannot hold
        for issue in from_pydantic(err):
            report.error(child.file, issue.path, issue.code, issue.message, issue.hint)
        return None
    names = [c.visible for c in loaded.children]
    for i, visible in enumerate(names):
        if visible in names[:i]:
            report.error(child.file, f"sub_agents[{i}].name", "nexau.sub_agent_duplicate",
                         f"two sub-agents are named {visible!r}", "Rename one.")
    return loaded.agent, loaded.tools, loaded.children


def _safe_name(name: str) -> str:
    """`name` as an a4a name (letters, digits, _ and -; 64 at most)."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "configured_agent"
    return cleaned if re.match(r"[A-Za-z_]", cleaned) else f"_{cleaned}"[:64]


def _unique(name: str, taken: set[str]) -> str:
    base = name if len(name) <= 60 else name[:60]
    out, n = base, 2
    while out in taken:
        out, n = f"{base}_{n}", n + 1
    return out


def _add_tools(tools: dict[str, ToolSpec], new: list[ToolSpec], file: Path,
               report: Report) -> None:
    for spec in new:
        known = tools.get(spec.name)
        if known is None:
            tools[spec.name] = spec
        elif known != spec:
            report.warn(file, "tools", "nexau.tool_conflict", f"tool {spec.name!r} differs from "
                        "the tool of that name another agent of the tree has: a4a uses the "
                        "first one", "Give differing tools different names.")


def _framework(entry: Path, agents: list[AgentSpec], tools: dict[str, ToolSpec],
               edges: list[EdgeSpec], report: Report) -> FrameworkSpec | None:
    pattern = "single_agent" if len(agents) == 1 else "orchestrator_workers"
    draft = FrameworkSpec(
        name=agents[0].name, description=agents[0].description or f"NexAU agent config "
        f"{entry.name}", pattern=pattern,
        patterns=PatternNode(pattern=pattern, agents=[a.name for a in agents]),
        entry=agents[0].name, agents=agents, edges=_unique_edges(edges),
        tools=list(tools.values()), provenance=Provenance(a4a_version="0.1.0", builder="hand"))
    graph = delegate_graph(draft)
    if not nx.is_directed_acyclic_graph(graph):
        return draft  # the validator reports the delegation cycle
    depth = nx.dag_longest_path_length(graph) if graph.number_of_edges() else 0
    if depth > MAX_DEPTH:
        report.error(entry, "sub_agents", "depth.exceeded", f"sub-agents nest {depth} deep, "
                     f"over a4a's {MAX_DEPTH}", "Flatten the hierarchy.")
        return draft
    tokens = sum(a.max_iterations * a.max_context_tokens for a in agents)
    limits = Limits(max_steps=step_bound(draft, graph), max_depth=max(depth, 1),
                    max_tokens=tokens, timeout_s=NO_WALL_CLOCK_S)
    return draft.model_copy(update={"limits": limits})


def _resolve_sub_agent_names(agents: list[AgentSpec], named: dict[tuple[str, str], str]
                             ) -> list[AgentSpec]:
    """Point each parent's sub-agent names at the agents they became (names deduplicated)."""
    out = []
    for agent in agents:
        if agent.nexau is None or not agent.sub_agents:
            out.append(agent)
            continue
        mapping = {s.name: named[(agent.name, s.name)] for s in agent.sub_agents
                   if (agent.name, s.name) in named}
        subs = [s.model_copy(update={"name": mapping[s.name]})
                for s in agent.sub_agents if s.name in mapping]
        out.append(agent.model_copy(update={
            "sub_agents": subs, "nexau": agent.nexau.model_copy(update={"sub_agents": mapping})}))
    return out


def _unique_edges(edges: list[EdgeSpec]) -> list[EdgeSpec]:
    seen: set[tuple[str, str]] = set()
    out = []
    for e in edges:
        if (e.source, e.target) not in seen:
            seen.add((e.source, e.target))
            out.append(e)
    return out


def iter_agent_files(folder: Path) -> Iterator[Path]:
    """The YAML files under `folder` that are NexAU agent configs (for corpus checks)."""
    from a4a.runtime.loader.yamlio import load_yaml_file

    for path in sorted(folder.rglob("*.yaml")):
        try:
            if is_agent_config(load_yaml_file(path)):
                yield path
        except SpecError:
            continue
