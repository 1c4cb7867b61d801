"""A framework directory: canonical files out, FrameworkSpec (with drift checks) in.

framework.yaml is the source of truth; agents/*.yaml, tools/*.yaml and topology.json are
projections (NexAU-loadable views) checked for drift; a4a.lock hashes every file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from a4a.runtime.errors import SpecError
from a4a.runtime.graph.convert import to_node_link
from a4a.runtime.graph.issues import Issue, from_pydantic
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, SubAgentRef, ToolEntry
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

LOCK = "a4a.lock"
_MARKERS = ("apiVersion", "type")


def canonical(model: BaseModel) -> dict[str, Any]:
    """JSON-able dict without default values (markers kept): the canonical YAML content."""
    data = model.model_dump(mode="json", exclude_defaults=True)
    for key in _MARKERS:
        if key in type(model).model_fields:
            data[key] = getattr(model, key)
    return data


def agent_projection(spec: FrameworkSpec, agent: AgentSpec) -> AgentSpec:
    """The agent as a standalone NexAU-style config: tool yaml paths and sub-agent refs."""
    subs = [SubAgentRef(name=e.target, config_path=f"./{e.target}.yaml")
            for e in spec.edges if e.source == agent.name and e.kind == "delegate"]
    tools = [ToolEntry(name=n, yaml_path=f"../tools/{n}.yaml") for n in agent.tool_names()]
    skills = [f"../skills/{s}" for s in agent.skills]
    return agent.model_copy(update={"tools": tools, "sub_agents": subs, "skills": skills})


def render_files(spec: FrameworkSpec, readme: str, extra: dict[str, str] | None = None
                 ) -> dict[str, str]:
    """Every file of the framework directory, by relative path, lock last."""
    files: dict[str, str] = {"framework.yaml": dump_yaml(canonical(spec))}
    for a in spec.agents:
        files[f"agents/{a.name}.yaml"] = dump_yaml(canonical(agent_projection(spec, a)))
    for t in spec.tools:
        files[f"tools/{t.name}.yaml"] = dump_yaml(canonical(t))
    files["topology.json"] = json.dumps(to_node_link(spec), sort_keys=True,
                                        separators=(",", ":")) + "\n"
    files["README.md"] = readme
    files.update(extra or {})
    files[LOCK] = dump_yaml(lock_data(files))
    return files


def lock_data(files: dict[str, str]) -> dict[str, Any]:
    """Hashes of every file and the framework id (hash of the hashes)."""
    hashes = {p: hashlib.sha256(t.encode()).hexdigest() for p, t in sorted(files.items())
              if p != LOCK}
    digest = hashlib.sha256("\n".join(f"{p} {h}" for p, h in hashes.items()).encode())
    return {"framework_id": digest.hexdigest()[:16], "files": hashes, "mcp": {}}


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write the files under `root` (created), replacing projections of removed agents.

    Each file is written under a temporary name and renamed into place, so a reader (or a
    process killed mid-write) never leaves or sees half a file.
    """
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.rglob(".*.tmp"):  # left by a writer that was killed mid-file
        stale.unlink(missing_ok=True)
    for sub in ("agents", "tools"):
        d = root / sub
        if d.is_dir():
            for old in d.glob("*.yaml"):
                if f"{sub}/{old.name}" not in files:
                    old.unlink()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_text(path, text)


def replace_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically: a temporary file in the same folder, then a rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, path)


def load_spec(path: Path) -> FrameworkSpec:
    """Parse framework.yaml; raises SpecError with schema issues."""
    data = load_yaml_file(path)
    if not isinstance(data, dict):
        raise SpecError("yaml.not_mapping", f"{path}: top level must be a mapping",
                        "Write the framework as a YAML mapping.", issues=[
                            Issue("yaml.not_mapping", "", "top level is not a mapping",
                                  "Use a mapping.").to_dict()])
    try:
        return FrameworkSpec.model_validate(data)
    except ValidationError as err:
        issues = from_pydantic(err)
        raise SpecError("spec.invalid", f"{path}: {len(issues)} schema issue(s)",
                        "Fix the listed fields.", issues=[i.to_dict() for i in issues]) from err


def drift_issues(root: Path, spec: FrameworkSpec) -> list[Issue]:
    """Files of the directory that disagree with framework.yaml or with the lock."""
    out: list[Issue] = []
    lock_path = root / LOCK
    lock = load_yaml_file(lock_path) if lock_path.exists() else None
    expected = render_files(spec, "")
    for rel, text in expected.items():
        if rel in ("README.md", LOCK):
            continue
        path = root / rel
        if not path.exists():
            out.append(Issue("file.missing", rel, f"{rel} is missing",
                             "Rebuild with `a4a build`, or restore it from framework.yaml."))
        elif path.read_text(encoding="utf-8") != text:
            out.append(Issue("file.drift", rel, f"{rel} disagrees with framework.yaml",
                             "Edit framework.yaml (the source of truth), then re-emit."))
    for skill in sorted({s for a in spec.agents for s in a.skills}):
        rel = f"skills/{skill}/SKILL.md"
        if not (root / rel).exists():
            out.append(Issue("file.missing", rel, f"skill {skill!r} has no {rel}",
                             "Add the skill folder or drop the skill from the agents."))
    if isinstance(lock, dict):
        for rel, digest in sorted((lock.get("files") or {}).items()):
            path = root / rel
            if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                out.append(Issue("lock.mismatch", rel, f"{rel} changed since it was locked",
                                 "Re-emit the framework to refresh a4a.lock.", "warning"))
    return out
