"""Public API: build, validate and load frameworks.

>>> result = build("a team that triages GitHub issues", out=None)
>>> result.valid
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a4a.generator.pipeline import Compiled, compile_request
from a4a.runtime.errors import SpecError, UserError
from a4a.runtime.graph.issues import Issue, errors
from a4a.runtime.graph.validate import validate as validate_spec
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.files import LOCK, drift_issues, load_spec, replace_text, write_files
from a4a.runtime.loader.nexau import inspect_agent_config, is_agent_config, load_agent_config
from a4a.runtime.loader.projection import is_projection, load_projection
from a4a.runtime.loader.yamlio import load_yaml_file

if TYPE_CHECKING:
    from a4a.generator.llm.builder import LLMOptions

TASKS_MAX_BYTES = 64_000_000


@dataclass(frozen=True)
class BuildResult:
    """What `build` returns: the framework, where it was written, and its validation."""

    id: str
    spec: FrameworkSpec
    path: Path | None
    issues: list[Issue]
    domains: tuple[str, ...]
    files: dict[str, str] = field(repr=False)
    catalog: str | None = None
    builder: dict[str, Any] | None = None  # the LLM build's report (None for rules)

    @property
    def name(self) -> str:
        """Framework name."""
        return self.spec.name

    @property
    def valid(self) -> bool:
        """No error-level issue."""
        return not errors(self.issues)

    def to_dict(self) -> dict[str, Any]:
        """The `a4a build --json` object."""
        s = self.spec
        return {
            "id": self.id, "name": s.name, "path": str(self.path) if self.path else None,
            "pattern": s.pattern, "patterns": s.patterns.model_dump(mode="json"),
            "agents": [{"name": a.name, "role": a.role, "tools": a.tool_names()}
                       for a in s.agents],
            "edges": [{"source": e.source, "target": e.target, "kind": e.kind} for e in s.edges],
            "tools": [{"name": t.name, "description": t.description,
                       "implementation": t.implementation} for t in s.tools],
            "domains": list(self.domains), "valid": self.valid,
            "issues": [i.to_dict() for i in self.issues], "catalog": self.catalog,
            **({"builder": self.builder} if self.builder is not None else {}),
        }


@dataclass(frozen=True)
class ValidationReport:
    """What `validate` returns: every issue of a framework dir or agent config."""

    path: Path
    kind: str
    spec: FrameworkSpec | None
    issues: list[Issue]

    @property
    def valid(self) -> bool:
        """No error-level issue."""
        return not errors(self.issues)

    def to_dict(self) -> dict[str, Any]:
        """The `a4a validate --json` object."""
        return {"path": str(self.path), "kind": self.kind, "valid": self.valid,
                "name": self.spec.name if self.spec else None,
                "issues": [i.to_dict() for i in self.issues]}


def build(text: str, seed: int = 0, out: str | Path | None = None,
          catalog: bool = False, llm: str | LLMOptions | None = None,
          base_url: str | None = None) -> BuildResult:
    """Compile `text` into a framework; write it under `out` when given.

    With `catalog` (what `a4a build` passes unless --no-catalog) a written framework is
    also registered in the catalog under $A4A_HOME; a library call does not touch the
    user's home unless asked. `llm` (a model spec such as `openai:<model>`, with `base_url`
    for a local server, or LLMOptions) builds with the LLM-backed builders; the result's
    `builder` reports calls, tokens, rounds, verification and any fallback to the rules.
    Raises RefusedError when the security policy denies the request, UserError for
    unusable input, an output directory that holds something else or a missing dspy
    extra, CatalogError when registration fails.
    """
    report = None
    if llm is None or llm == "rules":
        compiled: Compiled = compile_request(text, seed=seed)
    else:
        compiled, report = llm_compile(text, seed, llm, base_url)
    path = None
    registered = None
    if out is not None:
        path = Path(out)
        _check_out_dir(path)
        write_files(path, compiled.files)
        if catalog:
            registered = _register(compiled, path)
    return BuildResult(compiled.framework_id, compiled.spec, path, compiled.issues,
                       compiled.intent.domains, compiled.files, registered, report)


def llm_compile(text: str, seed: int, llm: str | LLMOptions, base_url: str | None
                ) -> tuple[Compiled, dict[str, Any]]:
    """Compile `text` with the LLM-backed builders; the framework and the builder's report.

    Raises UserError `llm.dspy_missing` without the dspy extra, RefusedError for a refused
    request.
    """
    from a4a.generator.llm.builder import LLMOptions, build_llm

    opts = LLMOptions(llm, base_url=base_url) if isinstance(llm, str) else llm
    compiled, report = build_llm(text, seed, opts)
    return compiled, report.to_dict()


def _register(compiled: Compiled, path: Path) -> str:
    """Add a written framework to the catalog; returns the catalog's path."""
    from a4a.catalog.entry import entry_from_spec
    from a4a.catalog.store import Catalog

    entry = entry_from_spec(compiled.spec, compiled.framework_id, compiled.issues,
                            source="build", path=path)
    with Catalog.open() as cat:
        cat.add(entry)
        return str(cat.path)


