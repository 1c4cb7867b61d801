"""Name, tool, prompt and pattern checks of a FrameworkSpec."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from a4a.runtime import knowledge, templating
from a4a.runtime.errors import RunError, SpecError
from a4a.runtime.graph.issues import Issue
from a4a.runtime.ir.spec import FrameworkSpec, McpServer, PatternNode, ToolEntry, ToolSpec
from a4a.runtime.mcp.launch import resolve

RESERVED_PARAMS = frozenset({"agent_state", "global_storage", "ctx"})


def check_names(spec: FrameworkSpec) -> Iterator[Issue]:
    """Unique names, an existing entry, edge endpoints that exist, no duplicate edges."""
    names = {a.name for a in spec.agents}
    for name, n in Counter(a.name for a in spec.agents).items():
        if n > 1:
            idx = [i for i, a in enumerate(spec.agents) if a.name == name][1]
            yield Issue("agent.duplicate_name", f"agents[{idx}].name", f"agent name {name!r} is "
                        f"used {n} times", "Give every agent a unique name.")
    if spec.entry not in names:
        yield Issue("entry.missing", "entry", f"entry agent {spec.entry!r} is not defined",
                    f"Set entry to one of: {', '.join(sorted(names))}.")
    seen: set[tuple[str, str, str]] = set()
    for i, e in enumerate(spec.edges):
        for end in ("source", "target"):
            if getattr(e, end) not in names:
                yield Issue(f"edge.unknown_{end}", f"edges[{i}].{end}", f"edge {end} "
                            f"{getattr(e, end)!r} is not an agent",
                            "Fix the name or add the agent.")
        key = (e.source, e.target, e.kind)
        if key in seen:
            yield Issue("edge.duplicate", f"edges[{i}]", f"edge {e.source}->{e.target} "
                        f"({e.kind}) appears twice", "Remove the duplicate.")
        seen.add(key)


def check_tools(spec: FrameworkSpec) -> Iterator[Issue]:
    """Tool names unique, schemas valid, implementations registered, references resolve."""
    tools = {t.name: t for t in spec.tools}
    for name, n in Counter(t.name for t in spec.tools).items():
        if n > 1:
            yield Issue("tool.duplicate_name", "tools", f"tool name {name!r} is defined {n} times",
                        "Give every tool a unique name.")
    for i, t in enumerate(spec.tools):
        yield from _check_schema(f"tools[{i}]", t.input_schema)
        if not knowledge.resolves(t.implementation):
            yield Issue("tool.implementation_unknown", f"tools[{i}].implementation",
                        f"implementation {t.implementation!r} is not registered",
                        "Use a world operation of a shipped pack, a builtin or a vetted MCP tool.")
    sub: dict[str, set[str]] = {e.source: set() for e in spec.edges}
    for e in spec.edges:
        if e.kind == "delegate":
            sub[e.source].add(e.target)
    for i, a in enumerate(spec.agents):
        yield from _check_agent_tools(spec, i, tools, sub.get(a.name, set()))


_SIMPLE_TYPES = frozenset({"string", "integer", "number", "boolean"})
_PROP_KEYS = frozenset({"type", "description", "enum", "items", "format"})


def _simple(schema: dict[str, Any]) -> bool:
    """Whether `schema` is in the flat subset that is valid Draft 2020-12 by construction.

    That is an object of typed properties with optional enums, array items, required and
    additionalProperties. Anything else goes to jsonschema's full meta-schema check.
    """
    if set(schema) - {"type", "properties", "required", "additionalProperties"}:
        return False
    props = schema.get("properties", {})
    required = schema.get("required", [])
    if not (isinstance(props, dict) and isinstance(required, list)
            and all(isinstance(r, str) for r in required) and len(set(required)) == len(required)
            and isinstance(schema.get("additionalProperties", False), bool)
            and isinstance(schema.get("type"), str)):
        return False
    return all(_simple_prop(p) for p in props.values())


def _simple_prop(prop: Any) -> bool:
    if not isinstance(prop, dict) or set(prop) - _PROP_KEYS:
        return False
    kind = prop.get("type")
    items = prop.get("items")
    enum = prop.get("enum")
    return bool(isinstance(prop.get("description", ""), str)
            and isinstance(prop.get("format", ""), str)
            and (kind in _SIMPLE_TYPES or (kind == "array" and isinstance(items, dict)
                                           and set(items) == {"type"}
                                           and items["type"] in _SIMPLE_TYPES))
            and (enum is None or (isinstance(enum, list) and enum
                                  and len({json.dumps(e) for e in enum}) == len(enum))))


@lru_cache(maxsize=4096)
def _schema_error(text: str) -> str | None:
    import jsonschema  # heavy: only for schemas outside the simple subset

    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(text))
    except jsonschema.SchemaError as err:
        return err.message
    return None


def _check_schema(path: str, schema: dict[str, Any]) -> Iterator[Issue]:
    error = None if _simple(schema) else _schema_error(json.dumps(schema, sort_keys=True))
    if error:
        yield Issue("tool.schema_invalid", f"{path}.input_schema", f"not a valid JSON Schema: "
                    f"{error}", "Fix the schema.")
        return
    if schema.get("type") != "object":
        yield Issue("tool.schema_invalid", f"{path}.input_schema", "input_schema must be an "
                    "object schema", "Set `type: object` and list `properties`.")
    props = schema.get("properties") or {}
    for name in sorted(RESERVED_PARAMS & set(props)):
        yield Issue("tool.reserved_param", f"{path}.input_schema.properties.{name}",
                    f"parameter name {name!r} is reserved for the runtime", "Rename it.")


def _check_agent_tools(spec: FrameworkSpec, i: int, tools: dict[str, ToolSpec], children: set[str]
                       ) -> Iterator[Issue]:
    agent = spec.agents[i]
    own = agent.tool_names()
    for j, name in enumerate(own):
        if name not in tools:
            yield Issue("tool.unresolved", f"agents[{i}].tools[{j}]", f"agent {agent.name!r} "
                        f"uses undefined tool {name!r}", "Define the tool in `tools` or drop it.")
        if name in children:
            yield Issue("tool.name_collision", f"agents[{i}].tools[{j}]", f"tool {name!r} has the "
                        "name of a sub-agent of the same agent", "Rename the tool or the agent.")
    mcp = [f"{s.name}__{t}" for s in agent.mcp_servers
           for t in knowledge.mcp_registry().get(s.id or "", {}).get("tools", [])]
    for name in sorted(set(mcp) & set(own)):
        yield Issue("tool.name_collision", f"agents[{i}].tools", f"tool {name!r} collides with an "
                    "MCP tool after namespacing", "Rename the tool.")
    for j, stop in enumerate(agent.stop_tools):
        if stop not in own:
            yield Issue("stop_tool.unknown", f"agents[{i}].stop_tools[{j}]", f"stop tool {stop!r}"
                        " is not one of the agent's tools", "Add the tool or drop the stop tool.")
    declared = {s.name for s in agent.sub_agents}
    if declared and declared != children:
        yield Issue("sub_agents.mismatch", f"agents[{i}].sub_agents", f"sub_agents of "
                    f"{agent.name!r} do not match its delegate edges", "Make them agree.")
    if len(set(own)) != len(own):
        yield Issue("tool.duplicate_ref", f"agents[{i}].tools", f"agent {agent.name!r} lists a "
                    "tool twice", "List each tool once.")


def check_prompts(spec: FrameworkSpec) -> Iterator[Issue]:
    """Jinja prompts render, within their budget, on the variables the runtime provides.

    The framework's prompts share one render-time budget, so many slow templates cost
    about as much as one.
    """
    context = {v: f"<{v}>" for v in knowledge.PROMPT_VARIABLES}
    deadline = time.monotonic() + templating.TIMEOUT_S
    for i, a in enumerate(spec.agents):
        if a.system_prompt_type != "jinja" or a.nexau is not None:
            continue  # NexAU prompts render leniently (its loader checks their syntax)
        try:
            templating.render(a.system_prompt, context,
                              timeout_s=max(deadline - time.monotonic(), 0.1))
        except SpecError as err:
            hint = err.hint if err.code != "prompt.render" else (
                f"Use only the variables {', '.join(sorted(knowledge.PROMPT_VARIABLES))}.")
            yield Issue(err.code, f"agents[{i}].system_prompt", f"the prompt template "
                        f"does not render: {err.message}", hint)


def check_patterns(spec: FrameworkSpec) -> Iterator[Issue]:
    """Pattern ids exist; the pattern tree names real agents; roles are known archetypes."""
    known = knowledge.patterns()
    names = {a.name for a in spec.agents}
    if spec.pattern not in known:
        yield Issue("pattern.unknown", "pattern", f"unknown pattern {spec.pattern!r}",
                    f"Use one of: {', '.join(sorted(known))}.")
    if spec.patterns.pattern != spec.pattern:
        yield Issue("pattern.root_mismatch", "patterns.pattern", "the pattern tree's root is "
                    f"{spec.patterns.pattern!r}, not {spec.pattern!r}", "Make them agree.")
    stack: list[tuple[str, PatternNode]] = [("patterns", spec.patterns)]
    while stack:
        path, node = stack.pop()
        if node.pattern not in known:
            yield Issue("pattern.unknown", f"{path}.pattern", f"unknown pattern {node.pattern!r}",
                        "Use a shipped pattern id.")
        for j, name in enumerate(node.agents):
            if name not in names:
                yield Issue("pattern.agent_unknown", f"{path}.agents[{j}]", f"pattern node "
                            f"names unknown agent {name!r}", "Fix the name.")
        stack.extend((f"{path}.children[{k}]", c) for k, c in enumerate(node.children))
    roles = knowledge.archetypes()
    for i, a in enumerate(spec.agents):
        if a.role not in roles:
            yield Issue("role.unknown", f"agents[{i}].role", f"unknown role {a.role!r}",
                        "Use a role archetype id from templates/roles.", "warning")


def check_trust(spec: FrameworkSpec) -> Iterator[Issue]:
    """Generated frameworks carry no import bindings and only vetted MCP servers."""
    from a4a.runtime.tools.nexau import binding_target  # the tools' table, read on demand

    generated = spec.provenance is not None and spec.provenance.builder != "hand"
    registry = knowledge.mcp_registry()
    for i, tool in enumerate(spec.tools):
        if tool.implementation.startswith("binding:") and generated:
            yield Issue("binding.untrusted", f"tools[{i}].implementation", "a generated "
                        "framework carries an import-path binding", "Use a registered "
                        "implementation.")
    for i, a in enumerate(spec.agents):
        for j, t in enumerate(a.tools):
            binding = getattr(t, "binding", None)
            if binding and (generated or binding_target(binding) is None):
                yield Issue("binding.untrusted", f"agents[{i}].tools[{j}].binding",
                            f"import-path binding {binding!r} is not allowlisted",
                            "Use a registered implementation, or run with --trust for a "
                            "hand-written config.", "error" if generated else "warning")
        for j, s in enumerate(a.mcp_servers):
            if generated and (s.id not in registry or s.command or s.args):
                yield Issue("mcp.unvetted", f"agents[{i}].mcp_servers[{j}]", f"MCP server "
                            f"{s.name!r} is not bound from the vetted registry by id",
                            f"Use an id from: {', '.join(sorted(registry))}.")


# A run also refuses what this machine lacks (a server's package or command), but that is no
# property of the framework: the run reports it.
_MACHINE_CODES = frozenset({"mcp.not_installed", "mcp.command_not_found"})


def check_refusals(spec: FrameworkSpec) -> Iterator[Issue]:
    """What `a4a run` would refuse to bind or launch, with the code the run gives.

    A refusal that --trust lifts is a warning for a hand-written config and an error for a
    generated framework; one that nothing lifts is an error.
    """
    generated = spec.provenance is not None and spec.provenance.builder != "hand"
    bound = {t.name for a in spec.agents for t in a.tools
             if isinstance(t, ToolEntry) and t.binding}  # check_trust reports those
    for i, tool in enumerate(spec.tools):
        kind, _, ref = tool.implementation.partition(":")
        if generated and kind != "binding" and not knowledge.generated_may_hold(
                tool.implementation):
            yield Issue("policy.capability", f"tools[{i}].implementation", f"generated tool "
                        f"{tool.name!r} uses {tool.implementation}, which generated "
                        "frameworks may not have", "Remove the tool, or rebuild the "
                        "framework from its request.")
        elif kind == "binding" and not generated and tool.name not in bound:
            yield Issue("binding.untrusted", f"tools[{i}].implementation", f"tool "
                        f"{tool.name!r} is bound to the import path {ref!r}",
                        "Run hand-written configs you trust with --trust.", "warning")
    for i, a in enumerate(spec.agents):
        for j, server in enumerate(a.mcp_servers):
            yield from _launch_refusal(server, f"agents[{i}].mcp_servers[{j}]", generated)


def _launch_refusal(server: McpServer, where: str, generated: bool) -> Iterator[Issue]:
    if generated and (server.id not in knowledge.mcp_registry() or server.command
                      or server.args):
        return  # check_trust reports it as mcp.unvetted
    for trusted in (True, False):
        try:
            resolve(server, workspace=Path("/"), trusted=trusted)
        except RunError as err:
            if err.code not in _MACHINE_CODES:
                yield Issue(err.code, where, err.message, err.hint,
                            "error" if trusted or generated else "warning")
                return
