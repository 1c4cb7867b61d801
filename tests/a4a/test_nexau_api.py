"""NexAU's Python API on a4a (`a4a.nexau`), against the loopback fake OpenAI server, and the
NexRL span export of those runs checked the way NexRL's trace processor reads it."""

from __future__ import annotations

import json
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a4a.runtime.llm.fakeserver import FakeOpenAIServer, Reply, token_id
from a4a.runtime.llm.guard import allow_real_models
from tests.conftest import DATA

# The seed's example (docs: "Build a Web Research Agent"), as written but for the import.
SEED_EXAMPLE = '''
from datetime import datetime
import os

from a4a.nexau import Agent, AgentConfig, LLMConfig


agent_config = AgentConfig.from_yaml("deep_research_agent.yaml")
agent_config.llm_config = LLMConfig(
    model=os.getenv("LLM_MODEL"),
    base_url=os.getenv("LLM_BASE_URL"),
    api_key=os.getenv("LLM_API_KEY"),
)

agent = Agent(agent_config)
response = agent.run(
    "What are the latest developments in quantum computing?",
    context={"date": datetime.now().strftime("%Y-%m-%d")},
)
print(response)
'''
DEEPSEARCH = DATA / "nexau_corpus" / "nexrl" / "recipe" / "nexau_deepsearch" / \
    "agent_workspace" / "agent_config.yaml"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    script = [Reply(tool_calls=(("web_search", {"query": "quantum computing 2026"}),)),
              Reply("<answer>Error-corrected qubits</answer>")]
    with FakeOpenAIServer(script=script) as fake, allow_real_models():
        monkeypatch.setenv("LLM_MODEL", "fake-model")
        monkeypatch.setenv("LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("LLM_API_KEY", "not-a-secret")
        yield fake


def test_the_seed_example_runs_as_written(server: FakeOpenAIServer, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "example.py"
    script.write_text(SEED_EXAMPLE)
    monkeypatch.chdir(DATA / "nexau")
    scope = runpy.run_path(str(script))
    assert capsys.readouterr().out == "<answer>Error-corrected qubits</answer>\n"
    assert scope["agent"].record.status == "completed"
    first = server.stats.bodies[0]
    assert first["model"] == "fake-model" and first["temperature"] == 0.7
    assert first["messages"][0]["content"].startswith("Date: 20")  # rendered, the context's
    assert {t["function"]["name"] for t in first["tools"]} == {"web_search", "web_read"}
    observation = json.loads(server.stats.bodies[1]["messages"][-1]["content"])
    assert observation["error"]["code"] == "network_disabled"


def _deepsearch_run() -> Any:
    import os

    from a4a.nexau import Agent, AgentConfig, LLMConfig

    config = AgentConfig.from_yaml(DEEPSEARCH)
    config.llm_config = LLMConfig(model=os.environ["LLM_MODEL"],
                                  base_url=os.environ["LLM_BASE_URL"],
                                  api_key=os.environ["LLM_API_KEY"])
    agent = Agent(config)
    agent.run("Who leads in error-corrected qubits?")
    return agent


def test_logprobs_and_extra_body_reach_the_server(server: FakeOpenAIServer) -> None:
    agent = _deepsearch_run()
    body = server.stats.bodies[0]
    assert body["logprobs"] is True
    # extra_body is merged into the request, as the official client sends it
    assert {"train_mode": True, "include_stop_str_in_output": True,
            "skip_special_tokens": False, "return_tokens_as_token_ids": True,
            "min_tokens": 2}.items() <= body.items()
    assert agent.history[-1]["content"] == "<answer>Error-corrected qubits</answer>"


def nexrl_trace_processor(traces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What NexRL's BaseNexAURolloutWorker.trace_processor / child_processor read."""
    out = []
    for trace in traces:
        for child in trace.get("children", []):
            if child.get("type") != "LLM":
                continue
            outputs = child.get("outputs", {})
            if "nexrl_train" in outputs:
                tokens = outputs["nexrl_train"].get("response_tokens", [])
            else:
                content = outputs["choices"][0]["logprobs"]["content"]
                tokens = [int(item["token"]) for item in content]
            choices = outputs.get("choices", [])
            out.append({"prompt_messages": child.get("inputs", {}).get("messages", []),
                        "tools": child.get("inputs", {}).get("tools", []),
                        "response_message": choices[0].get("message", {}),
                        "response_tokens": tokens,
                        "finish_reason": choices[0].get("finish_reason", ""), **outputs})
    return out


def test_span_export_carries_what_nexrl_reads(server: FakeOpenAIServer) -> None:
    agent = _deepsearch_run()
    traces = agent.config.tracers[0].dump_traces()
    assert [t["type"] for t in traces] == ["AGENT"]
    rows = nexrl_trace_processor(traces)
    assert len(rows) == 2 == len(server.stats.bodies)
    for row, body in zip(rows, server.stats.bodies, strict=True):
        assert row["prompt_messages"] == body["messages"]
        assert [t["function"]["name"] for t in row["tools"]] == [
            t["function"]["name"] for t in body.get("tools", [])]
        train = row["nexrl_train"]
        assert train["response_tokens"] == row["response_tokens"]
        assert len(train["response_logprobs"]) == len(train["response_tokens"]) > 0
        assert all(lp < 0 for lp in train["response_logprobs"])
    words = "<answer>Error-corrected qubits</answer>".split()
    assert rows[1]["response_tokens"] == [token_id(w) for w in words]
    assert rows[1]["response_message"]["content"] == " ".join(words)
    assert rows[0]["finish_reason"] == "tool_calls"
    tool = next(c for c in traces[0]["children"] if c["type"] == "TOOL")
    assert tool["name"] == "Tool: web_search" and tool["inputs"]["parameters"]


def test_sub_agent_runs_sit_under_their_tool_span(tmp_path: Path) -> None:
    from a4a.nexau import Agent, AgentConfig

    (tmp_path / "lead.yaml").write_text(
        "type: agent\nname: lead\nsystem_prompt: Lead.\nllm_config: {}\n"
        "sub_agents:\n  - name: helper\n    config_path: helper.yaml\n")
    (tmp_path / "helper.yaml").write_text(
        "type: agent\nname: helper\nsystem_prompt: Help.\nllm_config: {}\n")
    agent = Agent(AgentConfig.from_yaml(tmp_path / "lead.yaml"), llm="fake:schema")
    agent.run("go")
    (root,) = agent.config.tracers[0].dump_traces()
    tools = [c for c in root["children"] if c["type"] == "TOOL"]
    nested = [g for t in tools for g in t["children"]]
    assert {n["type"] for n in nested} == {"SUB_AGENT"}
    assert all(n["parent_id"] in {t["id"] for t in tools} for n in nested)
    assert [c["type"] for c in nested[0]["children"]][:1] == ["LLM"]
