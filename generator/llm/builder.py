"""The LLM-backed build: DSPy proposals over the rule-based draft, checked in a bounded loop.

The rule-based draft goes to the IntentParser (and the DomainBuilder for a new domain), then
the MetaAgent, FrameworkBuilder and AgentBuilder; the proposal is validated, policed and
verified by running. Each failed round is attributed (`attribution`) to one agent, the
topology or the pattern, and repaired at that builder, at most `rounds` rounds in all;
a proposal that never passes gives way to the rule-based draft, with the reason reported.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from a4a.generator.intent import IntentSpec, RuleIntentParser
from a4a.generator.llm.attribution import Attribution, attribute, focus, merge
from a4a.generator.llm.domain import extra_packs, pack_files, pack_issues
from a4a.generator.llm.engine import Ledger, home, make_lm, prepare_env, require_dspy
from a4a.generator.llm.trust import REFUSALS, untrusted_issues
from a4a.generator.llm.verify import Verification, verify
from a4a.generator.pipeline import VERSION, Builders, Compiled, compile_request
from a4a.generator.policy import check_request
from a4a.generator.readme import render_readme
from a4a.generator.skills import skill_files
from a4a.runtime.errors import LLMError
from a4a.runtime.graph.flow import step_bound
from a4a.runtime.graph.issues import Issue, errors, from_pydantic
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.ir.spec import FrameworkSpec, Limits
from a4a.runtime.llm.base import LLM
from a4a.runtime.loader.files import render_files
from a4a.runtime.loader.yamlio import dump_yaml

BUILDER_FILE = "environment/builder.json"


@dataclass(frozen=True)
class LLMOptions:
    """How to build with a model: its spec, sampling, repair budget, cache and program."""

    llm: str
    base_url: str | None = None
    temperature: float = 0.0
    rounds: int = 3
    cache_dir: Path | None = None  # default $A4A_HOME/dspy-cache
    program: Path | None = None  # a tuned program (default $A4A_HOME/builder/program.json)
    verify: bool = True
    keep_packs: Path | None = None  # also store generated packs here for reuse
    backend: LLM | None = None  # a backend object instead of the spec's (tests, benches)
    lm: Any = None  # a dspy LM (DSPy's DummyLM, say) used as is


@dataclass
class LLMReport:
    """What the LLM build did: calls, tokens, rounds, verification, fallback."""

    model: str
    temperature: float
    max_rounds: int
    cache_key: str
    ledger: Ledger
    rounds: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    fallback: str | None = None
    verification: Verification | None = None
    new_domains: list[str] = field(default_factory=list)
    repairs: list[dict[str, Any]] = field(default_factory=list)  # attributed failed rounds

    @property
    def outcome(self) -> str:
        """`passed`, `failed` (the rules were used), `skipped` or `not_run` (no proposal)."""
        v = self.verification
        if v is None:
            return "not_run" if self.fallback else "skipped"
        return "passed" if v.ok and self.fallback is None else "failed"

    def verified(self) -> dict[str, Any]:
        """The `verification` object: outcome, the last run's findings, each repair round."""
        last = self.verification.to_dict() if self.verification else {}
        return {"outcome": self.outcome, **last, "rounds": self.repairs}

    def to_dict(self) -> dict[str, Any]:
        """The `builder` object of `a4a build --json`."""
        return {"builder": "rules" if self.fallback else "dspy", "model": self.model,
                "temperature": self.temperature, "max_rounds": self.max_rounds,
                "rounds": self.rounds, "cache_key": self.cache_key,
                "llm": self.ledger.to_dict(), "fallback": self.fallback,
                "verification": self.verified(), "new_domains": self.new_domains,
                "history": self.history}


