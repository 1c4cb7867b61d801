"""SFT rows from a4a synth runs in the prompt style of a single text-mode tool-calling turn.

A model is trained on the rendering it is prompted with. A plain tool-calling prompt (as the
embedded backend and `bench/bfcl.py` send it) is a short system prompt with the tool list and
call grammar of the Hermes text mode appended, the request as the user turn, calls written as
`<tool_call>{"name": ..., "arguments": ...}</tool_call>` and results read back as
`<tool_response>` user turns. Rows here are built from a4a's own oracle runs in that shape:

- `task` rows: the task as the user turn, the world operations the run called (with a few of
  the framework's other operations as distractors, shuffled), every call and result in order
  (failed calls and the calls that recover from them included), the final answer last;
- `agent` rows: the same for each agent that called world operations, from its own input and
  its own tools (per-agent samples);
- `call` rows: the task, a few of the framework's operations and one call of the run as the
  whole reply (the call with most arguments all written in the request, else the first call):
  several schemas, one right, every argument filled;
- `irrelevant` rows: a task of one framework offered only another domain's operations, and
  `near_miss` rows: a task offered only its own framework's operations that its run never
  called, and `hard_negative` rows: the task offered only such operations that share words
  with the request or its run's operations; the answer is text, no call.

The names and arguments are a4a's world vocabulary. `next_call_cases` and `next_call_accuracy`
give the per-turn inner metric: the conversation up to each gold call, the model's next call
compared with it by AST (name and parsed arguments).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.llm import textmodes
from a4a.runtime.llm.base import Message, ToolCall, ToolSchema
from a4a.training import data, stated
from a4a.training.bfcl import SYSTEM, accuracy

MODE = "hermes"
TOOL_LINE = '{"type": "function"'  # how each offered tool's line opens in the system prompt
MAX_TOOLS = 4  # tools offered per row: the used ones plus distractors up to this many
MAX_RESULT = 300  # characters of a tool result kept in a row (long listings are cut)
REFUSALS = (
    "None of the available tools can do this, so I cannot carry out the request here.",
    "I can't help with that using these tools: none of them fits the request.",
    "The tools I have do not cover this request, so no call is made.",
)
Chat = list[dict[str, str]]
READ_VERBS = frozenset({"get", "list", "search", "find", "count", "read", "show", "lookup",
                        "check", "query", "view", "describe"})  # a reader may well answer it
STOP_WORDS = frozenset({"id", "get", "list", "the", "a", "an", "of", "to", "for", "in", "on",
                        "and", "or", "my", "me", "i", "is", "it", "with", "by", "all", "what"})


@dataclass(frozen=True)
class Framework:
    """A built framework's world operations (name to schema) and its id."""

    id: str
    tools: dict[str, ToolSchema]


def world_tools(spec: FrameworkSpec) -> dict[str, ToolSchema]:
    """The framework's world operations as its agents see them (no sub-agent or control tools)."""
    from a4a.training.textmode import agent_tools

    names = {t.name for t in spec.tools} - {"ask_human"}
    return {s.name: s for schemas in agent_tools(spec).values() for s in schemas
            if s.name in names}


def _result(event: Mapping[str, Any]) -> str:
    result = event.get("result")
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return text if len(text) <= MAX_RESULT else text[:MAX_RESULT] + " ..."


def render(tools: Sequence[ToolSchema], user: str, calls: Sequence[Mapping[str, Any]],
           answer: str) -> Chat:
    """One conversation: tools in the system prompt, the user turn, calls with results, answer."""
    from a4a.runtime.engine.textcalls import system_with_tools
    from a4a.runtime.llm.local import chat_messages

    msgs = [Message("system", system_with_tools(SYSTEM, tuple(tools), MODE)),
            Message("user", user)]
    for e in calls:
        msgs.append(Message("assistant", "", (ToolCall(e["id"], e["name"], e["arguments"]),)))
        msgs.append(Message("tool", _result(e), tool_call_id=e["id"], name=e["name"]))
    msgs.append(Message("assistant", answer))
    return chat_messages(tuple(msgs), MODE)


