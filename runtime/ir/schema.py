"""JSON Schema of the framework and agent YAML, generated from the IR into templates/schema.

Run `python -m a4a.runtime.ir.schema` after changing the IR; a test fails on drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import BaseModel

from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, ToolSpec

MODELS: dict[str, type[BaseModel]] = {
    "framework.schema.json": FrameworkSpec,
    "agent.schema.json": AgentSpec,
    "tool.schema.json": ToolSpec,
}


def schemas() -> dict[str, str]:
    """File name -> JSON Schema text (stable formatting)."""
    return {name: json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
            for name, model in MODELS.items()}


def write(folder: Path) -> None:
    """Write every schema into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in schemas().items():
        (folder / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("templates/schema"))
