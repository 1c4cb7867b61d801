"""NexAU system prompts: where the text comes from, and how it renders.

`string` prompts are the text itself; `file` and `jinja` prompts name files relative to the
config (a list joins several). Every prompt renders as NexAU renders it: lenient Jinja
(unknown variables render empty; trim_blocks, lstrip_blocks) over NexAU's runtime variables,
the config's `context` and the run's own context. `render` is the one entry point; it
renders through runtime/templating's budgeted worker process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import jinja2

from a4a.runtime import templating
from a4a.runtime.errors import SpecError

WORKING_DIRECTORY = "/workspace"
MAX_OUTPUT = 1_000_000
SHELL_BACKEND = "Unix bash-compatible backend (a4a sandbox, no network)"
SHELL_GUIDANCE = ("Use bash-compatible command syntax for run_shell_command. Commands run in "
                  "a sandbox with the workspace as the working directory and no network.")
RUNTIME_ENVIRONMENT = ("\n\n# Runtime Environment\n\n- Current directory: "
                       "{{ working_directory }}\n- Operating system: {{ operating_system }}\n"
                       "- Shell backend: {{ shell_tool_backend }}")


def check(template: str, source: str) -> None:
    """Raise SpecError `prompt.syntax` when `template` is not valid Jinja."""
    try:
        jinja2.Environment(trim_blocks=True, lstrip_blocks=True).parse(template)
    except jinja2.TemplateSyntaxError as err:
        raise SpecError("prompt.syntax", f"{source}: the prompt is not valid Jinja (line "
                        f"{err.lineno}): {err.message}", "Fix the template syntax.") from err


def render(template: str, variables: Mapping[str, Any]) -> str:
    """The rendered prompt (lenient, as NexAU renders it, under runtime/templating's budget).

    Raises SpecError `prompt.render`, `prompt.too_large` or `prompt.budget`.
    """
    return templating.render(template, _plain(variables), max_output=MAX_OUTPUT,
                             lenient=True).strip()


def _plain(value: Any) -> Any:
    """The variables as JSON values (the worker receives them as JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def runtime_variables(now: float, agent_name: str) -> dict[str, Any]:
    """NexAU's runtime prompt context, as a4a's runtime is: sandbox, workspace, run clock."""
    env = {"date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now)), "username": "user",
           "working_directory": WORKING_DIRECTORY, "operating_system": "Linux (a4a sandbox)",
           "platform": "linux", "shell_tool_backend": SHELL_BACKEND,
           "shell_tool_guidance": SHELL_GUIDANCE}
    return {**env, "env_content": dict(env), "agent_name": agent_name,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))}
