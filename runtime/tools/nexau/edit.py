"""NexAU's editing tools: replace, multiedit_tool and apply_patch, inside the workspace.

An edit is computed on the whole content first and written only when it applies, so a
failed edit leaves the file as it was; apply_patch checks every file before writing any.
"""

from __future__ import annotations

from typing import Any

from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.common import Failure, arg, ok, relative, shown, text_arg
from a4a.runtime.tools.nexau.files import read_text, write_bytes
from a4a.runtime.tools.nexau.patch import PatchError, apply_hunks, parse_patch


def _flexible(content: str, old: str, new: str) -> tuple[str, int]:
    """Replace line blocks equal to `old` up to indentation, keeping the block's indent."""
    src = content.split("\n")
    want = [ln.strip() for ln in old.split("\n")]
    out: list[str] = []
    count, i = 0, 0
    while i < len(src):
        window = src[i:i + len(want)]
        if len(window) == len(want) and [w.strip() for w in window] == want:
            indent = window[0][:len(window[0]) - len(window[0].lstrip())]
            out += [indent + line for line in new.split("\n")]
            count += 1
            i += len(want)
        else:
            out.append(src[i])
            i += 1
    return "\n".join(out), count


def edit_text(content: str, old: str, new: str, expected: int | None, path: str) -> str:
    """`content` with `old` replaced by `new`; `expected` None means every occurrence.

    Raises:
        Failure: EDIT_NO_OCCURRENCE_FOUND, EDIT_EXPECTED_OCCURRENCE_MISMATCH, EDIT_NO_CHANGE.
    """
    old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old == new:
        raise Failure("EDIT_NO_CHANGE", f"No changes to apply: old_string and new_string are "
                      f"identical in {path}", "Change new_string.")
    count = content.count(old)
    result = content.replace(old, new) if count else ""
    if not count:
        result, count = _flexible(content, old, new)
    if not count:
        raise Failure("EDIT_NO_OCCURRENCE_FOUND", f"Failed to edit, 0 occurrences found for "
                      f"old_string in {path}", "Read the file and copy the exact text, "
                      "whitespace and indentation included.")
    if expected is not None and count != expected:
        raise Failure("EDIT_EXPECTED_OCCURRENCE_MISMATCH", f"Failed to edit, expected "
                      f"{expected} occurrence(s) but found {count} for old_string in {path}",
                      "Add context to old_string, or set expected_replacements.")
    return result


def replace(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Replace text in a file; an empty old_string creates a new file (NexAU's replace)."""
    rel = relative(text_arg(args, "file_path", "path"))
    old, new = text_arg(args, "old_string"), text_arg(args, "new_string")
    exists = (ctx.workspace / rel).is_file()
    if old == "":
        if exists:
            raise Failure("ATTEMPT_TO_CREATE_EXISTING_FILE", f"File already exists, cannot "
                          f"create: {shown(rel)}", "Give old_string to edit the file.")
        write_bytes(ctx, rel, new.encode("utf-8", "surrogatepass"))
        return ok(f"Created new file: {shown(rel)} with provided content.")
    content = read_text(ctx, rel)
    crlf = "\r\n" in content
    expected = arg(args, "expected_replacements", default=1)
    if arg(args, "replace_all") is True:
        expected = None
    updated = edit_text(content.replace("\r\n", "\n"), old, new,
                        None if expected is None else int(expected), shown(rel))
    write_bytes(ctx, rel, (updated.replace("\n", "\r\n") if crlf else updated).encode(
        "utf-8", "surrogatepass"))
    return ok(f"Successfully modified file: {shown(rel)}.")


def multiedit(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Several edits to one file in order, all or none (NexAU's multiedit_tool)."""
    rel = relative(text_arg(args, "file_path", "path"))
    edits = arg(args, "edits", default=[])
    if not isinstance(edits, list) or not edits:
        raise Failure("INVALID_ARGUMENTS", "edits must list at least one edit",
                      "Pass edits: [{old_string, new_string}].")
    content = read_text(ctx, rel).replace("\r\n", "\n")
    for n, edit in enumerate(edits, 1):
        if not isinstance(edit, dict):
            raise Failure("INVALID_ARGUMENTS", f"edit {n} is not an object", "Fix edit {n}.")
        try:
            content = edit_text(content, text_arg(edit, "old_string"),
                                text_arg(edit, "new_string"),
                                None if edit.get("replace_all") is True else 1, shown(rel))
        except Failure as err:
            raise Failure(err.kind, f"edit {n}: {err.message}; no edit was applied",
                          err.hint) from err
    write_bytes(ctx, rel, content.encode("utf-8", "surrogatepass"))
    return ok(f"Applied {len(edits)} edit(s) to {shown(rel)}.")


def apply_patch(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Apply an apply_patch-format patch to one or more files (NexAU's apply_patch)."""
    text = text_arg(args, "input", "patch")
    try:
        ops = parse_patch(text)
        writes: dict[str, str | None] = {}
        done: list[str] = []
        for op in ops:
            rel = relative(op.path)
            if op.kind == "add":
                if (ctx.workspace / rel).exists():
                    raise PatchError(f"Add File {op.path}: the file already exists")
                writes[rel] = "\n".join(op.lines) + "\n"
                done.append(f"A {shown(rel)}")
            elif op.kind == "delete":
                read_text(ctx, rel)  # must exist as a regular file
                writes[rel] = None
                done.append(f"D {shown(rel)}")
            else:
                current = writes.get(rel) or read_text(ctx, rel).replace("\r\n", "\n")
                updated = apply_hunks(current, op.hunks, op.path)
                target = relative(op.move_to) if op.move_to else rel
                if target != rel:
                    writes[rel] = None
                writes[target] = updated
                done.append(f"M {shown(target)}")
    except PatchError as err:
        raise Failure("INVALID_PATCH", str(err), "Re-read the files and send the patch "
                      "again with exact context lines.") from err
    for rel, content in writes.items():
        if content is None:
            (ctx.workspace / rel).unlink()
        else:
            write_bytes(ctx, rel, content.encode("utf-8", "surrogatepass"))
    return ok("Success. Updated the following files:\n" + "\n".join(done))
