"""`a4a catalog diff A B`: how two frameworks differ in structure and in files.

Structure comes from the entries (always there) and, where both directories still exist,
from their framework.yaml (prompts, tools per agent); files come from the two locks.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from a4a.catalog.entry import Entry
from a4a.catalog.files import read_lock, read_text
from a4a.catalog.shape import similarity
from a4a.runtime.errors import A4AError
from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec
from a4a.runtime.loader.files import load_spec

MAX_DIFF_LINES = 400
_SUMMARY = ("name", "pattern", "pattern_tree", "domains", "agents", "edges", "tools", "depth",
            "cycles", "valid", "wl_hash")


@dataclass(frozen=True)
class FileChange:
    """One file that differs: its status and, for changed text, a unified diff."""

    path: str
    status: str  # added | removed | changed
    diff: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FrameworkDiff:
    """Everything that differs between frameworks `a` and `b`."""

    a: str
    b: str
    same_shape: bool
    similarity: float
    fields: dict[str, tuple[Any, Any]]
    agents_added: list[str]
    agents_removed: list[str]
    agents_changed: dict[str, list[str]]
    edges_added: list[tuple[str, str, str]]
    edges_removed: list[tuple[str, str, str]]
    tools_added: list[str]
    tools_removed: list[str]
    files: list[FileChange]
    files_compared: bool

    @property
    def identical(self) -> bool:
        """No difference at all (the same framework id)."""
        return self.a == self.b

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of `a4a catalog diff --json`."""
        data = asdict(self)
        data["fields"] = {k: {"a": va, "b": vb} for k, (va, vb) in self.fields.items()}
        data["identical"] = self.identical
        return data


def diff_entries(a: Entry, b: Entry) -> FrameworkDiff:
    """Compare two catalog entries, reading their directories where they still exist."""
    fields = {k: (_plain(getattr(a, k)), _plain(getattr(b, k))) for k in _SUMMARY
              if getattr(a, k) != getattr(b, k)}
    names_a = dict(a.nodes)
    names_b = dict(b.nodes)
    spec_a, spec_b = _spec(a), _spec(b)
    changed = _agent_changes(spec_a, spec_b) if spec_a and spec_b else {
        n: [f"role {names_a[n]} -> {names_b[n]}"] for n in names_a
        if n in names_b and names_a[n] != names_b[n]}
    files, compared = _file_changes(a, b)
    return FrameworkDiff(
        a=a.id, b=b.id, same_shape=a.wl_hash == b.wl_hash,
        similarity=round(similarity(a.subtrees, b.subtrees), 3), fields=fields,
        agents_added=sorted(set(names_b) - set(names_a)),
        agents_removed=sorted(set(names_a) - set(names_b)), agents_changed=changed,
        edges_added=sorted(set(b.links) - set(a.links)),
        edges_removed=sorted(set(a.links) - set(b.links)),
        tools_added=sorted(set(b.tool_names) - set(a.tool_names)),
        tools_removed=sorted(set(a.tool_names) - set(b.tool_names)),
        files=files, files_compared=compared,
    )


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _spec(e: Entry) -> FrameworkSpec | None:
    if not e.path or not (Path(e.path) / "framework.yaml").is_file():
        return None
    try:
        return load_spec(Path(e.path) / "framework.yaml")
    except A4AError:
        return None  # an unreadable spec still diffs by its catalog entry


def _agent_changes(a: FrameworkSpec, b: FrameworkSpec) -> dict[str, list[str]]:
    """Per agent present in both: which of its settings differ."""
    out: dict[str, list[str]] = {}
    for agent in a.agents:
        other = b.agent(agent.name)
        if other is not None:
            notes = _agent_notes(agent, other)
            if notes:
                out[agent.name] = notes
    return out


def _agent_notes(a: AgentSpec, b: AgentSpec) -> list[str]:
    notes = []
    if a.role != b.role:
        notes.append(f"role {a.role} -> {b.role}")
    ta, tb = set(a.tool_names()), set(b.tool_names())
    notes += [f"+tool {t}" for t in sorted(tb - ta)] + [f"-tool {t}" for t in sorted(ta - tb)]
    for name in ("description", "system_prompt", "max_iterations", "tool_call_mode", "skills"):
        if getattr(a, name) != getattr(b, name):
            notes.append(f"{name} changed")
    return notes


def _file_changes(a: Entry, b: Entry) -> tuple[list[FileChange], bool]:
    """Files that differ by their locked hashes; False when a directory is unavailable."""
    if not a.path or not b.path:
        return [], False
    try:
        lock_a, lock_b = read_lock(Path(a.path)), read_lock(Path(b.path))
    except A4AError:
        return [], False
    out = []
    budget = MAX_DIFF_LINES
    for rel in sorted(set(lock_a) | set(lock_b)):
        if rel not in lock_b:
            out.append(FileChange(rel, "removed"))
        elif rel not in lock_a:
            out.append(FileChange(rel, "added"))
        elif lock_a[rel] != lock_b[rel]:
            text_a = read_text(Path(a.path), rel, lock_a) or ""
            text_b = read_text(Path(b.path), rel, lock_b) or ""
            lines = list(difflib.unified_diff(
                text_a.splitlines(), text_b.splitlines(), f"a/{rel}", f"b/{rel}", lineterm="",
                n=1))[:max(budget, 0)]
            budget -= len(lines)
            out.append(FileChange(rel, "changed", lines))
    return out, True
