"""The generated README: purpose, mermaid graph, agents, tools, how to run."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from a4a.runtime import knowledge
from a4a.runtime.ir.spec import FrameworkSpec, PatternNode

_ARROWS = {"delegate": "-.->|delegate|", "handoff": "==>|handoff|", "sequence": "-->",
           "route": "-->|route|", "parallel": "-->|parallel|", "loop": "-.->|loop|"}


@cache
def _template() -> jinja2.Template:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    path = resources.files("a4a.templates").joinpath("prompts/readme.md.j2")
    return env.from_string(path.read_text("utf-8"))


def mermaid(spec: FrameworkSpec) -> str:
    """A mermaid flowchart of the agents and typed edges (names are safe identifiers)."""
    lines = ["flowchart TD"]
    lines += [f'  {a.name.replace("-", "_")}["{a.name} ({a.role})"]' for a in spec.agents]
    lines += [f"  {e.source.replace('-', '_')} {_ARROWS[e.kind]} {e.target.replace('-', '_')}"
              for e in spec.edges]
    return "\n".join(lines)


def _tree(node: PatternNode) -> str:
    inner = ", ".join(_tree(c) for c in node.children)
    return f"{node.pattern}({inner})" if inner else node.pattern


def render_readme(spec: FrameworkSpec) -> str:
    """README.md text; the request is escaped data, never a template."""
    quoted = html.escape(" ".join(spec.description.split()))[:2000]
    cells = {a.name: a.model_copy(update={"description": _cell(a.description)})
             for a in spec.agents}
    return _template().render(
        name=spec.name, request=quoted, mermaid=mermaid(spec), entry=spec.entry,
        pattern_title=knowledge.patterns()[spec.pattern]["title"], patterns=_tree(spec.patterns),
        limits=spec.limits, agents=list(cells.values()),
        tools=[t.model_copy(update={"description": _cell(t.description)}) for t in spec.tools],
    )


def _cell(text: str) -> str:
    return html.escape(text).replace("|", "\\|")
