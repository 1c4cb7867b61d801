"""Resolve an agent's MCP server entry into the exact process to launch.

Generated frameworks name servers by id in the vetted registry (templates/mcp/registry.yaml),
whose commands are fixed; a command written into the config itself runs only under trust.
A server runs on the host, so it never trusts the run's workspace, where sandboxed code and
file tools write: Python runs isolated (`-I`: no user site, no PYTHON* variables, no
working directory on sys.path), the working directory is a private empty folder of the pool
(never the workspace), and the environment is fixed (PATH, HOME, LANG) plus what the
registry or a trusted config sets.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.errors import RunError
from a4a.runtime.ir.spec import McpServer

# A server's whole environment before what the registry or a trusted config adds: none of
# a4a's own variables (API keys, PYTHONPATH, LD_PRELOAD), and a PATH of system folders and
# the interpreter's own, none of which sandboxed code or tools can write.
FIXED_PATH = os.pathsep.join(dict.fromkeys(
    [os.path.dirname(os.path.abspath(sys.executable)), "/usr/local/bin", "/usr/bin", "/bin"]))
ENV_BINARY = shutil.which("env", path=os.defpath) or "/usr/bin/env"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_TIMEOUT_S = 60.0
# Servers run in a4a's own environment, where their packages are installed.
_PYTHON = frozenset({"python", "python3"})


@dataclass(frozen=True)
class LaunchSpec:
    """One stdio MCP server process: what to run, with which environment, where."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None  # the pool's private folder; never the workspace
    timeout_s: float = DEFAULT_TIMEOUT_S
    repository: Path | None = None  # a workspace the server needs as a git repository
    transport: str = "stdio"  # or http (streamable HTTP) / sse: then `url`, `headers`
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def child_env(self) -> dict[str, str]:
        """The complete environment of the child: the fixed minimum plus `env`."""
        home = str(self.cwd) if self.cwd is not None else "/"
        return {"PATH": FIXED_PATH, "HOME": home, "LANG": "C.UTF-8"} | self.env

    def argv(self) -> list[str]:
        """The process to spawn: the command behind `env -i`.

        The child gets exactly `child_env()` and nothing else of a4a's environment.
        """
        assignments = [f"{k}={v}" for k, v in sorted(self.child_env().items())]
        return [ENV_BINARY, "-i", *assignments, self.command, *self.args]


def resolve(server: McpServer, *, workspace: Path, trusted: bool) -> LaunchSpec:
    """The launch of one server entry of an agent config.

    Args:
        server: The entry (NexAU `mcp_servers` shape).
        workspace: The run's workspace: the value of `{workspace}` (never the cwd).
        trusted: Whether the config is hand-written and explicitly trusted; only then may
            it carry its own command, arguments or environment.

    Returns:
        The resolved launch; `python` means the current interpreter, and the entry's
        `timeout` becomes the default per-call timeout.

    Raises:
        RunError: mcp.transport_unsupported, mcp.ambiguous, mcp.unknown_server,
            mcp.untrusted, mcp.bad_env, mcp.not_installed or mcp.command_not_found.
    """
    if server.type != "stdio":
        return _remote(server)
    if server.id is not None and (server.command or server.args):
        raise RunError("mcp.ambiguous", f"MCP server {server.name!r} has both an id and a "
                       "command", "Give either a registry id or a command, not both.",
                       server=server.name)
    if server.env and not trusted:
        raise _untrusted(server, "sets its own environment, which can change what a vetted "
                         "command runs (PYTHONPATH, LD_PRELOAD)")
    for key in server.env:
        if not _ENV_NAME.fullmatch(key):
            raise RunError("mcp.bad_env", f"MCP server {server.name!r}: bad environment "
                           f"variable name {key!r}", "Use names of letters, digits and _.",
                           server=server.name)
    repository = None
    if server.id is not None:
        command, args, env = _from_registry(server)
        if knowledge.mcp_registry()[server.id].get("workspace") == "git":
            repository = workspace
    elif server.command is None:
        raise RunError("mcp.unknown_server", f"MCP server {server.name!r} has neither an id "
                       "nor a command", _registry_hint(), server=server.name)
    elif not trusted:
        raise _untrusted(server, f"launches its own command {server.command!r}")
    else:
        command, args, env = server.command, list(server.args), {}
    env |= server.env
    ws = str(workspace)
    if command in _PYTHON:
        args = ["-I", *args]  # our interpreter, isolated from its working directory and env
    return LaunchSpec(
        name=server.name, command=_executable(command, server.name),
        args=tuple(a.replace("{workspace}", ws) for a in args),
        env={k: v.replace("{workspace}", ws) for k, v in env.items()},
        timeout_s=server.timeout or DEFAULT_TIMEOUT_S, repository=repository)


