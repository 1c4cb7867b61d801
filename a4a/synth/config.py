"""What defines a batch (its config, stored in job.json) and how it may run (its options)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.runtime.loader import fsaccess

JOB = "job.json"
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SynthConfig:
    """The fields that decide a batch's outputs; a resumed batch must keep them."""

    n: int = 20
    tasks_per_env: int = 5
    llm: str = "oracle"
    seed: int = 0
    manifest: str | None = None
    formats: tuple[str, ...] = ("function_calling",)
    styles: tuple[str, ...] = ("openai",)
    eval_fraction: float = 0.1
    max_steps: int | None = None
    judge: str | None = None
    builder_llm: str | None = None  # build with the LLM-backed builders (openai:<model>)

    def __post_init__(self) -> None:
        from a4a.training.data import check_format
        from a4a.training.styles import check_style

        if self.n < 1 or self.tasks_per_env < 1:
            raise UserError("synth.bad_size", "--n and --tasks-per-env must be at least 1",
                            "Pass positive sizes, e.g. --n 200 --tasks-per-env 5.")
        if not 0.0 <= self.eval_fraction < 1.0:
            raise UserError("synth.bad_split", "--eval-fraction must be in [0, 1)",
                            "Pass e.g. --eval-fraction 0.1.")
        for fmt in self.formats:
            check_format(fmt)
        for style in self.styles:
            check_style(style)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {**asdict(self), "formats": list(self.formats), "styles": list(self.styles)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SynthConfig:
        """The config stored in a job.json."""
        names = {f.name for f in fields(cls)}
        kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                              for k, v in data.items() if k in names}
        return cls(**kw)


@dataclass
class SynthOptions:
    """How a batch runs; changing these never changes its outputs."""

    engine: str = "local"
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    concurrency: int = 32
    address: str | None = None
    catalog: bool = True
    base_url: str | None = None
    progress: Progress | None = None


def settings(out: Path, chosen: dict[str, Any]) -> SynthConfig:
    """`chosen` settings over those of the batch stored in `out` (or over the defaults)."""
    job = out / JOB
    stored = json.loads(job.read_text(encoding="utf-8")) if job.exists() else {}
    return SynthConfig.from_dict({**stored, **chosen})


def open_job(out: Path, config: SynthConfig | None, resume: bool) -> SynthConfig:
    """The batch's config: written for a new job, read (and checked) for a resumed one.

    Raises:
        UserError: `synth.exists` (a job is there and --resume was not given),
            `synth.not_a_job` (--resume on a folder without job.json), `synth.config_changed`
            (the stored config differs from the one given), `out.not_empty`.
    """
    job = out / JOB
    if job.exists():
        stored = SynthConfig.from_dict(json.loads(job.read_text(encoding="utf-8")))
        if not resume:
            raise UserError("synth.exists", f"{out} holds a batch already",
                            "Continue it with --resume, or pass a new --out.")
        if config is not None and config != stored:
            changed = sorted(k for k, v in config.to_dict().items()
                             if stored.to_dict()[k] != v)
            raise UserError("synth.config_changed",
                            f"the batch in {out} was started with other settings: "
                            f"{', '.join(changed)}",
                            "Resume with the same settings (or only --resume --out), or "
                            "start a new batch in another folder.")
        return stored
    if resume and config is None:
        raise UserError("synth.not_a_job", f"{out} holds no batch to resume",
                        "Point --out at a folder a4a synth wrote, or drop --resume.")
    if out.exists() and any(out.iterdir()):
        raise UserError("out.not_empty", f"{out} is not empty and holds no batch",
                        "Pass a new folder with --out.")
    config = config or SynthConfig()
    out.mkdir(parents=True, exist_ok=True)
    fsaccess.write_text(job, json.dumps(config.to_dict(), indent=2, sort_keys=True) + "\n")
    return config
