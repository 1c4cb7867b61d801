"""New worlds for new domains: a generated pack is checked like a shipped one, then used.

A pack the DomainBuilder writes must pass the pack model's own consistency checks and
`a4a.runtime.world.tasks.check` (every template instantiates on several world seeds); the
oracle then proves its tasks through the framework. While a build uses such a pack it is
made visible to the knowledge tables (`extra_packs`), and it is stored with the framework.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from a4a.runtime import knowledge
from a4a.runtime.errors import SpecError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.loader.yamlio import dump_yaml, load_yaml_file
from a4a.runtime.world.tasks import check

PACK_DIR = "environment/packs"


def pack_issues(pack: DomainPack) -> list[Issue]:
    """Problems `python -m a4a.runtime.world.tasks check` would report, plus shipped clashes."""
    out = [Issue("pack.check", f"pack.tasks[{_template(p)}]", p, "Make every template's "
                 "slots match seeded records and its plan succeed on the seeded world.")
           for p in check(pack)]
    if pack.id in knowledge.domain_packs():
        out.append(Issue("pack.shipped_id", "pack.id", f"{pack.id!r} is a shipped pack",
                         "Choose a new id for a new domain."))
    if not pack.tasks:
        out.append(Issue("pack.no_tasks", "pack.tasks", "the pack has no task templates",
                         "Add task templates with gold plans."))
    return out


def _template(problem: str) -> str:
    m = re.match(r"[a-z0-9_]+\.([a-z0-9_]+) ", problem)
    return m.group(1) if m else "?"


@contextmanager
def extra_packs(packs: list[DomainPack]) -> Iterator[None]:
    """Make `packs` visible to the knowledge tables (and so to builders and runs) for a while."""
    table = knowledge.domain_packs()
    added = [p for p in packs if p.id not in table]
    for p in added:
        table[p.id] = p
    try:
        yield
    finally:
        for p in added:
            table.pop(p.id, None)


def pack_files(packs: list[DomainPack]) -> dict[str, str]:
    """The generated packs as framework files (environment/packs/<id>.yaml)."""
    return {f"{PACK_DIR}/{p.id}.yaml": dump_yaml(p.model_dump(mode="json", exclude_defaults=True))
            for p in packs}


def framework_packs(root: Path) -> list[DomainPack]:
    """The generated packs a framework directory carries (environment/packs/*.yaml).

    Raises SpecError `pack.invalid` for a pack file that is not a sound pack.
    """
    folder = root / PACK_DIR
    out = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            out.append(DomainPack.model_validate(load_yaml_file(path, root=root)))
        except ValidationError as err:
            raise SpecError("pack.invalid", f"{path.name} is not a sound domain pack: "
                            f"{err.errors()[0]['msg']}", "Rebuild the framework from its "
                            "request.") from err
    return out


def keep_pack(pack: DomainPack, root: Path) -> Path:
    """Store `pack` in the user pack directory `root` (e.g. $A4A_HOME/packs) for reuse."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{pack.id}.yaml"
    path.write_text(pack_files([pack])[f"{PACK_DIR}/{pack.id}.yaml"], encoding="utf-8")
    return path
