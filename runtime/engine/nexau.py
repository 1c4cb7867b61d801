"""What the agent loop does for agents loaded from NexAU configs.

- the prompt renders as NexAU renders it (lenient Jinja over its runtime variables, the
  config's context and the run's);
- `Agent(sub_agent_name, message, sub_agent_id?)` delegates by the name the config gives a
  sub-agent, and resumes a finished one; `LoadSkill(skill_name)` returns a skill's details;
- tool permissions (RFC-0019): deny wins, then allow; anything else is asked of the run's
  human, and allowed when the run has none (a4a's tools are confined to the workspace and
  the sandbox);
- long tool outputs are cut to their head and tail; the full text is saved in the workspace.
"""

from __future__ import annotations

import fnmatch
import json
import re
from typing import Any

from a4a.runtime.engine.state import RunContext, RunStatus, StopRun
from a4a.runtime.errors import A4AError
from a4a.runtime.ir.nexau import NexauSettings, ToolOutputLimit
from a4a.runtime.ir.spec import AgentSpec
from a4a.runtime.llm.base import ToolCall, ToolSchema
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.nexau import prompts
from a4a.runtime.tools.base import ToolError, ToolOutcome

AGENT_TOOL = "Agent"
LOAD_SKILL = "LoadSkill"
OUTPUT_DIR = ".a4a/tool_outputs"
_CALL_FORM = re.compile(r"^([A-Za-z_][\w-]*)\((.*)\)$")
_YES = re.compile(r"^\s*(y|yes|ok|allow|allowed|approve|approved|accept)\b", re.IGNORECASE)


def system_prompt(rt: RunContext, agent: AgentSpec) -> str:
    """The agent's prompt rendered with NexAU's runtime variables and the contexts."""
    settings = agent.nexau or NexauSettings()
    variables = {**prompts.runtime_variables(rt.recorder.clock.now(), agent.name),
                 **settings.context, **rt.prompt_context}
    try:
        return prompts.render(agent.system_prompt, variables)
    except A4AError as err:
        raise StopRun(RunStatus.INVALID, f"the prompt of {agent.name} does not render: "
                      f"{err.message}") from err


def extra_schemas(rt: RunContext, agent: AgentSpec, taken: set[str]) -> list[ToolSchema]:
    """NexAU's Agent and LoadSkill tools, when the agent has sub-agents or skills."""
    settings = agent.nexau
    if settings is None:
        return []
    out = []
    if settings.sub_agents and AGENT_TOOL not in taken:
        lines = []
        for visible, name in settings.sub_agents.items():
            child = rt.spec.agent(name)
            about = (child.description if child else "").strip().replace("\n", " ")
            lines.append(f"- {visible}: {about or 'a sub-agent'}")
        out.append(ToolSchema(AGENT_TOOL, "Delegate work to a sub-agent: give sub_agent_name "
                              "and message; add sub_agent_id to resume a finished one.\n\n"
                              "Available sub-agents:\n" + "\n".join(lines), {
                                  "type": "object", "required": ["sub_agent_name", "message"],
                                  "additionalProperties": False, "properties": {
                                      "sub_agent_name": {"type": "string",
                                                         "enum": list(settings.sub_agents)},
                                      "message": {"type": "string"},
                                      "sub_agent_id": {"type": "string"}}}))
    if settings.skills and LOAD_SKILL not in taken:
        briefs = "".join(f"<SkillBrief>\nSkill Name: {s.name}\nSkill Folder: {s.folder}\n"
                         f"Skill Brief Description: {s.description}\n</SkillBrief>\n"
                         for s in settings.skills)
        out.append(ToolSchema(LOAD_SKILL, "Load a skill's detailed instructions by name.\n\n"
                              f"<Skills>\n{briefs}</Skills>", {
                                  "type": "object", "required": ["skill_name"],
                                  "additionalProperties": False, "properties": {
                                      "skill_name": {"type": "string", "enum": [
                                          s.name for s in settings.skills]}}}))
    return out


def load_skill(agent: AgentSpec, call: ToolCall) -> ToolOutcome:
    """LoadSkill's answer: the skill's details, as NexAU formats them."""
    name = call.arguments.get("skill_name")
    skill = next((s for s in (agent.nexau.skills if agent.nexau else []) if s.name == name),
                 None)
    if skill is None:
        return ToolOutcome(error=ToolError("skill_not_found", f"no skill {name!r}",
                                           "Use a skill name from the tool's description."))
    return ToolOutcome(
        f"Found the skill details of `{skill.name}`.\nNote that the paths mentioned in skill "
        f"description are relative to the skill folder.\n<SkillDetails>\n<SkillName>"
        f"{skill.name}</SkillName>\n<SkillFolder>{skill.folder}</SkillFolder>\n"
        f"<SkillDescription>{skill.description}</SkillDescription>\n<SkillDetail>"
        f"{skill.detail}</SkillDetail>\n</SkillDetails>")


