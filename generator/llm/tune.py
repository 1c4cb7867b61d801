"""Tuning the builders: compile the DSPy program against validity, verification and fit.

The trainset is the labelled request corpus (`cases:` with `request`, `agents` [min, max],
`roles` with synonyms, `forbidden` words). The metric of one build is the mean of: valid and
not fallen back, verified by running, and fit to the labels. The compiled program is saved
where `a4a build --llm` loads it ($A4A_HOME/builder/program.json by default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.generator.llm.builder import LLMOptions, LLMReport, load_program, run_program
from a4a.generator.llm.engine import Ledger, home, make_lm
from a4a.generator.pipeline import Compiled, compile_request
from a4a.runtime.errors import A4AError, UserError
from a4a.runtime.graph.issues import errors
from a4a.runtime.loader.yamlio import load_yaml_file


@dataclass(frozen=True)
class TuneReport:
    """What tuning did: cases, score before and after, calls, where the program went."""

    cases: int
    before: float
    after: float
    calls: int
    path: Path

    def to_dict(self) -> dict[str, Any]:
        """As `a4a builder tune --json` prints it."""
        return {"cases": self.cases, "score_before": self.before, "score_after": self.after,
                "llm_calls": self.calls, "path": str(self.path)}


def load_trainset(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The `cases:` of a labelled corpus file (held-out files are refused)."""
    if "heldout" in path.name:
        raise UserError("tune.heldout", f"{path} is a held-out split",
                        "Tune on the tuning split; held-out cases only score the result.")
    data = load_yaml_file(path, root=path.parent)
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list) or not cases:
        raise UserError("tune.bad_trainset", f"{path} has no `cases:` list",
                        "Pass a corpus file such as tests/data/generation/tuning.yaml.")
    return [c for c in cases if isinstance(c, dict) and c.get("request")][:limit]


def fit(case: dict[str, Any], compiled: Compiled) -> float:
    """How well a framework fits a labelled case: agent count, named roles, no traps."""
    spec = compiled.spec
    low, high = (case.get("agents") or [1, 99])[:2]
    parts = [1.0 if low <= len(spec.agents) <= high else 0.0]
    text = " ".join(f"{a.name} {a.role} {a.description}" for a in spec.agents).lower()
    for role in case.get("roles") or []:
        names = [role["name"], *role.get("synonyms", [])]
        parts.append(1.0 if any(n.lower() in text.replace("_", " ") for n in names) else 0.0)
    tools = " ".join(f"{t.name} {t.description}" for t in spec.tools).lower()
    trapped = any(re.search(rf"\b{re.escape(w.lower())}", tools)
                  for w in case.get("forbidden") or [])
    parts.append(0.0 if trapped else 1.0)
    return sum(parts) / len(parts)


def metric(case: dict[str, Any], compiled: Compiled, report: LLMReport) -> float:
    """Validity + verification + fit, each in [0, 1], averaged."""
    valid = 1.0 if not errors(compiled.issues) and report.fallback is None else 0.0
    verified = 1.0 if report.verification is not None and report.verification.ok else 0.0
    return (valid + verified + fit(case, compiled)) / 3


def tune(opts: LLMOptions, trainset: Path, out: Path | None = None,
         limit: int | None = None, demos: int = 2) -> TuneReport:
    """Compile the builders' program with BootstrapFewShot on `trainset`; save it to `out`."""
    import dspy

    cases = load_trainset(trainset, limit)
    student, _ = load_program(opts)
    ledger = Ledger()
    lm = make_lm(opts.llm, ledger, base_url=opts.base_url, temperature=opts.temperature,
                 backend=opts.backend)

    class Tunable(dspy.Module):  # type: ignore[misc]
        def __init__(self, program: Any) -> None:
            super().__init__()
            self.program = program

        def forward(self, request: str) -> Any:
            try:
                draft = compile_request(request)
            except A4AError:
                return dspy.Prediction(compiled=None, report=None)
            report = LLMReport(opts.llm, opts.temperature, opts.rounds, "", Ledger())
            built = run_program(self.program, draft, opts, report)
            return dspy.Prediction(compiled=built, report=report)

    def score(example: Any, pred: Any, trace: Any = None) -> float:
        if pred.compiled is None:
            return 0.0
        return metric(example.case, pred.compiled, pred.report)

    examples = [dspy.Example(request=c["request"], case=c).with_inputs("request")
                for c in cases]
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        before = _mean(score(e, Tunable(student)(request=e.request)) for e in examples)
        optimizer = dspy.BootstrapFewShot(metric=score, metric_threshold=2 / 3,
                                          max_bootstrapped_demos=demos, max_labeled_demos=0,
                                          max_rounds=1)
        compiled = optimizer.compile(Tunable(student), trainset=examples)
        after = _mean(score(e, compiled(request=e.request)) for e in examples)
    path = out or home() / "builder" / "program.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    compiled.program.save(str(path))
    return TuneReport(len(cases), before, after, ledger.calls, path)


def _mean(values: Any) -> float:
    items = list(values)
    return round(sum(items) / len(items), 4) if items else 0.0
