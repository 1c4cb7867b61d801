"""The DSPy programs of the four builders (and the DomainBuilder), with typed outputs.

Each signature's outputs are IR types (or small pydantic proposals over IR names): their
field descriptions are the JSON Schema the model reads. Inputs carry the request, the
rule-based draft to improve, the knowledge in templates/ and, on a repair round, the exact
issues of the previous proposal. Importing this module imports dspy.
"""

from __future__ import annotations

import json
from typing import Any

import dspy
from pydantic import BaseModel, ConfigDict, Field

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.ir.spec import AgentSpec, EdgeSpec, PatternNode, ToolSpec

STAGES = ("intent", "meta", "framework", "agents")


class IntentProposal(BaseModel):
    """What the request is about, in the names of templates/."""

    model_config = ConfigDict(extra="forbid")
    domains: list[str] = Field(description="Ids of the shipped domain packs the request needs "
                               "(from the catalog); empty when none fits.")
    new_domain: str = Field(default="", description="When no shipped pack covers the "
                            "request's world: a new snake_case pack id for it; else empty.")


class IntentSig(dspy.Signature):  # type: ignore[misc]
    """Choose the domain packs a multi-agent framework for this request needs."""

    request: str = dspy.InputField(desc="The user's natural-language request.")
    draft: str = dspy.InputField(desc="The rule-based parser's reading (JSON), to improve.")
    packs: str = dspy.InputField(desc="Catalog of shipped domain packs: id -> title.")
    issues: str = dspy.InputField(desc="Problems of your previous answer (JSON); [] at first.")
    intent: IntentProposal = dspy.OutputField(desc="The domains of the request.")


class DomainSig(dspy.Signature):  # type: ignore[misc]
    """Write a domain pack (a small verifiable world) for a domain no shipped pack covers.

    Resources have typed fields with seed values; operations act on them (list, get,
    update, ...); task templates have slots bound to seeded records, a gold plan that
    succeeds on the seeded world, and answer facts.
    """

    request: str = dspy.InputField(desc="The user's natural-language request.")
    pack_id: str = dspy.InputField(desc="The id the new pack must have.")
    example: str = dspy.InputField(desc="A shipped pack in the same format (JSON).")
    issues: str = dspy.InputField(desc="Problems of your previous pack (JSON); [] at first.")
    pack: DomainPack = dspy.OutputField(desc="The new domain pack.")


class MetaSig(dspy.Signature):  # type: ignore[misc]
    """Choose the workflow pattern tree (patterns nest) for the framework."""

    request: str = dspy.InputField(desc="The user's natural-language request.")
    draft: str = dspy.InputField(desc="The rule-based pattern tree (JSON), to improve.")
    catalog: str = dspy.InputField(desc="Workflow patterns: id -> shape and invariants.")
    issues: str = dspy.InputField(desc="Problems of your previous answer (JSON); [] at first.")
    patterns: PatternNode = dspy.OutputField(desc="The pattern tree; its root is the top "
                                             "pattern.")


class FrameworkSig(dspy.Signature):  # type: ignore[misc]
    """Lay out the topology: the entry agent and the typed edges between agents."""

    request: str = dspy.InputField(desc="The user's natural-language request.")
    patterns: str = dspy.InputField(desc="The chosen pattern tree (JSON).")
    draft: str = dspy.InputField(desc="The rule-based topology (agents, entry, edges; JSON).")
    issues: str = dspy.InputField(desc="Problems of your previous answer (JSON); [] at first.")
    entry: str = dspy.OutputField(desc="Name of the agent that receives the task.")
    edges: list[EdgeSpec] = dspy.OutputField(desc="Every edge of the framework.")


class AgentsSig(dspy.Signature):  # type: ignore[misc]
    """Write every agent (prompt, tools, sub-agents) and the tool schemas they use.

    Tools may only be world operations (`world:<pack>.<op>`), vetted builtins or vetted MCP
    servers listed as available: never import paths, shells or other servers.
    """

    request: str = dspy.InputField(desc="The user's natural-language request.")
    topology: str = dspy.InputField(desc="Entry and edges (JSON); keep these agent names.")
    draft: str = dspy.InputField(desc="The rule-based agents and tools (JSON), to improve.")
    available: str = dspy.InputField(desc="Tools that may be used, and the role archetypes "
                                     "(id -> description) an agent's role names (JSON).")
    issues: str = dspy.InputField(desc="Problems of your previous answer (JSON); [] at first.")
    agents: list[AgentSpec] = dspy.OutputField(desc="Every agent.")
    tools: list[ToolSpec] = dspy.OutputField(desc="Schemas of every tool the agents use.")


class BuilderProgram(dspy.Module):  # type: ignore[misc]
    """The four builders plus the DomainBuilder: one predictor each, tuned together."""

    def __init__(self) -> None:
        super().__init__()
        self.intent = dspy.Predict(IntentSig)
        self.domain = dspy.Predict(DomainSig)
        self.meta = dspy.Predict(MetaSig)
        self.framework = dspy.Predict(FrameworkSig)
        self.agents = dspy.Predict(AgentsSig)


def pack_catalog() -> str:
    """Shipped packs, id -> title."""
    return _json({p.id: p.title for p in knowledge.domain_packs().values()})


def pattern_catalog() -> str:
    """Patterns, id -> description, shape and invariants."""
    return _json({k: {"description": v.get("description"), "shape": v.get("shape"),
                      "invariants": v.get("invariants")} for k, v in knowledge.patterns().items()})


def example_pack() -> str:
    """A compact shipped pack shown to the DomainBuilder."""
    packs = knowledge.domain_packs()
    smallest = min(packs.values(), key=lambda p: len(p.model_dump_json()))
    return smallest.model_dump_json(exclude_defaults=True)


def _json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)
