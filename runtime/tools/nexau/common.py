"""What NexAU's builtins share: workspace paths, argument aliases and NexAU's result shape.

NexAU tools return `{"content": <what the model reads>, ...}` and report failures as an
error with a type (`FILE_NOT_FOUND`, ...); here a failure is a ToolError whose code is that
type in lower case, so the run counts it and the model still reads why.

Paths: the model sees the workspace as WORKDIR (where the sandbox mounts it). A path is
relative to it or absolute inside it; anything else is refused, never resolved on the host.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from a4a.runtime.tools.base import ToolContext, ToolError, ToolOutcome

WORKDIR = "/workspace"
# Folders a listing or search never enters unless named (NexAU's default excludes).
SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".a4a"})
MAX_WALK = 5_000


class Failure(Exception):
    """A NexAU-style failure: `kind` is NexAU's error type (FILE_NOT_FOUND, ...)."""

    def __init__(self, kind: str, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.hint = hint

    def outcome(self) -> ToolOutcome:
        """The failure as a structured tool error the model reads."""
        return ToolOutcome(error=ToolError(self.kind.lower(), self.message, self.hint))


def ok(content: str, **extra: Any) -> ToolOutcome:
    """A NexAU success: `content` is what the model reads; `extra` keys ride along."""
    return ToolOutcome({"content": content, **extra})


def arg(args: dict[str, Any], *names: str, default: Any = None) -> Any:
    """The first of `names` present in `args` (tool YAMLs of different NexAU versions)."""
    for name in names:
        if args.get(name) is not None:
            return args[name]
    return default


def text_arg(args: dict[str, Any], *names: str, required: bool = True) -> str:
    """A string argument; raises Failure INVALID_ARGUMENTS when it is missing or no string."""
    value = arg(args, *names)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise Failure("INVALID_ARGUMENTS", f"{names[0]} must be a string",
                      f"Pass {names[0]} as a string.")
    return value


def relative(raw: str, *, allow_root: bool = False) -> str:
    """A workspace path as a4a's file access takes it (relative, normalised).

    Raises:
        Failure: PATH_NOT_IN_WORKSPACE for an absolute path outside WORKDIR or one that
            climbs out with `..`.
    """
    text = raw.strip().replace("\\", "/")
    if text == WORKDIR or text.startswith(WORKDIR + "/"):
        text = text[len(WORKDIR):]
    elif text.startswith("/") or text.startswith("~"):
        raise Failure("PATH_NOT_IN_WORKSPACE", f"{raw} is outside the workspace {WORKDIR}",
                      f"Use a path relative to {WORKDIR} or inside it.")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise Failure("PATH_NOT_IN_WORKSPACE", f"{raw} climbs out of the workspace",
                      f"Use a path inside {WORKDIR}.")
    if not parts and not allow_root:
        raise Failure("INVALID_ARGUMENTS", "the path names the workspace itself, not a file",
                      "Name a file inside the workspace.")
    return "/".join(parts)


def shown(rel: str) -> str:
    """The path as the model sees it."""
    return f"{WORKDIR}/{rel}" if rel else WORKDIR


def folder(ctx: ToolContext, rel: str) -> Path:
    """The host folder of a workspace-relative folder path, checked to be a real folder.

    Raises:
        Failure: DIRECTORY_NOT_FOUND, NOT_A_DIRECTORY (symlinks count as neither).
    """
    root = ctx.workspace
    path = root / rel if rel else root
    current = root
    for part in [p for p in rel.split("/") if p]:
        current = current / part
        if current.is_symlink():
            raise Failure("NOT_A_DIRECTORY", f"{shown(rel)} goes through a symlink",
                          "Use plain folders of the workspace.")
    if not path.exists():
        raise Failure("DIRECTORY_NOT_FOUND", f"Directory not found: {shown(rel)}",
                      "List the workspace to see what exists.")
    if not path.is_dir():
        raise Failure("NOT_A_DIRECTORY", f"Path is not a directory: {shown(rel)}",
                      "Name a folder.")
    return path


def walk(root: Path, start: Path) -> Iterator[str]:
    """Workspace-relative paths of the regular files under `start`, no symlink followed."""
    count = 0
    for here, dirs, names in os.walk(start):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS
                         and not os.path.islink(os.path.join(here, d)))
        for name in sorted(names):
            full = os.path.join(here, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            yield os.path.relpath(full, root).replace(os.sep, "/")
            count += 1
            if count >= MAX_WALK:
                return
