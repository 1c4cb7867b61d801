"""NexAU tool entries -> a4a ToolSpecs: the tool YAML read, the binding mapped.

A binding names NexAU's builtin (current or historical path) -> a4a's own implementation;
an a4a world operation (an exported NexRL workspace) -> that operation; any other import
path is dropped with a warning unless the config is trusted and the module exists. A tool
without a binding (NexAU's external tools) maps to the builtin of the same name, if any.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from a4a.runtime.errors import A4AError
from a4a.runtime.graph.issues import from_pydantic
from a4a.runtime.ir.nexau import NexauSkill, Permission
from a4a.runtime.ir.spec import NAME, ToolSpec
from a4a.runtime.loader.nexau.files import Access
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.schema import ToolEntry, ToolYaml
from a4a.runtime.loader.nexau.values import Scope, strip_unset, substitute, unset_paths
from a4a.runtime.tools import nexau as builtins

# Exported NexRL workspaces bind world operations here (see runtime/nexrl/workspace.py).
WORLD_MODULE = "a4a.runtime.world.nexau_tools"
_WORLD = re.compile(rf"^{re.escape(WORLD_MODULE)}:([a-z][a-z0-9_]*)__([a-z][a-z0-9_]*)$")
_NAME = re.compile(NAME)


@dataclass
class AgentTools:
    """What an agent's `tools:` gave: specs, skills and the NexAU extras per tool."""

    specs: list[ToolSpec] = field(default_factory=list)
    skills: list[NexauSkill] = field(default_factory=list)
    permissions: dict[str, Permission] = field(default_factory=dict)
    kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    serial: list[str] = field(default_factory=list)


def implementation(binding: str | None, name: str, *, trusted: bool) -> tuple[str | None, str]:
    """The a4a implementation of a binding (None: none) and why, for the report."""
    if binding:
        target = builtins.binding_target(binding)
        if target:
            return f"builtin:{target}", ""
        world = _WORLD.match(binding.strip())
        if world:
            return f"world:{world.group(1)}.{world.group(2)}", ""
        if binding.strip() == f"{WORLD_MODULE}:ask_human":
            return "builtin:ask_human", ""
        if binding in builtins.RUNTIME_BINDINGS:
            return None, "runtime"
        if not trusted:
            return None, "untrusted"
        module = binding.partition(":")[0]
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        return (f"binding:{binding}", "") if found else (None, "missing")
    target = builtins.by_tool_name(name)
    return (f"builtin:{target}", "external") if target else (None, "external_unknown")


def load_tools(entries: list[ToolEntry], base: Path, file: Path, access: Access,
               report: Report, sc: Scope) -> AgentTools:
    """Every usable tool of an agent's entries (dropped ones are reported)."""
    out = AgentTools()
    for i, entry in enumerate(entries):
        spec, yaml = _load(entry, base, file, f"tools[{i}]", access, report, sc)
        if spec is None:
            continue
        out.specs.append(spec)
        if entry.permissions is not None:
            out.permissions[spec.name] = Permission(allow=entry.permissions.get("allow") or [],
                                                    deny=entry.permissions.get("deny") or [])
        if entry.extra_kwargs:
            out.kwargs[spec.name] = dict(entry.extra_kwargs)
        if yaml is not None and yaml.disable_parallel:
            out.serial.append(spec.name)
        if entry.as_skill:
            out.skills.append(_tool_skill(spec, yaml, file, f"tools[{i}]", report))
        if entry.defer_loading:
            report.warn(file, f"tools[{i}].defer_loading", "nexau.defer_loading_mapped",
                        f"tool {spec.name!r} is offered from the start",
                        "a4a has no ToolSearch; the tool is always visible.")
    return out


