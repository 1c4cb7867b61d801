"""NexAU's placeholders in YAML values, resolved.

`${this_file_dir}`, `${env.NAME}` and `${variables.a.b}`; inside a plugin also
`${plugin.dir}` and `${config.name}`.

NexAU substitutes in the raw text before parsing; a4a substitutes in the parsed string
values (an environment value can never change the document's structure) and re-reads a
value that is one placeholder as a YAML scalar, as NexAU's re-parse would (`0.7` becomes a
number). An unset environment variable becomes an `Unset` marker: the loader decides from
where it landed whether that is an error (used) or nothing (a dropped or overridden field).
Other `${...}` forms stay as written, as in NexAU.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_PLACEHOLDER = re.compile(
    r"\$\{(this_file_dir|env\.[A-Za-z_][A-Za-z0-9_]*|plugin\.dir"
    r"|variables\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
    r"|config\.[A-Za-z_][A-Za-z0-9_]*)\}")
_SCALAR = re.compile(r"^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|True|False|null)$")


@dataclass(frozen=True)
class Unset:
    """A value built from environment variables that are not set."""

    names: tuple[str, ...]


class PlaceholderError(ValueError):
    """A `${variables.*}` or `${config.*}` that names nothing, or a non-scalar."""


@dataclass(frozen=True)
class Scope:
    """What the placeholders of one file resolve to."""

    this_dir: str
    variables: Mapping[str, Any]
    env: Mapping[str, str]
    plugin_dir: str | None = None
    plugin_config: Mapping[str, Any] | None = None


def scope(this_dir: str, variables: Mapping[str, Any] | None = None, *,
          plugin_dir: str | None = None,
          plugin_config: Mapping[str, Any] | None = None) -> Scope:
    """The scope of a file in `this_dir` (the process environment for `${env.*}`)."""
    return Scope(this_dir, variables or {}, os.environ, plugin_dir, plugin_config)


def substitute(value: Any, sc: Scope) -> Any:
    """`value` with every placeholder of its strings resolved (dict keys stay)."""
    if isinstance(value, dict):
        return {k: substitute(v, sc) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, sc) for v in value]
    if isinstance(value, str) and "${" in value:
        return _string(value, sc)
    return value


def _lookup(ref: str, sc: Scope) -> Any:
    if ref == "this_file_dir":
        return sc.this_dir
    if ref == "plugin.dir":
        return sc.plugin_dir if sc.plugin_dir is not None else "${plugin.dir}"
    kind, _, rest = ref.partition(".")
    if kind == "env":
        return sc.env[rest] if rest in sc.env else Unset((rest,))
    if kind == "config":
        if sc.plugin_config is None:
            return "${" + ref + "}"  # outside a plugin NexAU leaves it as written
        if rest not in sc.plugin_config:
            raise PlaceholderError(f"${{{ref}}}: the plugin's config has no {rest!r}")
        return sc.plugin_config[rest]
    current: Any = sc.variables
    for part in rest.split("."):
        if not isinstance(current, dict) or part not in current:
            raise PlaceholderError(f"${{{ref}}} is not defined in `variables`")
        current = current[part]
    if isinstance(current, dict | list):
        raise PlaceholderError(f"${{{ref}}} is not a scalar and cannot be embedded")
    return current


def _string(text: str, sc: Scope) -> Any:
    whole = _PLACEHOLDER.fullmatch(text)
    if whole:
        value = _lookup(whole.group(1), sc)
        return _typed(value) if isinstance(value, str) and whole.group(1) != "this_file_dir" \
            else value
    unset: list[str] = []

    def repl(match: re.Match[str]) -> str:
        value = _lookup(match.group(1), sc)
        if isinstance(value, Unset):
            unset.extend(value.names)
            return ""
        return str(value)

    out = _PLACEHOLDER.sub(repl, text)
    return Unset(tuple(unset)) if unset else out


def _typed(text: str) -> Any:
    if not _SCALAR.match(text):
        return text
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if text == "null":
        return None
    return float(text) if any(c in text for c in ".eE") else int(text)


def unset_paths(value: Any, path: str = "") -> list[tuple[str, Unset]]:
    """Where Unset markers are in `value` (dotted paths, list items as [i])."""
    if isinstance(value, Unset):
        return [(path, value)]
    if isinstance(value, dict):
        return [hit for k, v in value.items()
                for hit in unset_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [hit for i, v in enumerate(value) for hit in unset_paths(v, f"{path}[{i}]")]
    return []


def strip_unset(value: Any) -> Any:
    """`value` with every Unset marker replaced by None."""
    if isinstance(value, Unset):
        return None
    if isinstance(value, dict):
        return {k: strip_unset(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_unset(v) for v in value]
    return value
