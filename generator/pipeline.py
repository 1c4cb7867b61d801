"""The rule-based compiler: text -> IntentSpec -> patterns -> topology -> agents -> files."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from a4a.generator.agents import AgentBuilder, RuleAgentBuilder
from a4a.generator.framework import FrameworkBuilder, RuleFrameworkBuilder
from a4a.generator.intent import IntentParser, IntentSpec, RuleIntentParser
from a4a.generator.meta import MetaAgent, PatternChoice, RuleMetaAgent
from a4a.generator.plan import AgentPlan
from a4a.generator.policy import check_output, check_request
from a4a.generator.readme import render_readme
from a4a.generator.skills import skill_files
from a4a.runtime.graph.flow import step_bound
from a4a.runtime.graph.issues import Issue
from a4a.runtime.graph.validate import validate
from a4a.runtime.ir.spec import EnvironmentSpec, FrameworkSpec, Limits, Provenance
from a4a.runtime.loader.files import lock_data, render_files
from a4a.runtime.loader.yamlio import dump_yaml

VERSION = "0.1.0"


@dataclass
class Builders:
    """The four builders; each slot takes a rule-based or an LLM-backed implementation."""

    parser: IntentParser = field(default_factory=RuleIntentParser)
    meta: MetaAgent = field(default_factory=RuleMetaAgent)
    framework: FrameworkBuilder = field(default_factory=RuleFrameworkBuilder)
    agents: AgentBuilder = field(default_factory=RuleAgentBuilder)


@dataclass(frozen=True)
class Compiled:
    """A compiled framework: the spec, its files, the intent and every validation issue."""

    spec: FrameworkSpec
    files: dict[str, str]
    intent: IntentSpec
    issues: list[Issue]
    choice: PatternChoice | None = None
    plans: tuple[AgentPlan, ...] = ()

    @property
    def framework_id(self) -> str:
        """Content hash of the canonical files."""
        return str(lock_data(self.files)["framework_id"])


def compile_request(text: str, seed: int = 0, builders: Builders | None = None) -> Compiled:
    """Compile `text`; raises RefusedError (policy) or UserError (unusable input)."""
    check_request(text)
    b = builders or Builders()
    intent = b.parser.parse(text)
    choice = b.meta.choose(intent)
    topo = b.framework.build(intent, choice)
    name = framework_name(intent)
    agents, tools = b.agents.build(topo, name, text)
    draft = FrameworkSpec(
        name=name, description=text, pattern=choice.top, patterns=topo.tree, entry=topo.entry,
        agents=agents, edges=topo.edges, tools=tools,
        environment=EnvironmentSpec(domains=list(intent.domains), seed=seed),
        provenance=Provenance(a4a_version=VERSION, seed=seed, builder="rules",
                              source_sha256=hashlib.sha256(text.encode()).hexdigest()),
    )
    spec = draft.model_copy(update={"limits": _limits(draft)})
    issues = validate(spec) + check_output(spec) + [
        Issue(code, "description", message, _HINTS[code], "warning")
        for code, message in intent.warnings]
    world = {"domains": list(intent.domains), "seed": seed}
    extra = {"environment/world.yaml": dump_yaml(world),
             **skill_files([s for a in spec.agents for s in a.skills])}
    files = render_files(spec, render_readme(spec), extra)
    return Compiled(spec, files, intent, issues, choice, tuple(topo.agents))


_HINTS = {
    "domain.none": "Name the systems the agents work with (issues, orders, email, ...) or add a "
                   "domain pack under templates/domains.",
    "lang.partial": "Rephrase those sentences, or add the missing words to "
                    "templates/lang/<code>/analysis.yaml.",
}


def _limits(spec: FrameworkSpec) -> Limits:
    bound = step_bound(spec)
    steps = max(50, -(-bound // 50) * 50)
    return Limits(max_steps=steps, max_depth=3, max_tokens=max(200_000, steps * 4000),
                  timeout_s=float(max(600, steps * 6)))


def framework_name(intent: IntentSpec) -> str:
    """A readable, deterministic slug from the request's content words."""
    words = [w for w in intent.keywords if not w.isdigit()][:4]
    if len(words) < 2:  # a request the glossary barely reads: name it by its packs too
        words += [d.replace("_", "-") for d in intent.domains if d != "generic"][:2]
    slug = "-".join(words) or "framework"
    slug = re.sub(r"[^a-z0-9-]", "", slug)[:48].strip("-")
    return slug if slug and slug[0].isalpha() else f"fw-{slug}"[:48]
