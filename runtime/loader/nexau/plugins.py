"""NexAU plugins: a folder with plugin.yaml whose `contributes` join the agent's config.

`use: "path:./plugins/x"` names the folder (inside the config's root unless trusted); its
`config.properties` give defaults and required keys for the entry's `config`; inside the
plugin `${plugin.dir}` and `${config.name}` resolve. Contributed tools, skills, sub-agents,
MCP servers and middlewares are added (the agent's own tools win a name clash), and the
`system_prompt_fragment` is appended to the prompt. Paths are made absolute at the plugin's
folder, so the usual checks apply to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.errors import A4AError
from a4a.runtime.loader.nexau.files import Access
from a4a.runtime.loader.nexau.report import Report
from a4a.runtime.loader.nexau.values import PlaceholderError, scope, substitute


@dataclass(frozen=True)
class PluginScope:
    """What `${plugin.dir}` and `${config.*}` mean in the files of one plugin."""

    folder: Path
    config: dict[str, Any]


@dataclass
class Expansion:
    """What the plugins of one agent gave."""

    fragments: list[str] = field(default_factory=list)
    sub_agent_scopes: dict[str, PluginScope] = field(default_factory=dict)  # config path


def _config(manifest: dict[str, Any], given: dict[str, Any], file: Path, at: str,
            report: Report) -> dict[str, Any] | None:
    props = (manifest.get("config") or {}).get("properties") or {}
    out = {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}
    out.update(given)
    missing = sorted(k for k, v in props.items() if isinstance(v, dict) and v.get("required")
                     and k not in out)
    if missing:
        report.error(file, f"{at}.config", "plugin.config_missing", f"plugin config needs "
                     f"{', '.join(missing)}", "Give them under the plugin's `config`.")
        return None
    return out


def _absolute(folder: Path, ref: Any) -> Any:
    return str(folder / ref) if isinstance(ref, str) and not ref.startswith("/") else ref


def expand(data: dict[str, Any], base: Path, file: Path, access: Access,
           report: Report) -> Expansion:
    """Merge the contributions of `data["plugins"]` into `data` (in place)."""
    out = Expansion()
    for i, entry in enumerate(data.pop("plugins", None) or []):
        at = f"plugins[{i}]"
        use = entry.get("use") if isinstance(entry, dict) else None
        if not isinstance(use, str) or not use.startswith("path:"):
            report.warn(file, at, "plugin.unsupported", f"plugin {use!r} is not a `path:` "
                        "plugin: skipped", "Use `use: path:./plugins/<name>`.")
            continue
        folder = (base / use[5:]).resolve()
        try:
            manifest = access.read_yaml(folder / "plugin.yaml")
        except A4AError as err:
            report.failed(file, at, err)
            continue
        if not isinstance(manifest, dict):
            report.error(file, at, "plugin.invalid", "plugin.yaml is not a mapping",
                         "Write the plugin manifest as a mapping.")
            continue
        config = _config(manifest, dict(entry.get("config") or {}), file, at, report)
        if config is None:
            continue
        plugin = PluginScope(folder, config)
        try:
            manifest = substitute(manifest, scope(str(folder), plugin_dir=str(folder),
                                                  plugin_config=config))
        except PlaceholderError as err:
            report.error(folder / "plugin.yaml", "", "nexau.placeholder", str(err),
                         "Define the value in the plugin's config.")
            continue
        _merge(data, manifest.get("contributes") or {}, plugin, out)
        fragment = manifest.get("system_prompt_fragment")
        if isinstance(fragment, str) and fragment.strip():
            out.fragments.append(fragment.strip())
    return out


def _merge(data: dict[str, Any], contributes: dict[str, Any], plugin: PluginScope,
           out: Expansion) -> None:
    folder = plugin.folder
    own = {t.get("name") for t in data.get("tools") or [] if isinstance(t, dict)}
    tools = [{**t, "yaml_path": _absolute(folder, t.get("yaml_path"))}
             for t in contributes.get("tools") or []
             if isinstance(t, dict) and t.get("name") not in own]
    data["tools"] = [*(data.get("tools") or []), *tools]
    skills = [{**s, "path": _absolute(folder, s.get("path"))} if isinstance(s, dict)
              else _absolute(folder, s) for s in contributes.get("skills") or []]
    data["skills"] = [*(data.get("skills") or []), *skills]
    subs = []
    for sub in contributes.get("sub_agents") or []:
        if isinstance(sub, dict):
            path = _absolute(folder, sub.get("config_path"))
            subs.append({**sub, "config_path": path})
            out.sub_agent_scopes[str(path)] = plugin
    data["sub_agents"] = [*(data.get("sub_agents") or []), *subs]
    for key in ("mcp_servers", "middlewares"):
        extra = [{k: v for k, v in m.items() if k != "name"} if key == "middlewares"
                 and isinstance(m, dict) else m for m in contributes.get(key) or []]
        data[key] = [*(data.get(key) or []), *extra]