def _offer(used: Sequence[str], pool: Mapping[str, ToolSchema], rng: random.Random
           ) -> list[ToolSchema]:
    """The used tools plus distractors from `pool`, shuffled, at most MAX_TOOLS (or all used)."""
    names = list(dict.fromkeys(used))
    others = [n for n in sorted(pool) if n not in names]
    extra = rng.randint(0, max(0, min(len(others), MAX_TOOLS - len(names))))
    offered = names + rng.sample(others, extra)
    rng.shuffle(offered)
    return [pool[n] for n in offered]


def _world_calls(events: Iterable[Mapping[str, Any]], world: Mapping[str, ToolSchema]
                 ) -> list[Mapping[str, Any]]:
    return [e for e in events if e.get("type") == "tool_call" and e.get("name") in world
            and isinstance(e.get("arguments"), dict)]


def _row(chat: Chat, record: Mapping[str, Any], kind: str, **meta: Any) -> dict[str, Any]:
    return {"messages": chat, "tools": [],
            "meta": {"framework_id": record.get("framework_id"), "task_id": record.get("task_id"),
                     "kind": kind, **meta}}


def task_row(record: Mapping[str, Any], fw: Framework, rng: random.Random
             ) -> dict[str, Any] | None:
    """The whole run as one tool-calling conversation on the task, or None without calls."""
    calls = _world_calls(record.get("events", []), fw.tools)
    if not calls:
        return None
    tools = _offer([e["name"] for e in calls], fw.tools, rng)
    chat = render(tools, record["task"], calls, record.get("final_answer") or "Done.")
    return _row(chat, record, "task", recovers=not all(e.get("ok", True) for e in calls))


def agent_rows(record: Mapping[str, Any], fw: Framework, spec_tools: Mapping[str, Sequence[str]],
               rng: random.Random) -> list[dict[str, Any]]:
    """One conversation per agent turn that called world operations, with that agent's tools."""
    events = record.get("events", [])
    starts = {e["span"]: e for e in events if e.get("type") == "agent_start"}
    ends = {e["span"]: e for e in events if e.get("type") == "agent_end"}
    rows = []
    for span, start in starts.items():
        calls = _world_calls((e for e in events if e.get("span") == span), fw.tools)
        own = {n: fw.tools[n] for n in spec_tools.get(start["agent"], ()) if n in fw.tools}
        if not calls or not own:
            continue
        tools = _offer([e["name"] for e in calls], {**own, **{e["name"]: fw.tools[e["name"]]
                                                               for e in calls}}, rng)
        answer = str(ends.get(span, {}).get("output") or "Done.")
        rows.append(_row(render(tools, str(start.get("input", "")), calls, answer), record,
                         "agent", agent=start["agent"],
                         recovers=not all(e.get("ok", True) for e in calls)))
    return rows


def irrelevant_row(record: Mapping[str, Any], fw: Framework, others: Sequence[Framework],
                   rng: random.Random, count: int = 0) -> dict[str, Any] | None:
    """The task offered only operations of a framework sharing none of its tools; a text reply.

    `count` tools when given (a call row's twin offers as many as the call row), else 1 to 4.
    """
    unrelated = [o for o in others if o.id != fw.id and not set(o.tools) & set(fw.tools)
                 and len(o.tools) >= count]
    if not unrelated:
        return None
    pool = rng.choice(unrelated).tools
    names = rng.sample(sorted(pool), min(len(pool), count or rng.randint(1, 4)))
    chat = render([pool[n] for n in names], record["task"], [], rng.choice(REFUSALS))
    return _row(chat, record, "irrelevant")


def near_miss_row(record: Mapping[str, Any], fw: Framework, rng: random.Random
                  ) -> dict[str, Any] | None:
    """The task offered only its own framework's operations that its run never called.

    Same domain, no operation the gold plan needs: the nearest case of "no tool fits".
    """
    used = {e["name"] for e in _world_calls(record.get("events", []), fw.tools)}
    rest = sorted(set(fw.tools) - used)
    if not used or not rest:
        return None
    names = rng.sample(rest, min(len(rest), rng.randint(1, 3)))
    chat = render([fw.tools[n] for n in names], record["task"], [], rng.choice(REFUSALS))
    return _row(chat, record, "near_miss")


def _words(*texts: str) -> set[str]:
    """Lower-case words of names and text, `_` split, a plural `s` dropped (`orders` ~ `order`)."""
    out = set()
    for text in texts:
        for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")):
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def _schema_words(tool: ToolSchema) -> set[str]:
    return _words(tool.name, *(tool.parameters.get("properties") or {}))


