"""NexAU's builtin tools, implemented by a4a with NexAU's argument names and result shapes.

A NexAU config binds a builtin by import path (`nexau.archs.tool.builtin.file_tools:
read_file`); `binding_target` maps every current and historical path to the a4a builtin
`nexau_<key>`, whose table (paths, fallback schemas) is templates/nexau/builtins.yaml.
Nothing of NexAU is imported. Files stay inside the run's workspace; commands run only in
the sandbox; web tools need the network enabled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.llm.base import ToolSchema
from a4a.runtime.tools.base import FunctionTool, ToolContext, ToolOutcome
from a4a.runtime.tools.nexau import edit, execute, files, session, web
from a4a.runtime.tools.nexau.common import Failure

PREFIX = "nexau_"
Fn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutcome] | ToolOutcome]
_FUNCTIONS: dict[str, tuple[Fn, bool]] = {
    "read_file": (files.read_file, False),
    "read_many_files": (files.read_many_files, False),
    "read_visual_file": (files.read_visual_file, False),
    "write_file": (files.write_file, True),
    "list_directory": (files.list_directory, False),
    "glob": (files.glob, False),
    "search_file_content": (files.search_file_content, False),
    "replace": (edit.replace, True),
    "multiedit": (edit.multiedit, True),
    "apply_patch": (edit.apply_patch, True),
    "run_shell_command": (execute.run_shell_command, True),
    "run_code": (execute.run_code, True),
    "background_tasks": (execute.background_tasks, True),
    "web_search": (web.web_search, False),
    "web_fetch": (web.web_fetch, False),
    "write_todos": (session.write_todos, False),
    "save_memory": (session.save_memory, False),
    "complete_task": (session.complete_task, False),
    "ask_user": (session.ask_user, False),
}
# Bindings that are not calls of a tool but NexAU machinery: a4a provides them itself.
RUNTIME_BINDINGS = {
    "nexau.archs.tool.builtin.agent_tool:agent_tool": "Agent",
    "nexau.archs.tool.builtin.skill_tool:load_skill": "LoadSkill",
    "nexau.archs.main_sub.skill:load_skill": "LoadSkill",
}


def _guarded(fn: Fn) -> Fn:
    """The function with NexAU-style failures turned into structured tool errors."""

    async def call(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            out = fn(args, ctx)
            return await out if isinstance(out, Awaitable) else out
        except Failure as failure:
            return failure.outcome()

    return call


def _implementation(key: str, row: dict[str, Any]) -> str:
    return PREFIX + str(row.get("implementation") or key)


@cache
def builtins() -> dict[str, FunctionTool]:
    """Every NexAU builtin by its a4a implementation name (`nexau_<key>`)."""
    out: dict[str, FunctionTool] = {}
    for key, row in knowledge.nexau_builtins().items():
        name = _implementation(key, row)
        if name in out:
            continue
        fn, writes = _FUNCTIONS[name[len(PREFIX):]]
        schema = ToolSchema(key, str(row["description"]), dict(row["input_schema"]))
        # The model-facing schema comes from the config's tool YAML (argument names vary
        # across NexAU versions); the function checks what it needs itself.
        out[name] = FunctionTool(schema, _guarded(fn), writes, requires={"type": "object"})
    return out


@cache
def _paths() -> dict[str, str]:
    out: dict[str, str] = {}
    base = "nexau.archs.tool.builtin"
    for key, row in knowledge.nexau_builtins().items():
        fn, family, module = row["function"], row.get("family"), row["module"]
        paths = [f"{base}:{fn}", f"{base}.{module}:{fn}"]
        if family:
            paths += [f"{base}.{family}:{fn}", f"{base}.{family}.{module}:{fn}"]
        for path in [*paths, *row.get("aliases", [])]:
            out.setdefault(path, _implementation(key, row))
    return out


def binding_target(binding: str) -> str | None:
    """The a4a builtin (`nexau_<key>`) a NexAU import path names; None when none does."""
    return _paths().get(binding.strip())


def fallback_schema(implementation: str) -> ToolSchema | None:
    """The schema a4a serves for a builtin whose tool YAML the config does not provide."""
    tool = builtins().get(implementation)
    return tool.schema if tool else None


def by_tool_name(name: str) -> str | None:
    """The builtin a binding-less tool of that NexAU name stands for (external tools)."""
    row = knowledge.nexau_builtins().get(name)
    return _implementation(name, row) if row else None
