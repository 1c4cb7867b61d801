"""Backends by spec string, and the openai client staying off the import path until used."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.fakes import SchemaLLM, ScriptedLLM
from a4a.runtime.llm.openai_backend import OpenAIBackend
from a4a.runtime.llm.resolve import SPEC_FORMS, resolve_llm

LOCAL = "a4a.runtime.llm.local"


def test_openai_spec() -> None:
    llm = resolve_llm("openai:qwen2.5-7b", base_url="http://127.0.0.1:8000/v1")
    assert isinstance(llm, OpenAIBackend)
    assert (llm.model, llm.base_url, llm.name) == (
        "qwen2.5-7b", "http://127.0.0.1:8000/v1", "openai:qwen2.5-7b")


def test_scripted_spec(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("- content: hello\n", encoding="utf-8")
    assert isinstance(resolve_llm(f"scripted:{script}"), ScriptedLLM)


def test_schema_fake_spec() -> None:
    assert isinstance(resolve_llm("fake:schema"), SchemaLLM)


def test_local_spec_builds_the_local_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    class LocalLLM:
        name = "local"

    module = types.ModuleType(LOCAL)
    module.LocalLLM = LocalLLM  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, LOCAL, module)
    assert isinstance(resolve_llm("local"), LocalLLM)


def test_local_spec_without_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, LOCAL, None)  # as if the module were not installed
    with pytest.raises(LLMError) as info:
        resolve_llm("local")
    assert info.value.code == "llm.local_unavailable" and "openai:" in info.value.hint


def test_local_spec_missing_a_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> types.ModuleType:
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr("a4a.runtime.llm.resolve.importlib.import_module", missing)
    with pytest.raises(LLMError) as info:
        resolve_llm("local")
    assert info.value.data["missing"] == "torch" and "a4a[train]" in info.value.hint


def test_oracle_needs_a_task() -> None:
    with pytest.raises(LLMError) as info:
        resolve_llm("oracle")
    assert info.value.code == "llm.oracle_needs_task" and "--task" in info.value.hint


@pytest.mark.parametrize("spec", ["gpt-4", "openai:", "scripted:", "fake:echo", "", "LOCAL"])
def test_unknown_specs_list_the_valid_forms(spec: str) -> None:
    with pytest.raises(UserError) as info:
        resolve_llm(spec)
    assert info.value.code == "llm.unknown_spec"
    assert all(form in info.value.hint for form in SPEC_FORMS)


def test_resolving_imports_no_openai_until_a_call() -> None:
    code = ("from a4a.runtime.llm.resolve import resolve_llm\n"
            "resolve_llm('openai:m', base_url='http://127.0.0.1:1/v1')\n"
            "import sys, json\nprint(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert not [m for m in json.loads(out.stdout) if m.split(".")[0] == "openai"]
