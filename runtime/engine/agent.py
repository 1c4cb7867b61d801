"""The agent loop: think, act, observe until an answer, a control decision or a budget.

Tool calls of one turn run concurrently. Delegation (agent as tool) runs the child in an
isolated context and returns its answer as the tool result. Model-behaviour errors (unknown
tool, invalid arguments, malformed calls, empty replies) go back to the model as
observations; infrastructure errors end the run with a typed status.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from typing import Any

from a4a.runtime.engine import context, nexau
from a4a.runtime.engine.control import CONTROL_TOOLS, Decision, control_tools
from a4a.runtime.engine.state import RunContext, RunStatus, StopRun
from a4a.runtime.engine.textcalls import mode_for, read, system_with_tools
from a4a.runtime.errors import LLMError, SpecError
from a4a.runtime.ir.spec import AgentSpec
from a4a.runtime.llm.base import LLMRequest, Message, ToolCall, ToolSchema
from a4a.runtime.llm.params import request_options
from a4a.runtime.tools.base import ToolError, ToolOutcome, argument_problem
from a4a.runtime.tools.registry import schema_of

# The observation that shows the model its unreadable tool call (evaluation counts these).
UNREADABLE_CALL = "Your tool call could not be read: "
EMPTY_REPLY = "Your reply was empty. Answer the task or call a tool."


@dataclass(frozen=True)
class AgentResult:
    """What an agent's turn produced."""

    text: str
    decision: Decision | None = None
    exhausted: bool = False  # hit its own max_iterations
    span: str = ""  # the span of the run that produced it


def _delegate_schema(child: AgentSpec) -> ToolSchema:
    return ToolSchema(child.name, child.description or f"Ask {child.name} to do a sub-task.",
                      {"type": "object", "properties": {"message": {
                          "type": "string", "description": "The sub-task, self-contained"}},
                       "required": ["message"], "additionalProperties": False})


def tool_schemas(rt: RunContext, agent: AgentSpec) -> list[ToolSchema]:
    """Everything the agent may call: its tools, its sub-agents, its control tools."""
    specs = {t.name: t for t in rt.spec.tools}
    own = [schema_of(specs[n]) for n in agent.tool_names() if n in specs]
    own += [t.schema for name, t in sorted(rt.tools.items()) if "__" in name
            and name.split("__", 1)[0] in rt.mcp_servers.get(agent.name, set())
            and name not in specs]
    children = [e.target for e in rt.spec.edges if e.source == agent.name and e.kind == "delegate"]
    subs = [_delegate_schema(c) for c in (rt.spec.agent(n) for n in children) if c]
    taken = {s.name for s in own + subs}
    return own + subs + nexau.extra_schemas(rt, agent, taken) + control_tools(rt.spec,
                                                                              agent.name)


async def run_agent(rt: RunContext, agent: AgentSpec, task: str, *, depth: int = 0,
                    parent: str | None = None, resume: list[Message] | None = None
                    ) -> AgentResult:
    """Run one agent on `task` until it answers or decides where control goes.

    `resume`: the messages of a finished run of this agent to continue (NexAU's Agent tool
    with a sub_agent_id); `task` is then the new message.
    """
    rt.budget.enter(depth)
    span = rt.recorder.span()
    schemas = tuple(tool_schemas(rt, agent))
    rt.recorder.add("agent_start", agent=agent.name, span=span, parent=parent, input=task,
                    tools=[{"name": s.name, "description": s.description,
                            "parameters": s.parameters} for s in schemas])
    names = {s.name for s in schemas}
    mode = mode_for(agent.tool_call_mode, rt.structured_tools)
    if resume:
        messages = [*resume, Message("user", task)]
    else:
        prompt = system_with_tools(system_prompt(rt, agent, schemas, task), schemas, mode)
        messages = [Message("system", prompt), Message("user", task)]
    result = AgentResult("", exhausted=True)
    for _ in range(agent.max_iterations):
        rt.budget.step()
        messages = _fit(rt, agent, span, messages)
        reading = read(await _ask(rt, agent, span, parent, tuple(messages), schemas, mode),
                       mode, schemas)
        reply = reading.message
        messages.append(reply)
        if not reply.tool_calls:
            if reading.errors:
                rt.recorder.add("format_error", agent=agent.name, span=span,
                                errors=list(reading.errors))
                messages.append(Message("user", UNREADABLE_CALL + "; ".join(reading.errors)))
                continue
            answer = reading.final or reply.content
            if answer.strip():
                result = AgentResult(answer)
                break
            messages.append(Message("user", EMPTY_REPLY))
            continue
        outcomes = await asyncio.gather(*(
            _call(rt, agent, c, names, span, depth) for c in reply.tool_calls))
        messages += [Message("tool", o.text(), tool_call_id=c.id, name=c.name)
                     for c, o in zip(reply.tool_calls, outcomes, strict=True)]
        decision = _decision(reply.tool_calls, outcomes)
        stop = next((c for c in reply.tool_calls if c.name in agent.stop_tools), None)
        if decision or stop:
            stopped = outcomes[reply.tool_calls.index(stop)] if stop else None
            result = AgentResult(_stop_text(agent, reply.content, stopped), decision)
            break
    if agent.nexau is not None:
        rt.finished[span] = (agent.name, messages)
    rt.recorder.add("agent_end", agent=agent.name, span=span, output=result.text,
                    decision=result.decision.__dict__ if result.decision else None,
                    exhausted=result.exhausted)
    return replace(result, span=span)


