"""Skills: one SKILL.md per domain a framework uses, loaded by agents on demand (NexAU style)."""

from __future__ import annotations

from functools import cache
from importlib import resources

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from a4a.runtime import knowledge


@cache
def _template() -> jinja2.Template:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    path = resources.files("a4a.templates").joinpath("prompts/skill.md.j2")
    return env.from_string(path.read_text("utf-8"))


@cache
def skill_text(domain: str) -> str:
    """The SKILL.md of a domain pack: records, operations, failure modes."""
    return _template().render(pack=knowledge.domain_packs()[domain]).rstrip() + "\n"


def skill_files(domains: list[str]) -> dict[str, str]:
    """`skills/<domain>/SKILL.md` for each domain."""
    return {f"skills/{d}/SKILL.md": skill_text(d) for d in sorted(set(domains))}
