"""A generated framework as a NexRL recipe: an agent_workspace NexAU runs, rewards a4a scores.

    DIR/recipe.yaml                     rollout_worker: nexau, pointing at the workspace
    DIR/agent_workspace/agent_config.yaml   a NexAU agent config (NexAU's schema, no a4a keys)
    DIR/agent_workspace/tools/*.yaml    one NexAU tool YAML per world operation
    DIR/agent_workspace/evaluator.py    reward = the task's environment checker
    DIR/data/tasks.jsonl                the tasks (prompt, ground_truth, the a4a task)

NexRL trains one policy on the root agent's model calls (sub-agent turns are not trained),
and NexAU has no control edges, so the framework is exported as one agent that does its
team's work with every world tool; a single-agent framework keeps its own prompt. Tools
bind to `a4a.runtime.world.nexau_tools` (a4a installed beside NexRL), which keeps the world
in NexAU's GlobalStorage; the evaluator replays the history's world calls on a fresh world.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a4a.runtime.errors import SpecError, UserError
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.loader import fsaccess
from a4a.runtime.loader.files import load_spec
from a4a.runtime.loader.yamlio import dump_yaml
from a4a.runtime.world.nexau_tools import SPEC_KEY

MODULE = "a4a.runtime.world.nexau_tools"
EVALUATOR = '''"""Reward of a rollout: the a4a environment checker of the task (written by a4a)."""

from __future__ import annotations

import json
from typing import Any

try:
    from nexrl.rollout_worker import EvaluationRunResult, Evaluator
except ImportError:  # outside NexRL: the same shapes, so the logic can be checked anywhere
    class EvaluationRunResult:  # type: ignore[no-redef]
        def __init__(self, reward: float = 0.0, ground_truth: str = "",
                     metrics: dict[str, float] | None = None,
                     extra_info: dict[str, Any] | None = None) -> None:
            self.reward = reward
            self.ground_truth = ground_truth
            self.metrics = metrics or {{}}
            self.extra_info = extra_info or {{}}

    class Evaluator:  # type: ignore[no-redef]
        pass

from a4a.runtime.nexrl.reward import score_observation

TOOLS = {tools}
PACKS = {packs}


class A4AEvaluator(Evaluator):
    """Scores a rollout with the task's checker: world state, answer facts, tool calls."""

    def evaluate(self, data: dict[str, Any], evaluation_target: Any) -> EvaluationRunResult:
        task = data.get("a4a_task") or data
        if isinstance(task, str):
            task = json.loads(task)
        rewards = score_observation(task, str(evaluation_target.final_answer or ""),
                                    list(getattr(evaluation_target, "observation", []) or []),
                                    tools={{k: tuple(v) for k, v in TOOLS.items()}},
                                    packs=PACKS)
        return EvaluationRunResult(reward=rewards["composite"],
                                   ground_truth=str(data.get("ground_truth", "")),
                                   metrics=rewards, extra_info={{"task_id": task.get("id")}})
