"""The catalog imports only the runtime; the CLI loads no SQLite or web module for --help."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_catalog_imports_only_the_runtime() -> None:
    bad = []
    for path in (ROOT / "catalog").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [(path.name, n) for n in names if n.startswith(
                ("a4a.generator", "a4a.training", "a4a.cli", "a4a.api", "a4a.catalog_"))]
    assert bad == []


def test_help_loads_no_store_and_no_web_server() -> None:
    code = ("import sys, json, a4a.cli\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    mods = set(json.loads(out.stdout))
    assert not {m for m in mods if m.split(".")[0] in ("sqlite3", "_sqlite3", "jinja2")
                or m.startswith(("http.server", "a4a.catalog."))}