def build_llm(text: str, seed: int, opts: LLMOptions) -> tuple[Compiled, LLMReport]:
    """Build `text` with the model; returns the framework and the report.

    Raises UserError for a model spec of no known form (`llm.unknown_spec`, ...) or without
    the dspy extra (`llm.dspy_missing`), RefusedError when the policy refuses the request
    itself; all before any model call.
    """
    backend = opts.backend
    if backend is None and opts.lm is None:
        from a4a.runtime.llm.resolve import resolve_llm

        backend = resolve_llm(opts.llm, base_url=opts.base_url)
    require_dspy()
    check_request(text)
    draft = compile_request(text, seed=seed)
    program, tuned = load_program(opts)
    report = LLMReport(opts.llm, opts.temperature, opts.rounds,
                       _key(text, seed, opts, tuned), Ledger())
    import dspy

    lm = opts.lm or make_lm(opts.llm, report.ledger, temperature=opts.temperature,
                            backend=backend)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return run_program(program, draft, opts, report), report


def load_program(opts: LLMOptions) -> tuple[Any, bytes]:
    """The builders' DSPy program, tuned when a saved one exists; and the saved bytes."""
    prepare_env(opts.cache_dir or home() / "dspy-cache")
    from a4a.generator.llm.programs import BuilderProgram

    program = BuilderProgram()
    source = opts.program or home() / "builder" / "program.json"
    tuned = source.read_bytes() if source.is_file() else b""
    if tuned:
        program.load(str(source))
    return program, tuned


def run_program(program: Any, draft: Compiled, opts: LLMOptions, report: LLMReport
                ) -> Compiled:
    """Run the program over `draft` under the current DSPy context (its LM and adapter)."""
    text = draft.spec.description
    seed = draft.spec.provenance.seed if draft.spec.provenance else 0
    try:
        return _Session(text, seed, opts, program, draft, report).run()
    except LLMError as err:
        report.fallback = f"{err.code}: {err.message}"
        return draft


def _key(text: str, seed: int, opts: LLMOptions, tuned: bytes) -> str:
    data = {"text": text, "seed": seed, "llm": opts.llm, "temperature": opts.temperature,
            "rounds": opts.rounds, "program": hashlib.sha256(tuned).hexdigest(),
            "a4a": VERSION}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]


class _Domains:
    """The rule-based parser with the domains the model chose."""

    def __init__(self, domains: tuple[str, ...]) -> None:
        self.domains = domains

    def parse(self, text: str) -> IntentSpec:
        return dataclasses.replace(RuleIntentParser().parse(text), domains=self.domains)