def _check_out_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise UserError("out.not_dir", f"{path} exists and is not a directory",
                        "Pass --out with a new or framework directory.")
    if path.is_dir() and any(path.iterdir()) and not (path / LOCK).exists():
        raise UserError("out.not_empty", f"{path} is not empty and holds no a4a framework",
                        "Pass --out with a new directory; a4a only overwrites its own output.")


def load(path: str | Path, *, trusted: bool = False) -> FrameworkSpec:
    """Load a framework directory, framework.yaml, or a NexAU agent YAML.

    Files are read through `fsaccess`: regular files only, size-capped, and inside the
    framework's (or the config's) folder unless `trusted`; a NexAU config imports nothing
    unless `trusted` (then its own import-path bindings and MCP commands are kept).
    """
    p = Path(path)
    if p.is_dir():
        if not (p / "framework.yaml").exists():
            raise UserError("path.not_framework", f"{p} has no framework.yaml",
                            "Point at a framework directory or a YAML file.")
        return load_spec(p / "framework.yaml", trusted=trusted)
    if not p.exists():
        raise UserError("path.missing", f"{p} does not exist", "Check the path.")
    data = load_yaml_file(p, root=p.parent, trusted=trusted)
    if is_projection(data, p):
        return load_projection(p)
    if is_agent_config(data):
        return load_agent_config(p, trusted=trusted)
    return load_spec(p, trusted=trusted)


@contextmanager
def _own_packs(path: str | Path) -> Iterator[None]:
    """Domain packs an LLM build wrote into the framework (environment/packs), while in use."""
    root = Path(path) if Path(path).is_dir() else Path(path).parent
    if not (root / "environment" / "packs").is_dir():
        yield
        return
    from a4a.generator.llm.domain import extra_packs, framework_packs

    with extra_packs(framework_packs(root)):
        yield


def validate(path: str | Path, *, trusted: bool = False) -> ValidationReport:
    """Validate a framework directory or agent config; never raises for invalid content."""
    try:
        with _own_packs(path):
            return _validate(path, trusted)
    except SpecError as err:
        return ValidationReport(Path(path), "framework", None, [
            Issue(err.code, "environment/packs", err.message, err.hint)])


def _validate(path: str | Path, trusted: bool) -> ValidationReport:
    p = Path(path)
    kind = "framework" if p.is_dir() or p.name == "framework.yaml" else "agent"
    if kind == "agent" and p.is_file():
        try:
            data = load_yaml_file(p)
            nexau = is_agent_config(data) and not is_projection(data, p)
        except SpecError:
            nexau = False
        if nexau:  # every file it references, each issue naming its file
            spec, found = inspect_agent_config(p)
            return ValidationReport(p, kind, spec, found + (validate_spec(spec) if spec else []))
    try:
        spec = load(p, trusted=trusted)
    except SpecError as err:
        raw = err.data.get("issues") or [{"code": err.code, "path": "", "message": err.message,
                                          "hint": err.hint}]
        return ValidationReport(p, kind, None, [Issue(**i) for i in raw])
    if spec.provenance is None or spec.provenance.builder != "hand":
        kind = "framework"
    issues = validate_spec(spec)
    if p.is_dir():
        issues += drift_issues(p, spec, trusted=trusted)
    return ValidationReport(p, kind, spec, issues)


def nexau_retry(spec: FrameworkSpec) -> Any:
    """The retry policy a NexAU config asks for (retry_attempts, backoff cap), else a4a's."""
    from a4a.runtime.llm.retry import RetryPolicy

    entry = spec.agent(spec.entry)
    settings = entry.nexau if entry is not None else None
    if settings is None or settings.retry_attempts is None:
        return RetryPolicy()
    return RetryPolicy(max_attempts=max(settings.retry_attempts, 1), base_delay_s=1.0,
                       max_delay_s=settings.retry_backoff_max_s or 30.0)


def tasks(path: str | Path, n: int, seed: int = 0) -> list[Any]:
    """Synthesize up to `n` tasks for a framework dir into environment/tasks.jsonl."""
    from a4a.runtime.world.synthesis import synthesize

    root = Path(path)
    if not (root / "framework.yaml").exists():
        raise UserError("path.not_framework", f"{root} has no framework.yaml",
                        "Point at a framework directory built by `a4a build`.")
    with _own_packs(root):
        made = synthesize(load(root), n, seed)
    fsaccess.confine(root, "environment").mkdir(exist_ok=True)
    replace_text(root / "environment" / "tasks.jsonl",
                 "".join(t.to_json() + "\n" for t in made), root=root)
    return made


