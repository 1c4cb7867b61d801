"""Synthetic agent data as the seed shows it: `generate(mode="agent_distill" | "agent_augment")`.

agent_distill builds a framework for the topic (a4a's compiler, offline), maps each given
tool onto the closest operation of its simulated world (by the words of names and
descriptions; a tool with no close operation is refused), synthesizes tasks, runs them with
the policy (`oracle`: each task's gold plan; or any runtime model spec such as
`openai:<model>`) and turns the runs into samples of the chosen format, the mapped tools
written under their given names and parameters. The report says which given tools the
world's tasks exercised (`exercised`) and which none did (`not_exercised`).

agent_augment makes variations of existing function_calling conversations: the user turns
are rephrased (deterministic templates; nothing is invented about the tools), and each
variation keeps the original calls, so the samples stay correct.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from a4a.runtime.errors import UserError
from a4a.training import data

MODES = ("agent_distill", "agent_augment")
OFFLINE = ("oracle", "offline", None)
_SYNONYMS = {"lookup": "get", "look": "get", "fetch": "get", "read": "get", "find": "search",
             "query": "search", "retrieve": "get", "show": "get", "add": "create",
             "new": "create", "make": "create", "remove": "delete", "change": "update",
             "edit": "update", "set": "update", "send": "send", "id": "id"}
_VERBS = {"get", "list", "search", "create", "update", "delete", "send", "open", "mark",
          "report", "cancel", "track"}
_STOP = {"a", "an", "the", "of", "by", "to", "for", "with", "and", "or", "in", "on", "its",
         "one", "up", "is", "that", "it", "from", "as", "at", "be", "this"}


@dataclass
class GenerateResult:
    """Generated samples (in `format`) and what was done to make them."""

    samples: list[dict[str, Any]]
    format: str
    report: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str | Path) -> Path:
        """Write the samples as JSONL (one per line); returns the path."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in self.samples),
                       encoding="utf-8")
        return out

    def __len__(self) -> int:
        return len(self.samples)


def generate(mode: str, *, n: int = 10, format: str = "function_calling",
             model: str | None = "oracle", topic: str | None = None,
             tools: list[dict[str, Any]] | None = None, seed: str | Path | None = None,
             random_seed: int = 0) -> GenerateResult:
    """Generate agent training samples (see the module docstring).

    Args:
        mode: agent_distill (from a topic and tools) or agent_augment (from `seed` samples).
        n: How many samples to make.
        format: The sample format to return (data.FORMATS).
        model: The policy of agent_distill runs: `oracle` (default, offline) or a runtime
            model spec; agent_augment is offline (`oracle`, `offline` or None).
        topic: agent_distill's subject.
        tools: agent_distill's tools, OpenAI function schemas ({"function": {...}}).
        seed: agent_augment's function_calling JSONL (or rows).
        random_seed: Task synthesis and rephrasing seed.

    Raises:
        UserError: `generate.mode`, `generate.args`, `format.unknown`, `generate.tool_unmapped`
            (a given tool no world operation is close to), `generate.model`, `data.row`.
    """
    data.check_format(format)
    if mode not in MODES:
        raise UserError("generate.mode", f"unknown mode {mode!r}",
                        f"Use one of {', '.join(MODES)}.", mode=mode)
    if n < 1:
        raise UserError("generate.args", f"n is {n}", "Ask for at least one sample.")
    if mode == "agent_distill":
        if not topic:
            raise UserError("generate.args", "agent_distill needs a topic",
                            'Pass topic="..." (and tools=[...]).')
        return _distill(topic, tools or [], n, format, model, random_seed)
    if seed is None:
        raise UserError("generate.args", "agent_augment needs seed samples",
                        'Pass seed="data/agent_traces.jsonl" (function_calling rows).')
    if model not in OFFLINE:
        raise UserError("generate.model", f"agent_augment rephrases offline; model {model!r} "
                        "is not used", "Pass model='offline' (or leave it out).", model=model)
    return _augment(seed, n, format, random_seed)


# ---- agent_distill -------------------------------------------------------------------------


def _words(*texts: str) -> set[str]:
    out = set()
    for text in texts:
        for w in re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()):
            w = _SYNONYMS.get(w, w)
            w = w[:-1] if len(w) > 3 and w.endswith("s") else w
            if w not in _STOP:
                out.add(w)
    return out


