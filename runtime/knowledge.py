"""Read-only access to the data in templates/ (packs, patterns, roles, MCP registry).

The runtime reads the shipped data files; it imports no code from other layers.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.loader.yamlio import load_yaml_text

# Builtin tools the runtime provides (implementation `builtin:<name>`).
BUILTIN_TOOLS: frozenset[str] = frozenset(
    {"calculator", "read_file", "write_file", "list_files", "web_search", "web_read",
     "http_get", "ask_human", "current_time", "remember", "recall", "search_docs"}
)
# Builtins that reach the network: off at run time unless enabled.
NETWORK_BUILTINS: frozenset[str] = frozenset({"web_search", "web_read", "http_get"})
# What a generated framework may hold besides world operations and vetted MCP servers: code
# runs only in the sandbox (failing closed), web tools answer `network_disabled` until a run
# enables the network, files stay inside the run's workspace, notes in the run's memory.
# Nothing else (no http_get to any host, no import-path binding).
GENERATED_BUILTINS: frozenset[str] = frozenset({"web_search", "web_read", "read_file",
                                                "write_file", "list_files", "calculator",
                                                "current_time", "ask_human", "remember",
                                                "recall", "search_docs"})


def generated_may_hold(implementation: str) -> bool:
    """Whether a generated framework may carry a tool with this implementation."""
    kind, _, ref = implementation.partition(":")
    return (kind == "world" or (kind == "sandbox" and ref == "python")
            or (kind == "builtin" and ref in GENERATED_BUILTINS)
            or (kind == "mcp" and ref.partition(".")[0] in mcp_registry()))
# Variables a jinja system prompt may use; the runtime provides them.
PROMPT_VARIABLES: frozenset[str] = frozenset(
    {"date", "task", "agent_name", "framework_name", "tools", "sub_agents"}
)


def _files(folder: str) -> list[tuple[str, bytes]]:
    root = resources.files("a4a.templates").joinpath(folder)
    return sorted((p.name, p.read_bytes()) for p in root.iterdir() if p.name.endswith(".yaml"))


def _read(relpath: str) -> Any:
    text = resources.files("a4a.templates").joinpath(relpath).read_text(encoding="utf-8")
    return load_yaml_text(text, relpath, trusted=True)


def _cache_dir() -> Path:
    base = os.environ.get("A4A_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "a4a")
    return Path(base)


def load_folder(folder: str) -> list[Any]:
    """Parsed YAML files of a templates folder, via a JSON cache keyed by their content.

    Parsing the packs' YAML dominates a cold `a4a build`; the cache holds plain JSON (never
    code) and is rebuilt whenever a file changes. A cache that cannot be written is skipped.
    """
    files = _files(folder)
    digest = hashlib.sha256(b"".join(n.encode() + b"\0" + t for n, t in files)).hexdigest()
    path = _cache_dir() / f"templates-{folder}-{digest[:20]}.json"
    try:
        return list(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    rows = [load_yaml_text(t, f"{folder}/{n}", trusted=True) for n, t in files]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(rows), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return rows


@cache
def domain_packs() -> dict[str, DomainPack]:
    """Every shipped domain pack by id."""
    packs = [DomainPack.model_validate(row) for row in load_folder("domains")]
    return {p.id: p for p in packs}


@cache
def patterns() -> dict[str, dict[str, Any]]:
    """Every shipped workflow pattern by id (raw data; the generator types it)."""
    return {r["id"]: r for r in load_folder("patterns")}


@cache
def archetypes() -> dict[str, dict[str, Any]]:
    """Role archetypes by id."""
    return {a["id"]: a for a in _read("roles/archetypes.yaml")["archetypes"]}


@cache
def mcp_registry() -> dict[str, dict[str, Any]]:
    """Vetted MCP servers by id."""
    return {s["id"]: s for s in _read("mcp/registry.yaml")["servers"]}


@cache
def nexau_builtins() -> dict[str, dict[str, Any]]:
    """NexAU's builtin tools as a4a implements them, by key (templates/nexau/builtins.yaml)."""
    rows: dict[str, dict[str, Any]] = _read("nexau/builtins.yaml")["builtins"]
    return rows


def resolves(implementation: str) -> bool:
    """Whether an implementation reference names something registered."""
    kind, _, ref = implementation.partition(":")
    if kind == "builtin":
        return ref in BUILTIN_TOOLS or (ref.startswith("nexau_") and any(
            ref == f"nexau_{r.get('implementation') or k}" for k, r in nexau_builtins().items()))
    if kind == "sandbox":
        return ref == "python"
    if kind == "binding":
        return True  # an import path: resolvable only under trust; check_trust reports it
    head, _, tail = ref.partition(".")
    if kind == "world":
        pack = domain_packs().get(head)
        return pack is not None and pack.operation(tail) is not None
    if kind == "mcp":
        server = mcp_registry().get(head)
        return server is not None and tail in server["tools"]
    return False
