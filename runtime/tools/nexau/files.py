"""NexAU's read, write, list, glob and search tools over the run's workspace.

Every read and write goes through `fsaccess.workspace_read` / `workspace_write`: regular
files only, no symlink followed, size capped, never into `.git`.
"""

from __future__ import annotations

import base64
import fnmatch
import os
import re
from pathlib import PurePosixPath
from typing import Any

from a4a.runtime.errors import A4AError
from a4a.runtime.loader import fsaccess
from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.common import (
    Failure,
    arg,
    folder,
    ok,
    relative,
    shown,
    text_arg,
    walk,
)

MAX_READ_BYTES = 10 * 1024 * 1024
DEFAULT_LINES = 2000
MAX_LINE = 2000
MAX_MATCHES = 500
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp",
               ".svg": "image/svg+xml"}
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_FS_KINDS = {"file.missing": "FILE_NOT_FOUND", "file.not_regular": "PATH_IS_DIRECTORY",
             "file.too_large": "FILE_TOO_LARGE", "file.symlink": "PATH_NOT_IN_WORKSPACE",
             "file.outside_root": "PATH_NOT_IN_WORKSPACE", "file.protected": "PERMISSION_DENIED",
             "io.read_only": "PERMISSION_DENIED", "io.denied": "PERMISSION_DENIED",
             "io.disk_full": "WRITE_ERROR"}


def failure(err: A4AError, rel: str) -> Failure:
    """An fsaccess error as NexAU's failure type."""
    kind = _FS_KINDS.get(err.code, "READ_ERROR")
    text = f"File not found: {shown(rel)}" if kind == "FILE_NOT_FOUND" else err.message
    return Failure(kind, text, err.hint)


def read_bytes(ctx: ToolContext, rel: str, max_bytes: int = MAX_READ_BYTES) -> bytes:
    """A workspace file's bytes; raises Failure."""
    try:
        return fsaccess.workspace_read(ctx.workspace, rel, max_bytes=max_bytes)
    except A4AError as err:
        raise failure(err, rel) from err


def read_text(ctx: ToolContext, rel: str) -> str:
    """A workspace file as text (undecodable bytes replaced); raises Failure."""
    return read_bytes(ctx, rel).decode("utf-8", errors="replace")


def write_bytes(ctx: ToolContext, rel: str, data: bytes) -> None:
    """Write a workspace file (folders made); raises Failure."""
    try:
        fsaccess.workspace_write(ctx.workspace, rel, data)
    except A4AError as err:
        raise failure(err, rel) from err


def _numbered(lines: list[str], start: int) -> str:
    width = len(str(start + len(lines)))
    return "\n".join(f"{start + i + 1:>{width}}| {line}" for i, line in enumerate(lines))


