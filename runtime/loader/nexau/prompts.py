"""NexAU system prompts: where the text comes from, and how it renders.

`string` prompts are the text itself; `file` and `jinja` prompts name files relative to the
config (a list joins several). Every prompt renders as NexAU renders it: lenient Jinja
(unknown variables render empty; trim_blocks, lstrip_blocks) over NexAU's runtime variables,
the config's `context` and the run's own context. `render` is the one entry point; it uses
a sandboxed environment with a budget on output size and loop work.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from a4a.runtime.errors import SpecError

WORKING_DIRECTORY = "/workspace"
MAX_OUTPUT = 1_000_000
MAX_LOOP_ITEMS = 100_000
SHELL_BACKEND = "Unix bash-compatible backend (a4a sandbox, no network)"
SHELL_GUIDANCE = ("Use bash-compatible command syntax for run_shell_command. Commands run in "
                  "a sandbox with the workspace as the working directory and no network.")
RUNTIME_ENVIRONMENT = ("\n\n# Runtime Environment\n\n- Current directory: "
                       "{{ working_directory }}\n- Operating system: {{ operating_system }}\n"
                       "- Shell backend: {{ shell_tool_backend }}")


class _Budgeted(SandboxedEnvironment):
    """A sandboxed environment whose loops and string products are capped."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self) -> None:
        super().__init__(trim_blocks=True, lstrip_blocks=True, autoescape=False,
                         undefined=jinja2.Undefined)
        self.items = 0
        self.globals.pop("lipsum", None)
        self.globals["range"] = self._range

    def _range(self, *args: int) -> Iterator[int]:
        for value in range(*args):
            self.items += 1
            if self.items > MAX_LOOP_ITEMS:
                raise jinja2.TemplateRuntimeError(f"more than {MAX_LOOP_ITEMS} loop items")
            yield value

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > 1000:
            raise jinja2.TemplateRuntimeError("exponent too large")
        if operator == "*":
            size = next((len(x) for x in (left, right) if isinstance(x, str | list)), 0)
            count = next((x for x in (left, right) if isinstance(x, int)), 0)
            if size * max(count, 0) > MAX_OUTPUT:
                raise jinja2.TemplateRuntimeError("the product is too large")
        return super().call_binop(context, operator, left, right)


def check(template: str, source: str) -> None:
    """Raise SpecError `prompt.syntax` when `template` is not valid Jinja."""
    try:
        _Budgeted().parse(template)
    except jinja2.TemplateSyntaxError as err:
        raise SpecError("prompt.syntax", f"{source}: the prompt is not valid Jinja (line "
                        f"{err.lineno}): {err.message}", "Fix the template syntax.") from err


def render(template: str, variables: Mapping[str, Any]) -> str:
    """The rendered prompt; raises SpecError `prompt.render` when it breaks the budget."""
    env = _Budgeted()
    out: list[str] = []
    size = 0
    try:
        for chunk in env.from_string(template).generate(dict(variables)):
            size += len(chunk)
            if size > MAX_OUTPUT:
                raise jinja2.TemplateRuntimeError(f"output over {MAX_OUTPUT} characters")
            out.append(chunk)
    except (jinja2.TemplateError, TypeError, ValueError, OverflowError) as err:
        raise SpecError("prompt.render", f"the prompt does not render: {err}",
                        "Simplify the template.") from err
    return "".join(out).strip()


def runtime_variables(now: float, agent_name: str) -> dict[str, Any]:
    """NexAU's runtime prompt context, as a4a's runtime is: sandbox, workspace, run clock."""
    env = {"date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now)), "username": "user",
           "working_directory": WORKING_DIRECTORY, "operating_system": "Linux (a4a sandbox)",
           "platform": "linux", "shell_tool_backend": SHELL_BACKEND,
           "shell_tool_guidance": SHELL_GUIDANCE}
    return {**env, "env_content": dict(env), "agent_name": agent_name,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))}
