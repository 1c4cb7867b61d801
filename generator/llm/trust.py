"""The model's proposal is untrusted input: refused where a request would be, and more.

The validator already refuses, for any generated framework, import-path bindings
(`binding.untrusted`), capabilities beyond the policy (`policy.capability`: shells, network
tools) and MCP servers not bound from the vetted registry (`mcp.unvetted`), and the output
policy runs as for every build. Here are the few things only a model would write: its own
model endpoints, prompts read from files, skills of domains the framework does not have.
"""

from __future__ import annotations

from a4a.generator.policy import check_output
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec

# Codes that mean "refused", listed first when a build falls back.
REFUSALS = ("policy.", "binding.", "mcp.")


def untrusted_issues(spec: FrameworkSpec) -> list[Issue]:
    """Every refusal of the proposal `spec` that the validator does not make itself."""
    out = check_output(spec)
    domains = set(spec.environment.domains if spec.environment else [])
    for i, a in enumerate(spec.agents):
        if a.llm_config.base_url:
            out.append(Issue("policy.network", f"agents[{i}].llm_config.base_url", f"agent "
                             f"{a.name!r} names a model endpoint", "Leave llm_config empty."))
        if a.system_prompt_type == "file":
            out.append(Issue("policy.file_prompt", f"agents[{i}].system_prompt_type",
                             "a generated prompt is text, never a file to read",
                             "Write the prompt inline."))
        out += [Issue("agents.unknown_skill", f"agents[{i}].skills[{j}]", f"skill {s!r} is "
                      "not a domain of the environment", f"Use one of {sorted(domains)}.")
                for j, s in enumerate(a.skills) if s not in domains]
    return out
