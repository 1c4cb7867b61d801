"""Team size follows the request: approval gates without an extra agent, stated worker counts,
teams that always have members."""

from __future__ import annotations

from a4a.generator.pipeline import compile_request
from a4a.runtime.ir.spec import FrameworkSpec


def _spec(text: str) -> FrameworkSpec:
    return compile_request(text).spec


def _asking(spec: FrameworkSpec) -> list[str]:
    return [a.name for a in spec.agents if "ask_human" in a.tool_names()]


def test_an_approval_gate_without_a_named_approver_is_ask_human_on_an_agent() -> None:
    spec = _spec("Draft replies to support tickets, but ask a human for approval before "
                 "anything is sent.")
    assert spec.pattern == "human_gate"
    assert "approval_gate" not in [a.name for a in spec.agents]
    assert len(spec.agents) == 2
    assert _asking(spec) == ["executor"]


def test_a_gate_modifier_gives_ask_human_to_the_team_not_a_new_agent() -> None:
    text = ("A researcher gathers the facts, a writer drafts the newsletter and an editor "
            "polishes it; they work in that order and wait for my approval before sending.")
    spec = _spec(text)
    names = [a.name for a in spec.agents]
    assert "approval_gate" not in names
    assert len(names) == 3, names
    assert _asking(spec), "someone must ask the human"


def _workers(spec: FrameworkSpec) -> int:
    return len({e.target for e in spec.edges if e.source == spec.entry
                and e.kind in ("delegate", "parallel", "route")})


def test_a_stated_worker_count_sets_the_team_size() -> None:
    spec = _spec("A code review system coordinates 6 specialized review agents plus a "
                 "coordinator agent that merges their findings.")
    assert spec.pattern == "orchestrator_workers"
    assert _workers(spec) == 6 and len(spec.agents) == 7
    chat = _spec("Data visualization by group chat (3 members, 1 manager).")
    assert chat.pattern == "group_chat" and len(chat.agents) == 4


def test_two_named_participants_take_turns_without_a_selector() -> None:
    spec = _spec("A group chat of two agents:\n- Drafter: writes the newsletter draft.\n"
                 "- Checker: points out what to fix in the draft.")
    assert spec.pattern == "group_chat"
    assert [a.name for a in spec.agents] == ["drafter", "checker"]
    kinds = sorted((e.source, e.target, e.kind) for e in spec.edges)
    assert kinds == [("checker", "drafter", "loop"), ("drafter", "checker", "sequence")]
    # a named chair keeps the selector's place
    chaired = _spec("A group chat run by a Moderator between a Drafter who writes the draft "
                    "and a Checker who reviews it.")
    assert len(chaired.agents) == 3


def test_each_of_n_parts_with_its_own_agent_counts_the_agents() -> None:
    spec = _spec("Each of the four checks (style, security, tests, docs) is run by its own "
                 "agent, and the verdicts are merged into one review.")
    assert spec.pattern == "parallel_sectioning" and _workers(spec) == 4
    assert not [a for a in spec.agents if a.name == "own"]  # "its own agent" names no role
    pt = _spec("Cada uma das cinco partes do relatório é revisada por um agente, e um "
               "coordenador junta as revisões.")
    assert len(pt.agents) == 6
    # without an agent in the sentence the number counts something else
    assert len(_spec("Each of the four checks is listed in the review.").agents) == 1


def test_a_repeat_count_sets_the_number_of_parallel_runs() -> None:
    spec = _spec("Summarize the report: run it four times in parallel, independently, and "
                 "merge the answers.")
    assert spec.pattern == "parallel_sectioning"
    assert _workers(spec) == 4


def test_a_hierarchy_out_of_domain_still_has_teams() -> None:
    spec = _spec("Build a top-level supervisor over mid-level supervisors, distributed "
                 "hierarchically, for a simple research assistant.")
    assert spec.pattern == "hierarchical_teams"
    assert 4 <= len(spec.agents) <= 9


def test_a_hierarchy_team_is_a_lead_and_a_few_specialists() -> None:
    spec = _spec("A hierarchical organisation with departments for incident response "
                 "(alerts, on-call, postmortems) and for marketing content (campaign briefs, "
                 "brand copy).")
    assert spec.pattern == "hierarchical_teams"
    leads = [a.name for a in spec.agents if a.name.endswith("_lead")]
    assert len(leads) == 2
    for lead in leads:
        members = [e.target for e in spec.edges if e.source == lead and e.kind == "delegate"]
        assert 1 <= len(members) <= 3, (lead, members)