@dataclass
class _Session:
    text: str
    seed: int
    opts: LLMOptions
    program: Any
    draft: Compiled
    report: LLMReport

    def ask(self, stage: str, **inputs: Any) -> tuple[Any, list[Issue]]:
        """One predictor call; a reply that does not parse becomes an issue of `stage`."""
        from dspy.utils.exceptions import AdapterParseError, LMError

        self.report.ledger.stage = stage
        try:
            return getattr(self.program, stage)(**inputs), []
        except LMError as err:
            # DSPy wraps what the seam raised; the seam's own error says what failed.
            if isinstance(err.__cause__, LLMError):
                raise err.__cause__ from err
            raise LLMError("llm.builder_call", f"the {stage} call failed: {err}",
                           "Check the model server (--base-url) and the model name.",
                           retryable=False) from err
        except (AdapterParseError, ValueError) as err:
            return None, [Issue("llm.unparseable", stage, f"the {stage} reply could not be "
                                f"read: {str(err)[:400]}", "Answer with one JSON object "
                                "with exactly the output fields, complete.")]

    def run(self) -> Compiled:
        domains, packs = self.intent()
        if domains is None:
            return self.draft
        with extra_packs(packs):
            base = self.draft
            if domains != self.draft.intent.domains:
                base = compile_request(self.text, self.seed, Builders(parser=_Domains(domains)))
            return self.repair(base, packs)

    def intent(self) -> tuple[tuple[str, ...] | None, list[DomainPack]]:
        from a4a.runtime import knowledge

        shipped = knowledge.domain_packs()
        d = self.draft.intent
        reading = _json({"domains": list(d.domains), "roles": list(d.roles),
                         "capabilities": list(d.capabilities)})
        from a4a.generator.llm.programs import pack_catalog

        out, issues = None, list[Issue]()
        for _ in range(self.opts.rounds):
            pred, issues = self.ask("intent", request=self.text, draft=reading,
                                    packs=pack_catalog(), issues=_issues(issues))
            if pred is None:
                continue
            out = pred.intent
            issues = [Issue("intent.unknown_pack", f"domains[{i}]", f"{x!r} is not a shipped "
                            "pack", "Use ids from the catalog, or name a new_domain.")
                      for i, x in enumerate(out.domains) if x not in shipped]
            if not issues:
                break
        self.report.history.append({"stage": "intent", "issues": [i.code for i in issues]})
        if out is None or issues:
            self.report.fallback = "intent: " + _reason(issues)
            return None, []
        if not out.new_domain:
            return tuple(out.domains), []
        pack = self.new_pack(out.new_domain)
        if pack is None:
            return None, []
        return (*out.domains, pack.id), [pack]

    def new_pack(self, pack_id: str) -> DomainPack | None:
        from a4a.generator.llm.programs import example_pack

        issues: list[Issue] = []
        for _ in range(self.opts.rounds):
            pred, issues = self.ask("domain", request=self.text, pack_id=pack_id,
                                    example=example_pack(), issues=_issues(issues))
            if pred is None:
                continue
            pack: DomainPack = pred.pack
            issues = pack_issues(pack)
            if pack.id != pack_id:
                issues.append(Issue("pack.id", "pack.id", f"the pack id is {pack.id!r}",
                                    f"Use the id {pack_id!r}."))
            if not issues:
                self.report.new_domains.append(pack.id)
                self.report.history.append({"stage": "domain", "issues": []})
                return pack
        self.report.history.append({"stage": "domain", "issues": [i.code for i in issues]})
        self.report.fallback = "domain: " + _reason(issues)
        return None

    def repair(self, base: Compiled, packs: list[DomainPack]) -> Compiled:
        """Propose, check, verify; each failed round is attributed and repaired there."""
        state: dict[str, Any] = {"patterns": base.spec.patterns, "entry": base.spec.entry,
                                 "edges": base.spec.edges, "agents": base.spec.agents,
                                 "tools": base.spec.tools}
        blame = Attribution("meta", None, ())  # the first round runs every stage
        issues: list[Issue] = []
        for n in range(1, self.opts.rounds + 1):
            self.report.rounds = n
            issues = self.propose(state, blame, base)
            spec = None
            if not issues:
                spec, issues = self.assemble(state, base)
            if spec is not None and not errors(issues) and self.opts.verify:
                verified = verify(spec, self.seed)
                self.report.verification = verified
                issues = issues + verified.issues
            self.report.history.append({"stage": "+".join(blame.stages), "round": n,
                                        "agent": blame.agent,
                                        "issues": [i.code for i in errors(issues)]})
            if spec is not None and not errors(issues):
                return self.emit(spec, packs, issues)
            blame = attribute(issues, [a.name for a in state["agents"]])
            self.report.repairs.append({"round": n, **blame.to_dict()})
        self.report.fallback = f"no valid proposal in {self.opts.rounds} round(s): " \
            + _reason(issues)
        return self.draft

    def propose(self, state: dict[str, Any], blame: Attribution, base: Compiled
                ) -> list[Issue]:
        """Run the stages `blame` names, each fed its issues; returns parse issues (if any)."""
        fed, stages = _issues(list(blame.issues)), blame.stages
        if "meta" in stages:
            from a4a.generator.llm.programs import pattern_catalog

            pred, bad = self.ask("meta", request=self.text, draft=_dump(state["patterns"]),
                                 catalog=pattern_catalog(), issues=fed)
            if bad:
                return bad
            state["patterns"] = pred.patterns
        if "framework" in stages:
            sketch = {"agents": [{"name": a.name, "role": a.role, "description": a.description}
                                 for a in state["agents"]],
                      "entry": state["entry"], "edges": [_plain(e) for e in state["edges"]]}
            pred, bad = self.ask("framework", request=self.text, issues=fed,
                                 patterns=_dump(state["patterns"]), draft=_json(sketch))
            if bad:
                return bad
            state["entry"], state["edges"] = pred.entry, pred.edges
        agents, tools = focus(state, blame.agent)
        pred, bad = self.ask("agents", request=self.text, issues=fed, topology=_json(
            {"entry": state["entry"], "edges": [_plain(e) for e in state["edges"]]}),
            draft=_json({"agents": [_plain(a) for a in agents],
                         "tools": [_plain(t) for t in tools]}),
            available=_json(_available(base)))
        if bad:
            return bad
        if blame.agent is None:
            state["agents"], state["tools"] = pred.agents, pred.tools
            return []
        return merge(state, blame.agent, pred.agents, pred.tools)

    def assemble(self, state: dict[str, Any], base: Compiled
                 ) -> tuple[FrameworkSpec | None, list[Issue]]:
        data = base.spec.model_dump(mode="json")
        data.update({k: _plain(v) if not isinstance(v, list) else [_plain(x) for x in v]
                     for k, v in state.items()})
        data["pattern"] = state["patterns"].pattern
        data["provenance"].update(builder="dspy", llm=self.opts.llm)
        try:
            spec = FrameworkSpec.model_validate(data)
        except ValidationError as err:
            return None, from_pydantic(err)
        issues = validate(spec) + untrusted_issues(spec)
        if any(i.code != "steps.bound_exceeded" for i in errors(issues)):
            return spec, issues  # the step bound needs a sound graph; the limits follow it
        spec = spec.model_copy(update={"limits": _limits(spec)})
        return spec, validate(spec) + untrusted_issues(spec)

    def emit(self, spec: FrameworkSpec, packs: list[DomainPack], issues: list[Issue]
             ) -> Compiled:
        from a4a.generator.llm.domain import keep_pack

        env = spec.environment
        world = {"domains": list(env.domains) if env else [], "seed": self.seed}
        r = self.report
        provenance = {"builder": "dspy", "model": r.model, "temperature": r.temperature,
                      "rounds": r.rounds, "max_rounds": r.max_rounds, "cache_key": r.cache_key,
                      "new_domains": r.new_domains, "verification": {
                          "outcome": r.outcome, "rounds": [
                              {k: x[k] for k in ("round", "scope", "agent")}
                              | {"codes": [i["code"] for i in x["issues"]]}
                              for x in r.repairs]}}
        extra = {"environment/world.yaml": dump_yaml(world), **pack_files(packs),
                 BUILDER_FILE: json.dumps(provenance, sort_keys=True, indent=1) + "\n",
                 **skill_files([s for a in spec.agents for s in a.skills])}
        if self.opts.keep_packs is not None:
            for p in packs:
                keep_pack(p, self.opts.keep_packs)
        files = render_files(spec, render_readme(spec), extra)
        intent = dataclasses.replace(self.draft.intent,
                                     domains=tuple(env.domains) if env else ())
        return Compiled(spec, files, intent, issues)


