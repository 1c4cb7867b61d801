"""The built wheel installs everything under a4a.*, template data included."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_contents(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True,
                   timeout=300)
    wheel = next(tmp_path.glob("a4a-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops <= {"a4a", *(t for t in tops if t.endswith((".dist-info", ".data")))}, tops
    for required in ("a4a/cli.py", "a4a/runtime/ir/spec.py", "a4a/generator/pipeline.py",
                     "a4a/templates/domains/code_hosting.yaml",
                     "a4a/templates/patterns/routing.yaml", "a4a/templates/roles/archetypes.yaml",
                     "a4a/templates/prompts/agent.j2", "a4a/templates/policy.yaml",
                     "a4a/templates/schema/framework.schema.json",
                     "a4a/catalog/store.py", "a4a/catalog/web/static/graph.js",
                     "a4a/catalog/web/static/app.js", "a4a/catalog/web/static/style.css",
                     "a4a/catalog/web/templates/framework.html"):
        assert required in names, required
    packs = [n for n in names if n.startswith("a4a/templates/domains/")]
    assert len(packs) >= 21
    folders = {"a4a": "a4a", "runtime": "a4a/runtime", "generator": "a4a/generator",
               "catalog": "a4a/catalog", "training": "a4a/training", "templates": "a4a/templates"}
    missing = [str(p) for folder, dest in folders.items() for p in (ROOT / folder).rglob("*.py")
               if f"{dest}/{p.relative_to(ROOT / folder).as_posix()}" not in names]
    assert missing == [], "modules left out of the wheel: add their packages to pyproject"