def test_cues_of_other_languages_for_hierarchies_and_contests() -> None:
    es = _spec("Un sistema multi-dominio de agentes: marketing digital (campañas) y "
               "respuesta a incidentes.")
    assert es.pattern == "hierarchical_teams"
    zh = _spec("通过主题专家、恶魔辩护人与合伙人三角色博弈，提炼核心论点。")
    assert zh.pattern == "debate"
    assert len(zh.agents) == 4  # three named sides and a judge


def test_agents_that_coordinate_need_no_orchestrator_nobody_named() -> None:
    text = ("A platform that coordinates specialized agents.\n\n"
            "- **Listing Search Agent**: finds homes for sale\n"
            "- **Price Trend Agent**: summarizes neighbourhood price trends\n"
            "- **Valuation Agent**: estimates what each home is worth\n")
    spec = _spec(text)
    assert [a.name for a in spec.agents] == ["listing_search", "price_trend", "valuation"]
    led = text.replace("coordinates specialized agents", "has a main agent that delegates to "
                       "specialized agents")
    assert len(_spec(led).agents) == 4


def test_a_latin_role_title_with_a_chinese_gloss_is_a_role() -> None:
    from a4a.generator.analysis import analyse

    text = ("交易团队的结构：\n1. Research Analyst 调研\n   └─ 收集新闻和财务数据\n"
            "2. Trader Agent 综合\n   └─ 整合所有分析，生成交易建议\n3. Portfolio Manager 决策\n")
    roles = analyse(text).roles
    assert [r.name for r in roles] == ["research_analyst", "trader", "portfolio_manager"]
    assert "交易建议" in roles[1].duty


def test_numbered_steps_of_a_chain_are_its_stages() -> None:
    spec = _spec("Break the job into smaller steps; the output of one agent is used as input "
                 "to the next:\n\n1. Draft a poem outline\n2. Write the poem\n3. Polish the "
                 "last stanza\n")
    assert spec.pattern == "prompt_chaining"
    assert len(spec.agents) == 3
    assert [e.kind for e in spec.edges] == ["sequence", "sequence"]
    assert "outline" in spec.agents[0].description


def test_one_agent_another_and_one_is_a_stated_count() -> None:
    spec = _spec("Several agents process warranty claims: one agent checks the form is "
                 "complete, another grades the damage, another looks for duplicates, and one "
                 "estimates the payout. A main agent compiles everything into a reply.")
    assert spec.pattern == "orchestrator_workers"
    assert _workers(spec) == 4 and len(spec.agents) == 5


def test_a_gerund_agent_and_the_agent_noun_of_its_verb_are_one_role() -> None:
    from a4a.generator.analysis import analyse

    text = ("A planner writes the steps, an executor executes them, and then an Executing "
            "Agent calls the tools of the plan while a replanner updates it.")
    assert [r.name for r in analyse(text).roles] == ["planner", "executor", "replanner"]


def test_a_list_title_may_open_with_an_article() -> None:
    from a4a.generator.analysis import analyse

    text = ("- Staff Research Analyst: gathers news.\n- The Best Financial Analyst: reads the "
            "filings.\n- Private Investment Advisor: recommends a position.\n")
    names = [r.name for r in analyse(text).roles]
    assert names == ["research_analyst", "financial_analyst", "investment_advisor"]


def test_a_list_title_ending_in_a_plural_role_noun_is_work_on_things() -> None:
    from a4a.generator.analysis import analyse

    text = ("1. **Load Leads**: read the CSV file.\n"
            "2. **Score Leads**: rank them by the criteria.\n")
    assert [r.name for r in analyse(text).roles] == []
    assert [r.name for r in analyse("- **Team Lead**: assigns work\n- **Sales Lead**: calls "
                                    "prospects\n").roles] == ["team_lead", "sales_lead"]


def test_work_listed_in_series_is_a_chain_of_stages() -> None:
    spec = _spec("Finds trending topics, drafts short posts, schedules them, and reports "
                 "the reach.")
    assert spec.pattern == "prompt_chaining"
    assert len(spec.agents) == 4
    novel = _spec("This project uses a multi-agent system to write, edit, and compile a "
                  "short story.")
    assert novel.pattern == "prompt_chaining" and len(novel.agents) == 3


def test_named_agents_over_several_packs_are_no_hierarchy() -> None:
    spec = _spec("A travel agent books the flights, a weather agent checks the forecast for "
                 "the trip, and a budget agent tracks the expenses of the trip.")
    assert spec.environment is not None and len(spec.environment.domains) >= 3
    assert spec.pattern != "hierarchical_teams"
    assert len(spec.agents) <= 4


