"""A small, safe Markdown renderer for generated READMEs: escape first, then add tags.

Every piece of text is unescaped once (READMEs carry HTML-escaped request text), then
escaped, and only then wrapped in the few tags below. No raw HTML, links or images pass,
so nothing in a README can run or load anything.
"""

from __future__ import annotations

import html
import re

from markupsafe import Markup

_HEADING = re.compile(r"(#{1,6})\s+(.*)")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def inline(text: str) -> str:
    """Escaped text with `code` and **bold** spans."""
    safe = html.escape(html.unescape(text), quote=True)
    safe = _CODE.sub(r"<code>\1</code>", safe)
    return _BOLD.sub(r"<strong>\1</strong>", safe)


def _cells(line: str) -> list[str]:
    parts = _CELL_SPLIT.split(line.strip().strip("|"))
    return [inline(p.strip().replace("\\|", "|")) for p in parts]


def _table(rows: list[str]) -> str:
    head, body = rows[0], [r for r in rows[1:] if not re.fullmatch(r"[|\s:-]+", r)]
    out = ["<table><thead><tr>", *(f"<th>{c}</th>" for c in _cells(head)), "</tr></thead><tbody>"]
    for row in body:
        out += ["<tr>", *(f"<td>{c}</td>" for c in _cells(row)), "</tr>"]
    return "".join([*out, "</tbody></table>"])


def _block(lines: list[str], i: int) -> tuple[str, int]:
    """Render the block starting at line `i`; returns its HTML and the next line index."""
    line = lines[i]
    if line.startswith("```"):
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        code = html.escape("\n".join(lines[i + 1:j]))
        return f'<pre class="code"><code>{code}</code></pre>', j + 1
    heading = _HEADING.fullmatch(line)
    if heading:
        level = min(len(heading[1]) + 1, 6)  # the page title is the only h1
        return f"<h{level}>{inline(heading[2])}</h{level}>", i + 1
    for marker, render in (("|", _table), ("> ", _quote), ("- ", _list), ("* ", _list)):
        if line.startswith(marker):
            j = i
            while j < len(lines) and lines[j].startswith(marker):
                j += 1
            return render(lines[i:j]), j
    j = i
    while j < len(lines) and lines[j].strip() and not _starts_block(lines[j]):
        j += 1
    return f"<p>{' '.join(inline(x) for x in lines[i:j])}</p>", j


def _starts_block(line: str) -> bool:
    return line.startswith(("```", "|", "> ", "- ", "* ")) or bool(_HEADING.fullmatch(line))


def _quote(lines: list[str]) -> str:
    return f"<blockquote>{' '.join(inline(x[2:]) for x in lines)}</blockquote>"


def _list(lines: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{inline(x[2:])}</li>" for x in lines) + "</ul>"


def render(text: str) -> Markup:
    """HTML for a Markdown text (the subset generated READMEs use)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        block, i = _block(lines, i)
        out.append(block)
    return Markup("\n".join(out))  # built only from escaped text and fixed tags
