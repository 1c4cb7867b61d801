"""Negative fixtures: each case breaks one rule of a valid framework; its code must show."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from a4a.api import validate
from tests.conftest import load_data

BASE = load_data("invalid/base.yaml")
CASES = load_data("invalid/cases.yaml")["cases"]


def _walk(doc: Any, path: str, create: bool) -> tuple[Any, Any]:
    parts: list[Any] = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = doc
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, dict) and part not in node and create:
            node[part] = [] if isinstance(parts[i + 1], int) else {}
        node = node[part]
    return node, parts[-1]


def apply(case: dict[str, Any]) -> str:
    """The YAML text of a case: raw text, or base.yaml with its edits applied."""
    if "text" in case:
        return case["text"]
    doc = copy.deepcopy(BASE)
    for path, value in (case.get("set") or {}).items():
        node, key = _walk(doc, path, create=True)
        node[key] = value
    for path, value in (case.get("append") or {}).items():
        node, key = _walk(doc, path, create=True)
        items = node.setdefault(key, [])
        items.extend(value if isinstance(value, list) else [value])
    for path in case.get("delete") or []:
        node, key = _walk(doc, path, create=False)
        del node[key]
    return yaml.safe_dump(doc, sort_keys=False)


def test_base_is_valid(tmp_path: Path) -> None:
    (tmp_path / "framework.yaml").write_text(yaml.safe_dump(BASE))
    report = validate(tmp_path / "framework.yaml")
    assert report.valid, report.issues


def test_one_fixture_per_check() -> None:
    codes = {c["code"] for c in CASES}
    assert len(codes) >= 40, sorted(codes)


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['code']}" for i, c in enumerate(CASES)])
def test_fixture_reports_its_code(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "framework.yaml"
    path.write_text(apply(case), encoding="utf-8")
    report = validate(path)
    severity = case.get("severity", "error")
    found = [i for i in report.issues if i.code == case["code"] and i.severity == severity]
    assert found, f"expected {case['code']} ({severity}); got {[str(i) for i in report.issues]}"
    assert report.valid == (severity != "error")
    for issue in report.issues:
        assert issue.message and issue.hint, issue
        if issue.severity == "error" and not issue.code.startswith("yaml."):
            assert issue.path, issue


def test_yaml_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "framework.yaml"
    path.write_text("description: " + "x" * 1_100_000 + "\n")
    report = validate(path)
    assert [i.code for i in report.issues] == ["yaml.too_large"]


