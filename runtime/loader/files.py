"""A framework directory: canonical files out, FrameworkSpec (with drift checks) in.

framework.yaml is the source of truth; agents/*.yaml, tools/*.yaml and topology.json are
projections (NexAU-loadable views) checked for drift; a4a.lock hashes every file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from a4a.runtime.errors import SpecError
from a4a.runtime.graph.convert import to_node_link
from a4a.runtime.graph.issues import Issue, from_pydantic
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, SubAgentRef, ToolEntry
from a4a.runtime.loader import fsaccess

# LOCK and lock_data belong to this module's API too: whoever writes a framework needs them.
from a4a.runtime.loader.lock import LOCK as LOCK
from a4a.runtime.loader.lock import lock_data as lock_data
from a4a.runtime.loader.lock import read_lock
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file

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


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write the files under `root` (created), replacing projections of removed agents.

    Each file is written under a temporary name and renamed into place, so a reader (or a
    process killed mid-write) never leaves or sees half a file. Nothing is written or
    removed outside `root`: a folder that links out of it is refused, and a file that is a
    link is replaced, never written through.

    Raises:
        SpecError: file.outside_root when a folder of `root` links out of it.
        A4AError: io.* when the file system refuses a write.
    """
    root.mkdir(parents=True, exist_ok=True)
    for stale in root.rglob(".*.tmp"):  # left by a writer that was killed mid-file
        stale.unlink(missing_ok=True)
    for sub in ("agents", "tools"):
        d = root / sub
        if d.is_dir() and not d.is_symlink():
            for old in d.glob("*.yaml"):
                if f"{sub}/{old.name}" not in files:
                    old.unlink()
    for rel, text in files.items():
        folder = fsaccess.confine(root, Path(rel).parent)
        folder.mkdir(parents=True, exist_ok=True)
        fsaccess.write_text(root / rel, text, root=root)


def replace_text(path: Path, text: str, *, root: Path | None = None) -> None:
    """Write `text` to `path` atomically, never through a symlink (see `fsaccess.write_text`).

    Raises:
        SpecError: file.outside_root when `path`'s folder resolves outside `root`.
        A4AError: io.* when the file system refuses the write.
    """
    fsaccess.write_text(path, text, root=root)


def load_spec(path: Path, *, trusted: bool = False) -> FrameworkSpec:
    """Parse framework.yaml, which must be a regular file inside its folder unless `trusted`.

    Raises:
        SpecError: spec.invalid with schema issues; yaml.* and file.* when unreadable.
    """
    data = load_yaml_file(path, root=Path(path).parent, trusted=trusted)
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


def drift_issues(root: Path, spec: FrameworkSpec, *, trusted: bool = False) -> list[Issue]:
    """Files of the directory that disagree with framework.yaml or with the lock.

    Every file is read through `fsaccess` (a regular file inside `root` unless `trusted`,
    size-capped); a lock a4a did not write is an error, and nothing it lists is read.
    """
    read: dict[str, bytes | SpecError] = {}
    out: list[Issue] = []
    for rel, text in render_files(spec, "").items():
        if rel in ("README.md", LOCK):
            continue
        data = read[rel] = _read(root, rel, trusted)
        if isinstance(data, SpecError):
            out.append(_file_issue(rel, data))
        elif data != text.encode():
            out.append(Issue("file.drift", rel, f"{rel} disagrees with framework.yaml",
                             "Edit framework.yaml (the source of truth), then re-emit."))
    for skill in sorted({s for a in spec.agents for s in a.skills}):
        rel = f"skills/{skill}/SKILL.md"
        if not (root / rel).exists():
            out.append(Issue("file.missing", rel, f"skill {skill!r} has no {rel}",
                             "Add the skill folder or drop the skill from the agents."))
    try:
        lock = read_lock(root, trusted=trusted)
    except SpecError as err:
        return [*out, Issue(err.code, LOCK, err.message, err.hint)]
    for rel, digest in sorted((lock.files if lock else {}).items()):
        data = read[rel] if rel in read else _read(root, rel, trusted)
        if isinstance(data, bytes) and hashlib.sha256(data).hexdigest() != digest:
            out.append(Issue("lock.mismatch", rel, f"{rel} changed since it was locked",
                             "Re-emit the framework to refresh a4a.lock.", "warning"))
        elif isinstance(data, SpecError) and rel not in read and data.code != "file.missing":
            out.append(_file_issue(rel, data))
    return out


def _read(root: Path, rel: str, trusted: bool) -> bytes | SpecError:
    try:
        return fsaccess.read_bytes(rel, root=root, trusted=trusted)
    except SpecError as err:
        return err


def _file_issue(rel: str, err: SpecError) -> Issue:
    if err.code == "file.missing":
        return Issue("file.missing", rel, f"{rel} is missing",
                     "Rebuild with `a4a build`, or restore it from framework.yaml.")
    return Issue(err.code, rel, err.message, err.hint)
