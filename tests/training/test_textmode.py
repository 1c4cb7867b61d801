"""Text-mode samples equal what a backend without tool calling is sent in a real run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from a4a import api
from a4a.runtime.engine.run import RunOptions, run_framework
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, Usage
from a4a.runtime.llm.local import chat_messages
from a4a.training.eval_run import held_out_tasks, load_framework, policy, run_tasks
from a4a.training.textmode import agent_tools, text_mode_samples


@dataclass
class ReplayText:
    """A text-mode backend that writes the given replies in order and keeps what it was sent."""

    replies: list[str]
    structured_tools: bool = False
    name: str = "replay"
    sent: list[LLMRequest] = field(default_factory=list)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.sent.append(request)
        return LLMResponse(Message("assistant", self.replies[len(self.sent) - 1]), Usage(),
                           "stop", "replay")


def test_samples_match_the_prompts_of_a_text_mode_run(tmp_path: Path) -> None:
    folder = tmp_path / "fw"
    api.build("an assistant that tracks my expenses", out=folder)
    api.tasks(folder, 2, seed=0)
    spec, task = load_framework(folder), held_out_tasks(folder, 1)[0]
    record = run_tasks(spec, [task], policy("oracle"), "oracle")[0]
    (sample,) = text_mode_samples(record, spec)  # one agent, one turn
    chat = sample["messages"]
    assert "<tools>" in chat[0]["content"] and sample["tools"] == []
    assert all(m["role"] != "tool" for m in chat)
    replies = [m["content"] for m in chat if m["role"] == "assistant"]
    assert any("<tool_call>" in r for r in replies)

    llm = ReplayText(replies)
    options = RunOptions(task_id=task["id"], seed=task["world_seed"], policy="replay")
    replayed = asyncio.run(run_framework(spec, task["query"], llm, options))
    assert replayed.status == "completed" and len(llm.sent) == len(replies)
    for request, reply in zip(llm.sent, replies, strict=True):
        shown = chat_messages(request.messages, request.tool_mode)
        assert chat[:len(shown)] == shown
        assert chat[len(shown)] == {"role": "assistant", "content": reply}


def test_agent_tools_list_sub_agents_and_control_tools(tmp_path: Path) -> None:
    api.build("a team that triages GitHub issues", out=tmp_path / "team")
    spec = load_framework(tmp_path / "team")
    tools = agent_tools(spec)
    assert set(tools) == {a.name for a in spec.agents}
    delegates = {e.target for e in spec.edges if e.kind == "delegate"}
    offered = {t.name for ts in tools.values() for t in ts}
    assert delegates <= offered
