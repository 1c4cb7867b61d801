"""Layering: runtime imports no higher layer; `a4a --help` and `a4a build` stay light."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIGHER = ("a4a.generator", "a4a.catalog", "a4a.training", "a4a.cli", "a4a.api")
HEAVY = ("torch", "transformers", "peft", "ray", "dspy", "litellm", "mcp", "mcp_types", "openai")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_runtime_is_the_leaf_layer() -> None:
    offenders = [
        (str(p.relative_to(ROOT)), m)
        for p in (ROOT / "runtime").rglob("*.py")
        for m in _imports(p)
        if m.startswith(HIGHER) or m.split(".")[0] in ("generator", "catalog", "training")
    ]
    assert offenders == []


def test_no_generic_top_level_imports() -> None:
    for folder in ("a4a", "generator", "runtime", "catalog", "training"):
        for p in (ROOT / folder).rglob("*.py"):
            bad = [m for m in _imports(p) if m.split(".")[0] in
                   ("runtime", "generator", "templates", "catalog", "training")]
            assert not bad, (p, bad)


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_help_imports_no_ir_and_no_heavy_dependency() -> None:
    mods = _modules_after("import a4a.cli")
    assert not {m for m in mods if m.split(".")[0] in (*HEAVY, "pydantic", "networkx")}


def test_build_imports_no_heavy_dependency() -> None:
    mods = _modules_after("import a4a\na4a.build('a team that triages GitHub issues')")
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_training_imports_only_the_runtime_below_it() -> None:
    offenders = [
        (str(p.relative_to(ROOT)), m)
        for p in (ROOT / "training").rglob("*.py")
        for m in _imports(p)
        if m.startswith(("a4a.generator", "a4a.catalog", "a4a.cli", "a4a.api"))
    ]
    assert offenders == []


def test_training_data_and_masking_import_no_heavy_dependency() -> None:
    mods = _modules_after("import a4a.training.masking, a4a.training.export")
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_the_build_command_without_llm_imports_no_builder_model(tmp_path: Path) -> None:
    code = ("import sys\nfrom a4a.cli import main\nsys.argv = ['a4a', 'build', 'a team that "
            f"triages GitHub issues', '--no-catalog', '--json', '--out', {str(tmp_path)!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code")
    mods = _modules_after(code)
    assert (tmp_path / "framework.yaml").is_file()
    assert not {m for m in mods if m.split(".")[0] in ("dspy", "litellm")}
    assert not {m for m in mods if m.startswith("a4a.generator.llm")}


def test_dspy_is_imported_only_by_the_llm_builders() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("a4a", "generator", "runtime", "catalog", "training")
        for p in (ROOT / folder).rglob("*.py")
        if any(m.split(".")[0] in ("dspy", "litellm") for m in _imports(p))
        and "generator/llm" not in p.as_posix()
    ]
    assert offenders == []
