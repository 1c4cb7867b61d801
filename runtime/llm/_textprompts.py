"""The system-prompt text that teaches a model one text tool-call mode and lists its tools.

The wording follows each format's home: the Hermes/Qwen `<tools>` block, NexAU's tool
instructions, and the classic ReAct prompt.
"""

from __future__ import annotations

import json

from a4a.runtime.llm.base import ToolSchema


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _hermes(tools: tuple[ToolSchema, ...]) -> str:
    listing = "\n".join(_json({"type": "function", "function": {
        "name": t.name, "description": t.description, "parameters": t.parameters}})
        for t in tools)
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n"
        f"<tools>\n{listing}\n</tools>\n\n"
        "For each function call, return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags:\n"
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
        "</tool_call>")


def _listing(tools: tuple[ToolSchema, ...]) -> str:
    return "\n".join(f"- {t.name}: {t.description}\n  parameters: {_json(t.parameters)}"
                     for t in tools)


def _xml(tools: tuple[ToolSchema, ...]) -> str:
    return (
        "# Tools\n\nTo use a tool, write exactly:\n\n"
        "<tool_use>\n<tool_name>TOOL_NAME</tool_name>\n<parameter>\n"
        "<PARAMETER_NAME>value</PARAMETER_NAME>\n</parameter>\n</tool_use>\n\n"
        "To use several tools at once, write one block holding them all:\n\n"
        "<use_parallel_tool_calls>\n<parallel_tool>\n<tool_name>TOOL_NAME</tool_name>\n"
        "<parameter>\n<PARAMETER_NAME>value</PARAMETER_NAME>\n</parameter>\n"
        "</parallel_tool>\n</use_parallel_tool_calls>\n\n"
        "Write values as plain text, and lists and objects as JSON. Use one kind of block per "
        "reply and stop after its closing tag: the results come back in <tool_result> blocks. "
        "When you need no tool, answer in plain text.\n\n"
        f"Available tools:\n{_listing(tools)}")


def _react(tools: tuple[ToolSchema, ...]) -> str:
    names = ", ".join(t.name for t in tools)
    return (
        f"# Tools\n\nYou have access to the following tools:\n{_listing(tools)}\n\n"
        "Use the following format:\n\n"
        "Thought: think about what to do next\n"
        f"Action: the tool to use, one of [{names}]\n"
        "Action Input: the tool's arguments as one JSON object on one line\n"
        "Observation: the tool's result (it is given to you: never write it yourself)\n"
        "... (Thought, Action, Action Input and Observation can repeat)\n"
        "Thought: I now know the final answer\n"
        "Final Answer: the answer to the original question")


def instructions(tools: tuple[ToolSchema, ...], mode: str) -> str:
    """The tool instructions of a text mode (one of hermes, xml, react), tools listed."""
    return {"hermes": _hermes, "xml": _xml, "react": _react}[mode](tools)