def _given(tool: dict[str, Any], n: int) -> dict[str, Any]:
    fn = tool.get("function", tool) if isinstance(tool, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise UserError("data.row", f"tools[{n}] has no function name",
                        'A tool is {"function": {"name", "description", "parameters"}}.',
                        row=n, field="function.name")
    return fn


def _closeness(given: dict[str, Any], op_name: str, op_desc: str) -> float:
    name_g, name_o = _words(given["name"]) - _VERBS, _words(op_name) - _VERBS
    all_g = _words(given["name"], str(given.get("description") or ""))
    all_o = _words(op_name, op_desc)
    if not all_g & all_o:
        return 0.0
    return 2 * len(name_g & name_o) + len(all_g & all_o) / len(all_g | all_o)


def map_tools(tools: list[dict[str, Any]], spec: Any) -> dict[str, dict[str, Any]]:
    """World operation name -> the given tool (function schema) closest to it.

    Raises:
        UserError: `generate.tool_unmapped` for a given tool sharing no name word with any
            operation, listing the operations there are.
    """
    mapping: dict[str, dict[str, Any]] = {}
    unmapped = []
    for n, tool in enumerate(tools):
        fn = _given(tool, n)
        scored = sorted(((_closeness(fn, t.name, t.description), t.name) for t in spec.tools
                         if t.name not in mapping), reverse=True)
        best = scored[0] if scored else (0.0, "")
        if best[0] < 2:  # at least one shared noun of the names
            unmapped.append(fn["name"])
        else:
            mapping[best[1]] = fn
    if unmapped:
        ops = sorted(t.name for t in spec.tools)
        raise UserError("generate.tool_unmapped", f"no world operation is close to "
                        f"{', '.join(unmapped)} (topic world: {', '.join(ops)})",
                        "Rename or describe the tool after what it does, or pick a topic "
                        "whose world has it.", tools=unmapped, operations=ops)
    return mapping


def _packs_for(tools: list[dict[str, Any]]) -> list[str]:
    """Titles of the domain packs holding the operation closest to each given tool."""
    from a4a.runtime import knowledge

    titles = []
    for n, tool in enumerate(tools):
        fn = _given(tool, n)
        best = max(((_closeness(fn, op.name, op.description), pack.title)
                    for pack in knowledge.domain_packs().values() for op in pack.operations),
                   default=(0.0, ""))
        if best[0] >= 2 and best[1] not in titles:
            titles.append(best[1])
    return titles


def _build_for(topic: str, tools: list[dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    """A framework for the topic whose world all given tools map onto.

    The topic alone first; then the topic with the titles of the domain packs that hold the
    operations closest to the tools, so that the compiler adds those worlds.
    """
    from a4a.api import build

    spec = build(topic).spec
    try:
        return spec, map_tools(tools, spec)
    except UserError:
        titles = _packs_for(tools)
        if not titles:
            raise
    return (spec := build(f"{topic} ({'; '.join(titles)})").spec), map_tools(tools, spec)


def _rename(sample: dict[str, Any], mapping: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A function_calling sample with world calls written as the given tools."""
    def args(fn: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
        props = list((fn.get("parameters") or {}).get("properties") or {})
        out = {}
        for key, value in given.items():
            near = [p for p in props if _words(p) & _words(key)]
            out[near[0] if near else key] = value
        return out

    names = re.compile(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b") if mapping else None
    msgs = []
    for m in sample["messages"]:
        m = dict(m)
        if names is not None and isinstance(m.get("content"), str):
            m["content"] = names.sub(lambda hit: str(mapping[hit.group(1)]["name"]), m["content"])
        calls = []
        for tc in m.get("tool_calls") or []:
            fn = tc["function"]
            if fn["name"] in mapping:
                given = mapping[fn["name"]]
                fn = {"name": given["name"], "arguments": json.dumps(
                    args(given, json.loads(fn["arguments"] or "{}")), ensure_ascii=False)}
            calls.append({**tc, "function": fn})
        if calls:
            m["tool_calls"] = calls
        if m.get("role") == "tool" and m.get("name") in mapping:
            m["name"] = mapping[m["name"]]["name"]
        msgs.append(m)
    kept = {t["function"]["name"] for t in sample.get("tools", [])} - set(mapping)
    tools = [t for t in sample.get("tools", []) if t["function"]["name"] in kept]
    return {**sample, "messages": msgs,
            "tools": [{"type": "function", "function": g} for g in mapping.values()] + tools}


def _distill(topic: str, tools: list[dict[str, Any]], n: int, fmt: str, model: str | None,
             random_seed: int) -> GenerateResult:
    from a4a.runtime.world.synthesis import synthesize
    from a4a.training.eval_run import policy, run_tasks

    spec, mapping = _build_for(topic, tools)
    label = "oracle" if model in OFFLINE else str(model)
    make = policy(label)
    tasks = [asdict(t) for t in synthesize(spec, 2 * n, random_seed)]  # some runs repeat
    if not tasks:
        raise UserError("generate.no_tasks", f"no task could be made for {topic!r}",
                        "Pick a topic with a simulated world (see `a4a tasks`).")
    if mapping:  # prefer tasks that exercise the given tools
        tasks.sort(key=lambda t: not any(s["tool"] in mapping for s in t["plan"]))
    records = run_tasks(spec, tasks, make, label)
    samples: list[dict[str, Any]] = []
    for record in records:
        if record.get("status") != "completed":
            continue
        for s in data.samples_from_record(record, "function_calling", "agents"):
            s = _rename(s, mapping)
            samples.append(s if fmt == "function_calling" else _as_format(s, fmt))
    samples = list(data.dedup(samples))[:n]
    given = {g["name"] for g in mapping.values()}
    called = {c["function"]["name"] for s in samples for m in s.get("messages", [])
              for c in m.get("tool_calls") or []}
    return GenerateResult(samples, fmt, {
        "exercised": sorted(given & called), "not_exercised": sorted(given - called),
        "mode": "agent_distill", "framework": spec.name, "model": label, "tasks": len(tasks),
        "runs": len(records), "completed": sum(r.get("status") == "completed" for r in records),
        "tool_map": {op: g["name"] for op, g in mapping.items()},
        "run_records": records})


def _as_format(sample: dict[str, Any], fmt: str) -> dict[str, Any]:
    """A function_calling sample in another format (through the neutral messages)."""
    from a4a.training.formats import format_function_calling

    msgs = format_function_calling(sample)
    ids = iter(range(10**6))
    neutral = [{**m, "tool_calls": [{**c, "id": f"c{next(ids)}"} for c in m["tool_calls"]]}
               if m.get("tool_calls") else m for m in msgs]
    pending: list[str] = []
    for m in neutral:  # results answer calls in order
        pending += [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] == "tool" and pending:
            m["tool_call_id"] = pending.pop(0)
    return {**data.to_format(neutral, fmt), "meta": sample.get("meta", {})}


# ---- agent_augment -------------------------------------------------------------------------

_OPENINGS = ("", "Please ", "Could you ", "Hi! ", "I need help: ", "Quick one: ", "Hello, ")
_CLOSINGS = ("", " Thanks.", " Thank you!", " Please be quick.", " Cheers.")


def _augment(seed: str | Path | list[dict[str, Any]], n: int, fmt: str,
             random_seed: int) -> GenerateResult:
    rows = data.load_examples(Path(seed), "function_calling") if isinstance(seed, str | Path) \
        else seed
    for i, row in enumerate(rows, 1):
        data.check_sample(row, "function_calling", f"seed row {i}")
    if not rows:
        raise UserError("generate.args", "the seed holds no conversation",
                        "Pass a JSONL of function_calling rows.")
    rng = random.Random(random_seed)
    seen = {data.content_hash(r) for r in rows}
    out: list[dict[str, Any]] = []
    for _ in range(n * 20):
        if len(out) == n:
            break
        base = rows[rng.randrange(len(rows))]
        variant = _rephrase(base, rng)
        h = data.content_hash(variant)
        if h not in seen:
            seen.add(h)
            out.append(variant if fmt == "function_calling" else _as_format(variant, fmt))
    return GenerateResult(out, fmt, {"mode": "agent_augment", "seed_rows": len(rows),
                                     "variations": len(out)})


def _rephrase(row: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    msgs = []
    for m in row["messages"]:
        if m.get("role") == "user" and isinstance(m.get("content"), str) and m["content"]:
            text = m["content"]
            opening = rng.choice(_OPENINGS)
            body = text[0].lower() + text[1:] if opening and text[:1].isupper() else text
            m = {**m, "content": f"{opening}{body}{rng.choice(_CLOSINGS)}"}
        msgs.append(m)
    meta: dict[str, Any] = row["meta"] if isinstance(row.get("meta"), dict) else {}
    return {**row, "messages": msgs, "meta": {**meta, "augmented": True}}