def hard_negative_row(record: Mapping[str, Any], fw: Framework, rng: random.Random
                      ) -> dict[str, Any] | None:
    """The task offered only unused sibling operations sharing its words; a text reply.

    Siblings: operations its run never called whose name or argument names share a word with
    the request or with the operations it did call. The request names the right nouns, the
    offered operations act on them with another verb than the run's (and none is a reader, a
    name with a word of `READ_VERBS`, which might answer a question after all): "no tool
    fits" when the tools look like they might. None when no such operation shares a word.
    """
    used = {e["name"] for e in _world_calls(record.get("events", []), fw.tools)}
    if not used:
        return None
    near = _words(record["task"]) | set().union(*(_schema_words(fw.tools[n]) for n in used))
    near -= STOP_WORDS
    verbs = {n.split("_")[0] for n in used}
    rest = [n for n in sorted(set(fw.tools) - used)
            if n.split("_")[0] not in verbs and not set(n.split("_")) & READ_VERBS]
    scored = [(len(_schema_words(fw.tools[n]) & near), n) for n in rest]
    rng.shuffle(scored)
    best = [n for k, n in sorted(scored, key=lambda x: -x[0]) if k > 0]
    if not best:
        return None
    names = best[:rng.randint(1, 2)]
    chat = render([fw.tools[n] for n in names], record["task"], [], rng.choice(REFUSALS))
    return _row(chat, record, "hard_negative")


def _fullest_call(calls: Sequence[Mapping[str, Any]], task: str) -> Mapping[str, Any] | None:
    """The call with most arguments all written in the request, else the first call.

    a4a's first calls mostly take one id; BFCL's calls fill several arguments from the request.
    """
    stated = [e for e in calls if all(str(v) in task for v in e["arguments"].values())]
    if not stated:
        return calls[0] if calls else None
    return max(stated, key=lambda e: len(e["arguments"]))


def _offered(row: Mapping[str, Any]) -> int:
    """How many tools a row's system prompt offers."""
    return str(row["messages"][0]["content"]).count(TOOL_LINE)


def call_row(record: Mapping[str, Any], fw: Framework, rng: random.Random
             ) -> dict[str, Any] | None:
    """The task and one world call of its run among 1 to MAX_TOOLS of the framework's operations.

    The call is the whole reply (the conversation stops at it): the right schema, alone or
    among siblings, its arguments filled. The no-call rows offer 1 to 4 tools, so a call row
    may offer its one tool alone: otherwise "a single tool offered" is learnt as "answer in
    text" (BFCL's simple_python offers one function). None without calls.
    """
    calls = _world_calls(record.get("events", []), fw.tools)
    first = _fullest_call(calls, record["task"])
    if first is None:
        return None
    others = [n for n in sorted(fw.tools) if n != first["name"]]
    names = [first["name"], *rng.sample(others, min(len(others), rng.randint(0, MAX_TOOLS - 1)))]
    rng.shuffle(names)
    chat = render([fw.tools[n] for n in names], record["task"], [first], "")
    return _row(chat[:-2], record, "call")


def stated_row(record: Mapping[str, Any], fw: Framework, rng: random.Random
               ) -> dict[str, Any] | None:
    """A request stating every argument of one of the framework's operations, and its call.

    The call is the whole reply, offered alone or among siblings as in `call_row`; the
    request is `stated.stated`'s, not the run's (the run gives the framework and the meta).
    None when no operation of the framework takes two stated arguments.
    """
    names = stated.candidates(fw.tools)
    made = stated.stated(fw.tools[rng.choice(names)], rng) if names else None
    if made is None:
        return None
    others = [n for n in sorted(fw.tools) if n != made.name]
    offered = [made.name, *rng.sample(others, min(len(others), rng.randint(0, MAX_TOOLS - 1)))]
    rng.shuffle(offered)
    call = {"id": "call_1", "name": made.name, "arguments": made.arguments}
    chat = render([fw.tools[n] for n in offered], made.request, [call], "")
    return _row(chat[:-2], {**record, "task": made.request}, "stated")


