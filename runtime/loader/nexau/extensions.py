"""Middlewares, hooks, tracers and the other NexAU extension points, mapped or reported.

a4a never imports a component named by an import path. The well-known NexAU middlewares
are a4a behaviour (long tool output cut, context compaction, the runtime environment block;
logging and LLM failover map to the trajectory and to a4a's retries); everything else is a
warning with a code, and the run goes on without it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.ir.nexau import Compaction, Permission, ToolOutputLimit
from a4a.runtime.ir.spec import McpServer
from a4a.runtime.llm.guard import is_loopback_url
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.schema import AgentConfig, Hook, HookImport, McpEntry

IN_MEMORY_TRACERS = frozenset({"nexau.archs.tracer.adapters.in_memory:InMemoryTracer",
                               "nexau.archs.tracer.adapters.in_memory.InMemoryTracer",
                               "nexau.archs.tracer.adapters:InMemoryTracer"})
LOGGING = frozenset({"LoggingMiddleware", "create_logging_hook", "create_tool_logging_hook"})
HOOK_FIELDS = ("before_model_hooks", "after_model_hooks", "before_tool_hooks",
               "after_tool_hooks")


@dataclass
class Behaviour:
    """What an agent's middlewares turn on in a4a."""

    tool_output: ToolOutputLimit | None = None
    compaction: Compaction | None = None
    runtime_environment: bool = False


def _ref(hook: Hook) -> tuple[str, dict[str, Any]]:
    if isinstance(hook, HookImport):
        return hook.import_path, dict(hook.params or {})
    return hook, {}


def _attr(ref: str) -> str:
    return ref.rpartition(":")[2] or ref.rpartition(".")[2]


def _untouched(ref: str, file: Path, at: str, what: str, report: Report, trusted: bool) -> None:
    """Report a component a4a does not run (never imported)."""
    if not ref.startswith("nexau."):
        code = "nexau.import_untrusted"
        how = "it is not imported" if not trusted else "a4a does not call NexAU components"
        if trusted and not _importable(ref):
            how = "its module is not installed"
    else:
        code, how = "nexau.import_dropped", "a4a has no equivalent"
    report.warn(file, at, code, f"{what} {ref!r} is dropped: {how}",
                "The run goes on without it; remove it to silence this warning.")


def _importable(ref: str) -> bool:
    module = ref.partition(":")[0]
    if module.endswith(".py") or "/" in module:
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def middlewares(agent: AgentConfig, file: Path, report: Report, trusted: bool) -> Behaviour:
    """The a4a behaviour of `middlewares:` (the rest reported)."""
    out = Behaviour()
    for i, hook in enumerate(agent.middlewares or []):
        ref, params = _ref(hook)
        at, name = f"middlewares[{i}]", _attr(ref)
        nexau = ref.startswith("nexau.")
        if nexau and name == "LongToolOutputMiddleware":
            out.tool_output = ToolOutputLimit(
                max_chars=int(params.get("max_output_chars", 10_000)),
                head_lines=int(params.get("head_lines", 50)),
                tail_lines=int(params.get("tail_lines", 30)),
                head_chars=int(params.get("head_chars", 5_000)),
                tail_chars=int(params.get("tail_chars", 5_000)),
                bypass=[str(t) for t in params.get("bypass_tool_names") or []])
        elif nexau and name == "ContextCompactionMiddleware":
            out.compaction = _compaction(params, file, at, report)
        elif nexau and name == "RuntimeEnvironmentMiddleware":
            out.runtime_environment = True
        elif nexau and name in LOGGING:
            report.warn(file, at, "nexau.logging_mapped", f"{name} is mapped to the "
                        "trajectory", "a4a records every model and tool call of the run.")
        elif nexau and name == "LLMFailoverMiddleware":
            report.warn(file, at, "nexau.failover_mapped", "LLM failover is mapped to a4a's "
                        "retries of the run's model", "Fallback models are not called.")
        else:
            _untouched(ref, file, at, "middleware", report, trusted)
    return out


def _compaction(params: dict[str, Any], file: Path, at: str, report: Report) -> Compaction:
    strategy = str(params.get("compaction_strategy") or "tool_result_compaction")
    if strategy != "tool_result_compaction" or params.get("summary_model"):
        report.warn(file, f"{at}.params.compaction_strategy", "nexau.compaction_mapped",
                    f"compaction strategy {strategy!r} is mapped to a4a's own compaction",
                    "a4a drops old tool results, then old turns; it calls no summary model.")
    threshold = float(params.get("threshold", 0.75))
    keep = int(params.get("keep_iterations", 2))
    limit = params.get("max_context_tokens")
    return Compaction(threshold=min(max(threshold, 0.01), 1.0), keep_iterations=max(keep, 0),
                      max_context_tokens=int(limit) if isinstance(limit, int) else None)