def _load(entry: ToolEntry, base: Path, file: Path, where: str, access: Access,
          report: Report, sc: Scope) -> tuple[ToolSpec | None, ToolYaml | None]:
    yaml = _read_yaml(entry, base, file, where, access, report, sc)
    binding = entry.binding or (yaml.binding if yaml else None)
    impl, why = implementation(binding, yaml.name if yaml else entry.name,
                               trusted=access.trusted)
    if impl is None:
        _dropped(entry, binding, why, file, where, report)
        return None, None
    if why == "external":
        report.warn(file, where, "nexau.external_tool", f"tool {entry.name!r} has no binding "
                    f"(an external tool); a4a runs its own {impl[8:]!r}",
                    "Bind it to a builtin to say so explicitly.")
    if yaml is not None and yaml.formatter:
        report.warn(file, f"{where}.yaml_path", "nexau.formatter_dropped",
                    f"formatter {yaml.formatter!r} is not imported",
                    "a4a shows tool results as they are (text or JSON).")
    if not _NAME.match(entry.name):
        report.error(file, f"{where}.name", "tool.bad_name", f"tool name {entry.name!r} is not "
                     "a valid tool name", "Use letters, digits, _ and - (64 at most).")
        return None, None
    if yaml is None:
        fallback = builtins.fallback_schema(impl.partition(":")[2])
        if fallback is None:
            return None, None
        return ToolSpec(name=entry.name, description=fallback.description,
                        input_schema=fallback.parameters, implementation=impl,
                        writes=_writes(impl)), None
    schema = {k: v for k, v in yaml.input_schema.items() if k != "$schema"}
    schema.setdefault("type", "object")
    return ToolSpec(name=entry.name, description=yaml.description.strip() or entry.name,
                    input_schema=schema, implementation=impl, writes=_writes(impl)), yaml


def _writes(impl: str) -> bool:
    tool = builtins.builtins().get(impl.partition(":")[2])
    return tool.writes if tool else impl.startswith("binding:")


def _read_yaml(entry: ToolEntry, base: Path, file: Path, where: str, access: Access,
               report: Report, sc: Scope) -> ToolYaml | None:
    if not entry.yaml_path:
        return None
    known = bool(entry.binding and builtins.binding_target(entry.binding))
    path = access.path(base, entry.yaml_path)
    try:
        data = substitute(access.read_yaml(path), sc)
    except A4AError as err:
        if known:  # a4a knows this builtin's schema: use it, say so
            report.warn(file, f"{where}.yaml_path", err.code, f"{err.message}; a4a uses its "
                        f"own schema of {entry.binding}", err.hint)
        else:
            report.failed(file, f"{where}.yaml_path", err)
        return None
    for at, value in unset_paths(data):
        report.error(path, at, "env.unset", f"environment variable(s) {', '.join(value.names)} "
                     "are not set", "Set them, or write the value in the file.")
    try:
        return ToolYaml.model_validate(strip_unset(data))
    except ValidationError as err:
        for issue in from_pydantic(err):
            add = report.warn if known else report.error
            add(path, issue.path, issue.code, issue.message, issue.hint)
        return None


def _dropped(entry: ToolEntry, binding: str | None, why: str, file: Path, where: str,
             report: Report) -> None:
    at = f"{where}.binding"
    if why == "runtime":
        report.warn(file, at, "nexau.runtime_tool", f"{binding!r} is NexAU machinery a4a "
                    "provides itself", "Remove the entry: a4a adds Agent and LoadSkill.")
    elif why == "untrusted":
        report.warn(file, at, "binding.untrusted", f"tool {entry.name!r} is bound to the "
                    f"import path {binding!r}: dropped", "Run a config you have read with "
                    "--trust to import it, or bind a NexAU builtin.")
    elif why == "missing":
        report.warn(file, at, "binding.missing", f"tool {entry.name!r}: module of {binding!r} "
                    "is not installed: dropped", "Install the module or fix the binding.")
    elif why == "external_unknown":
        report.warn(file, where, "nexau.external_tool", f"tool {entry.name!r} has no binding "
                    "and no a4a builtin of that name: dropped", "Bind it to an implementation.")


def _tool_skill(spec: ToolSpec, yaml: ToolYaml | None, file: Path, where: str,
                report: Report) -> NexauSkill:
    brief = yaml.skill_description if yaml else None
    if not brief:
        report.warn(file, f"{where}.as_skill", "nexau.skill_description_missing",
                    f"tool {spec.name!r} is a skill without a skill_description",
                    "Add skill_description to the tool YAML (NexAU requires it).")
    detail = f"# Tool Skill: {spec.name}\n\n## Detailed Description\n{spec.description}"
    if yaml is not None and yaml.template_override:
        detail += f"\n\n## Additional Usage Guidance\n{yaml.template_override}"
    return NexauSkill(name=spec.name, description=(brief or spec.description.split("\n")[0])
                      .strip(), detail=detail)


__all__ = ["AgentTools", "implementation", "load_tools"]