def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Text with line numbers; `offset` / `limit` page through it (NexAU's read_file)."""
    raw = text_arg(args, "file_path", "path", "absolute_path")
    rel = relative(raw)
    if PurePosixPath(rel).suffix.lower() in IMAGE_TYPES:
        raise Failure("USE_READ_VISUAL_FILE", f"{raw} is an image file",
                      "Use read_visual_file for images.")
    lines = read_text(ctx, rel).splitlines()
    start = max(int(arg(args, "offset", default=0) or 0), 0)
    limit = int(arg(args, "limit", default=0) or 0)
    limit = limit if limit > 0 else DEFAULT_LINES
    picked = [ln if len(ln) <= MAX_LINE else ln[:MAX_LINE] + "... [truncated]"
              for ln in lines[start:start + limit]]
    body = _numbered(picked, start)
    end = min(start + limit, len(lines))
    if end < len(lines):
        body = (f"IMPORTANT: The file content has been truncated.\nStatus: Showing lines "
                f"{start + 1}-{end} of {len(lines)} total lines.\nAction: To read more, call "
                f"read_file again with offset: {end}.\n\n--- FILE CONTENT (truncated) ---\n"
                + body)
    return ok(body)


def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Create or replace a file (NexAU's write_file)."""
    rel = relative(text_arg(args, "file_path", "path"))
    content = text_arg(args, "content")
    existed = (ctx.workspace / rel).is_file()
    write_bytes(ctx, rel, content.encode("utf-8", "surrogatepass"))
    verb = "overwrote" if existed else "created and wrote to new"
    return ok(f"Successfully {verb} file: {shown(rel)}.")


def read_many_files(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Files matching `include` (minus `exclude`), each after a `--- path ---` line."""
    include = _patterns(arg(args, "include", "paths", default=[]))
    exclude = _patterns(arg(args, "exclude", default=[]))
    if not include:
        raise Failure("INVALID_ARGUMENTS", "include must list at least one pattern or path",
                      'Pass include, e.g. ["src/**/*.py"].')
    root = ctx.workspace
    picked = [p for p in walk(root, root) if _matches(p, include) and not _matches(p, exclude)]
    parts, skipped = [], 0
    for rel in picked[:200]:
        data = read_bytes(ctx, rel, max_bytes=1_000_000)
        if b"\0" in data[:8000]:
            skipped += 1
            continue
        parts.append(f"--- {shown(rel)} ---\n\n{data.decode('utf-8', errors='replace')}\n\n")
    if not parts:
        return ok("No files matching the criteria were found or all were skipped.")
    note = f"\n({skipped} binary file(s) skipped)" if skipped else ""
    return ok("".join(parts) + "--- END REFERENCE CONTENT ---" + note)


def _patterns(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            rel = relative(item, allow_root=True)
            if not rel:
                out.append("**")
            elif any(c in rel for c in "*?["):
                out.append(rel)
            else:  # a plain path: that file, or everything in that folder
                out += [rel, f"{rel}/**"]
    return out


def _matches(rel: str, patterns: list[str]) -> bool:
    return any(rel == p or fnmatch.fnmatchcase(rel, p)
               or fnmatch.fnmatchcase(rel, p.replace("**/", "")) for p in patterns)


def read_visual_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """An image as base64 with its MIME type; videos need frame extraction a4a lacks."""
    raw = text_arg(args, "file_path", "path")
    rel = relative(raw)
    mime = IMAGE_TYPES.get(PurePosixPath(rel).suffix.lower())
    if mime is None:
        raise Failure("UNSUPPORTED_FILE_TYPE", f"{raw} is not an image a4a can read "
                      f"({', '.join(sorted(IMAGE_TYPES))})",
                      "Read text files with read_file; videos are not supported.")
    data = read_bytes(ctx, rel, max_bytes=MAX_IMAGE_BYTES)
    return ok(f"Read image file {shown(rel)} ({mime}, {len(data)} bytes).",
              image={"mime_type": mime, "data": base64.b64encode(data).decode("ascii")})


def list_directory(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Names directly inside a folder, folders first (NexAU's list_directory)."""
    rel = relative(text_arg(args, "dir_path", "path", required=False) or ".",
                   allow_root=True)
    path = folder(ctx, rel)
    ignore = [p for p in arg(args, "ignore", default=[]) or [] if isinstance(p, str)]
    hidden = arg(args, "show_hidden", default=True) is not False
    entries = []
    for name in sorted(os.listdir(path)):
        full = path / name
        if (not hidden and name.startswith(".")) or any(fnmatch.fnmatch(name, p)
                                                        for p in ignore):
            continue
        kind = "[DIR] " if full.is_dir() and not full.is_symlink() else ""
        entries.append((not kind, f"{kind}{name}"))
    listing = "\n".join(text for _, text in sorted(entries)) or "(empty)"
    return ok(f"Directory listing for {shown(rel)}:\n{listing}")


def glob(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Files matching a glob pattern under a folder, newest first (NexAU's glob)."""
    pattern = text_arg(args, "pattern")
    rel = relative(text_arg(args, "dir_path", "path", required=False) or ".",
                   allow_root=True)
    base = folder(ctx, rel)
    sensitive = arg(args, "case_sensitive", default=False) is True
    flat = pattern.lstrip("/")
    hits = []
    for path in walk(ctx.workspace, base):
        inner = path[len(rel) + 1:] if rel else path
        cand, pat = (inner, flat) if sensitive else (inner.lower(), flat.lower())
        if fnmatch.fnmatchcase(cand, pat) or (pat.startswith("**/")
                                              and fnmatch.fnmatchcase(cand, pat[3:])):
            hits.append(path)
    if not hits:
        return ok(f'No files found matching pattern "{pattern}" within {shown(rel)}')
    hits.sort(key=lambda p: (-(ctx.workspace / p).stat().st_mtime, p))
    body = "\n".join(shown(p) for p in hits)
    return ok(f'Found {len(hits)} file(s) matching "{pattern}" within {shown(rel)}, sorted '
              f"by modification time (newest first):\n{body}")


def search_file_content(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Lines matching a regular expression, grouped by file (NexAU's search_file_content)."""
    pattern = text_arg(args, "pattern")
    try:
        regex = re.compile(pattern)
    except re.error as err:
        raise Failure("INVALID_PATTERN", f"invalid regular expression {pattern!r}: {err}",
                      "Fix the regular expression.") from err
    rel = relative(text_arg(args, "dir_path", "path", required=False) or ".",
                   allow_root=True)
    base = folder(ctx, rel)
    include = arg(args, "include", "glob")
    found: dict[str, list[str]] = {}
    total = 0
    for path in walk(ctx.workspace, base):
        if isinstance(include, str) and include and not _included(path, include):
            continue
        data = read_bytes(ctx, path, max_bytes=2_000_000)
        if b"\0" in data[:8000]:
            continue
        for no, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if regex.search(line):
                found.setdefault(path, []).append(f"L{no}: {line[:MAX_LINE]}")
                total += 1
                if total >= MAX_MATCHES:
                    break
        if total >= MAX_MATCHES:
            break
    where = f'in path "{shown(rel)}"' + (f' (filter: "{include}")' if include else "")
    if not found:
        return ok(f'No matches found for pattern "{pattern}" {where}.')
    blocks = [f"File: {shown(p)}\n" + "\n".join(lines) for p, lines in found.items()]
    return ok(f'Found {total} match(es) for pattern "{pattern}" {where}:\n---\n'
              + "\n---\n".join(blocks) + "\n---")


def _included(rel: str, include: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    options = _braces(include)
    return any(fnmatch.fnmatch(name, o) or fnmatch.fnmatch(rel, o) for o in options)


def _braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[:match.start()], pattern[match.end():]
    return [o for part in match.group(1).split(",") for o in _braces(head + part + tail)]
