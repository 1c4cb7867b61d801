"""NexAU's session tools: todos, memory, completing the task and asking the user.

Todos and memories live in the run's global storage (shared by every agent of the run);
`ask_user` goes to the run's human seam, which rejects when nobody answers.
"""

from __future__ import annotations

from typing import Any

from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.common import Failure, arg, ok, text_arg

TODO_STATES = ("pending", "in_progress", "completed", "cancelled")
NO_ANSWER = "rejected: no human answered in time"


def write_todos(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Replace the run's todo list (NexAU's write_todos; older TodoWrite items too)."""
    todos = arg(args, "todos", default=None)
    if not isinstance(todos, list):
        raise Failure("INVALID_ARGUMENTS", "todos must be a list", "Pass todos: [...].")
    items = []
    for n, todo in enumerate(todos, 1):
        if not isinstance(todo, dict):
            raise Failure("INVALID_ARGUMENTS", f"todo {n} is not an object",
                          "Give each todo a description and a status.")
        text = arg(todo, "description", "content", default="")
        status = todo.get("status") or "pending"
        if not isinstance(text, str) or status not in TODO_STATES:
            raise Failure("INVALID_ARGUMENTS", f"todo {n}: a description and a status in "
                          f"{', '.join(TODO_STATES)} are required", "Fix the todo.")
        items.append({"description": text, "status": status})
    if sum(1 for t in items if t["status"] == "in_progress") > 1:
        raise Failure("INVALID_ARGUMENTS", "only one todo may be in_progress at a time",
                      "Mark one todo in_progress.")
    ctx.storage["todos"] = items
    lines = "\n".join(f"{i}. [{t['status']}] {t['description']}"
                      for i, t in enumerate(items, 1)) or "(empty)"
    return ok(f"Successfully updated the todo list. The current list is now:\n{lines}")


def save_memory(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Remember a fact for the rest of the run (NexAU's save_memory)."""
    fact = text_arg(args, "fact").strip()
    if not fact:
        raise Failure("INVALID_ARGUMENTS", "fact must not be empty", "Pass the fact.")
    memories: list[str] = ctx.storage.setdefault("memories", [])
    memories.append(fact)
    return ok(f'Okay, I\'ve remembered that: "{fact}" ({len(memories)} facts saved)')


def complete_task(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Submit the final result; as a stop tool it ends the agent (NexAU's complete_task)."""
    return ok(text_arg(args, "result", "answer"))


def ask_user(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Ask the run's human each question (NexAU's ask_user, mapped to ask_human)."""
    questions = arg(args, "questions", default=None)
    if isinstance(questions, str) or questions is None:
        questions = [{"question": text_arg(args, "question", "questions")}]
    if not isinstance(questions, list) or not questions:
        raise Failure("INVALID_ARGUMENTS", "questions must list at least one question",
                      "Pass questions: [{question, header}].")
    human = ctx.services.get("human")
    answers = []
    for n, item in enumerate(questions, 1):
        text = item.get("question") if isinstance(item, dict) else item
        if not isinstance(text, str) or not text.strip():
            raise Failure("INVALID_ARGUMENTS", f"question {n} has no text", "Fix it.")
        header = item.get("header") if isinstance(item, dict) else None
        answer = human(text) if human else NO_ANSWER
        answers.append({"question": text, "header": header or f"Q{n}", "answer": answer})
    lines = "\n".join(f"- {a['header']}: {a['answer']}" for a in answers)
    return ok(f"User answers:\n{lines}", answers=answers)
