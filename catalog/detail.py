"""Everything shown about one framework: its entry plus what its directory holds.

One dict feeds `a4a catalog show --json`, the web API and the web page. Every value in it is
data to escape at the edge (request text reaches prompts, descriptions and the README).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a4a.catalog.entry import Entry
from a4a.catalog.files import read_lock, read_text
from a4a.catalog.store import Catalog
from a4a.runtime.errors import A4AError
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.loader.files import drift_issues, load_spec
from a4a.runtime.loader.yamlio import load_yaml_text

MAX_TASKS = 50


def framework_detail(catalog: Catalog, entry: Entry, *, similar: bool = True
                     ) -> dict[str, Any]:
    """The entry, its near-duplicates and, when its directory exists, its contents."""
    data: dict[str, Any] = {"entry": entry.to_dict()}
    if similar:
        data["same_shape"] = [e.summary() for e in catalog.same_shape(entry, limit=10)]
        data["similar"] = [{**e.summary(), "score": s}
                           for e, s in catalog.similar(entry, limit=8)]
    data.update(directory_detail(entry))
    return data


def directory_detail(entry: Entry) -> dict[str, Any]:
    """Agents, tools, environment, tasks, README, files and issues read from the directory."""
    root = Path(entry.path) if entry.path else None
    if root is None or not root.is_dir():
        return {"available": False, "reason": "the framework directory is gone"}
    try:
        listed = read_lock(root)
        spec = load_spec(root / "framework.yaml")
    except A4AError as err:
        return {"available": False, "reason": err.message}
    issues = validate(spec) + drift_issues(root, spec)
    return {
        "available": True,
        "spec": _spec_view(spec),
        "environment": _environment(root, listed),
        "readme": read_text(root, "README.md", listed),
        "files": sorted(listed),
        "issues": [i.to_dict() for i in issues],
    }


def _spec_view(spec: FrameworkSpec) -> dict[str, Any]:
    delegates: dict[str, list[str]] = {}
    for e in spec.edges:
        if e.kind == "delegate":
            delegates.setdefault(e.source, []).append(e.target)
    agents = [{
        "name": a.name, "role": a.role, "description": a.description,
        "system_prompt": a.system_prompt, "tools": a.tool_names(),
        "sub_agents": delegates.get(a.name, []), "skills": list(a.skills),
        "max_iterations": a.max_iterations, "tool_call_mode": a.tool_call_mode,
        "mcp_servers": [m.name for m in a.mcp_servers], "entry": a.name == spec.entry,
    } for a in spec.agents]
    tools = [{"name": t.name, "description": t.description, "implementation": t.implementation,
              "writes": t.writes, "input_schema": t.input_schema} for t in spec.tools]
    edges = [e.model_dump(mode="json", exclude_defaults=True) for e in spec.edges]
    return {"agents": agents, "tools": tools, "edges": edges,
            "limits": spec.limits.model_dump(mode="json"), "entry": spec.entry}


def _environment(root: Path, listed: dict[str, str]) -> dict[str, Any]:
    """world.yaml and the first tasks of tasks.jsonl, as far as they exist and parse."""
    out: dict[str, Any] = {"world": None, "tasks": [], "tasks_total": 0}
    world = read_text(root, "environment/world.yaml", listed)
    if world is not None:
        try:
            out["world"] = load_yaml_text(world, "environment/world.yaml")
        except A4AError:
            out["world"] = None
    tasks = read_text(root, "environment/tasks.jsonl", listed)
    if tasks is not None:
        lines = [line for line in tasks.splitlines() if line.strip()]
        out["tasks_total"] = len(lines)
        for line in lines[:MAX_TASKS]:
            try:
                out["tasks"].append(json.loads(line))
            except ValueError:
                out["tasks"].append({"unparsed": line[:500]})
    return out