def near_twin_row(row: Mapping[str, Any], record: Mapping[str, Any], fw: Framework,
                  rng: random.Random) -> dict[str, Any] | None:
    """A call row's request among its own framework's operations, none on the call's object.

    As many operations as the call row offers, none acting on the called operation's object
    (`schedule_event` -> nothing on `event`); a text reply. The far twin (`irrelevant_row`)
    tells "another domain" from "this domain"; this one tells "the right operation" from "a
    neighbour of it", as a request's nearest unfitting tools do. None when the framework has
    too few such operations.
    """
    calls = _calls_in(row["messages"][-1]["content"])
    if not calls:
        return None
    noun = calls[0]["name"].split("_", 1)[-1]
    rest = [n for n in sorted(fw.tools) if n.split("_", 1)[-1] != noun]
    count = _offered(row)
    if len(rest) < count:
        return None
    names = rng.sample(rest, count)
    chat = render([fw.tools[n] for n in names], row["messages"][1]["content"], [],
                  rng.choice(REFUSALS))
    return _row(chat, record, "near_miss", twin="near")


def _object(name: str) -> set[str]:
    """The words of an operation's name after its verb (`schedule_event` -> {"event"})."""
    return _words(name.split("_", 1)[-1]) - STOP_WORDS


def overlap_twin_row(row: Mapping[str, Any], record: Mapping[str, Any], fw: Framework,
                     others: Sequence[Framework], rng: random.Random
                     ) -> dict[str, Any] | None:
    """A call row's request among other frameworks' operations that share its argument names.

    The far twin offers a framework sharing nothing with the request; the functions a model
    wrongly calls are near ones: another operation whose parameters the request's values
    seem to fill (`book_room(start_date, duration_minutes)` for "reschedule the event ...
    start date 2026-05-20, duration minutes 45"). This twin offers as many operations as the
    call row, the ones of other frameworks whose names and parameters share most words with
    the called operation's, none acting on its object and none of its name; a text reply.
    None when no operation shares a word.
    """
    calls = _calls_in(row["messages"][-1]["content"])
    if not calls:
        return None
    name = calls[0]["name"]
    words = _schema_words(fw.tools[name]) - STOP_WORDS if name in fw.tools else set()
    noun = _object(name)
    pool: dict[str, ToolSchema] = {}
    for o in others:
        if o.id == fw.id:
            continue
        for n, tool in o.tools.items():
            if n not in fw.tools and not _object(n) & noun:
                pool.setdefault(n, tool)
    scored = [(len(_schema_words(t) & words), rng.random(), n) for n, t in sorted(pool.items())]
    best = [n for k, _, n in sorted(scored, reverse=True) if k > 0][:_offered(row)]
    if not best:
        return None
    rng.shuffle(best)
    chat = render([pool[n] for n in best], row["messages"][1]["content"], [],
                  rng.choice(REFUSALS))
    return _row(chat, record, "irrelevant", twin="overlap")


