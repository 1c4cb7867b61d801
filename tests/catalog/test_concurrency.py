"""Four processes adding to one catalog at once: nothing lost, nothing doubled, intact.

The CI run is short (5 s); `python bench/catalog_concurrency.py` runs the full 30 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_four_writers_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "catalog_concurrency.py"),
                           "--procs", "4", "--seconds", "5", "--db", str(tmp_path / "c.db"),
                           "--json"], capture_output=True, text=True, timeout=180, check=True)
    result = json.loads(proc.stdout)
    assert result["worker_exit_codes"] == [0, 0, 0, 0]
    assert result["adds"] > 100, result
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["unexpected"] == 0
    assert result["rows"] == result["distinct_ids"]
    assert result["integrity"] == "ok"