def permission(rt: RunContext, agent: AgentSpec, call: ToolCall) -> ToolOutcome | None:
    """None when the call may run; else the refusal the model reads."""
    settings = agent.nexau
    rule = None if settings is None else settings.permissions.get(call.name) or next(
        (r for key, r in settings.permissions.items()
         if key.endswith("__*") and call.name.startswith(key[:-1])), None)
    if rule is None:
        return None
    subjects = [str(v) for v in call.arguments.values() if isinstance(v, str | int | float)]
    if _matches(rule.deny, call.name, subjects):
        return _refused(call, "its permissions deny it")
    if _matches(rule.allow, call.name, subjects):
        return None
    human = rt.tool_ctx.services.get("human")
    if human is None:
        rt.recorder.add("permission", agent=agent.name, tool=call.name, decision="allow",
                        reason="no human attached; a4a's tools are confined")
        return None
    answer = human(f"Allow {call.name} with {json.dumps(call.arguments)[:500]}?")
    allowed = bool(_YES.match(str(answer)))
    rt.recorder.add("permission", agent=agent.name, tool=call.name,
                    decision="allow" if allowed else "deny", reason="asked the human")
    return None if allowed else _refused(call, "the user did not allow it")


def _matches(patterns: list[str], tool: str, subjects: list[str]) -> bool:
    for pattern in patterns:
        form = _CALL_FORM.match(pattern)
        name, inner = (form.group(1), form.group(2).replace(":*", "*")) if form else (
            None, pattern)
        if name is not None and name != tool:
            continue
        if fnmatch.fnmatchcase(tool, inner) or any(fnmatch.fnmatchcase(s, inner)
                                                   for s in subjects):
            return True
    return False


def _refused(call: ToolCall, why: str) -> ToolOutcome:
    return ToolOutcome(error=ToolError("permission_denied", f"{call.name} was not run: {why}",
                                       "Use another tool or ask the user."))


def limit_output(rt: RunContext, agent: AgentSpec, call: ToolCall, outcome: ToolOutcome
                 ) -> ToolOutcome:
    """The outcome with an over-long text cut (LongToolOutputMiddleware)."""
    limit = agent.nexau.tool_output if agent.nexau else None
    if limit is None or call.name in limit.bypass or not outcome.ok:
        return outcome
    content = outcome.content
    key = next((k for k in ("content", "result") if isinstance(content, dict)
                and isinstance(content.get(k), str)), None)
    text = content[key] if key else content if isinstance(content, str) else outcome.text()
    if len(outcome.text()) <= limit.max_chars:
        return outcome
    saved = _save(rt, call, outcome.text())
    cut = _cut(text, limit) + (f"\n\n[The full output ({len(text):,} characters) was cut; it "
                               f"is saved in {saved}: read it with the file tools.]" if saved
                               else f"\n\n[The full output ({len(text):,} characters) was cut.]")
    if key and isinstance(content, dict):
        return ToolOutcome({**content, key: cut})
    return ToolOutcome(cut)


def _cut(text: str, limit: ToolOutputLimit) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) > limit.head_lines + limit.tail_lines:
        omitted = len(lines) - limit.head_lines - limit.tail_lines
        tail = lines[-limit.tail_lines:] if limit.tail_lines else []
        text = "".join(lines[:limit.head_lines]) + f"\n... [{omitted} lines omitted] ...\n" \
            + "".join(tail)
    if len(text) > limit.head_chars + limit.tail_chars:
        text = text[:limit.head_chars] + "\n... [characters omitted] ...\n" + (
            text[-limit.tail_chars:] if limit.tail_chars else "")
    return text


def _save(rt: RunContext, call: ToolCall, text: str) -> str | None:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", f"{call.name}_{call.id}")[:80]
    rel = f"{OUTPUT_DIR}/{safe}.txt"
    try:
        fsaccess.workspace_write(rt.tool_ctx.workspace, rel, text.encode("utf-8", "replace"))
    except A4AError:
        return None
    return f"{prompts.WORKING_DIRECTORY}/{rel}"


def agent_result(visible: str, sub_id: str, message: str, text: str) -> dict[str, Any]:
    """The Agent tool's result, NexAU's shape (the id first, so the model can resume)."""
    return {"status": "success", "sub_agent_name": visible, "sub_agent_id": sub_id,
            "message": message, "result": f"[sub_agent_id: {sub_id}] {text}"}