def _available(base: Compiled) -> dict[str, Any]:
    from a4a.runtime import knowledge

    packs = knowledge.domain_packs()
    domains = base.spec.environment.domains if base.spec.environment else []
    ops = [f"world:{d}.{op.name}" for d in domains if d in packs for op in packs[d].operations]
    roles = {k: v.get("description") for k, v in knowledge.archetypes().items()}
    return {"tools": [_plain(t) for t in base.spec.tools], "world_operations": ops,
            "builtins": sorted(knowledge.GENERATED_BUILTINS - {"read_file", "write_file"}),
            "roles": roles}


def _limits(spec: FrameworkSpec) -> Limits:
    steps = max(50, -(-step_bound(spec) // 50) * 50)
    return Limits(max_steps=steps, max_depth=3, max_tokens=max(200_000, steps * 4000),
                  timeout_s=float(max(600, steps * 6)))


def _reason(issues: list[Issue]) -> str:
    # A refusal says why first: the model proposed something the policy does not allow.
    ranked = sorted(errors(issues) or issues, key=lambda i: not i.code.startswith(REFUSALS))
    shown = ranked[:3]
    return "; ".join(f"{i.code} at {i.path}: {i.message}" for i in shown) or "no answer"


def _issues(issues: list[Issue]) -> str:
    return _json([{k: v for k, v in i.to_dict().items() if k != "severity"}
                  for i in errors(issues)])


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json", exclude_defaults=True) \
        if hasattr(value, "model_dump") else value


def _dump(value: Any) -> str:
    return _json(_plain(value))


def _json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)