def find_task(path: str | Path, task_id: str, *, trusted: bool = False) -> dict[str, Any]:
    """A task of a framework dir's environment/tasks.jsonl, by id or unique prefix.

    Raises:
        UserError: tasks.missing, tasks.not_found.
        SpecError: tasks.invalid for a line that is not a task; file.* when the file may
            not be read (see `fsaccess.read_text`).
    """
    import json

    file = Path(path) / "environment" / "tasks.jsonl"
    if not file.exists():
        raise UserError("tasks.missing", f"{file} does not exist",
                        "Generate tasks first: a4a tasks DIR --n 20")
    text = fsaccess.read_text("environment/tasks.jsonl", root=Path(path),
                              max_bytes=TASKS_MAX_BYTES, trusted=trusted)
    try:
        lines = (json.loads(line) for line in text.splitlines() if line.strip())
        rows = {str(r["id"]): r for r in lines}
    except (ValueError, TypeError, KeyError) as err:
        raise SpecError("tasks.invalid", f"{file} holds a line that is not a task",
                        "Regenerate it: a4a tasks DIR --n 20", path=str(file)) from err
    hits = [r for i, r in rows.items() if i == task_id] or [
        r for i, r in rows.items() if i.startswith(task_id)]
    if len(hits) != 1:
        raise UserError("tasks.not_found", f"{len(hits)} tasks match {task_id!r}",
                        "Pass a full task id from environment/tasks.jsonl.")
    return dict(hits[0])


def run(path: str | Path, task: str, llm: str = "local", *, out: str | Path | None = None,
        seed: int = 0, task_id: str = "adhoc", base_url: str | None = None,
        trusted: bool = False, network: bool = False, max_steps: int | None = None,
        attempt: int = 0, context: dict[str, Any] | None = None) -> Any:
    """Run a framework directory or agent YAML on `task`; returns the RunRecord.

    `llm` is a backend spec (`openai:<model>`, `config` for a NexAU config's own model,
    `local`, `scripted:<file>`, `fake:schema`). `context` fills the template variables of
    NexAU prompts. The record is appended to `out` (JSONL, fsynced) when given. A failed
    run is a record with a non-completed status, not an exception; unusable arguments
    raise UserError, a framework whose files may not be read (a malformed lock, a file
    linked from outside its folder without `trusted`) SpecError. The framework id recorded
    is recomputed from the files the lock lists, so a stale or forged lock never names the
    run.
    """
    with _own_packs(path):
        return _run(path, task, llm, out=out, seed=seed, task_id=task_id, base_url=base_url,
                    trusted=trusted, network=network, max_steps=max_steps, attempt=attempt,
                    context=context)


def _run(path: str | Path, task: str, llm: str, *, out: str | Path | None, seed: int,
         task_id: str, base_url: str | None, trusted: bool, network: bool,
         max_steps: int | None, attempt: int, context: dict[str, Any] | None) -> Any:
    import asyncio

    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.engine.trace import append
    from a4a.runtime.llm.resolve import resolve_llm
    from a4a.runtime.loader.lock import current_id, read_lock, write_lock

    spec = load(path, trusted=trusted)
    root = Path(path) if Path(path).is_dir() else None
    lock = read_lock(root, trusted=trusted) if root else None
    # The id recorded is the one the files hash to now, whatever the lock claims.
    framework_id = current_id(root, lock, trusted=trusted) if root and lock else ""
    gold = find_task(path, task_id, trusted=trusted) if task_id != "adhoc" else None
    if gold is not None:
        task, seed, task_id = gold["query"], gold["world_seed"], gold["id"]
    if llm == "oracle" and gold is not None:
        from a4a.runtime.engine.oracle import OracleLLM

        backend: Any = OracleLLM(spec, gold["plan"], gold["checker"]["answer"])
    else:
        entry = spec.agent(spec.entry)
        config = entry.llm_config if entry is not None and entry.nexau is not None else None
        backend = resolve_llm(llm, base_url=base_url, config=config)
    options = RunOptions(task_id=task_id, seed=seed, policy=llm,
                         framework_id=framework_id, trusted=trusted,
                         network=network, max_steps=max_steps,
                         mcp_pins=(lock.mcp if lock else None) or None, attempt=attempt,
                         context=dict(context or {}), retry=nexau_retry(spec))
    record = asyncio.run(run_framework(spec, task, backend, options))
    if gold is not None:
        import dataclasses
        import json

        from a4a.runtime.world.rewards import score

        record = dataclasses.replace(record, rewards=score(gold, json.loads(record.to_json())))
    if root is not None and record.mcp and not (lock and lock.mcp):
        # First bind: pin the listed MCP tool schemas; later runs abort if they change.
        write_lock(root, {**(lock.raw if lock else {}), "mcp": record.mcp})
    if out is not None:
        append(Path(out), record)
    return record