def build_rows(records: Iterable[Mapping[str, Any]], frameworks: Mapping[str, FrameworkSpec],
               *, irrelevant_every: int = 4, agents_per_run: int | None = 1,
               near_miss_every: int = 0, call_every: int = 0, hard_negative_every: int = 0,
               stated_every: int = 0, twins: bool = False, near_twins: bool = False,
               overlap_twins: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Task, per-agent and irrelevance rows of completed runs, deduplicated.

    Args:
        records: Run records (`a4a run` / `a4a synth` trajectories).
        frameworks: Framework id to its spec; runs of other frameworks are skipped.
        irrelevant_every: One irrelevance row per this many runs (0: none).
        agents_per_run: Per-agent rows kept per run (drawn; None: all).
        near_miss_every: One near-miss row (`near_miss_row`) per this many runs (0: none).
        call_every: One single-call row (`call_row`) per this many runs (0: none).
        hard_negative_every: One hard-negative row (`hard_negative_row`) per this many runs
            (0: none).
        stated_every: One stated-request call row (`stated_row`) per this many runs (0: none).
        twins: Each call and stated row followed by its irrelevance twin: the same request and
            as many tools, all of a framework sharing none of its own, and a text reply. The pair
            differs only in whether a tool fits, so neither the request nor the number of
            tools tells call from no call.
        near_twins: Each call and stated row also followed by its near twin
            (`near_twin_row`): the same request, as many of its own framework's operations,
            none on the called one's object.
        overlap_twins: Each call and stated row also followed by its overlap twin
            (`overlap_twin_row`): the same request among other frameworks' operations whose
            parameters share its called operation's words.
        seed: Seed of the distractor and irrelevance draws.
    """
    rng = random.Random(seed)
    fws = {i: Framework(i, world_tools(s)) for i, s in frameworks.items()}
    own = {i: {a.name: a.tool_names() for a in s.agents} for i, s in frameworks.items()}
    rows: list[dict[str, Any]] = []
    for n, record in enumerate(records):
        fw = fws.get(record.get("framework_id", ""))
        if fw is None or record.get("status") != "completed":
            continue
        first = task_row(record, fw, rng)
        rows += [first] if first else []
        agents = agent_rows(record, fw, own[fw.id], rng)
        rows += agents if agents_per_run is None else rng.sample(
            agents, min(agents_per_run, len(agents)))
        if irrelevant_every and n % irrelevant_every == 0:
            extra = irrelevant_row(record, fw, list(fws.values()), rng)
            rows += [extra] if extra else []
        if near_miss_every and n % near_miss_every == 0:
            near = near_miss_row(record, fw, rng)
            rows += [near] if near else []
        for every, make in ((call_every, call_row), (stated_every, stated_row)):
            single = make(record, fw, rng) if every and n % every == 0 else None
            rows += [single] if single else []
            if single and twins:
                asked = {**record, "task": single["messages"][1]["content"]}
                twin = irrelevant_row(asked, fw, list(fws.values()), rng, _offered(single))
                rows += [twin] if twin else []
            if single and near_twins:
                near = near_twin_row(single, record, fw, rng)
                rows += [near] if near else []
            if single and overlap_twins:
                lap = overlap_twin_row(single, record, fw, list(fws.values()), rng)
                rows += [lap] if lap else []
        if hard_negative_every and n % hard_negative_every == 0:
            hard = hard_negative_row(record, fw, rng)
            rows += [hard] if hard else []
    return list(data.dedup(rows))


def split(records: Iterable[dict[str, Any]], held_frameworks: float = 0.1,
          held_tasks: float = 0.2) -> dict[str, list[dict[str, Any]]]:
    """Runs split three ways by stable hashes of framework and task ids.

    `train`; `held_task`, held-out tasks of training frameworks; `held_framework`, every run of
    a held-out framework.
    """
    out: dict[str, list[dict[str, Any]]] = {"train": [], "held_task": [], "held_framework": []}
    for r in records:
        if data.is_held_out(r["framework_id"], held_frameworks):
            out["held_framework"].append(r)
        elif data.is_held_out(r.get("task_id") or r["run_id"], held_tasks, salt="task"):
            out["held_task"].append(r)
        else:
            out["train"].append(r)
    return out


def _calls_in(text: str) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": dict(c.arguments)}
            for c in textmodes.parse(text, MODE).calls]


def next_call_cases(chats: Iterable[Chat]) -> list[dict[str, Any]]:
    """One {prompt, gold} per assistant turn that calls a tool: the chat before it, its call."""
    out = []
    for chat in chats:
        for i, turn in enumerate(chat):
            gold = _calls_in(turn["content"]) if turn["role"] == "assistant" else []
            if gold:
                out.append({"prompt": chat[:i], "gold": gold[0]})
    return out


def same_call(text: str, gold: Mapping[str, Any]) -> bool:
    """Whether the first call read from `text` has the gold name and (parsed) arguments."""
    calls = _calls_in(text)
    return bool(calls) and calls[0]["name"] == gold["name"] and \
        calls[0]["arguments"] == dict(gold.get("arguments") or {})


def next_call_accuracy(generate: Callable[[Chat], str], cases: Sequence[Mapping[str, Any]]
                       ) -> dict[str, float | int]:
    """`accuracy` (n, accuracy, se) of `generate`'s next call over `cases`."""
    return accuracy([same_call(generate(list(c["prompt"])), c["gold"]) for c in cases])


def decision_accuracy(generate: Callable[[Chat], str], chats: Sequence[Chat]
                      ) -> dict[str, float | int]:
    """`accuracy` of the call/no-call decision at each chat's first assistant turn.

    Right when the model's reply holds a call exactly when the gold turn does (for a no-call
    row: no valid call, as BFCL scores irrelevance); the call itself is not compared.
    """
    verdicts = []
    for chat in chats:
        i = next(k for k, m in enumerate(chat) if m["role"] == "assistant")
        verdicts.append(bool(_calls_in(generate(chat[:i]))) == bool(_calls_in(chat[i]["content"])))
    return accuracy(verdicts)
