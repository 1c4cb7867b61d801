"""Terminal rendering of the catalog with rich: result tables with paging, details, diffs.

Every catalog value is escaped before rich sees it: request text may hold [markup].
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.markup import escape
from rich.table import Table

from a4a.render import console

if TYPE_CHECKING:
    from a4a.catalog.diff import FrameworkDiff
    from a4a.catalog.entry import Entry
    from a4a.catalog.store import Page


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def page_json(page: Page) -> dict[str, Any]:
    """The JSON of `a4a catalog list|search --json`."""
    limit = page.query.limit
    return {"total": page.total, "page": page.query.offset // limit + 1,
            "pages": max(1, math.ceil(page.total / limit)), "limit": limit,
            "items": [{**e.summary(), "score": s}
                      for e, s in zip(page.items, page.scores, strict=True)]}


def print_page(page: Page, command: str) -> None:
    """A table of one page of entries and a footer that says how to get the next."""
    c = console()
    meta = page_json(page)
    if not page.items:
        c.print("no framework matches" if page.total == 0 else
                f"page {meta['page']} is past the last ({meta['pages']})")
        return
    # One line per framework: long cells end in an ellipsis instead of wrapping.
    # Columns by the room the terminal has: the date at 100 columns, the request at 140.
    narrow = c.width < 100
    cols: list[tuple[str, dict[str, Any]]] = [
        ("id", {"style": "cyan", "min_width": 10}),
        ("name", {"style": "bold", "max_width": 22 if narrow else None}),
        ("pattern", {"max_width": 14 if narrow else None}),
        ("agents", {"justify": "right", "min_width": 6}), ("ok", {"min_width": 2}),
        ("domains", {"max_width": 12 if narrow else None})]
    cols += [("created", {"min_width": 10})] if c.width >= 100 else []
    cols += [("request", {"style": "dim", "max_width": c.width - 120})] if c.width >= 140 else []
    t = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    for col, kw in cols:
        t.add_column(col, no_wrap=True, overflow="ellipsis", **kw)
    for e in page.items:
        cells = [e.id[:10], escape(e.name), escape(e.pattern), str(e.agents),
                 "[green]✓[/]" if e.valid else "[red]✗[/]", escape(", ".join(e.domains)),
                 e.created_iso[:10], escape(_short(e.request, 200))]
        t.add_row(*cells[: len(cols)])
    c.print(t)
    more = (f"; next: a4a catalog {escape(command)} --page {meta['page'] + 1}"
            if meta["page"] < meta["pages"] else "")
    c.print(f"[dim]page {meta['page']} of {meta['pages']:,} · {page.total:,} "
            f"framework{'s' if page.total != 1 else ''}{more}[/]")


def print_detail(detail: dict[str, Any]) -> None:
    """Summary, tree and graph (when the files exist), then near-duplicates."""
    c = console()
    e = detail["entry"]
    status = "[green]valid[/]" if e["valid"] else f"[red]invalid ({e['errors']} errors)[/]"
    c.print(f"[bold]{escape(e['name'])}[/] [cyan]{e['id']}[/] {status}")
    c.print(f"[dim]request:[/] {escape(_short(e['request'], 400))}")
    rows = (("pattern", e["pattern_tree"]), ("domains", ", ".join(e["domains"]) or "-"),
            ("agents · edges · tools", f"{e['agents']} · {e['edges']} · {e['tools']}"),
            ("depth · cycles", f"{e['depth']} · {e['cycles']}"),
            ("graph hash", e["wl_hash"]), ("created", f"{e['created']} ({e['source']})"),
            ("path", e["path"] or "-"))
    t = Table.grid(padding=(0, 2))
    for k, v in rows:
        t.add_row(f"[dim]{k}[/]", escape(str(v)))
    c.print(t)
    if detail.get("available"):
        _print_spec_of(detail)
    else:
        c.print(f"[yellow]files not available:[/] {escape(detail.get('reason', ''))}")
    _print_neighbours(detail.get("same_shape", []), detail.get("similar", []))


def _print_spec_of(detail: dict[str, Any]) -> None:
    from a4a.render import graph_lines, tree
    from a4a.runtime.loader.files import load_spec

    spec = load_spec(Path(detail["entry"]["path"]) / "framework.yaml")
    c = console()
    c.print(tree(spec))
    for line in graph_lines(spec):
        c.print("  " + line)
    errors = [i for i in detail.get("issues", []) if i["severity"] == "error"]
    if errors:
        c.print(f"[red]{len(errors)} validation error(s)[/]; run `a4a validate "
                f"{escape(detail['entry']['path'])}`")


def _print_neighbours(same: list[dict[str, Any]], near: list[dict[str, Any]]) -> None:
    c = console()
    if same:
        c.print("[bold]same shape:[/] " + ", ".join(
            f"{escape(s['name'])} [cyan]{s['id'][:10]}[/]" for s in same[:5]))
    if near:
        c.print("[bold]similar:[/] " + ", ".join(
            f"{escape(s['name'])} [cyan]{s['id'][:10]}[/] {s['score']:.2f}" for s in near[:5]))


def print_similar(entry: Entry, same: list[Entry], near: list[tuple[Entry, float]]) -> None:
    """Near-duplicates of `entry` as a table."""
    c = console()
    if not same and not near:
        c.print(f"nothing close to {escape(entry.name)} {entry.id}")
        return
    t = Table(header_style="bold")
    for col in ("id", "name", "pattern", "agents", "match"):
        t.add_column(col)
    for e in same:
        t.add_row(e.id[:10], escape(e.name), escape(e.pattern), str(e.agents), "same shape")
    for e, s in near:
        if e.wl_hash != entry.wl_hash:
            t.add_row(e.id[:10], escape(e.name), escape(e.pattern), str(e.agents), f"{s:.2f}")
    c.print(t)


def print_diff(d: FrameworkDiff, files: bool) -> None:
    """Structure first, then files (with their text diffs when asked)."""
    c = console()
    if d.identical:
        c.print("the same framework")
        return
    shape = "same shape" if d.same_shape else "different shapes"
    c.print(f"[cyan]{d.a}[/] vs [cyan]{d.b}[/]: {shape}, similarity {d.similarity:.2f}")
    for k, (va, vb) in d.fields.items():
        c.print(f"  {k}: {escape(str(va))} [dim]->[/] {escape(str(vb))}")
    lines = ([f"[green]+ agent {escape(n)}[/]" for n in d.agents_added]
             + [f"[red]- agent {escape(n)}[/]" for n in d.agents_removed]
             + [f"[yellow]~ agent {escape(n)}:[/] {escape('; '.join(v))}"
                for n, v in d.agents_changed.items()]
             + [f"[green]+ edge {escape(f'{s} --{k}--> {t}')}[/]" for s, t, k in d.edges_added]
             + [f"[red]- edge {escape(f'{s} --{k}--> {t}')}[/]" for s, t, k in d.edges_removed]
             + [f"[green]+ tool {escape(n)}[/]" for n in d.tools_added]
             + [f"[red]- tool {escape(n)}[/]" for n in d.tools_removed])
    for line in lines:
        c.print("  " + line)
    if not d.files_compared:
        c.print("[dim]files not compared: a directory is gone[/]")
        return
    counts = {s: sum(1 for f in d.files if f.status == s) for s in ("changed", "added",
                                                                     "removed")}
    c.print("files: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
            + ("" if files or not d.files else " [dim](--files lists them)[/]"))
    if files:
        for f in d.files:
            c.print(f"  [bold]{f.status}[/] {escape(f.path)}")
            for line in f.diff:
                style = "green" if line[:1] == "+" else "red" if line[:1] == "-" else "dim"
                c.print(f"    [{style}]{escape(line)}[/]")