def hooks_and_tracers(agent: AgentConfig, file: Path, report: Report, trusted: bool) -> None:
    """Report hooks, tracers and token counters (a4a records and counts its own way)."""
    for field in HOOK_FIELDS:
        for i, hook in enumerate(getattr(agent, field) or []):
            ref, _ = _ref(hook)
            if ref.startswith("nexau.") and _attr(ref) in LOGGING:
                report.warn(file, f"{field}[{i}]", "nexau.logging_mapped", f"{_attr(ref)} is "
                            "mapped to the trajectory", "a4a records every model and tool "
                            "call of the run.")
            else:
                _untouched(ref, file, f"{field}[{i}]", "hook", report, trusted)
    for i, hook in enumerate(agent.tracers):
        ref, _ = _ref(hook)
        if ref not in IN_MEMORY_TRACERS:
            report.warn(file, f"tracers[{i}]", "nexau.tracer_dropped", f"tracer {ref!r} is "
                        "not used", "a4a records every run as a trajectory; `a4a trace export "
                        "--format nexrl` writes the in-memory tracer's spans.")
    if agent.token_counter is not None:
        report.warn(file, "token_counter", "nexau.token_counter_dropped", "the custom token "
                    "counter is not used", "a4a counts the backend's usage, or estimates "
                    "4 characters a token.")


def mcp_servers(agent: AgentConfig, file: Path, report: Report, trusted: bool
                ) -> tuple[list[McpServer], dict[str, Permission]]:
    """The agent's MCP servers a4a can run, and their permission rules."""
    servers: list[McpServer] = []
    rules: dict[str, Permission] = {}
    for i, entry in enumerate(agent.mcp_servers):
        server = _server(entry, file, f"mcp_servers[{i}]", report, trusted)
        if server is None:
            continue
        servers.append(server)
        if entry.permissions is not None:
            rules[f"{entry.name}__*"] = _rule(entry.permissions)
        for tool, rule in (entry.tool_permissions or {}).items():
            if rule is not None:
                rules[f"{entry.name}__{tool}"] = _rule(rule)
    return servers, rules


def _rule(data: dict[str, list[str]]) -> Permission:
    return Permission(allow=list(data.get("allow") or []), deny=list(data.get("deny") or []))


def _server(entry: McpEntry, file: Path, at: str, report: Report, trusted: bool
            ) -> McpServer | None:
    if entry.type == "stdio":
        if not entry.command:
            report.error(file, f"{at}.command", "mcp.no_command", f"stdio server "
                         f"{entry.name!r} has no command", "Give its command.")
            return None
        if not trusted:
            report.warn(file, at, "mcp.untrusted", f"MCP server {entry.name!r} launches "
                        f"{entry.command!r}: not started", "Run a config you have read with "
                        "--trust to start its own commands.")
            return None
        return McpServer(name=entry.name, command=entry.command, args=list(entry.args or []),
                         env=dict(entry.env or {}), timeout=entry.timeout)
    return _remote(entry, file, at, report)


def _remote(entry: McpEntry, file: Path, at: str, report: Report) -> McpServer | None:
    url = entry.url or ""
    if not url.startswith(("http://", "https://")):
        report.error(file, f"{at}.url", "mcp.bad_url", f"MCP server {entry.name!r} needs an "
                     "absolute http(s) URL", "Give its url.")
        return None
    if url.startswith("http://") and not is_loopback_url(url):
        report.error(file, f"{at}.url", "mcp.insecure_url", f"MCP server {entry.name!r}: "
                     "plain HTTP is allowed for loopback hosts only", "Use https.")
        return None
    headers = dict(entry.headers or {})
    if entry.auth:
        report.warn(file, f"{at}.auth", "mcp.auth_dropped", f"MCP server {entry.name!r}: "
                    "`auth` is not used", "Pass a bearer token as an Authorization header.")
    if not is_loopback_url(url):
        report.warn(file, at, "mcp.needs_network", f"MCP server {entry.name!r} is reached "
                    "over the network", "Runs connect to it only with the network enabled "
                    "(--network); otherwise its tools are left out.")
    return McpServer(name=entry.name, type=entry.type, url=url, headers=headers,
                     timeout=entry.timeout)