'''


@dataclass(frozen=True)
class Written:
    """What `write_workspace` wrote."""

    path: Path
    files: list[str]
    tasks: int
    tools: int

    def to_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"path": str(self.path), "files": self.files, "tasks": self.tasks,
                "tools": self.tools}


def _tasks(root: Path) -> list[dict[str, Any]]:
    try:
        text = fsaccess.read_text(root / "environment" / "tasks.jsonl", root=root,
                                  max_bytes=50_000_000)
    except SpecError as err:
        raise UserError("tasks.missing", f"{root} has no readable environment/tasks.jsonl: "
                        f"{err.message}", f"Generate tasks first: a4a tasks {root} --n 20"
                        ) from err
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _escaped(text: str) -> str:
    """Text NexAU's Jinja rendering leaves as it is."""
    if "{{" in text or "{%" in text or "{#" in text:
        return "{% raw %}" + text.replace("{% endraw %}", "") + "{% endraw %}"
    return text


def prompt(spec: FrameworkSpec) -> str:
    """The one agent's prompt: the agent's own, or the team's work described for one."""
    entry = spec.agent(spec.entry)
    if len(spec.agents) == 1 and entry is not None:
        return _escaped(entry.system_prompt)
    team = "\n".join(f"- {a.name} ({a.role}): {a.description or a.role}" for a in spec.agents)
    return _escaped(f'You are "{spec.name}", a multi-agent system working as one agent: you '
                    "do the work of every member of its team yourself, with all of their "
                    f"tools.\n\n<request>\n{spec.description}\n</request>\n\nThe team whose "
                    f"work you do:\n{team}\n\nAct on the records with the tools, then give "
                    "the final answer, stating the facts you found.")


def agent_config(spec: FrameworkSpec, packs: list[str], seed: int) -> dict[str, Any]:
    """The NexAU agent config of the exported agent."""
    entry = spec.agent(spec.entry)
    tools = [{"name": t.name, "yaml_path": f"./tools/{t.name}.yaml",
              "binding": _binding(t.implementation)}
             for t in spec.tools if _binding(t.implementation)]
    return {
        "type": "agent", "name": spec.name.replace("-", "_"), "description": spec.description,
        "system_prompt": prompt(spec), "system_prompt_type": "string",
        "tool_call_mode": "openai",
        "max_iterations": min(sum(a.max_iterations for a in spec.agents), 200),
        "max_context_tokens": entry.max_context_tokens if entry else 32000,
        "llm_config": {"temperature": 0.7, "max_tokens": 8192,
                       "api_type": "openai_chat_completion", "logprobs": True,
                       "extra_body": {"train_mode": True, "include_stop_str_in_output": True,
                                      "skip_special_tokens": False,
                                      "return_tokens_as_token_ids": True}},
        "tools": tools, "global_storage": {SPEC_KEY: {"packs": packs, "seed": seed}},
        "tracers": [{"import": "nexau.archs.tracer.adapters.in_memory:InMemoryTracer"}]}


def _binding(implementation: str) -> str | None:
    kind, _, ref = implementation.partition(":")
    if kind == "world":
        return f"{MODULE}:{ref.replace('.', '__', 1)}"
    if implementation == "builtin:ask_human":
        return f"{MODULE}:ask_human"
    return None


def recipe(task_name: str) -> dict[str, Any]:
    """The NexRL recipe that points at the workspace."""
    return {"project_name": f"a4a-{task_name}", "experiment_name": f"{task_name}-nexau",
            "data": {"type": "torch", "data_files": ["data/tasks.jsonl"],
                     "prompt_key": "prompt", "batch_size": 16, "rollout_repeat_n": 8},
            "rollout_worker": {
                "type": "nexau", "need_llm_inference": True, "temperature": 0.7,
                "nexau_agent_config_path": "agent_workspace/agent_config.yaml",
                "evaluator_module_path": "agent_workspace/evaluator.py:A4AEvaluator",
                "nexau_agent_workspace": "agent_workspace", "task_name": task_name}}


def write_workspace(framework: Path, out: Path) -> Written:
    """Write the recipe, agent workspace and tasks of a framework directory under `out`."""
    root = framework.resolve()
    spec = load_spec(root / "framework.yaml")
    tasks = _tasks(root)
    env = spec.environment
    packs = sorted({*(env.domains if env else []), *(t.implementation[6:].split(".")[0]
                                                   for t in spec.tools
                                                   if t.implementation.startswith("world:"))})
    seed = env.seed if env else 0
    config = agent_config(spec, packs, seed)
    files = {"recipe.yaml": dump_yaml(recipe(config["name"])),
             "agent_workspace/agent_config.yaml": dump_yaml(config),
             "data/tasks.jsonl": "".join(json.dumps(
                 {"prompt": t["query"], "query": t["query"], "task_id": t["id"],
                  "ground_truth": "<|answer_split|>".join(t["checker"]["answer"]),
                  "a4a_task": t}, ensure_ascii=False, sort_keys=True) + "\n" for t in tasks)}
    table = {}
    for tool in spec.tools:
        if _binding(tool.implementation) is None:
            continue
        files[f"agent_workspace/tools/{tool.name}.yaml"] = dump_yaml(
            {"type": "tool", "name": tool.name, "description": tool.description,
             "input_schema": tool.input_schema})
        if tool.implementation.startswith("world:"):
            table[tool.name] = tool.implementation[6:].split(".", 1)
    files["agent_workspace/evaluator.py"] = EVALUATOR.format(
        tools=json.dumps(table, sort_keys=True), packs=json.dumps(packs))
    for rel, text in files.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        fsaccess.write_text(target, text)
    return Written(out, sorted(files), len(tasks), len(table))
