"""Plans the builders pass along: areas of work, agent plans and the topology."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from a4a.runtime import knowledge
from a4a.runtime.ir.spec import EdgeSpec, PatternNode


@dataclass(frozen=True)
class Area:
    """A slice of a domain one specialist can own: a resource and its operations."""

    domain: str
    resource: str
    ops: tuple[str, ...]

    @property
    def label(self) -> str:
        """Readable name of the area."""
        return self.resource.replace("_", " ")


@dataclass(frozen=True)
class AgentPlan:
    """An agent before prompts and tools are filled in."""

    name: str
    archetype: str
    focus: str
    areas: tuple[Area, ...] = ()
    max_iterations: int = 10
    writes: bool = True
    duty: str = ""  # the request's own clause for a role it names ("gathers news")
    asks_human: bool = False  # holds ask_human: a gate where the request names no approver


# The focus of an agent whose work is the whole request: it names no work of its own, so it
# ranks operations by the request alone.
WHOLE_REQUEST = "the whole request"


@dataclass
class Topology:
    """Agents, edges and the pattern tree a FrameworkBuilder produces."""

    entry: str
    agents: list[AgentPlan]
    edges: list[EdgeSpec]
    tree: PatternNode
    notes: dict[str, str] = field(default_factory=dict)

    def names(self) -> set[str]:
        """Agent names in use."""
        return {a.name for a in self.agents}


def archetype_of(name: str) -> str:
    """The archetype whose titles or nouns name the role (last word first), else specialist."""
    arche = knowledge.archetypes()
    words = name.split("_")
    for aid, a in arche.items():  # "risk_manager": a hands-on job title
        if any(name == t or name.endswith(f"_{t}") for t in a.get("titles", ())):
            return aid
    for word in reversed(words):
        for aid, a in arche.items():
            if word in a.get("nouns", ()) or word.rstrip("s") in a.get("nouns", ()):
                return aid
    return "specialist"


_REVIEWS = re.compile(r"\b(?:review|critiqu|evaluat|approv|check)\w*")
_SENDS_BACK = re.compile(r"\b(?:feedback|refine\w*|refinement|revis\w*|until|rewrite|redo)\b")


def sends_back(duty: str) -> bool:
    """Whether a duty reviews work and sends it back: its role closes a review loop.

    "Reviews the copy and gives approval or feedback for further refinement."
    """
    return bool(_REVIEWS.search(duty) and _SENDS_BACK.search(duty))
