"""NexAU folder skills: a SKILL.md with YAML front matter (name, description), then a body."""

from __future__ import annotations

from pathlib import Path

from a4a.runtime.errors import A4AError
from a4a.runtime.ir.nexau import NexauSkill
from a4a.runtime.loader.nexau.files import Access
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.schema import SkillEntry
from a4a.runtime.loader.yamlio import load_yaml_text


def parse_skill(text: str, source: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md; raises ValueError saying what is wrong."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        raise ValueError(f"{source} does not start with YAML front matter (---)")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise ValueError(f"{source} has no closing --- after its front matter")
    try:
        meta = load_yaml_text("\n".join(lines[1:end]), source)
    except A4AError as err:
        raise ValueError(err.message) from err
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        raise ValueError(f"{source}: the front matter needs a name")
    return meta["name"], str(meta.get("description") or ""), "\n".join(lines[end + 1:]).strip()


def load_skills(entries: list[SkillEntry | str], base: Path, file: Path, access: Access,
                report: Report) -> list[NexauSkill]:
    """The folder skills of an agent; a missing folder or SKILL.md is an error."""
    out: list[NexauSkill] = []
    for i, entry in enumerate(entries):
        folder = entry if isinstance(entry, str) else entry.path
        where = f"skills[{i}]"
        skill_md = access.path(base, folder) / "SKILL.md"
        try:
            name, description, body = parse_skill(access.read_text(skill_md), folder)
        except A4AError as err:
            report.failed(file, where, err)
            continue
        except ValueError as err:
            report.error(file, where, "skill.invalid", str(err),
                         "Start SKILL.md with ---, name:, description:, ---.")
            continue
        if isinstance(entry, SkillEntry) and entry.name:
            name = entry.name
        if any(s.name == name for s in out):
            report.error(file, where, "skill.duplicate", f"two skills are named {name!r}",
                         "Give each skill its own name.")
            continue
        out.append(NexauSkill(name=name, description=description, folder=folder, detail=body))
    return out