def test_a_single_agent_with_human_approval_is_one_agent_that_asks() -> None:
    spec = _spec("Build a LangGraph workflow with a single Pydantic AI agent that manages email "
                 "operations with human-in-the-loop approval for sending emails. The agent "
                 "reads inbox emails and creates drafts but requires explicit human approval "
                 "before sending any email.")
    assert spec.pattern == "human_gate"
    assert [a.name for a in spec.agents] == ["assistant"]  # no library named as an agent
    assert "ask_human" in spec.agents[0].tool_names()
    assert "send_email" in spec.agents[0].tool_names()


def test_merge_words_are_read_in_any_language_and_only_at_a_word_start() -> None:
    from a4a.generator.shape_input import MERGES

    for duty in ("整合所有智能体的结果", "fusionne les résultats", "integrates all the analysis "
                 "results", "объединяет ответы", "combines the drafts"):
        assert MERGES.search(duty), duty
    for duty in ("clears up the confusion", "integrates with Slack"):
        assert not MERGES.search(duty), duty


def test_a_team_for_a_pack_the_request_names_only_by_its_topic_covers_its_central_work() -> None:
    # "travel" names the pack and no resource: the specialists take its central resources
    # (the most operations), not its first-listed ones.
    spec = _spec("Plan a whole holiday by coordinating specialized agents for travel.")
    tools = {t for a in spec.agents for t in a.tools}
    assert any("flight" in t for t in tools) or any("hotel" in t for t in tools), tools


def test_a_system_prompt_to_one_agent_builds_that_agent_alone() -> None:
    # "You are a ... agent", then its skills and its steps as lists: one agent, named by the
    # first sentence, holding the listed systems' tools; in German the same.
    en = _spec("You are a friendly front-desk agent for a dental clinic. Your name is "
               "\"Clinic Helper\".\n\n## Skills\n\n1. **Calendar:** check free slots and book "
               "appointments.\n2. **Tickets:** open a ticket for every complaint.\n\n"
               "## Steps\n\n1. Greet the patient.\n2. Book or move the appointment.\n"
               "3. Summarize what was done.")
    de = _spec("Du bist ein freundlicher Empfangs-Agent für eine Zahnarztpraxis.\n\n"
               "## Fähigkeiten\n\n1. **Kalender:** freie Termine prüfen und Termine buchen.\n"
               "2. **Tickets:** für jede Beschwerde ein Ticket anlegen.")
    for spec in (en, de):
        assert spec.pattern == "single_agent" and len(spec.agents) == 1
        assert "schedule_event" in spec.agents[0].tool_names()
    assert en.agents[0].name == "frontdesk"


def test_a_system_prompt_that_names_other_agents_keeps_them() -> None:
    spec = _spec("You are a careful coordinator. Send each question to the research agent, "
                 "then give its notes to the writer agent, who drafts the answer.")
    assert len(spec.agents) >= 2


def test_departments_that_are_each_one_agent_are_no_hierarchy() -> None:
    # "各部门 Agent": every department is one agent of a flat team, not a team of its own
    zh = _spec("### 核心理念：公司部门模型\n\n- **前台 Agent** = 接待员\n- **各部门 Agent** = "
               "专业处理部门\n\n## Return Agent (退货部门)\n处理退款\n\n"
               "## Order Agent (订单部门)\n查询订单详情")
    assert zh.pattern != "hierarchical_teams" and len(zh.agents) <= 4
    teams = _spec("The company has departments: a sales team and a support team, each with "
                  "its own agents.")
    assert teams.pattern == "hierarchical_teams"


def test_a_title_with_an_ampersand_is_one_word() -> None:
    from a4a.generator.analysis import analyse

    names = [r.name for r in analyse("## Q&A Agent\nAnswers the customer's questions.\n\n"
                                     "## Order Agent\nLooks up orders.").roles]
    assert names == ["qna", "order"]


def test_a_process_listed_in_series_in_another_language_is_a_pipeline_of_its_stages() -> None:
    for text, n in (
            ("Un système multi-agent pour automatiser le processus de lecture, de tri, de "
             "résumé et d'archivage des factures.", 4),
            ("Un sistema de agentes que automatiza el proceso de recepción, clasificación y "
             "respuesta de correos.", 3),
            ("一个多智能体系统，包括数据采集、清洗、建模和可视化的完整分析流程。", 4)):
        spec = _spec(text)
        assert spec.pattern == "prompt_chaining" and len(spec.agents) == n, text