def _stop_text(agent: AgentSpec, content: str, stopped: ToolOutcome | None) -> str:
    """The answer of a turn a stop tool ended: NexAU takes the tool's result."""
    if stopped is None:
        return content
    value = stopped.content
    if agent.nexau is not None and stopped.ok:
        if isinstance(value, dict) and isinstance(value.get("content"), str):
            return str(value["content"])
        return stopped.text()
    return content or stopped.text()


def _fit(rt: RunContext, agent: AgentSpec, span: str, messages: list[Message]
         ) -> list[Message]:
    fitted, before = context.fit(agent, messages)
    if before is not None:
        rt.recorder.add("compaction", agent=agent.name, span=span, tokens_before=before,
                        tokens_after=context.estimate(fitted))
    return fitted


def system_prompt(rt: RunContext, agent: AgentSpec, schemas: tuple[ToolSchema, ...],
                  task: str) -> str:
    """The agent's system prompt; jinja prompts render with the runtime's variables."""
    if agent.nexau is not None:
        return nexau.system_prompt(rt, agent)
    if agent.system_prompt_type != "jinja":
        return agent.system_prompt
    import time

    from a4a.runtime import templating

    now = rt.recorder.clock.now()
    context = {"date": time.strftime("%Y-%m-%d", time.gmtime(now)), "task": task,
               "agent_name": agent.name, "framework_name": rt.spec.name,
               "tools": [s.name for s in schemas], "sub_agents": [
                   e.target for e in rt.spec.edges if e.source == agent.name
                   and e.kind == "delegate"]}
    try:
        return templating.render(agent.system_prompt, context)
    except SpecError as err:
        raise StopRun(RunStatus.INVALID, f"the prompt of {agent.name} does not render: "
                      f"{err.message}", code=err.code, hint=err.hint) from err


async def _ask(rt: RunContext, agent: AgentSpec, span: str, parent: str | None,
               messages: tuple[Message, ...], schemas: tuple[ToolSchema, ...],
               mode: str) -> Message:
    request = LLMRequest(messages, schemas if mode == "openai" else (), mode,
                         agent.llm_config.temperature, agent.llm_config.max_tokens,
                         agent=agent.name, options=request_options(agent.llm_config))
    try:
        resp = await rt.llm.complete(request)
    except LLMError as err:
        rt.recorder.add("llm_error", agent=agent.name, span=span, error=err.to_dict())
        raise StopRun(RunStatus.LLM_ERROR, err.message, code=err.code,
                      **({"hint": err.hint} if err.hint else {})) from err
    rt.recorder.llm(agent.name, span, parent, messages, resp, tuple(s.name for s in schemas))
    rt.budget.spend(resp.usage.prompt_tokens + resp.usage.completion_tokens)
    return resp.message


def _decision(calls: tuple[ToolCall, ...], outcomes: list[ToolOutcome]) -> Decision | None:
    for call, outcome in zip(calls, outcomes, strict=True):
        if call.name in CONTROL_TOOLS and outcome.ok:
            return Decision(call.name, dict(call.arguments))
    return None


