"""NexAU's Python API on a4a's runtime: NexAU configs run as NexAU's docs show, without NexAU.

    from a4a.nexau import Agent, AgentConfig, LLMConfig

    agent_config = AgentConfig.from_yaml("deep_research_agent.yaml")
    agent_config.llm_config = LLMConfig(model=..., base_url=..., api_key=...)
    agent = Agent(agent_config)
    response = agent.run("What is new in quantum computing?", context={"date": "2026-05-01"})

`response` is the final answer; `agent.record` is the whole trajectory (a4a's RunRecord),
`agent.history` the entry agent's messages, and `agent.config.tracers[0].dump_traces()`
the run as the in-memory tracer's spans (what NexRL reads). Assigning `llm_config` sets
the connection and every field the new LLMConfig names; the YAML's other fields (sampling,
`logprobs`, `extra_body`) stay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.ir.spec import LLMConfig as _IRConfig

__all__ = ["Agent", "AgentConfig", "InMemoryTracer", "LLMConfig"]


class LLMConfig:
    """NexAU's LLMConfig: connection fields plus any request parameter (`logprobs`, ...)."""

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, **params: Any) -> None:
        self.fields = {k: v for k, v in {"model": model, "base_url": base_url,
                                         "api_key": api_key, **params}.items()
                       if v is not None}

    def __getattr__(self, name: str) -> Any:
        if name == "fields":
            raise AttributeError(name)
        return self.fields.get(name)

    def __repr__(self) -> str:
        shown = {k: ("***" if k == "api_key" else v) for k, v in self.fields.items()}
        return f"LLMConfig({shown})"


class InMemoryTracer:
    """NexAU's in-memory tracer: the last run's spans, as NexRL reads them."""

    def __init__(self) -> None:
        self._traces: list[dict[str, Any]] = []

    def record(self, run: dict[str, Any]) -> None:
        """Keep the span trees of a run (a RunRecord as JSON)."""
        from a4a.runtime.nexrl.spans import to_spans

        self._traces = to_spans(run)

    def dump_traces(self) -> list[dict[str, Any]]:
        """The root spans of the last run."""
        return list(self._traces)


@dataclass
class AgentConfig:
    """A loaded NexAU agent config (its framework) and the overrides set on it."""

    spec: FrameworkSpec
    path: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    tracers: list[InMemoryTracer] = field(default_factory=lambda: [InMemoryTracer()])

    @classmethod
    def from_yaml(cls, path: str | Path, *, trusted: bool = False) -> AgentConfig:
        """Load a NexAU agent YAML (and everything it references) as NexAU does.

        Raises:
            SpecError: the config cannot be used; its issues name their files.
        """
        from a4a.runtime.loader.nexau import load_agent_config

        return cls(load_agent_config(Path(path), trusted=trusted), Path(path))

    @property
    def name(self) -> str:
        """The entry agent's name."""
        return self.spec.entry

    @property
    def llm_config(self) -> LLMConfig:
        """The entry agent's llm_config, overrides applied."""
        return LLMConfig(**self._llm_fields())

    @llm_config.setter
    def llm_config(self, value: LLMConfig) -> None:
        self.overrides = dict(value.fields)

    def _llm_fields(self) -> dict[str, Any]:
        entry = self.spec.agent(self.spec.entry)
        base = entry.llm_config.model_dump(exclude_none=True) if entry else {}
        return {**base, **self.overrides}

    def resolved(self) -> FrameworkSpec:
        """The framework with the llm_config overrides on every agent."""
        if not self.overrides:
            return self.spec
        agents = [a.model_copy(update={"llm_config": _IRConfig.model_validate(
            {**a.llm_config.model_dump(exclude_none=True), **self.overrides})})
            for a in self.spec.agents]
        return self.spec.model_copy(update={"agents": agents})


class Agent:
    """Runs an AgentConfig on a4a's runtime (sandboxed tools, typed statuses, trajectories).

    Args:
        config: the loaded config.
        llm: an a4a model spec (`fake:schema`, `openai:<model>`, ...) or an LLM object;
            by default the model the config's llm_config names.
        workspace: the folder file and shell tools work in (a fresh one per run if None).
        network: let web tools and remote MCP servers reach the network.
        human: answers ask_user / permission questions (none: rejected / allowed as the
            runtime documents).
    """

    def __init__(self, config: AgentConfig, *, llm: Any = None, workspace: Path | None = None,
                 network: bool = False, human: Callable[[str], str] | None = None) -> None:
        self.config = config
        self.llm = llm
        self.workspace = workspace
        self.network = network
        self.human = human
        self.record: Any = None

    def _backend(self, spec: FrameworkSpec) -> Any:
        from a4a.runtime.llm.resolve import resolve_llm

        if self.llm is not None and not isinstance(self.llm, str):
            return self.llm
        entry = spec.agent(spec.entry)
        return resolve_llm(self.llm or "config", config=entry.llm_config if entry else None)

    def run(self, message: str, context: dict[str, Any] | None = None) -> str:
        """Run the agent on `message`; returns its final answer (the record is kept)."""
        import json

        from a4a.api import nexau_retry
        from a4a.runtime.engine.run import RunOptions, run_framework

        spec = self.config.resolved()
        options = RunOptions(policy=str(self.llm or "config"), context=dict(context or {}),
                             workspace=self.workspace, network=self.network, human=self.human,
                             retry=nexau_retry(spec))
        self.record = asyncio.run(run_framework(spec, message, self._backend(spec), options))
        data = json.loads(self.record.to_json())
        for tracer in self.config.tracers:
            tracer.record(data)
        return str(self.record.final_answer)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The entry agent's conversation in its last model call, and the answer."""
        if self.record is None:
            return []
        calls = [e for e in self.record.events if e["type"] == "llm_call"
                 and e["agent"] == self.config.spec.entry and e.get("parent") is None]
        if not calls:
            return []
        return [*calls[-1]["messages"], calls[-1]["response"]]
