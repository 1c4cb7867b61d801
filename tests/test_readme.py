"""The README's Python examples run as tests."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_examples_run() -> None:
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                                  optionflags=doctest.ELLIPSIS)
    finally:
        os.chdir(cwd)
    assert result.attempted >= 4 and result.failed == 0
