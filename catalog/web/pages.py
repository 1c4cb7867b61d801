"""HTML pages from jinja2 templates with autoescaping on: every value is escaped by default.

The only markup passed through unescaped is the README, rendered by markdown.render, which
escapes all text itself.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any
from urllib.parse import urlencode

import jinja2

from a4a.catalog.diff import FrameworkDiff
from a4a.catalog.entry import Entry
from a4a.catalog.store import Page
from a4a.catalog.web import markdown

_FILTERS = ("q", "pattern", "domain", "tool", "min_agents", "max_agents", "has_cycle")
KIND_LEGEND = ("delegate", "handoff", "sequence", "route", "parallel", "loop")


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("a4a.catalog.web", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pretty"] = lambda v: json.dumps(v, indent=2, ensure_ascii=False)
    env.filters["short"] = lambda s, n=140: s if len(s) <= n else s[: n - 1] + "…"
    return env


def _render(name: str, **context: Any) -> str:
    return _env().get_template(name).render(**context)


def _href(params: dict[str, str], **changes: Any) -> str:
    merged = {k: v for k, v in params.items() if k in _FILTERS and v}
    merged.update({k: str(v) for k, v in changes.items() if v})
    return "/?" + urlencode(merged) if merged else "/"


def list_page(page: Page, facets: dict[str, list[tuple[str, int]]],
              params: dict[str, str]) -> str:
    """The searchable, filterable list."""
    limit = page.query.limit
    current = page.query.offset // limit + 1
    pages = max(1, math.ceil(page.total / limit))
    filters = {k: params.get(k, "") for k in _FILTERS}
    return _render(
        "list.html", page=page, items=[e.summary() for e in page.items], filters=filters,
        facets=facets, current=current, pages=pages, q=filters["q"],
        prev_href=_href(params, page=current - 1) if current > 1 else None,
        next_href=_href(params, page=current + 1) if current < pages else None,
        searched=bool(page.query.text.strip()),
    )


def framework_page(detail: dict[str, Any]) -> str:
    """One framework: header, graph, agents, tools, environment, README, files, neighbours."""
    readme = detail.get("readme")
    return _render("framework.html", d=detail, e=detail["entry"], q="",
                   readme_html=markdown.render(readme) if readme else None,
                   kinds=KIND_LEGEND)


def file_page(entry: Entry, rel: str, text: str) -> str:
    """One file of a framework, as text."""
    return _render("file.html", e=entry.summary(), rel=rel, text=text, q="")


def diff_page(a: Entry, b: Entry, diff: FrameworkDiff) -> str:
    """Two frameworks compared."""
    return _render("diff.html", a=a.summary(), b=b.summary(), diff=diff, q="")


def error_page(status: int, message: str) -> str:
    """A plain error page."""
    return _render("error.html", status=status, message=message, q="")
