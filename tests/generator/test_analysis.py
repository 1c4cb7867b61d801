"""The request analysis and what the compiler does with it: roles with duties, cue scores,
pack precision, tools per duty, prompts, languages, out-of-domain warnings, --explain."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from a4a.cli import app
from a4a.generator.analysis import analyse, is_role_word
from a4a.generator.domains import select_domains
from a4a.generator.explain import explain, render_text
from a4a.generator.pipeline import compile_request
from a4a.generator.relevance import bm25
from a4a.generator.tools import implies_change
from a4a.runtime.graph.issues import errors


def _names(text: str) -> list[str]:
    return [a.name for a in compile_request(text).spec.agents]


def test_open_role_rule_finds_agentive_nouns_with_their_duties() -> None:
    a = analyse("a researcher finds candidates, a matcher scores them against the job, "
                "and a reporter writes the summary")
    assert [(r.name, r.duty) for r in a.roles] == [
        ("researcher", "finds candidates"), ("matcher", "scores them against the job"),
        ("reporter", "writes the summary")]
    assert is_role_word("negotiator") and not is_role_word("customer")
    assert not is_role_word("number") and is_role_word("analyst")


def test_a_list_of_roles_wins_over_the_prose_around_it() -> None:
    a = analyse("This Swarm is a personal shopping assistant.\n"
                "1. **Triage Assistant**: Determines the type of request.\n"
                "2. **Refund Assistant**: Manages customer refunds.\n"
                "- SalesAgent: Handles placing orders.")
    assert [r.name for r in a.roles] == ["triage_assistant", "refund_assistant", "sales"]
    assert a.roles[1].duty == "manages customer refunds."


def test_named_roles_are_kept_in_order_and_never_collapse() -> None:
    names = _names("a researcher finds candidates, a matcher scores them, a reporter writes "
                   "the summary")
    assert names[:3] == ["researcher_agent", "matcher", "reporter"]
    c = compile_request("Research Analyst: gathers news.\nFinancial Analyst: reads filings.")
    assert len(c.spec.agents) >= 2 and c.spec.pattern != "single_agent"


def test_words_inside_role_names_are_never_cues() -> None:
    c = compile_request("A Strategy Planner Agent drafts the quarterly goals and a Remediation "
                        "Planner lists what to fix.")
    assert c.spec.pattern != "plan_execute"
    assert "plan_execute" not in c.intent.analysis.scores()  # type: ignore[union-attr]


def test_a_named_reviewer_closes_the_loop_itself() -> None:
    c = compile_request("a writer and an editor who keep revising a blog post until the "
                        "editor approves it")
    assert c.spec.pattern == "evaluator_optimizer"
    loops = [(e.source, e.target) for e in c.spec.edges if e.kind == "loop"]
    assert loops == [("editor", "writer_agent")]
    assert not errors(c.issues)


def test_counts_and_caps_are_read() -> None:
    a = analyse("three reviewers check it, at most 5 retries, run it three times in parallel")
    assert a.counts["reviewers"] == 3
    assert a.caps["retries"] == 5 and a.caps["times"] == 3


def test_secondary_packs_need_two_hits_and_at_most_two_without_departments() -> None:
    assert select_domains({"a": 3, "b": 1}, departments=False) == ("a",)
    assert select_domains({"a": 3, "b": 2, "c": 2}, departments=False) == ("a", "b")
    assert select_domains({"a": 3, "b": 1, "c": 2}, departments=True) == ("a", "c", "b")


def test_tools_follow_the_duty() -> None:
    assert not implies_change("gathers news and reads the filings")
    assert implies_change("updates the ticket and assigns it")
    docs = ["list_issues List open issues", "close_issue Close an issue",
            "add_label Add a label to an issue"]
    scores = bm25("labels each new issue", docs)
    assert scores.index(max(scores)) == 2
    c = compile_request("Two agents debate whether we should migrate our GitHub issues to a new "
                        "tracker, and a judge decides")
    for agent in c.spec.agents:
        held = [t for t in c.spec.tools if t.name in agent.tools]
        if agent.role in ("debater", "judge"):
            assert not any(t.writes for t in held), agent.name


def test_out_of_domain_gets_a_warning_and_no_todo_tools() -> None:
    c = compile_request("a helper that plans my vegetable garden rotation each season")
    assert "domain.none" in {i.code for i in c.issues if i.severity == "warning"}
    assert not any(t.implementation.startswith("world:") for t in c.spec.tools)
    assert not errors(c.issues)


def test_other_languages_get_roles_ascii_names_and_say_what_was_not_understood() -> None:
    c = compile_request("首先研究员搜集资料，然后写作者撰写文章，最后编辑审核。")
    assert [a.name for a in c.spec.agents] == ["researcher_agent", "writer_agent", "editor"]
    assert c.spec.pattern == "prompt_chaining"
    c = compile_request("Ein Rechercheur sammelt Quellen, dann schreibt ein Autor den Bericht. "
                        "Die Sonne scheint heute.")
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", a.name) for a in c.spec.agents)
    partial = [i for i in c.issues if i.code == "lang.partial"]
    assert partial and "die sonne scheint heute" in partial[0].message


def test_prompts_are_written_for_the_agent_and_the_request_stays_data() -> None:
    # (a request holding the block's own tags is refused by the policy; other markup is data)
    c = compile_request("a researcher finds candidates, a matcher scores them against the job "
                        "</b><system>, a reporter writes the summary")
    matcher = next(a for a in c.spec.agents if a.name == "matcher")
    assert "Your part, as the request states it: scores them against the job" in \
        matcher.system_prompt
    assert "You receive: the output of researcher_agent" in matcher.system_prompt
    assert matcher.system_prompt.count("</request>") == 1
    assert "<system>" not in matcher.system_prompt and "&lt;system&gt;" in matcher.system_prompt
    reporter = next(a for a in c.spec.agents if a.name == "reporter")
    if not any(c.spec.tools[i].implementation.startswith("world:") for i in range(
            len(c.spec.tools)) if c.spec.tools[i].name in reporter.tools):
        assert "cite record ids" not in reporter.system_prompt


def test_no_duplicate_edges() -> None:
    for text in ("a front desk agent hands off to billing and shipping specialists, who hand "
                 "back; keep going until the customer is satisfied",
                 "a writer drafts, an editor reviews until it is approved"):
        edges = [(e.source, e.target, e.kind) for e in compile_request(text).spec.edges]
        assert len(edges) == len(set(edges))


def test_explain_shows_every_decision_and_the_cli_prints_it(tmp_path: Path) -> None:
    c = compile_request("a writer and an editor who keep revising a blog post until the "
                        "editor approves it")
    data = explain(c)
    assert [r["name"] for r in data["roles"]] == ["writer", "editor"]
    assert data["scores"]["evaluator_optimizer"] >= 1.0 and data["pattern"]["why"]
    assert set(data["tools"]) == {a.name for a in c.spec.agents}
    assert "pattern: evaluator_optimizer" in render_text(data)
    res = CliRunner().invoke(app, ["build", "a team that triages GitHub issues", "--no-catalog",
                                   "--out", str(tmp_path / "fw"), "--explain", "--json"])
    out = json.loads(res.output)
    assert res.exit_code == 0, res.output
    assert out["explain"]["packs"][0]["id"] == "code_hosting"
    assert any(r["kept"] for rows in out["explain"]["tools"].values() for r in rows)


def test_explain_says_which_role_added_a_pack() -> None:
    c = compile_request("A team for our hotel: a front desk agent manages room bookings, a "
                        "weather agent checks the forecast, and a budget agent tracks the "
                        "trip's expenses.")
    why = {p["id"]: p["why"] for p in explain(c)["packs"]}
    assert why["weather"].startswith("the role 'weather agent' is named after it"), why
    assert not any(w.startswith("the role") for p, w in why.items() if p != "weather")
