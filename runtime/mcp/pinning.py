"""Tool schemas pinned by hash in a4a.lock.

The defence against a server that changes its tools after they were reviewed (a "rug
pull"): a changed, vanished or new tool aborts the run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from a4a.runtime.errors import RunError, UserError
from a4a.runtime.loader.lock import LOCK, read_lock, write_lock
from a4a.runtime.mcp.tools import McpTool

Pins = dict[str, dict[str, str]]


def pin(tools: Iterable[McpTool], servers: Iterable[str] = ()) -> Pins:
    """The `mcp` section of a4a.lock: `{server: {tool: schema_hash}}`.

    Args:
        tools: Tools as listed by the servers.
        servers: Servers to include even when they list no tool (pinned as empty).

    Returns:
        The pins, servers and tools in sorted order.
    """
    out: Pins = {s: {} for s in servers}
    for t in tools:
        out.setdefault(t.server, {})[t.tool] = t.schema_hash
    return {s: dict(sorted(out[s].items())) for s in sorted(out)}


def verify(lock_mcp: dict[str, Any], tools: Iterable[McpTool],
           servers: Iterable[str] | None = None) -> None:
    """Check listed tools against their pins.

    Args:
        lock_mcp: The `mcp` section of a4a.lock.
        tools: Tools as listed by the servers now.
        servers: Servers that were listed (a server listing nothing still counts); by
            default every server in the pins or in `tools`.

    Raises:
        RunError: mcp.schema_changed naming each server/tool that changed, vanished or
            appeared; `.data['changes']` lists them.
    """
    listed = None if servers is None else list(servers)
    now = pin(tools, listed or ())
    names = set(now) | (set(lock_mcp) if listed is None else set(listed))
    changes: list[dict[str, str]] = []
    for server in sorted(names):
        pinned = lock_mcp.get(server)
        pinned = pinned if isinstance(pinned, dict) else {}
        current = now.get(server, {})
        for tool in sorted(set(pinned) | set(current)):
            if tool not in current:
                change = "vanished"
            elif tool not in pinned:
                change = "appeared"
            elif pinned[tool] != current[tool]:
                change = "changed"
            else:
                continue
            changes.append({"server": server, "tool": tool, "change": change})
    if changes:
        named = ", ".join(f"{c['server']}/{c['tool']} ({c['change']})" for c in changes)
        raise RunError("mcp.schema_changed",
                       f"MCP tools differ from the schemas pinned in {LOCK}: {named}",
                       "Do not run it: review the server's new tool definitions, and re-pin "
                       f"{LOCK} only if you trust the change.", changes=changes)


def write_pins(root: Path, tools: Iterable[McpTool], servers: Iterable[str] = ()) -> Pins:
    """Pin tools into the a4a.lock of an existing framework directory.

    Pins of the servers given (or listed in `tools`) are replaced; other servers' pins stay.

    Args:
        root: The framework directory.
        tools: Tools as listed by the servers.
        servers: Servers to pin even when they list no tool.

    Returns:
        The `mcp` section as written.

    Raises:
        UserError: mcp.lock_missing when `root` has no a4a.lock.
        SpecError: lock.invalid, yaml.* or file.* when the lock is unusable (a link out of
            the framework is refused; a link inside is replaced, never written through).
    """
    lock = read_lock(root)
    if lock is None:
        path = root / LOCK
        raise UserError("mcp.lock_missing", f"{path} does not exist",
                        "Point at a framework directory built by `a4a build`.", path=str(path))
    section = dict(lock.mcp)
    section.update(pin(tools, servers))
    mcp = {s: section[s] for s in sorted(section)}
    write_lock(root, {**lock.raw, "mcp": mcp})
    return mcp
