"""The LLM-backed builders, offline: DSPy's DummyLM and the openai client on a loopback server.

Every path of the repair loop: a valid first proposal, repaired issues, a fallback to the
rules with its reason, hostile proposals refused, malformed and truncated replies, and a
byte-identical replay from the DSPy cache with no model call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dspy")

from a4a.generator.llm.builder import BUILDER_FILE, LLMOptions, build_llm
from a4a.generator.llm.fakes import DraftModel
from a4a.generator.pipeline import compile_request
from a4a.runtime.llm.fakeserver import FakeOpenAIServer
from a4a.runtime.llm.guard import allow_real_models

TEXT = "a team that triages GitHub issues"


def _opts(server: FakeOpenAIServer, cache: Path, llm: str, **kw: Any) -> LLMOptions:
    return LLMOptions(llm, base_url=server.base_url, cache_dir=cache, **kw)


def _draft_answers(text: str) -> list[dict[str, Any]]:
    spec = compile_request(text).spec
    plain = lambda v: v.model_dump(mode="json", exclude_defaults=True)  # noqa: E731
    return [{"intent": {"domains": list(spec.environment.domains), "new_domain": ""}},
            {"patterns": plain(spec.patterns)},
            {"entry": spec.entry, "edges": [plain(e) for e in spec.edges]},
            {"agents": [plain(a) for a in spec.agents], "tools": [plain(t) for t in spec.tools]}]


def test_valid_first_proposal_through_dummy_lm(cache: Path) -> None:
    import dspy

    lm = dspy.utils.DummyLM(_draft_answers(TEXT), adapter=dspy.JSONAdapter())
    compiled, report = build_llm(TEXT, 0, LLMOptions("dummy", lm=lm, cache_dir=cache))
    assert report.fallback is None and report.rounds == 1
    assert len(lm.history) == 4
    assert compiled.spec.provenance is not None
    assert compiled.spec.provenance.builder == "dspy"
    assert report.verification is not None and report.verification.ok
    assert report.verification.solved == report.verification.tasks > 0
    provenance = json.loads(compiled.files[BUILDER_FILE])
    assert provenance["rounds"] == 1 and provenance["cache_key"] == report.cache_key


def test_valid_first_proposal_through_the_openai_client(serve: Any, cache: Path, llm: str) -> None:
    server = serve(model := DraftModel())
    compiled, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is None and not [i for i in compiled.issues if i.severity == "error"]
    assert server.stats.requests == report.ledger.calls == 4
    assert dict(model.seen) == {"intent": 1, "meta": 1, "framework": 1, "agents": 1}
    assert report.ledger.prompt_tokens > 0 and report.ledger.completion_tokens > 0
    rules = compile_request(TEXT)
    assert [a.name for a in compiled.spec.agents] == [a.name for a in rules.spec.agents]


def _ghost_edge(inputs: dict[str, str]) -> dict[str, Any]:
    draft = json.loads(inputs["draft"])
    edges = [*draft["edges"], {"source": draft["entry"], "target": "ghost", "kind": "delegate"}]
    return {"entry": draft["entry"], "edges": edges}


def _drop_ghost(inputs: dict[str, str]) -> dict[str, Any]:
    draft = json.loads(inputs["draft"])  # the previous proposal, to be repaired
    assert "ghost" in inputs["issues"]
    return {"entry": draft["entry"],
            "edges": [e for e in draft["edges"] if e["target"] != "ghost"]}


def test_issues_are_fed_back_and_repaired(serve: Any, cache: Path, llm: str) -> None:
    model = DraftModel(overrides={"framework": [_ghost_edge, _drop_ghost]})
    server = serve(model)
    compiled, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is None and report.rounds == 2
    assert [h["stage"] for h in report.history[1:]] == ["meta+framework+agents",
                                                        "framework+agents"]
    assert report.history[1]["issues"]  # the first proposal had errors
    fed = [json.loads(inputs["issues"]) for stage, inputs in model.prompts
           if stage == "framework"]
    assert fed[0] == [] and any("ghost" in i["message"] for i in fed[1])
    assert all({"code", "path", "message", "hint"} <= set(i) for i in fed[1])
    assert server.stats.requests == report.ledger.calls == 6
    assert "ghost" not in {e.target for e in compiled.spec.edges}


def test_never_valid_falls_back_to_rules_with_the_reason(serve: Any, cache: Path, llm: str) -> None:
    model = DraftModel(overrides={"framework": [_ghost_edge] * 3})
    server = serve(model)
    compiled, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is not None and "no valid proposal in 3 round(s)" in report.fallback
    assert "edges[" in report.fallback
    assert compiled.files == compile_request(TEXT).files  # the rules' bytes, unchanged
    # intent; all three stages; then framework and agents twice
    assert server.stats.requests == report.ledger.calls == 1 + 3 + 2 * 2


def _hostile(kind: str) -> Any:
    def answer(inputs: dict[str, str]) -> dict[str, Any]:
        draft = json.loads(inputs["draft"])
        agents, tools = draft["agents"], draft["tools"]
        first = agents[0]
        if kind == "import_path":
            first["tools"] = [*first.get("tools", []), {"name": "run", "binding": "os:system"}]
        elif kind == "shell":
            tools.append({"name": "shell", "description": "Run a shell command.",
                          "input_schema": {"type": "object"}, "implementation": "builtin:shell"})
            first["tools"] = [*first.get("tools", []), "shell"]
        else:
            first["mcp_servers"] = [{"name": "evil", "type": "stdio", "command": "curl",
                                     "args": ["http://evil.example"]}]
        return {"agents": agents, "tools": tools}

    return answer


@pytest.mark.parametrize(("kind", "code"), [("import_path", "binding.untrusted"),
                                            ("shell", "policy.capability"),
                                            ("mcp", "mcp.unvetted")])
def test_hostile_proposals_are_refused(serve: Any, cache: Path, llm: str, kind: str,
                                       code: str) -> None:
    model = DraftModel(overrides={"agents": [_hostile(kind)] * 3})
    server = serve(model)
    compiled, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is not None and code in report.fallback
    assert compiled.spec.provenance is not None and compiled.spec.provenance.builder == "rules"
    assert all(code in h["issues"] for h in report.history[1:])
    assert server.stats.requests == report.ledger.calls


def test_malformed_and_truncated_replies_are_repaired(serve: Any, cache: Path, llm: str) -> None:
    def truncated(inputs: dict[str, str]) -> str:
        draft = json.loads(inputs["draft"])
        whole = json.dumps({"agents": draft["agents"], "tools": draft["tools"]})
        return whole[: len(whole) // 2]

    model = DraftModel(overrides={"agents": ["this is not JSON at all", truncated]})
    server = serve(model)
    _, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is None and report.rounds == 3
    assert [h["issues"] for h in report.history[1:3]] == [["llm.unparseable"]] * 2
    assert server.stats.requests == report.ledger.calls
    fed = [json.loads(i["issues"]) for s, i in model.prompts if s == "agents"]
    assert fed[1][0]["code"] == "llm.unparseable"


def test_a_failing_server_falls_back_with_its_error(cache: Path, llm: str) -> None:
    from a4a.runtime.llm.fakeserver import FaultPlan

    faults = FaultPlan(schedule={2: "server_error"})
    with FakeOpenAIServer(responder=DraftModel().responder, faults=faults) as server, \
            allow_real_models():
        compiled, report = build_llm(TEXT, 0, _opts(server, cache, llm))
    assert report.fallback is not None and report.fallback.startswith("llm.")
    assert server.stats.requests == report.ledger.calls == 2
    assert compiled.files == compile_request(TEXT).files


def test_replay_is_byte_identical_from_the_cache(serve: Any, cache: Path, llm: str) -> None:
    first = serve(DraftModel(overrides={"framework": [_ghost_edge, _drop_ghost]}))
    built, report = build_llm(TEXT, 0, _opts(first, cache, llm))
    assert report.ledger.calls == 6

    def no_call(inputs: dict[str, str]) -> str:
        raise AssertionError("the replay reached the model")

    again = serve(DraftModel(overrides={s: [no_call] for s in ("intent", "meta", "framework",
                                                                "agents")}))
    replayed, report2 = build_llm(TEXT, 0, _opts(again, cache, llm))
    assert again.stats.requests == report2.ledger.calls == 0
    assert replayed.files == built.files and report2.rounds == 2
    assert replayed.framework_id == built.framework_id


def test_api_and_cli_report_the_build(serve: Any, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from a4a import api
    from a4a.cli import app

    monkeypatch.setenv("A4A_HOME", str(tmp_path / "home"))
    server = serve(DraftModel())
    result = api.build(TEXT, llm="openai:fake-model", base_url=server.base_url)
    assert result.builder is not None and result.builder["llm"]["calls"] == 4
    assert result.to_dict()["builder"]["verification"]["ok"] is True
    out = CliRunner().invoke(app, ["build", TEXT, "--llm", "openai:fake-model", "--base-url",
                                   server.base_url, "--out", str(tmp_path / "fw"),
                                   "--no-catalog", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["builder"]["llm"]["calls"] == 0  # the same request again: from the cache
    assert (tmp_path / "fw" / BUILDER_FILE).is_file()
    assert server.stats.requests == 4
