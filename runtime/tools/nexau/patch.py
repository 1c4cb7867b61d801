"""The apply_patch format (V4A) as pure functions: parse a patch, apply a file's hunks.

    *** Begin Patch
    *** Add File: path          lines that follow start with +
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       optional, right after Update File
    @@ optional anchor line     starts a hunk; lines follow with ' ', '-' or '+'
    *** End of File             optional: the hunk ends at the end of the file
    *** End Patch

Hunks are found in order, each after the previous one: exactly first, then ignoring
trailing whitespace, then ignoring surrounding whitespace. Raises PatchError with the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", \
    "*** Move to: "
END_OF_FILE = "*** End of File"
MAX_PATCH_LINES = 50_000


class PatchError(ValueError):
    """A patch that cannot be read or does not fit the file."""


@dataclass
class Hunk:
    """One `@@` section: the lines it expects (old) and the lines it leaves (new)."""

    anchor: str = ""
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    at_end: bool = False


@dataclass
class FileOp:
    """One file section of a patch."""

    kind: str  # add, delete, update
    path: str
    lines: list[str] = field(default_factory=list)  # add: the new file's lines
    hunks: list[Hunk] = field(default_factory=list)  # update
    move_to: str | None = None


def parse_patch(text: str) -> list[FileOp]:
    """The file operations of a patch, in order."""
    lines = text.strip("\n").splitlines()
    if len(lines) > MAX_PATCH_LINES:
        raise PatchError(f"the patch has more than {MAX_PATCH_LINES} lines")
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError(f"the patch must start with '{BEGIN}'")
    if lines[-1].strip() != END:
        raise PatchError(f"the patch must end with '{END}'")
    ops: list[FileOp] = []
    i = 1
    while i < len(lines) - 1:
        line = lines[i]
        if line.startswith(ADD):
            op, i = _add(lines, i)
        elif line.startswith(DELETE):
            op, i = FileOp("delete", line[len(DELETE):].strip()), i + 1
        elif line.startswith(UPDATE):
            op, i = _update(lines, i)
        elif not line.strip():
            i += 1
            continue
        else:
            raise PatchError(f"line {i + 1}: expected a file header, got {line[:80]!r}")
        if not op.path:
            raise PatchError(f"line {i}: a file header without a path")
        ops.append(op)
    if not ops:
        raise PatchError("the patch changes no file")
    return ops


def _add(lines: list[str], i: int) -> tuple[FileOp, int]:
    op = FileOp("add", lines[i][len(ADD):].strip())
    i += 1
    while i < len(lines) - 1 and not lines[i].startswith("*** "):
        if not lines[i].startswith("+"):
            raise PatchError(f"line {i + 1}: lines of an added file start with '+'")
        op.lines.append(lines[i][1:])
        i += 1
    return op, i


def _update(lines: list[str], i: int) -> tuple[FileOp, int]:
    op = FileOp("update", lines[i][len(UPDATE):].strip())
    i += 1
    if i < len(lines) - 1 and lines[i].startswith(MOVE):
        op.move_to = lines[i][len(MOVE):].strip()
        i += 1
    hunk: Hunk | None = None
    while i < len(lines) - 1 and not lines[i].startswith(("*** Add", "*** Delete",
                                                            "*** Update")):
        line = lines[i]
        if line.startswith("@@"):
            hunk = Hunk(anchor=line[2:].strip().strip("@").strip())
            op.hunks.append(hunk)
        elif line.strip() == END_OF_FILE:
            if hunk is not None:
                hunk.at_end = True
        else:
            if hunk is None:
                hunk = Hunk()
                op.hunks.append(hunk)
            sign, body = (line[:1], line[1:]) if line else (" ", "")
            if sign not in " -+":
                raise PatchError(f"line {i + 1}: hunk lines start with ' ', '-' or '+'")
            if sign in " -":
                hunk.old.append(body)
            if sign in " +":
                hunk.new.append(body)
        i += 1
    if not op.hunks and op.move_to is None:
        raise PatchError(f"Update File {op.path}: no hunk")
    return op, i


def apply_hunks(content: str, hunks: list[Hunk], path: str) -> str:
    """`content` with every hunk applied in order."""
    lines = content.split("\n")
    trailing = content.endswith("\n")
    if trailing:
        lines.pop()
    pos = 0
    for n, hunk in enumerate(hunks, 1):
        if hunk.anchor:
            pos = _find(lines, [hunk.anchor], pos, path, n, anchor=True) + 1
        start = len(lines) - len(hunk.old) if hunk.at_end else _find(lines, hunk.old, pos,
                                                                     path, n)
        if hunk.at_end and not _same(lines[start:], hunk.old):
            raise PatchError(f"{path}: hunk {n} does not match the end of the file")
        lines[start:start + len(hunk.old)] = hunk.new
        pos = start + len(hunk.new)
    return "\n".join(lines) + ("\n" if trailing or not content else "")


def _same(got: list[str], want: list[str]) -> bool:
    return len(got) == len(want) and all(a.strip() == b.strip() for a, b in zip(got, want,
                                                                                strict=True))


def _find(lines: list[str], want: list[str], pos: int, path: str, n: int, *,
          anchor: bool = False) -> int:
    if not want:
        return pos
    for norm in (lambda s: s, str.rstrip, str.strip):
        target = [norm(w) for w in want]
        for start in range(pos, len(lines) - len(want) + 1):
            if all(norm(lines[start + k]) == target[k] for k in range(len(want))):
                return start
    what = "anchor" if anchor else "context"
    raise PatchError(f"{path}: hunk {n}: {what} not found: {want[0][:80]!r}")
