"""Multi-turn online RL through the runtime: a generated framework's tasks, tiny config models,
the loopback fake server as an OpenAI-compatible policy server, the checker as the reward."""

from __future__ import annotations

import asyncio
import http.server
import importlib.util
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("peft")

from typer.testing import CliRunner  # noqa: E402

import a4a.training  # noqa: E402
from a4a import api  # noqa: E402
from a4a.cli import app  # noqa: E402
from a4a.runtime.errors import UserError  # noqa: E402
from a4a.runtime.llm.fakeserver import FakeOpenAIServer  # noqa: E402
from a4a.runtime.llm.guard import allow_real_models  # noqa: E402
from a4a.runtime.llm.openai_backend import OpenAIBackend  # noqa: E402
from a4a.runtime.world.rewards import score  # noqa: E402
from a4a.training.online_rl import (  # noqa: E402
    environments,
    run_rows,
    score_group,
    train_online,
)
from a4a.training.policy_llm import plan_responder  # noqa: E402
from a4a.training.rollouts import Plan, Server, collect  # noqa: E402
from tests.training.conftest import MODEL_DIR  # noqa: E402

torch.set_num_threads(1)
BENCH = Path(__file__).resolve().parents[2] / "bench" / "online_rl.py"


@pytest.fixture(scope="module")
def issues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated single-agent framework with two environment tasks."""
    out = tmp_path_factory.mktemp("fw") / "issues"
    api.build("an agent that labels GitHub issues", out=out)
    api.tasks(out, 2)
    return out


def _tiny(folder: Path, vocab: int | None = None) -> Path:
    """The bench's tiny random Llama with the embedded model's tokenizer; `vocab` widens its
    embedding (the fake server's token ids run to 100 000)."""
    if not (MODEL_DIR / "tokenizer.json").is_file():
        pytest.skip("the embedded model is not cached (make model)")
    spec = importlib.util.spec_from_file_location("online_rl_bench", BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return Path(bench.tiny_model(folder, vocab))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny(tmp_path_factory.mktemp("tiny") / "model")


def _tasks(framework: Path) -> list[dict[str, Any]]:
    lines = (framework / "environment" / "tasks.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture()
def server(issues: Path) -> Iterator[FakeOpenAIServer]:
    with allow_real_models(), FakeOpenAIServer(responder=plan_responder(_tasks(issues))) as s:
        yield s


def _rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(report["dump"]).read_text().splitlines()]


def test_server_rollouts_record_tokens_and_rewards_and_train_lora(
        issues: Path, server: FakeOpenAIServer, tmp_path: Path) -> None:
    wide = _tiny(tmp_path / "wide", vocab=100_000)
    report = train_online(wide, [issues], server=Server(server.base_url, "fake-model"),
                          updates=2, group_size=3, tasks=2, max_calls=8, temperature=0.7,
                          learning_rate=1e-2, output_dir=tmp_path / "out")
    assert report["steps"] == 2 and report["rollouts"] == 2 * 2 * 3  # updates x tasks x G
    rows = _rows(report)
    runs = {(r["step"], r["tags"]["task"], r["tags"]["rollout"]) for r in rows}
    assert len(runs) == 2 * 2 * 3  # every rollout has rows
    for row in rows:
        n = len(row["completion_ids"])
        assert n and row["prompt_ids"] and n == len(row["old_logprobs"]) == len(row["mask"])
        assert len(row["new_logprobs"]) == n and all(x <= 0 for x in row["new_logprobs"])
        assert 0.0 <= row["reward"] <= 1.0 and row["tags"]["prompt"] == "retokenized"
    # Every model call the server answered is in the dump, sampled as the loop asked.
    assert sum(len(r["tags"]["calls"]) for r in rows) == server.stats.requests
    assert all(b["temperature"] == 0.7 and b["logprobs"] for b in server.stats.bodies)
    rewards = [r["reward"] for r in rows]
    assert min(rewards) < max(rewards), "the responder's early stops should cost reward"
    for step, mean in enumerate(report["rewards"]):  # the report's mean: one reward per run
        per_run = {(r["tags"]["task"], r["tags"]["rollout"]): r["reward"]
                   for r in rows if r["step"] == step}
        assert mean == round(sum(per_run.values()) / len(per_run), 6)
    for key in {(r["step"], r["tags"]["task"]) for r in rows}:  # group-relative per task
        group = {r["tags"]["rollout"]: (r["reward"], r["advantage"]) for r in rows
                 if (r["step"], r["tags"]["task"]) == key}
        assert len(group) == 3 and abs(sum(a for _, a in group.values())) < 1e-4
        centre = sum(x for x, _ in group.values()) / 3
        assert all((a > 0) == (x > centre) for x, a in group.values() if abs(x - centre) > 1e-9)
    from safetensors.torch import load_file

    adapter = load_file(str(Path(report["checkpoint"]) / "adapter_model.safetensors"))
    lora_b = [t for k, t in adapter.items() if "lora_B" in k]
    assert lora_b and any(bool(t.abs().sum() > 0) for t in lora_b)  # B starts at zero


class _Admin(http.server.BaseHTTPRequestHandler):
    """vLLM's runtime LoRA endpoints, recording what they are asked."""

    seen: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.path, body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_server_samples_the_adapter_of_the_last_update(issues: Path, server: FakeOpenAIServer,
                                                       tmp_path: Path) -> None:
    admin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Admin)
    threading.Thread(target=admin.serve_forever, daemon=True).start()
    try:
        wide = _tiny(tmp_path / "wide", vocab=100_000)
        where = Server(server.base_url, "base", lora_name="pol",
                       admin_url=f"http://127.0.0.1:{admin.server_port}/v1")
        train_online(wide, [issues], server=where, updates=2, group_size=2, tasks=1,
                     max_calls=3, output_dir=tmp_path / "out")
    finally:
        admin.shutdown()
        admin.server_close()
    adapters = tmp_path / "out" / "adapters"
    assert _Admin.seen == [
        ("/v1/load_lora_adapter", {"lora_name": "pol-0",
                                   "lora_path": str((adapters / "update-0").resolve())}),
        ("/v1/load_lora_adapter", {"lora_name": "pol-1",
                                   "lora_path": str((adapters / "update-1").resolve())}),
        ("/v1/unload_lora_adapter", {"lora_name": "pol-0"})]
    assert (adapters / "update-1" / "adapter_config.json").is_file()
    models = [b["model"] for b in server.stats.bodies]
    first = sum(1 for m in models if m == "base")
    assert first and models == ["base"] * first + ["pol-0"] * (len(models) - first)
    assert len(models) > first


def test_rewards_are_the_checkers(issues: Path, server: FakeOpenAIServer, tiny: Path) -> None:
    """The reward of a run is its task checker's composite, recomputed from the records."""
    llm = OpenAIBackend("fake-model", base_url=server.base_url, api_key="EMPTY",
                        capture_tokens=True)
    plan = Plan(update=0, group_size=2, temperature=1.0, max_new_tokens=16, max_calls=8, seed=3)
    runs = asyncio.run(collect(environments([issues], 2), llm, plan))
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tiny))
    assert [len(records) for _, records in runs] == [2, 2]
    for task, records in runs:
        rewards, rows = score_group(task, records, tokenizer)
        assert rewards == [score(task, r)["composite"] for r in records]
        assert all(0.0 <= x <= 1.0 for x in rewards)
        assert {r.tags["rollout"] for r in rows} == {0, 1}


