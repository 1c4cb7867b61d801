"""The workload of bench/runtime_overhead.py, once per framework: one agent, one calculator tool,
a zero-latency function model that calls the tool `turns` times and then answers.

Each `*_subject(turns)` builds its framework's agent once and returns how to run it; peers are
imported here only, lazily, so a missing one raises ImportError for the benchmark to report.
The benchmark's docstring says what each side does and where the workloads differ.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from a4a.runtime.tools.builtins import calculator as builtin_calculator

# Set before any peer is imported: no tracing or telemetry exporter may start.
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

TURNS = 10  # tool turns per run; one more model call gives the answer
EXPRESSION = "2 + 3"
ANSWER = "5"
TASK = "Add 2 and 3 with the calculator, ten times, then answer."
SYSTEM = "You add numbers with the calculator."


def calculate(expression: str) -> dict[str, Any]:
    """The tool body every peer calls: a4a's builtin calculator, which a4a runs itself."""
    CALLS.count += 1
    return builtin_calculator({"expression": expression}, None).content  # type: ignore[arg-type]


@dataclass
class _Counter:
    count: int = 0  # tool calls
    model: int = 0  # model calls


CALLS = _Counter()


def model_call(tool_results: int) -> int:
    """Count a model call; every fake model passes on how many tool results it was sent."""
    CALLS.model += 1
    return tool_results


@dataclass
class Subject:
    """One framework under test: how to run it once, and whether that is a coroutine."""

    name: str
    package: str
    run: Callable[[], Any]  # returns the answer, or an awaitable of it
    is_async: bool


# ---- a4a ------------------------------------------------------------------------------------

def a4a_subject(turns: int) -> Subject:
    from a4a.runtime.engine.run import RunOptions, run_framework
    from a4a.runtime.ir.spec import AgentSpec, FrameworkSpec, Limits, PatternNode, ToolSpec
    from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall
    from a4a.runtime.llm.fakes import FunctionLLM
    from a4a.runtime.tools.builtins import BUILTINS

    schema = BUILTINS["calculator"].schema
    tool = ToolSpec(name="calculator", description=schema.description,
                    input_schema=schema.parameters, implementation="builtin:calculator")
    spec = FrameworkSpec(
        name="overhead", description="runtime overhead benchmark", pattern="single_agent",
        patterns=PatternNode(pattern="single_agent", agents=["solver"]), entry="solver",
        tools=[tool], agents=[AgentSpec(name="solver", system_prompt=SYSTEM,
                                        tools=["calculator"], max_iterations=turns + 10)],
        limits=Limits(max_steps=1000, max_tokens=10_000_000, timeout_s=3600))

    def respond(request: LLMRequest) -> LLMResponse:
        done = model_call(sum(m.role == "tool" for m in request.messages))
        if done < turns:
            call = ToolCall(f"call_{done}", "calculator", {"expression": EXPRESSION})
            return LLMResponse(Message("assistant", "", (call,)), finish_reason="tool_calls")
        return LLMResponse(Message("assistant", ANSWER))

    llm, options = FunctionLLM(respond), RunOptions(task_id="overhead")

    async def run() -> str:
        record = await run_framework(spec, TASK, llm, options)
        CALLS.count += record.counts["tool_calls"]  # the builtin runs a4a's calculator itself
        return record.final_answer

    return Subject("a4a", "a4a", run, True)


# ---- smolagents -----------------------------------------------------------------------------

def smolagents_subject(turns: int) -> Subject:
    from smolagents import LogLevel, Model, ToolCallingAgent, tool
    from smolagents.models import (
        ChatMessage,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
    )

    @tool
    def calculator(expression: str) -> dict:
        """Evaluate an arithmetic expression.

        Args:
            expression: The expression to evaluate.
        """
        return calculate(expression)

    class FunctionModel(Model):
        def generate(self, messages, stop_sequences=None, response_format=None,
                     tools_to_call_from=None, **kwargs):
            done = model_call(sum(m.role == MessageRole.TOOL_RESPONSE for m in messages))
            name, args = ("calculator", {"expression": EXPRESSION}) if done < turns else (
                "final_answer", {"answer": ANSWER})
            call = ChatMessageToolCall(ChatMessageToolCallFunction(args, name),
                                       f"call_{done}", "function")
            return ChatMessage(MessageRole.ASSISTANT, "", [call])

    agent = ToolCallingAgent(tools=[calculator], model=FunctionModel(), max_steps=turns + 10,
                             verbosity_level=LogLevel.OFF, instructions=SYSTEM)
    return Subject("smolagents", "smolagents", lambda: str(agent.run(TASK)), False)


