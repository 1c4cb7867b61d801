"""Terminal rendering with rich: build summaries, validation reports, framework trees."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

if TYPE_CHECKING:
    from a4a.api import BuildResult, ValidationReport
    from a4a.runtime.graph.issues import Issue
    from a4a.runtime.ir.spec import FrameworkSpec

_KIND_STYLE = {"delegate": "cyan", "handoff": "magenta", "sequence": "white", "route": "yellow",
               "parallel": "green", "loop": "red"}


def console(stderr: bool = False) -> Console:
    """A console; plain when not a terminal."""
    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def tree(spec: FrameworkSpec) -> Tree:
    """Agents nested by delegation, with roles and tools; control edges as annotations."""
    root = Tree(f"[bold]{escape(spec.name)}[/]  [dim]{spec.pattern}, entry {spec.entry}[/]")
    children: dict[str, list[str]] = {a.name: [] for a in spec.agents}
    for e in spec.edges:
        if e.kind == "delegate":
            children[e.source].append(e.target)
    delegated = {t for ts in children.values() for t in ts}
    by_name = {a.name: a for a in spec.agents}

    def add(node: Tree, name: str, depth: int) -> None:
        a = by_name[name]
        tools = ", ".join(a.tool_names()) or "-"
        branch = node.add(f"[bold]{escape(name)}[/] [dim]({a.role})[/]  tools: "
                          f"{escape(tools)}")
        if depth < 8:
            for child in children[name]:
                add(branch, child, depth + 1)

    for a in spec.agents:
        if a.name not in delegated:
            add(root, a.name, 0)
    return root


def graph_lines(spec: FrameworkSpec) -> list[str]:
    """An ASCII rendering of every edge: `source --kind--> target [cap, condition]`."""
    lines = []
    for e in spec.edges:
        extra = [x for x in (f"max {e.max_iterations}" if e.max_iterations else "",
                             "default" if e.default else "", e.condition or "",
                             f"join {e.join}" if e.join else "") if x]
        tail = f"  [{'; '.join(extra)}]" if extra else ""
        lines.append(f"[{_KIND_STYLE[e.kind]}]{escape(e.source)} --{e.kind}--> "
                     f"{escape(e.target)}[/]{escape(tail)}")
    return lines


def print_spec(spec: FrameworkSpec) -> None:
    """Tree, then graph, then tools."""
    c = console()
    c.print(tree(spec))
    if spec.edges:
        c.print("\n[bold]Graph[/]")
        for line in graph_lines(spec):
            c.print("  " + line)
    if spec.tools:
        t = Table(title="Tools", title_justify="left", show_lines=False)
        for col in ("tool", "implementation", "writes"):
            t.add_column(col)
        for tool in spec.tools:
            t.add_row(escape(tool.name), escape(tool.implementation),
                      "yes" if tool.writes else "no")
        c.print(t)


def print_issues(issues: list[Issue]) -> None:
    """A table of issues."""
    if not issues:
        return
    t = Table(show_lines=False)
    for col in ("severity", "code", "path", "message", "hint"):
        t.add_column(col, overflow="fold")
    for i in issues:
        style = "red" if i.severity == "error" else "yellow"
        where = f"{i.file}: {i.path}" if i.file else i.path
        t.add_row(f"[{style}]{i.severity}[/]", i.code, escape(where), escape(i.message),
                  escape(i.hint))
    console().print(t)


def print_build(result: BuildResult) -> None:
    """Summary of a build."""
    c = console()
    s = result.spec
    status = "[green]valid[/]" if result.valid else "[red]invalid[/]"
    c.print(f"[bold]{escape(s.name)}[/] {result.id} {status}: {s.pattern}, {len(s.agents)} "
            f"agents, {len(s.edges)} edges, {len(s.tools)} tools; domains "
            f"{', '.join(result.domains)}")
    if result.path:
        c.print(f"written to [bold]{escape(str(result.path))}[/]")
    if result.catalog:
        c.print(f"[dim]catalogued: a4a catalog show {result.id[:10]}[/]")
    print_issues(result.issues)


def print_report(report: ValidationReport) -> None:
    """Summary of a validation."""
    c = console()
    n_err = sum(1 for i in report.issues if i.severity == "error")
    n_warn = len(report.issues) - n_err
    status = "[green]valid[/]" if report.valid else "[red]invalid[/]"
    c.print(f"{escape(str(report.path))} ({report.kind}): {status}, {n_err} error(s), "
            f"{n_warn} warning(s)")
    print_issues(report.issues)


def print_run(summary: dict[str, object]) -> None:
    """The answer and the status of one run."""
    c = console()
    ok = summary["status"] == "completed"
    c.print(f"[{'green' if ok else 'red'}]{summary['status']}[/]  run {summary['run_id']}  "
            f"{summary['llm_calls']} model calls, {summary['tool_calls']} tool calls, "
            f"{summary['tool_errors']} tool errors")
    c.print(escape(str(summary["final_answer"]) or "(no answer)"))
    error = summary.get("error")
    if isinstance(error, dict) and error.get("message"):
        code = f"{error['code']}: " if error.get("code") else ""
        c.print(f"[red]{escape(code + str(error['message']))}[/]")
        if error.get("hint"):
            c.print(f"[dim]hint:[/] {escape(str(error['hint']))}")
    c.print(f"[dim]trajectory: {escape(str(summary['trajectory']))}[/]")


def print_transcript(record: dict[str, Any]) -> None:
    """A readable transcript of one run."""
    from a4a.runtime.engine.transcript import lines

    c = console()
    for style, text in lines(record):
        c.print(f"[{style}]{escape(text)}[/]")