async def _call(rt: RunContext, agent: AgentSpec, call: ToolCall, names: set[str], span: str,
                depth: int) -> ToolOutcome:
    start = rt.recorder.clock.now()
    if agent.nexau is not None and call.name in agent.nexau.serial_tools:
        lock = rt.locks.setdefault(call.name, asyncio.Lock())
        async with lock:
            outcome = await _execute(rt, agent, call, names, span, depth)
    else:
        outcome = await _execute(rt, agent, call, names, span, depth)
    if agent.nexau is not None:
        outcome = nexau.limit_output(rt, agent, call, outcome)
    rt.recorder.counts["tool_calls"] += 1
    rt.recorder.counts["tool_errors"] += 0 if outcome.ok else 1
    rt.recorder.add("tool_call", agent=agent.name, span=span, id=call.id, name=call.name,
                    arguments=call.arguments, ok=outcome.ok, result=_jsonable(outcome),
                    latency=round(rt.recorder.clock.now() - start, 6))
    return outcome


async def _execute(rt: RunContext, agent: AgentSpec, call: ToolCall, names: set[str],
                   span: str, depth: int) -> ToolOutcome:
    if call.raw is not None:
        return _bad("invalid_json", f"the arguments of {call.name} are not valid JSON",
                    "Send the arguments as one JSON object.")
    if call.name not in names:
        return _bad("unknown_tool", f"there is no tool named {call.name!r}",
                    f"Use one of: {', '.join(sorted(names))}.")
    if call.name in CONTROL_TOOLS:
        return _control(rt, agent, call)
    if agent.nexau is not None and call.name not in rt.tools:
        if call.name == nexau.AGENT_TOOL:
            return await _agent_tool(rt, agent, call, span, depth)
        if call.name == nexau.LOAD_SKILL:
            return nexau.load_skill(agent, call)
    child = rt.spec.agent(call.name)
    if child is not None:
        message = call.arguments.get("message")
        if not isinstance(message, str) or not message.strip():
            return _bad("invalid_arguments", "message: a non-empty string is required",
                        "Pass the sub-task as `message`.")
        sub = await run_agent(rt, child, message, depth=depth + 1, parent=span)
        return ToolOutcome({"agent": child.name, "result": sub.text})
    args = dict(call.arguments)
    if agent.nexau is not None:
        refused = nexau.permission(rt, agent, call)
        if refused is not None:
            return refused
        args.update(agent.nexau.tool_kwargs.get(call.name, {}))
    async with rt.tool_turn:
        rt.tool_ctx.agent = agent.name
        return await rt.tools[call.name].call(args, rt.tool_ctx)


async def _agent_tool(rt: RunContext, agent: AgentSpec, call: ToolCall, span: str,
                      depth: int) -> ToolOutcome:
    """NexAU's Agent tool: delegate by the sub-agent's configured name, or resume one."""
    problem = argument_problem(next(s.parameters for s in nexau.extra_schemas(rt, agent, set())
                                    if s.name == nexau.AGENT_TOOL), call.arguments)
    if problem:
        return _bad("invalid_arguments", problem, "Pass sub_agent_name and message.")
    visible, message = str(call.arguments["sub_agent_name"]), str(call.arguments["message"])
    child = rt.spec.agent(agent.nexau.sub_agents[visible]) if agent.nexau else None
    if child is None or not message.strip():
        return _bad("invalid_arguments", "a known sub_agent_name and a message are required",
                    "Use a name from the tool's description.")
    resume = None
    sub_id = call.arguments.get("sub_agent_id")
    if sub_id:
        done = rt.finished.get(str(sub_id))
        if done is None or done[0] != child.name:
            return _bad("not_found", f"no finished run {sub_id!r} of {visible!r}",
                        "Pass the sub_agent_id a previous Agent call returned.")
        resume = done[1]
    sub = await run_agent(rt, child, message, depth=depth + 1, parent=span, resume=resume)
    return ToolOutcome(nexau.agent_result(visible, sub.span, message, sub.text))


def _control(rt: RunContext, agent: AgentSpec, call: ToolCall) -> ToolOutcome:
    schema = next(s for s in control_tools(rt.spec, agent.name) if s.name == call.name)
    problem = argument_problem(schema.parameters, call.arguments)
    if problem:
        return _bad("invalid_arguments", problem, "Fix the arguments.")
    return ToolOutcome({"accepted": call.name})


def _bad(code: str, message: str, hint: str) -> ToolOutcome:
    return ToolOutcome(error=ToolError(code, message, hint))


def _jsonable(outcome: ToolOutcome) -> Any:
    if outcome.error:
        return {"error": outcome.error.to_dict()}
    try:
        json.dumps(outcome.content)
        return outcome.content
    except (TypeError, ValueError):
        return str(outcome.content)
