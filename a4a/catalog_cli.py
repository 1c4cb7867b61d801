"""`a4a catalog ...`: list, search, show, diff, add, remove, export, import, serve, check.

Thin like the rest of the CLI: parse, call a4a.catalog, print (rich, or one JSON object with
--json). Imports stay inside the commands so `a4a --help` loads neither SQLite nor the web UI.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from a4a.cli_support import JsonOpt, emit_json, guard

if TYPE_CHECKING:
    from a4a.catalog.query import Query
    from a4a.catalog.store import Catalog

app = typer.Typer(
    name="catalog", no_args_is_help=True, rich_markup_mode=None,
    help="Browse the catalog of generated frameworks ($A4A_HOME/catalog.db).",
    context_settings={"help_option_names": ["-h", "--help"]},
)
RefArg = Annotated[str, typer.Argument(help="Framework id (a unique prefix is enough) or name.")]
PatternOpt = Annotated[str | None, typer.Option("--pattern", help="Top-level pattern id.")]
DomainOpt = Annotated[str | None, typer.Option("--domain", help="Domain pack id.")]
ToolOpt = Annotated[str | None, typer.Option("--tool", help="Has a tool of this name.")]
McpOpt = Annotated[str | None, typer.Option("--mcp", help="Uses an MCP server of this name.")]
MinOpt = Annotated[int | None, typer.Option("--min-agents", min=0, help="At least N agents.")]
MaxOpt = Annotated[int | None, typer.Option("--max-agents", min=0, help="At most N agents.")]
CycleOpt = Annotated[bool | None, typer.Option("--has-cycle/--no-cycle",
                                               help="Only frameworks whose control flow "
                                               "loops (or does not).")]
PageOpt = Annotated[int, typer.Option("--page", "-p", min=1, help="Page number.")]
LimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Rows per page.")]


def _run(as_json: bool, fn: Any) -> None:
    guard(as_json, fn)


def _emit(obj: Any) -> None:
    emit_json(obj)


def _open() -> Catalog:
    from a4a.catalog.store import Catalog

    return Catalog.open()


def _list(q: Query, as_json: bool, command: str) -> int:
    from a4a.catalog_render import page_json, print_page

    with _open() as cat:
        page = cat.query(q)
    if as_json:
        _emit(page_json(page))
    else:
        print_page(page, command)
    return 0


def _query(text: str, pattern: str | None, domain: str | None, tool: str | None,
           mcp: str | None, min_agents: int | None, max_agents: int | None,
           has_cycle: bool | None, page: int, limit: int) -> Query:
    from a4a.catalog.query import Query

    return Query(text=text, pattern=pattern, domain=domain, tool=tool, mcp=mcp,
                 min_agents=min_agents, max_agents=max_agents, has_cycle=has_cycle,
                 limit=limit, offset=(page - 1) * limit)


@app.command("list")
def list_(pattern: PatternOpt = None, domain: DomainOpt = None, tool: ToolOpt = None,
          mcp: McpOpt = None, min_agents: MinOpt = None, max_agents: MaxOpt = None,
          has_cycle: CycleOpt = None, page: PageOpt = 1, limit: LimitOpt = 20,
          as_json: JsonOpt = False) -> None:
    """List frameworks, newest first, with structural filters."""
    _run(as_json, lambda: _list(_query("", pattern, domain, tool, mcp, min_agents, max_agents,
                                       has_cycle, page, limit), as_json, "list"))


@app.command()
def search(text: Annotated[str, typer.Argument(help="Words to find (request, name, agents, "
                                               "tools, domains); bm25-ranked.")],
           pattern: PatternOpt = None, domain: DomainOpt = None, tool: ToolOpt = None,
           mcp: McpOpt = None, min_agents: MinOpt = None, max_agents: MaxOpt = None,
           has_cycle: CycleOpt = None, page: PageOpt = 1, limit: LimitOpt = 20,
           as_json: JsonOpt = False) -> None:
    """Full-text search, best match first, with the same filters as list."""
    _run(as_json, lambda: _list(_query(text, pattern, domain, tool, mcp, min_agents,
                                       max_agents, has_cycle, page, limit), as_json,
                                f"search {text!r}"))


@app.command()
def show(ref: RefArg, as_json: JsonOpt = False) -> None:
    """Show one framework: summary, agents and tools, graph, near-duplicates."""

    def run() -> int:
        from a4a.catalog.detail import framework_detail
        from a4a.catalog_render import print_detail

        with _open() as cat:
            detail = framework_detail(cat, cat.resolve(ref))
        if as_json:
            _emit(detail)
        else:
            print_detail(detail)
        return 0

    _run(as_json, run)


@app.command()
def similar(ref: RefArg,
            limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100)] = 10,
            min_score: Annotated[float, typer.Option(min=0.0, max=1.0, help="Lowest "
                                                     "similarity shown.")] = 0.5,
            as_json: JsonOpt = False) -> None:
    """Near-duplicates: the same graph hash, then the structurally most similar."""

    def run() -> int:
        from a4a.catalog_render import print_similar

        with _open() as cat:
            entry = cat.resolve(ref)
            same = cat.same_shape(entry, limit)
            near = cat.similar(entry, limit, min_score)
        if as_json:
            _emit({"id": entry.id, "same_shape": [e.summary() for e in same],
                   "similar": [{**e.summary(), "score": s} for e, s in near]})
        else:
            print_similar(entry, same, near)
        return 0

    _run(as_json, run)


@app.command()
def diff(a: RefArg, b: RefArg,
         files: Annotated[bool, typer.Option("--files/--no-files", help="Print the text "
                                             "diff of each changed file.")] = False,
         as_json: JsonOpt = False) -> None:
    """Compare two frameworks: structure (agents, edges, tools) and files."""

    def run() -> int:
        from a4a.catalog.diff import diff_entries
        from a4a.catalog_render import print_diff

        with _open() as cat:
            result = diff_entries(cat.resolve(a), cat.resolve(b))
        if as_json:
            _emit(result.to_dict())
        else:
            print_diff(result, files)
        return 0

    _run(as_json, run)


@app.command()
def add(dirs: Annotated[list[Path], typer.Argument(help="Framework directories.")],
        as_json: JsonOpt = False) -> None:
    """Register framework directories (validated; the id is hashed from their files)."""

    def run() -> int:
        from a4a.catalog.entry import entry_from_dir

        entries = [entry_from_dir(d) for d in dirs]  # every dir checked before any write
        with _open() as cat:
            added = [cat.add(e) for e in entries]
            where = str(cat.path)
        rows = [{**e.summary(), "added": new} for e, new in zip(entries, added, strict=True)]
        if as_json:
            _emit({"catalog": where, "frameworks": rows})
        else:
            for r in rows:
                state = "added" if r["added"] else "already catalogued"
                typer.echo(f"{r['id']}  {r['name']}  {state}")
        return 0

    _run(as_json, run)


@app.command()
def remove(ref: RefArg, as_json: JsonOpt = False) -> None:
    """Remove a framework from the catalog (its directory stays)."""

    def run() -> int:
        with _open() as cat:
            entry = cat.remove(ref)
        if as_json:
            _emit({"removed": entry.id, "name": entry.name})
        else:
            typer.echo(f"removed {entry.id}  {entry.name} (its files stay in {entry.path})")
        return 0

    _run(as_json, run)


@app.command("export")
def export(out: Annotated[Path, typer.Argument(help="Bundle file to write (.zip).")],
           refs: Annotated[list[str] | None, typer.Argument(help="Frameworks to export "
                                                            "(default: all).")] = None,
           as_json: JsonOpt = False) -> None:
    """Write frameworks and their files into a portable bundle."""

    def run() -> int:
        from a4a.catalog.bundle import export_bundle

        with _open() as cat:
            entries = [cat.resolve(r) for r in refs] if refs else list(cat.entries())
        report = export_bundle(entries, out)
        _report(report.to_dict(), as_json, "exported")
        return 0

    _run(as_json, run)


@app.command("import")
def import_(bundle: Annotated[Path, typer.Argument(help="A bundle from `a4a catalog export`.")],
            as_json: JsonOpt = False) -> None:
    """Unpack a bundle under $A4A_HOME/frameworks and register it: whole, or nothing."""

    def run() -> int:
        from a4a.catalog.bundle import import_bundle
        from a4a.catalog.store import catalog_home

        with _open() as cat:
            report = import_bundle(cat, bundle, catalog_home() / "frameworks")
        _report(report.to_dict(), as_json, "imported")
        return 1 if report.skipped else 0

    _run(as_json, run)


def _report(data: dict[str, Any], as_json: bool, verb: str) -> None:
    if as_json:
        _emit(data)
        return
    typer.echo(f"{verb} {len(data['added'])} framework(s): {data['path']}")
    if data["existing"]:
        typer.echo(f"already catalogued: {len(data['existing'])}")
    for fid, why in data["skipped"].items():
        typer.echo(f"skipped {fid}: {why}", err=True)


@app.command()
def serve(port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0 picks one).")
                          ] = 8765,
          host: Annotated[str, typer.Option(help="Address to bind; keep the default to stay "
                                            "private to this machine.")] = "127.0.0.1",
          as_json: JsonOpt = False) -> None:
    """Browse the catalog in a web browser (local only by default); Ctrl-C stops."""

    def run() -> int:
        from a4a.catalog.store import catalog_home
        from a4a.catalog.web.server import make_server

        server = make_server(catalog_home() / "catalog.db", host, port)
        url = f"http://{host}:{server.server_address[1]}/"
        if as_json:
            _emit({"url": url})
        else:
            typer.echo(f"a4a catalog at {url}  (Ctrl-C stops)")
        sys.stdout.flush()  # the URL must reach a pipe before the server blocks
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
        return 0

    _run(as_json, run)


@app.command()
def check(as_json: JsonOpt = False) -> None:
    """Run SQLite's integrity check and the full-text index check; exit 1 on a problem."""

    def run() -> int:
        with _open() as cat:
            problems, count, where = cat.check(), cat.count(), str(cat.path)
        if as_json:
            _emit({"catalog": where, "frameworks": count, "ok": not problems,
                   "problems": problems})
        else:
            typer.echo(f"{where}: {count} frameworks, "
                       + ("ok" if not problems else "; ".join(problems)))
        return 1 if problems else 0

    _run(as_json, run)
