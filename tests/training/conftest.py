"""The embedded SmolLM2 tokenizer, when its files are cached (tests skip otherwise)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

MODEL_DIR = Path(os.environ["A4A_HOME"]) / "models" / "SmolLM2-135M-Instruct"


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    transformers = pytest.importorskip("transformers")
    if not (MODEL_DIR / "tokenizer.json").is_file():
        pytest.skip("the embedded model is not cached (make model)")
    return transformers.AutoTokenizer.from_pretrained(str(MODEL_DIR))
