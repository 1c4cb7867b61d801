"""MetaAgent: IntentSpec -> pattern choice (a top-level pattern plus nested modifiers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from a4a.generator.intent import IntentSpec
from a4a.runtime import knowledge

# Patterns that wrap another one rather than shape the whole team.
MODIFIERS = ("evaluator_optimizer", "reflection", "human_gate")


@dataclass(frozen=True)
class PatternChoice:
    """The top-level pattern and the modifiers nested into it."""

    top: str
    modifiers: tuple[str, ...]


class MetaAgent(Protocol):
    """Chooses the pattern tree for an intent."""

    def choose(self, intent: IntentSpec) -> PatternChoice:
        """Choose patterns for `intent`."""
        ...


class RuleMetaAgent:
    """Picks the structural pattern with the strongest cue; modifiers nest inside it."""

    def choose(self, intent: IntentSpec) -> PatternChoice:
        """Choose patterns for `intent`."""
        pats = knowledge.patterns()
        cues = set(intent.cues)
        structural = sorted((c for c in cues if c not in MODIFIERS and c != "single_agent"),
                            key=lambda c: (pats[c]["priority"], c))
        modifiers = tuple(m for m in MODIFIERS if m in cues)
        big = len(intent.domains) >= 3 and "hierarchical_teams" not in structural
        if big and (not structural or structural[0] == "orchestrator_workers"):
            structural.insert(0, "hierarchical_teams")
        if structural:
            return PatternChoice(structural[0], modifiers)
        if "evaluator_optimizer" in modifiers:  # a second agent that critiques: its own shape
            return PatternChoice("evaluator_optimizer", modifiers)
        if "reflection" in modifiers:
            return PatternChoice("reflection", modifiers)
        if "single_agent" in cues:
            return PatternChoice("single_agent", modifiers)
        if "human_gate" in modifiers:
            return PatternChoice("human_gate", modifiers)
        weak = sorted((c for c in intent.weak_cues if c not in MODIFIERS),
                      key=lambda c: (pats[c]["priority"], c))
        if weak or intent.named_agents:
            return PatternChoice(weak[0] if weak else "orchestrator_workers", modifiers)
        return PatternChoice("single_agent", modifiers)
