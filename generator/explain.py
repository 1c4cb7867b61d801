"""Why a build came out as it did: roles, cues, pattern, packs and tools, as plain data.

`explain(compiled)` feeds `a4a build --explain` and the `explain` key of `--json`; every
entry names the evidence and the rule that used it.
"""

from __future__ import annotations

from typing import Any

from a4a.generator.pipeline import Compiled
from a4a.generator.tools import ToolChoice, plan_tools, rank_builtins


def explain(c: Compiled) -> dict[str, Any]:
    """The decisions of one build with their evidence."""
    a = c.intent.analysis
    choice = c.choice
    out: dict[str, Any] = {
        "language": a.lang if a else "en",
        "roles": [{"name": r.name, "title": r.title, "duty": r.duty, "source": r.source}
                  for r in (a.roles if a else ())],
        "steps": list(a.steps) if a else [],
        "counts": dict(a.counts) if a else {},
        "caps": dict(a.caps) if a else {},
        "cues": [{"pattern": x.pattern, "phrase": x.phrase, "weight": x.weight}
                 for x in (a.cues if a else ())],
        "scores": dict(sorted((choice.scores if choice else {}).items(),
                              key=lambda kv: (-kv[1], kv[0]))),
        "pattern": {"top": c.spec.pattern,
                    "modifiers": [m for m in (choice.modifiers if choice else ())
                                  if m != c.spec.pattern],
                    "why": choice.why if choice else ""},
        "packs": [{"id": p, "hits": list(c.intent.domain_evidence.get(p, ())),
                   "why": _pack_why(c, p)} for p in c.intent.domains],
        "warnings": [{"code": k, "message": m} for k, m in c.intent.warnings],
        "tools": {},
    }
    world = {t.name for t in c.spec.tools if t.implementation.startswith("world:")}
    held = {a.name: {t for t in a.tools if isinstance(t, str)} for a in c.spec.agents}
    impl = {t.name: t.implementation for t in c.spec.tools}
    request = c.spec.description
    by_agent = plan_tools(c.plans, request)
    for plan in c.plans:
        rows = by_agent[plan.name] + rank_builtins(plan, request, world)
        ranked = {r.tool for r in rows}
        rows += [ToolChoice(impl[n], 1.0, True, "the request calls for it and no other agent "
                            "held it") for n in sorted(held.get(plan.name, ()))
                 if n in impl and not impl[n].startswith("world:") and impl[n] not in ranked
                 and n != "ask_human"]
        out["tools"][plan.name] = [{"tool": r.tool, "relevance": r.relevance, "kept": r.kept,
                                    "reason": r.reason} for r in rows]
    return out


def _pack_why(c: Compiled, pack: str) -> str:
    if pack == "generic":
        return "no pack matched: builtins only"
    hits = c.intent.domain_evidence.get(pack, ())
    if pack in c.intent.pack_roles:
        return f"the role {c.intent.pack_roles[pack]!r} is named after it: {len(hits)} term(s)"
    first = c.intent.domains[0]
    role = "best match" if pack == first else (
        "secondary pack: two or more distinct terms, or one the request acts on")
    return f"{role}: {len(hits)} distinct term(s)"


def render_text(data: dict[str, Any]) -> str:
    """The explanation as readable lines."""
    lines = [f"language: {data['language']}", "roles:"]
    lines += [f"  {r['name']} ({r['source']}: {r['title']!r}): {r['duty'] or '-'}"
              for r in data["roles"]] or ["  (none named)"]
    lines.append("cues:")
    lines += [f"  {x['pattern']} +{x['weight']}: {x['phrase']!r}" for x in data["cues"]] or [
        "  (none)"]
    lines.append("scores: " + ", ".join(f"{k}={v}" for k, v in data["scores"].items()))
    p = data["pattern"]
    mods = f" + {', '.join(p['modifiers'])}" if p["modifiers"] else ""
    lines.append(f"pattern: {p['top']}{mods} ({p['why']})")
    lines.append("packs:")
    lines += [f"  {k['id']}: {k['why']}; {', '.join(k['hits'])}" for k in data["packs"]]
    lines.append("tools per agent:")
    for agent, rows in data["tools"].items():
        lines.append(f"  {agent}:")
        lines += [f"    {'+' if r['kept'] else '-'} {r['tool']} ({r['relevance']}): {r['reason']}"
                  for r in rows] or ["    (none)"]
    lines += [f"warning {w['code']}: {w['message']}" for w in data["warnings"]]
    return "\n".join(lines)