# ---- LangGraph ------------------------------------------------------------------------------

def _langgraph(turns: int, *, sync: bool) -> Subject:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import StructuredTool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in LangGraph 1.x
        from langgraph.prebuilt import create_react_agent

    def calculator(expression: str) -> dict:
        """Evaluate an arithmetic expression."""
        return calculate(expression)

    async def acalculator(expression: str) -> dict:
        """Evaluate an arithmetic expression."""
        return calculate(expression)

    class FunctionChat(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "function"

        def bind_tools(self, tools, **kwargs):
            return self

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            done = model_call(sum(isinstance(m, ToolMessage) for m in messages))
            message = AIMessage(content=ANSWER) if done >= turns else AIMessage(
                content="", tool_calls=[{"name": "calculator", "id": f"call_{done}",
                                         "args": {"expression": EXPRESSION}}])
            return ChatResult(generations=[ChatGeneration(message=message)])

        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            return self._generate(messages, stop)

    tool = StructuredTool.from_function(calculator) if sync else StructuredTool.from_function(
        coroutine=acalculator, name="calculator")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = create_react_agent(FunctionChat(), [tool], prompt=SYSTEM)
    config, start = {"recursion_limit": 4 * turns + 20}, {"messages": [("user", TASK)]}
    if sync:
        return Subject("LangGraph sync", "langgraph",
                       lambda: str(graph.invoke(start, config)["messages"][-1].content), False)

    async def run() -> str:
        return str((await graph.ainvoke(start, config))["messages"][-1].content)

    return Subject("LangGraph", "langgraph", run, True)


def langgraph_subject(turns: int) -> Subject:
    return _langgraph(turns, sync=False)


def langgraph_sync_subject(turns: int) -> Subject:
    return _langgraph(turns, sync=True)


# ---- OpenAI Agents SDK ----------------------------------------------------------------------

def openai_agents_subject(turns: int) -> Subject:
    from agents import (
        Agent,
        Model,
        ModelResponse,
        RunConfig,
        Runner,
        Usage,
        function_tool,
        set_tracing_disabled,
    )
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)

    @function_tool
    async def calculator(expression: str) -> dict:
        """Evaluate an arithmetic expression."""
        return calculate(expression)

    def reply(done: int) -> Any:
        if done < turns:
            return ResponseFunctionToolCall(
                id=f"fc_{done}", call_id=f"call_{done}", name="calculator",
                arguments=json.dumps({"expression": EXPRESSION}), type="function_call")
        return ResponseOutputMessage(
            id="msg", role="assistant", status="completed", type="message",
            content=[ResponseOutputText(text=ANSWER, type="output_text", annotations=[])])

    class FunctionModel(Model):
        async def get_response(self, system_instructions, input, *args, **kwargs):
            items = [] if isinstance(input, str) else input
            done = model_call(
                sum(_item_type(i) == "function_call_output" for i in items))
            return ModelResponse(output=[reply(done)], usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the benchmark does not stream")

    agent = Agent(name="solver", instructions=SYSTEM, model=FunctionModel(),
                  tools=[calculator])
    config = RunConfig(tracing_disabled=True)

    async def run() -> str:
        result = await Runner.run(agent, TASK, max_turns=turns + 10, run_config=config)
        return str(result.final_output)

    return Subject("OpenAI Agents", "openai-agents", run, True)


def _item_type(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


# ---- pydantic-ai ----------------------------------------------------------------------------

def pydantic_ai_subject(turns: int) -> Subject:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    async def respond(messages: list, info: AgentInfo) -> ModelResponse:
        done = model_call(
            sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts))
        if done < turns:
            return ModelResponse(parts=[ToolCallPart("calculator", {"expression": EXPRESSION},
                                                     f"call_{done}")])
        return ModelResponse(parts=[TextPart(ANSWER)])

    agent = Agent(FunctionModel(respond), instructions=SYSTEM)

    @agent.tool_plain
    async def calculator(expression: str) -> dict:
        """Evaluate an arithmetic expression."""
        return calculate(expression)

    async def run() -> str:
        return str((await agent.run(TASK)).output)

    return Subject("pydantic-ai", "pydantic-ai-slim", run, True)


FACTORIES: list[tuple[str, Callable[[int], Subject]]] = [
    ("a4a", a4a_subject), ("smolagents", smolagents_subject),
    ("LangGraph", langgraph_subject), ("LangGraph sync", langgraph_sync_subject),
    ("OpenAI Agents", openai_agents_subject),
    ("pydantic-ai", pydantic_ai_subject)]
