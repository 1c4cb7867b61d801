"""A catalog entry: what the catalog knows about one framework, derived from its spec.

Entries are frozen values; `entry_from_spec` derives one from an in-memory FrameworkSpec
(the build path), `entry_from_dir` from a framework directory on disk (`a4a catalog add`).
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from a4a.catalog import shape
from a4a.catalog.files import read_framework_files
from a4a.runtime.errors import CatalogError, SpecError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.spec import FrameworkSpec, PatternNode
from a4a.runtime.loader.files import drift_issues, load_spec, lock_data

FRAMEWORK_ID = re.compile(r"[0-9a-f]{16}")
SOURCES = ("build", "add", "import", "synthetic")


@dataclass(frozen=True)
class Entry:
    """One framework in the catalog.

    `nodes` and `links` keep the topology (agents with roles, typed edges) so the catalog
    can draw, compare and hash a framework even when its directory is gone.
    """

    id: str
    name: str
    request: str
    pattern: str
    pattern_tree: str
    domains: tuple[str, ...]
    agents: int
    edges: int
    tools: int
    depth: int
    cycles: int
    tool_names: tuple[str, ...]
    mcp_servers: tuple[str, ...]
    valid: bool
    errors: int
    warnings: int
    wl_hash: str
    subtrees: tuple[str, ...]
    nodes: tuple[shape.Node, ...]
    links: tuple[shape.Link, ...]
    entry_agent: str
    created: float
    source: str
    path: str | None
    seed: int | None = None
    a4a_version: str | None = None

    @property
    def has_cycle(self) -> bool:
        """Whether the control graph loops."""
        return self.cycles > 0

    @property
    def created_iso(self) -> str:
        """Creation time, UTC, to the second."""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created))

    def keywords(self) -> str:
        """Words the full-text index gets besides name and request."""
        words = [self.pattern, self.pattern_tree, *self.domains, *self.tool_names,
                 *self.mcp_servers, *(f"{n} {r}" for n, r in self.nodes)]
        return " ".join(words)

    def summary(self) -> dict[str, Any]:
        """The JSON shape of a list row."""
        return {"id": self.id, "name": self.name, "request": self.request,
                "pattern": self.pattern, "domains": list(self.domains), "agents": self.agents,
                "edges": self.edges, "tools": self.tools, "depth": self.depth,
                "cycles": self.cycles, "valid": self.valid, "created": self.created_iso,
                "source": self.source, "path": self.path}

    def to_dict(self) -> dict[str, Any]:
        """The full JSON shape (`a4a catalog show --json`, the web API)."""
        data = asdict(self)
        data["created"] = self.created_iso
        data["has_cycle"] = self.has_cycle
        data["graph"] = {
            "entry": self.entry_agent,
            "nodes": [{"id": n, "role": r} for n, r in self.nodes],
            "edges": [{"source": s, "target": t, "kind": k} for s, t, k in self.links],
        }
        for key in ("nodes", "links", "subtrees", "entry_agent"):
            del data[key]
        return data


def pattern_tree(node: PatternNode) -> str:
    """The pattern tree as text: `orchestrator(review_loop, sequential)`."""
    inner = ", ".join(pattern_tree(c) for c in node.children)
    return f"{node.pattern}({inner})" if inner else node.pattern


def entry_from_spec(spec: FrameworkSpec, framework_id: str, issues: list[Issue], *,
                    source: str, path: Path | None, created: float | None = None) -> Entry:
    """Derive the entry of a framework from its spec and validation issues.

    Raises CatalogError when the id is not a framework id.
    """
    if not FRAMEWORK_ID.fullmatch(framework_id):
        raise CatalogError("catalog.bad_id", f"{framework_id!r} is not a framework id",
                           "Framework ids are 16 hex digits, from a4a.lock.")
    nodes, links = shape.topology(spec)
    g = shape.labelled_graph(nodes, links)
    n_errors = sum(1 for i in issues if i.severity == "error")
    domains = spec.environment.domains if spec.environment else sorted(
        {s for a in spec.agents for s in a.skills})
    mcp = sorted({m.name for a in spec.agents for m in a.mcp_servers})
    prov = spec.provenance
    return Entry(
        id=framework_id, name=spec.name, request=spec.description, pattern=spec.pattern,
        pattern_tree=pattern_tree(spec.patterns), domains=tuple(domains),
        agents=len(spec.agents), edges=len(spec.edges), tools=len(spec.tools),
        depth=shape.delegation_depth(nodes, links), cycles=shape.cycle_count(nodes, links),
        tool_names=tuple(t.name for t in spec.tools), mcp_servers=tuple(mcp),
        valid=n_errors == 0, errors=n_errors, warnings=len(issues) - n_errors,
        wl_hash=shape.wl_hash(g), subtrees=shape.wl_subtrees(g), nodes=nodes, links=links,
        entry_agent=spec.entry, created=time.time() if created is None else created,
        source=source, path=str(path.resolve()) if path else None,
        seed=prov.seed if prov else None, a4a_version=prov.a4a_version if prov else None,
    )


def entry_from_dir(root: Path, *, source: str = "add", created: float | None = None) -> Entry:
    """Load, validate and derive the entry of a framework directory.

    The id is recomputed from the files the lock lists, as they are now, so an edited
    directory is a different framework. Raises CatalogError when the directory is not a
    framework (no framework.yaml or a4a.lock) and SpecError when framework.yaml is unusable.
    """
    if not (root / "framework.yaml").is_file():
        raise CatalogError("catalog.not_framework", f"{root} has no framework.yaml",
                           "Point at a directory written by `a4a build`.")
    files = read_framework_files(root)
    try:
        spec = load_spec(root / "framework.yaml")
    except SpecError as err:
        raise CatalogError("catalog.invalid_spec", f"{root}: {err.message}",
                           "Fix framework.yaml (see `a4a validate`), then add it again.",
                           issues=err.data.get("issues", [])) from err
    issues = validate(spec) + drift_issues(root, spec)
    framework_id = str(lock_data(files)["framework_id"])
    return entry_from_spec(spec, framework_id, issues, source=source, path=root,
                           created=created)