def _remote(server: McpServer) -> LaunchSpec:
    """An http (streamable HTTP) or sse server: nothing is launched, a URL is reached."""
    if not server.url or not server.url.startswith(("http://", "https://")):
        raise RunError("mcp.bad_url", f"MCP server {server.name!r} needs an http(s) url",
                       "Give the server's URL.", server=server.name)
    return LaunchSpec(name=server.name, command="", transport="sse" if server.type == "sse"
                      else "http", url=server.url, headers=dict(server.headers),
                      timeout_s=server.timeout or DEFAULT_TIMEOUT_S)


def init_repository(launch: LaunchSpec) -> None:
    """Make the workspace a server needs as a git repository one (when it is not yet).

    Git runs with no system or global configuration, from the pool's folder.

    Raises:
        RunError: mcp.command_not_found without git; mcp.start_failed when `git init` fails.
    """
    repo = launch.repository
    if repo is None or os.path.lexists(repo / ".git"):
        return
    git = shutil.which("git", path=FIXED_PATH)
    if git is None:
        raise RunError("mcp.command_not_found", f"MCP server {launch.name!r} needs git",
                       "Install git.", server=launch.name)
    env = launch.child_env() | {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run([git, "init", "-q", str(repo)], env=env, cwd=launch.cwd or "/",
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, check=False)
    if done.returncode != 0:
        raise RunError("mcp.start_failed", f"MCP server {launch.name!r}: cannot make the "
                       f"workspace a git repository: {done.stderr.strip()[:500]}",
                       "Check that the workspace is a writable folder.", server=launch.name)


def _from_registry(server: McpServer) -> tuple[str, list[str], dict[str, str]]:
    entry: dict[str, Any] | None = knowledge.mcp_registry().get(server.id or "")
    if entry is None:
        raise RunError("mcp.unknown_server", f"MCP server {server.name!r}: {server.id!r} is "
                       "not in the vetted registry", _registry_hint(), server=server.name)
    args = [str(a) for a in entry.get("args", [])]
    if entry["command"] in _PYTHON and args[:1] == ["-m"] and len(args) > 1:
        # Fail here with the package to install, not later with a dead server's traceback.
        if importlib.util.find_spec(args[1]) is None:
            raise RunError("mcp.not_installed", f"MCP server {server.name!r} needs the "
                           f"package {entry.get('package', args[1])!r}",
                           f"pip install {entry.get('package', args[1])}",
                           server=server.name)
    env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
    return str(entry["command"]), args, env


def _executable(command: str, name: str) -> str:
    if command in _PYTHON:
        found: str | None = sys.executable
    else:
        # Look it up on the PATH the server will get, so what runs is what was named.
        found = shutil.which(command, path=FIXED_PATH)
    if found is None:
        raise RunError("mcp.command_not_found", f"MCP server {name!r}: command {command!r} "
                       "is not on PATH", "Install it or give its absolute path.", server=name)
    path = os.path.abspath(found)
    if "=" in path:  # `env` would read it as an assignment, not as the command
        raise RunError("mcp.command_not_found", f"MCP server {name!r}: {path!r} contains "
                       "'='", "Move or link the executable to a plain path.", server=name)
    return path


def _untrusted(server: McpServer, what: str) -> RunError:
    return RunError("mcp.untrusted", f"MCP server {server.name!r} {what}",
                    "Bind a vetted server by id, or, for a hand-written config you have read, "
                    "run with --trust. " + _registry_hint(), server=server.name)


def _registry_hint() -> str:
    return "Vetted ids: " + ", ".join(sorted(knowledge.mcp_registry())) + "."