def test_in_process_policy_is_deterministic_with_a_seed(issues: Path, tiny: Path,
                                                         tmp_path: Path) -> None:
    def go(seed: int, name: str) -> list[dict[str, Any]]:
        return _rows(train_online(tiny, [issues], updates=1, group_size=2, tasks=1,
                                  max_calls=2, max_new_tokens=6, temperature=0.7, seed=seed,
                                  output_dir=tmp_path / name))

    first, again, other = go(1, "a"), go(1, "b"), go(2, "c")
    assert first == again
    assert [r["completion_ids"] for r in first] != [r["completion_ids"] for r in other]
    for row in first:
        assert row["tags"]["prompt"] == "recorded" and row["tags"]["agent"] == "assistant"
        assert len(row["completion_ids"]) == len(row["old_logprobs"]) == len(row["mask"])
        # The sampler's and the trainer's logprobs agree on the policy's own tokens.
        for old, new, m in zip(row["old_logprobs"], row["new_logprobs"], row["mask"],
                               strict=True):
            assert not m or abs(old - new) < 1e-3


def _call(span: str, prompt: list[int], ids: list[int]) -> dict[str, Any]:
    return {"type": "llm_call", "span": span, "agent": "a", "prompt_token_ids": prompt,
            "token_ids": ids, "logprobs": [-0.5] * len(ids)}


