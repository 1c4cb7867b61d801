"""Training on trajectories: fine-tuning, GRPO alignment, agent rewards and evaluation.

The seed's entry points are here, loaded on first use (torch and transformers load only
when a function that needs them runs): `finetune`, `align`, `evaluate_agent`,
`ParsedToolCall` and the per-sample rewards. `generate` builds frameworks, so it lives one
layer up, in `a4a.prep` (the seed's `data.prep`).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "finetune": "a4a.training.loop", "align": "a4a.training.grpo",
    "evaluate_agent": "a4a.training.agent_metrics",
    "ParsedToolCall": "a4a.training.rewards",
    "tool_use_quality_reward": "a4a.training.rewards",
    "task_completion_reward": "a4a.training.rewards",
    "efficiency_reward": "a4a.training.rewards",
    "agent_composite_reward": "a4a.training.rewards",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'a4a.training' has no attribute {name!r}")
