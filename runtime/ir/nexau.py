"""What a4a keeps of a NexAU agent config beyond the fields it shares with every agent.

Only the NexAU loader fills these (hand-written configs); the runtime honours them: prompts
rendered as NexAU renders them (lenient Jinja with its runtime variables), its `Agent` and
`LoadSkill` tools, tool permissions, long tool outputs cut, context compaction and the
global storage every agent of a run shares.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from a4a.runtime.ir.base import Strict


class NexauSkill(Strict):
    """A skill LoadSkill can return: a SKILL.md folder or a tool marked `as_skill`."""

    name: str = Field(description="The skill's name (LoadSkill's `skill_name`).")
    description: str = Field(default="", description="The line LoadSkill's description lists.")
    folder: str = Field(default="", description="The skill's folder as the config names it.")
    detail: str = Field(default="", description="What LoadSkill returns: SKILL.md's body, or "
                        "the tool's full description for a tool skill.")


class ToolOutputLimit(Strict):
    """NexAU's LongToolOutputMiddleware: long tool outputs cut to their head and tail."""

    max_chars: int = Field(default=10_000, ge=1, description="Outputs longer than this are cut.")
    head_lines: int = Field(default=50, ge=0, description="Lines kept from the start.")
    tail_lines: int = Field(default=30, ge=0, description="Lines kept from the end.")
    head_chars: int = Field(default=5_000, ge=0, description="Characters kept from the start "
                            "of an output with too few lines to cut by line.")
    tail_chars: int = Field(default=5_000, ge=0, description="Characters kept from the end.")
    bypass: list[str] = Field(default_factory=list, description="Tools never cut.")


class Compaction(Strict):
    """NexAU's ContextCompactionMiddleware: old turns compacted as the context fills."""

    threshold: float = Field(default=0.75, gt=0, le=1, description="Share of "
                             "max_context_tokens at which compaction starts.")
    keep_iterations: int = Field(default=2, ge=0, description="Latest turns kept whole.")
    max_context_tokens: int | None = Field(default=None, ge=1, description="The budget "
                                           "compaction works to (default: the agent's).")


class Permission(Strict):
    """RFC-0019 rules of one tool: deny wins, then allow; anything else is asked."""

    allow: list[str] = Field(default_factory=list, description="Patterns allowed without asking.")
    deny: list[str] = Field(default_factory=list, description="Patterns always refused.")


class NexauSettings(Strict):
    """The NexAU behaviour of one agent (present only on agents loaded from NexAU YAML)."""

    source: str = Field(default="", description="The config file, relative to its root.")
    context: dict[str, Any] = Field(default_factory=dict, description="Template variables "
                                    "of the config (`context` / `initial_context`).")
    sub_agents: dict[str, str] = Field(default_factory=dict, description="Sub-agent name the "
                                       "model uses -> the agent's name in the framework.")
    skills: list[NexauSkill] = Field(default_factory=list, description="LoadSkill's skills.")
    permissions: dict[str, Permission] = Field(default_factory=dict,
                                               description="Tool name -> its rules.")
    tool_output: ToolOutputLimit | None = Field(default=None, description="Output cut.")
    compaction: Compaction | None = Field(default=None, description="Context compaction.")
    tool_kwargs: dict[str, dict[str, Any]] = Field(default_factory=dict, description="Tool "
                                                   "name -> fixed arguments (extra_kwargs).")
    serial_tools: list[str] = Field(default_factory=list, description="Tools that never run "
                                    "alongside another call of themselves (disable_parallel).")
    global_storage: dict[str, Any] = Field(default_factory=dict, description="Initial shared "
                                           "key/value data of the run.")
    retry_attempts: int | None = Field(default=None, ge=0, description="LLM attempts.")
    retry_backoff_max_s: float | None = Field(default=None, ge=0, description="Backoff cap.")