def test_calls_chain_into_one_masked_sequence() -> None:
    record = {"run_id": "r", "events": [
        _call("s1", [1, 2], [3, 4]), {"type": "tool_call"},
        _call("s1", [1, 2, 3, 4, 8, 9], [5]),  # extends the first: tool tokens 8, 9 masked
        _call("s1", [1, 7], [6]),  # does not extend: a row of its own
        _call("s2", [1, 7, 6], [2])]}  # another agent's span: never joined
    rows = run_rows(record, None)
    assert [(r.prompt_ids, r.completion_ids, r.mask) for r in rows] == [
        ([1, 2], [3, 4, 8, 9, 5], [1, 1, 0, 0, 1]), ([1, 7], [6], [1]), ([1, 7, 6], [2], [1])]
    assert rows[0].old_logprobs == [-0.5, -0.5, 0.0, 0.0, -0.5]
    assert rows[0].tags["calls"] == [0, 2]
    with pytest.raises(UserError) as err:
        run_rows({"run_id": "r", "events": [{"type": "llm_call", "span": "s1"}]}, None)
    assert err.value.code == "rl.no_tokens"


ALIGN = """recipe: align
method: grpo
model:
  name: {model}
trainer:
  max_steps: 1
  num_generations: 2
  max_new_tokens: 4
online_rl:
  enabled: true
  reward_name: agent_composite
  reward_kwargs: {kwargs}
  frameworks: [{framework}]
  tasks: 1
  max_calls: 2
"""


def test_cli_align_yaml_with_frameworks_runs_online_rl(issues: Path, tiny: Path,
                                                       tmp_path: Path) -> None:
    config = tmp_path / "align.yaml"
    config.write_text(ALIGN.format(model=tiny, framework=issues,
                                   kwargs="{weights: {state: 0.5, answer: 0.5, process: 0}}"))
    proc = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    assert proc.exit_code == 0, proc.output
    out = json.loads(proc.stdout)
    assert out["steps"] == 1 and out["rollouts"] == 2 and len(out["rewards"]) == 1
    assert Path(out["checkpoint"], "adapter_config.json").is_file()
    assert Path(out["dump"]).is_file() and Path(out["dump"]).parent == tmp_path / "runs/align"
    # The Python API: a framework directory as the dataset means the same loop.
    api_out = a4a.training.align(str(tiny), str(issues), online_rl={"enabled": True},
                                 max_steps=1, num_generations=2, max_new_tokens=4,
                                 output_dir=tmp_path / "api")
    assert api_out["steps"] == 1 and api_out["rollouts"] == 2 * 2  # both tasks, groups of 2
    config.write_text(ALIGN.format(model=tiny, framework=issues,
                                   kwargs="{expected_tools: [search]}"))
    bad = CliRunner().invoke(app, ["train", "--config", str(config), "--json"])
    err = json.loads(bad.stdout)["error"]
    assert bad.exit_code != 0 and err["code"] == "rl.config" and "expected_tools" in \
        err["message"]


def test_settings_that_cannot_train_are_refused(issues: Path) -> None:
    from a4a.training.grpo import align_online

    for kwargs in ({"temperature": 0.0}, {"group_size": 1}):
        with pytest.raises(UserError) as err:
            train_online("no-such-model", [issues], **kwargs)
        assert err.value.code == "rl.config"
    with pytest.raises(UserError) as err:
        align_online("m", None, {"frameworks": [str(issues)], "server": {"base_url": "x"},
                                 "reward_name": "efficiency", "epochs": 2},
                     max_steps=1, num_epochs=1, num_generations=2, beta=0.1, full=False)
    assert err.value.code == "rl.config" and len(err.value.data["issues"]) == 4


@pytest.mark.slow  # starting a local Ray instance and its workers takes about 10 s
def test_ray_rollouts_match_the_local_ones(issues: Path, server: FakeOpenAIServer,
                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    import ray  # the extra must be installed: a missing ray fails this test, never skips it

    monkeypatch.setenv("A4A_ALLOW_LOOPBACK_LLM", "1")  # Ray's workers inherit the opt-in
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    wide = _tiny(tmp_path / "wide", vocab=100_000)
    where = Server(server.base_url, "fake-model")
    dumps = [_rows(train_online(wide, [issues], server=where, updates=1, group_size=2,
                                tasks=2, max_calls=6, on_ray=on_ray,
                                output_dir=tmp_path / str(on_ray)))
             for on_ray in (False, True)]
    assert not ray.is_initialized()  # the loop stopped the instance it started
    local, remote = ([{k: r[k] for k in ("completion_ids", "old_logprobs", "reward", "tags")}
                      for r in rows] for rows in dumps)
    assert remote == local and len(local) >= 4


def test_a_prompt_past_the_model_s_context_ends_the_run_not_the_loop(
        issues: Path, tmp_path: Path) -> None:
    short = _tiny(tmp_path / "short")
    config = json.loads((short / "config.json").read_text())
    (short / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 64}))
    report = train_online(short, [issues], updates=1, group_size=2, tasks=1,
                          output_dir=tmp_path / "out")
    assert report["rollouts"] == 2 and report["history"][0]["rows"] == 0
    assert report["rewards"] == [0.0] and Path(report["dump"]).read_text() == ""
