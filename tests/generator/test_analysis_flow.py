"""Control flow read from all the evidence: cue weights, homonym cues, cues in every language,
arrow chains, and the named role that routes or leads."""

from __future__ import annotations

import pytest

from a4a.generator.analysis import analyse
from a4a.generator.pipeline import compile_request


def _pattern(text: str) -> str:
    return compile_request(text).spec.pattern


def test_generic_words_count_only_without_a_strong_cue_and_an_arrow_chain_is_structure() -> None:
    text = ("A multi-agent framework for incident triage. It orchestrates a team of agents, a "
            "crew of intelligent agents.\n\nMonitorAgent → TriageAgent → ResolutionAgent\n")
    a = analyse(text)
    assert a.scores()["orchestrator_workers"] == 1.0  # the strong cue; generic words add none
    assert analyse("A multi-agent crew of agents.").scores()["orchestrator_workers"] == 0.4
    assert a.scores()["prompt_chaining"] == 2.0
    assert [r.name for r in a.roles] == ["monitor", "triage", "resolution"]
    assert _pattern(text) == "prompt_chaining"


def test_team_words_do_not_tip_a_tie_between_strong_cues() -> None:
    # "orchestration" names how agents run (weak) and "multi-agent" says there are several;
    # neither outweighs the swarm that hands the customer from agent to agent.
    text = ("This project demonstrates multi-agent conversational workflows using the AG2 "
            "framework. It includes swarm orchestration examples for airline customer service "
            "scenarios, such as flight modification, cancellation, and lost baggage handling.")
    assert _pattern(text) == "handoff"
    for text in ("Un système d'orchestration d'agents pour le support client.",
                 "Sistema de orquestación de agentes para atención al cliente.",
                 "Агентная система: оркестрация агентов поддержки."):
        assert analyse(text).scores().get("orchestrator_workers", 0) < 1.0, text
    assert analyse("Un orchestrateur délègue aux agents.").scores()["orchestrator_workers"] >= 1


def test_orchestrating_a_workflow_with_a_framework_names_no_lead() -> None:
    text = ("An AI job agent: it discovers job listings, filters them and sends a daily email "
            "report. It orchestrates the full workflow using LangGraph.")
    assert analyse(text).scores().get("orchestrator_workers", 0) < 1.0


def test_a_route_through_space_is_no_routing_and_triaging_agents_route() -> None:
    text = ("A warehouse system coordinating specialized agents. Spatial Intelligence: "
            "optimizes picking routes and warehouse layout.")
    assert "routing" not in analyse(text).scores()
    assert "routing" not in analyse("An agent for delivery route planning.").scores()
    assert "routing" in analyse("The agent routes each ticket to billing.").scores()
    text = ("An order system of modular agents for triaging, tracking, login management, "
            "order management, and returns.")
    assert _pattern(text) == "routing"


def test_a_chain_of_things_that_are_not_roles_names_no_roles() -> None:
    a = analyse("RAG grounding over playbook snippets (error → cause → fix).")
    assert a.roles == ()
    team = analyse("A team (Product Manager → Tech Lead → Developer → QA) refines plans.")
    assert [r.name for r in team.roles] == ["product_manager", "tech_lead", "developer", "qa"]


def test_words_that_only_sound_like_control_flow_are_no_cues() -> None:
    for text in ("A multi-agent system that optimizes the energy supply chain.",
                 "A tutor that gives step-by-step explanations for any topic.",
                 "It picks the answer so that the output reflects the consensus."):
        assert "prompt_chaining" not in analyse(text).scores(), text
        assert "reflection" not in analyse(text).scores(), text
    assert "prompt_chaining" in analyse("The agents run in a fixed chain.").scores()
    assert "voting" in analyse("The output reflects the consensus among agents.").scores()


def test_cues_in_every_language() -> None:
    cases = {
        "Construisez un pipeline séquentiel puis une collecte parallèle": "prompt_chaining",
        "Un flujo secuencial de agentes": "prompt_chaining",
        "Ein sequenzieller Ablauf mit drei Agenten": "prompt_chaining",
        "GigaAgent — это агент-оркестратор, который использует субагентов": "orchestrator_workers",
        "Um orquestrador delega tarefas aos subagentes": "orchestrator_workers",
        "サブエージェントに委任する": "orchestrator_workers",
    }
    for text, pattern in cases.items():
        assert pattern in analyse(text).scores(), text


def test_the_first_named_role_that_directs_requests_is_the_router() -> None:
    spec = compile_request(
        "A customer service bot.\n"
        "1. **User Interface Assistant**: Handles initial user interactions and directs them "
        "to the help center assistant based on their needs.\n"
        "2. **Help Center Assistant**: Provides detailed help and support.").spec
    assert spec.pattern == "routing"
    assert [a.name for a in spec.agents] == ["user_interface_assistant", "help_center_assistant"]


def test_the_named_role_whose_duty_coordinates_leads_the_orchestrator() -> None:
    spec = compile_request(
        "A game design team orchestrated by a coordinator.\n"
        "- **Story Agent**: specializes in narrative design and world-building\n"
        "- **Gameplay Agent**: focuses on game mechanics and systems design\n"
        "- **Task Agent**: coordinates between all specialized agents").spec
    assert spec.pattern == "orchestrator_workers"
    assert spec.entry == "task" and len(spec.agents) == 3


def test_a_word_two_tables_read_counts_once() -> None:
    text = ("Construisez un assistant de recherche.\n- Implémenter un pipeline séquentiel\n"
            "- (Bonus) Créer un custom agent avec routing intelligent")
    a = analyse(text)
    assert a.scores()["routing"] == 1.0 and a.scores()["prompt_chaining"] == 2.0
    assert _pattern(text) == "prompt_chaining"


def test_nested_chats_are_orchestration() -> None:
    text = ("Showcases how to solve supply chain optimization problems using nested chats, a "
            "coding agent, and a safeguard agent.")
    assert "orchestrator_workers" in analyse(text).scores()
    assert "prompt_chaining" not in analyse(text).scores()


def test_a_rejection_that_sends_the_work_back_is_a_review_loop() -> None:
    text = "A writer drafts the post. If the editor rejects the draft, it goes back to the writer."
    assert analyse(text).scores()["evaluator_optimizer"] == 2.0
    spec = compile_request(text).spec
    assert spec.pattern == "evaluator_optimizer"
    assert [a.name for a in spec.agents] == ["writer_agent", "editor"]
    assert any(e.kind == "loop" and e.source == "editor" for e in spec.edges)
    assert "evaluator_optimizer" not in analyse(
        "The agent goes back to the start page and reads the menu.").scores()


def test_work_reviewed_by_qa_is_a_review_loop() -> None:
    text = ("Multi-agent support system that scrapes live documentation to generate "
            "high-quality, QA-reviewed responses to customer inquiries.")
    assert _pattern(text) == "evaluator_optimizer"
    assert "evaluator_optimizer" not in analyse("Our QA team reviews the release notes and "
                                                "reviewed the support macros.").scores()


def test_an_agent_that_routes_messages_to_its_tools_is_one_agent() -> None:
    text = ("An AI agent inside n8n routes user messages to different tools such as a weather "
            "tool, a task tool and a calendar tool.")
    assert "routing" not in analyse(text).scores()
    assert _pattern(text) == "single_agent"
    assert _pattern("A triage agent routes each customer email to the billing agent or the "
                    "shipping agent.") == "routing"


def test_a_branch_that_loops_back_is_a_review_loop() -> None:
    text = ("A human-in-the-loop content workflow.\n"
            "1. `draft` generates the first version of the post\n"
            "2. `review_gate` pauses and waits for a human message\n"
            "3. If rejected: `revise` takes the feedback and loops back to `review_gate`\n"
            "4. If approved: `publish` finalizes the post")
    spec = compile_request(text).spec
    assert spec.pattern == "evaluator_optimizer"
    assert not any(a.name.startswith("if_") for a in spec.agents)


def test_and_then_send_in_chinese_is_no_concurrency() -> None:
    # "并发送" is "and send"; "并发" alone would be "concurrent"
    text = "自动从 GitLab 获取今日提交记录，通过 AI 生成工作日报，并发送到钉钉群机器人。"
    assert "parallel_sectioning" not in analyse(text).scores()
    assert "parallel_sectioning" in analyse("三个智能体并发执行检索任务").scores()


def test_a_possessive_is_no_agent_name() -> None:
    text = "A multi-agent travel planner built with Google's Agent Development Kit (ADK)."
    assert [r.name for r in analyse(text).roles] == []


def test_a_lead_that_spawns_subagents_is_the_orchestrator() -> None:
    text = "The Lead Researcher spawns subagents in parallel to search for information."
    a = analyse(text)
    assert a.scores()["orchestrator_workers"] > a.scores()["parallel_sectioning"]
    spec = compile_request(text).spec
    assert spec.pattern == "orchestrator_workers" and spec.agents[0].name == "lead_researcher"


def test_a_counted_role_noun_means_that_many_workers_side_by_side() -> None:
    spec = compile_request("Have five reviewers score the essay, then combine their "
                           "scores.").spec
    assert spec.pattern == "parallel_sectioning"
    assert [a.name for a in spec.agents if a.name.startswith("reviewer_")] == [
        f"reviewer_{i}" for i in range(1, 6)]
    spec = compile_request("Three researchers look into the topic and a writer merges their "
                           "findings.").spec
    assert [a.name for a in spec.agents] == ["splitter", "researcher_1", "researcher_2",
                                             "researcher_3", "writer"]


def test_the_one_named_judge_or_moderator_takes_the_judging_slot() -> None:
    spec = compile_request("Three agents debate whether the company should adopt a four-day "
                           "work week, and a moderator declares the winner.").spec
    assert spec.pattern == "debate" and spec.agents[-1].name == "moderator"
    assert len(spec.agents) == 4
    spec = compile_request("Generate five candidate slogans in parallel and let a judge pick "
                           "the best one.").spec
    assert spec.pattern == "parallel_sectioning" and spec.agents[-1].name == "judge"
    assert "aggregator" not in [a.name for a in spec.agents]


def test_each_of_many_items_done_separately_then_combined_is_map_reduce() -> None:
    text = "Summarize each of the 50 documents separately and then combine the summaries."
    assert compile_request(text).spec.pattern == "map_reduce"


def test_an_article_marks_each_item_of_a_persona_list_a_member() -> None:
    roles = analyse("A group of personas (a skeptic, an optimist and a realist) discuss the "
                    "product idea.").roles
    assert [r.name for r in roles] == ["skeptic", "optimist", "realist"]


def test_setup_sections_and_code_blocks_are_no_control_flow() -> None:
    text = ("# Holiday Crew\n\nThe manager agent delegates work to the specialists.\n\n"
            "## Agents\n- **City Selector**: Picks the best city\n"
            "- **Local Expert**: Gathers insights about the city\n\n"
            "## Installation\nFirst, clone the repository, then install it:\n"
            "```bash\npip install -r requirements.txt\n```\n"
            "## Usage\nRun the pipeline with `python main.py`.\n")
    assert "prompt_chaining" not in analyse(text).scores()
    assert _pattern(text) == "orchestrator_workers"
    assert "prompt_chaining" in analyse(text.split("## Installation")[1]).scores()


def test_a_pipeline_of_agents_that_do_three_things_has_a_stage_for_each() -> None:
    spec = compile_request("Build a pipeline of agents that extracts data from invoices, "
                           "validates it, and stores it in the database.").spec
    assert spec.pattern == "prompt_chaining"
    assert [a.name for a in spec.agents] == ["extract_data", "validate", "store"]
    assert _pattern("A tool that reads emails, drafts replies, and schedules meetings.") == (
        "single_agent")


def test_the_one_role_whose_duty_merges_is_the_merger_not_the_workers_name() -> None:
    spec = compile_request("Multiple agents work in parallel on different sections of the "
                           "report, then a lead editor merges them.").spec
    names = [a.name for a in spec.agents]
    assert names[-1] == "editor" and not any(n.startswith("editor_") for n in names)


def test_a_hierarchy_is_built_from_the_teams_the_request_names() -> None:
    spec = compile_request("We build a hierarchical team: a top-level supervisor manages a "
                           "research team and a document writing team, each with its own "
                           "supervisor.").spec
    assert spec.pattern == "hierarchical_teams"
    leads = [a.name for a in spec.agents if a.name.endswith("_lead")]
    assert leads == ["research_lead", "document_writing_lead"]


def test_the_triage_role_fronts_a_handoff_wherever_it_is_named() -> None:
    spec = compile_request("Customer service agent with handoffs between a triage agent, a "
                           "sales agent and a refund agent.").spec
    assert spec.pattern == "handoff" and spec.agents[0].name == "triage"


def test_work_in_series_with_objects_is_a_pipeline_only_for_a_team() -> None:
    team = ("The system consists of multiple AI agents that collaborate to strategize, generate "
            "commands, and execute scans based on the client's description.")
    assert _pattern(team) == "prompt_chaining"
    one = ("This agent is designed for supply chain management. It can be extended to analyse "
           "inventory levels, forecast demand and suggest optimal reorder points.")
    assert _pattern(one) == "single_agent"


def test_an_orchestrator_whose_work_is_routing_makes_a_router() -> None:
    pt = ("O sistema utiliza uma arquitetura de orquestração centralizada. O **Agente "
          "Orquestrador** recebe a pergunta do usuário e, baseado nas palavras-chave, roteia "
          "para um dos **Agentes Especialistas por Setor**.")
    assert _pattern(pt) == "routing"
    assert _pattern("An orchestrator breaks the report into sections and delegates each to a "
                    "writer agent, then routes the drafts to an editor.") == (
        "orchestrator_workers")


def test_steps_that_close_into_a_loop_are_one_agent_s_cycle_not_a_chain() -> None:
    a = analyse("An autonomous SRE agent that runs a Plan → Act → Reflect loop to triage "
                "incidents.")
    assert "prompt_chaining" not in a.scores()
    assert "prompt_chaining" in analyse("Planner → Coder → Reviewer, each hands on.").scores()


def test_a_group_chat_manager_makes_a_group_chat_and_runs_it() -> None:
    text = ("The system consists of a User Proxy (Admin), Coder, and Product Manager, "
            "coordinated by a Group Chat Manager.\n\n"
            "User Proxy (Admin): Oversees the conversation and initiates tasks.\n"
            "Coder (Assistant Agent): Handles coding-related problem-solving.\n"
            "Product Manager: Provides creative software product ideas.\n"
            "Group Chat Manager: Manages agent interactions.")
    built = compile_request(text)
    assert built.spec.pattern == "group_chat"
    names = [a.name for a in built.spec.agents]
    assert names[0] == built.spec.entry == "group_chat_manager", names
    assert set(names) == {"group_chat_manager", "user_proxy", "coder", "product_manager"}


def test_coordinating_meetings_is_scheduling_and_passing_on_is_a_chain_in_any_language() -> None:
    a = analyse("#### Agente de Captación\n**Función:** Primer contacto\n\n**Hace:**\n"
                "- Registra datos del lead\n- Pasa a siguiente agente\n\n"
                "#### Agente de Agenda\n**Función:** Coordinar reuniones sin fricción\n")
    assert max(a.scores(), key=a.scores().get) == "prompt_chaining", a.scores()
    assert "orchestrator_workers" not in analyse(
        "A scheduling agent that coordinates meetings and interviews.").scores()
    assert "orchestrator_workers" in analyse(
        "A lead agent coordinates the researcher and the writer.").scores()


def test_conditional_and_tree_arrows_are_routes_not_a_chain() -> None:
    routes = ("The bot reads the message and picks a handler:\n"
              "- if it asks about the weather → weather tool\n"
              "- if it asks to add a task → task tool → confirmation\n")
    assert "prompt_chaining" not in analyse(routes).scores()
    tree = "用户提问\n   ↓\n意图识别\n   ├→ 问候 → 欢迎语\n   └→ 查询 → 知识库检索 → 生成回答\n"
    assert "prompt_chaining" not in analyse(tree).scores()
    # One chain across the items of one list line still reads as a chain.
    assert "prompt_chaining" in analyse("Flow: Collector → Checker → Writer").scores()


def test_numbered_steps_with_an_approval_build_a_gated_pipeline() -> None:
    text = ("Automate our newsletter, with human approval before anything goes out.\n\n"
            "1. **Collect** Fetches the week's posts from the feed.\n"
            "2. **Pick** Chooses the five most read posts.\n"
            "3. **Draft** Writes a short summary of each.\n"
            "4. **Approval** Sends the draft to the editor for approval.\n")
    spec = compile_request(text).spec
    assert spec.pattern == "prompt_chaining" and len(spec.agents) == 4
    # Steps a human does are the gate's, not agents': no pipeline of two.
    text2 = ("Posts need human approval before publishing.\n\n1. AI writes the post\n"
             "2. AI submits it for approval\n3. Human reviews it\n4. Human approves or rejects\n")
    assert compile_request(text2).spec.pattern == "human_gate"


def test_work_named_in_series_after_the_system_is_a_pipeline() -> None:
    a = analyse("An agent system for invoice scanning, amount validation, and ledger posting.")
    assert a.series == ("invoice scanning", "amount validation", "ledger posting")
    spec = compile_request("This workflow automates the process of collecting reviews, "
                           "scoring their sentiment, and mailing a weekly digest.").spec
    assert spec.pattern == "prompt_chaining" and len(spec.agents) == 3
    # Departments are no series of work.
    assert analyse("A multi-agent system for HR, finance and IT.").series == ()


def test_synthesizing_notes_into_a_post_is_writing_not_merging_workers() -> None:
    assert "orchestrator_workers" not in analyse(
        "The agent synthesizes the research into a blog post.").scores()
    assert "orchestrator_workers" in analyse(
        "A lead agent synthesizes the workers' findings.").scores()


def test_many_users_served_at_once_is_no_parallel_work() -> None:
    for text in ("El bot gestiona sesiones individuales, permitiendo que varios usuarios "
                 "interactúen simultáneamente sin pérdida de contexto.",
                 "An assistant that handles many conversations concurrently.",
                 "Support for concurrent users and sessions.",
                 "Бот поддерживает одновременно тысячи пользователей."):
        assert "parallel_sectioning" not in analyse(text).scores(), text
    # agents that work at once still do
    for text in ("The billing agent and the technical agent check the customers in parallel.",
                 "Three agents research the topic in parallel for the users."):
        assert "parallel_sectioning" in analyse(text).scores(), text


def test_dynamically_says_how_work_is_done_not_who_leads() -> None:
    text = ("An adaptive AI-powered tutoring system that evaluates learner understanding, "
            "dynamically generates questions, scores answers and reteaches weak concepts.")
    assert analyse(text).scores().get("orchestrator_workers", 0) < 1.0


def test_headings_that_number_phases_are_the_work_in_series() -> None:
    text = "Ce projet est structuré en 4 phases distinctes.\n\n" + "".join(
        f"### Phase {i}: {title}\n\n- **Objectif**: {goal}\n\n" for i, (title, goal) in
        enumerate([("Gestion des Disponibilités", "Consolider les créneaux disponibles"),
                   ("Génération des Emails", "Générer des emails personnalisés"),
                   ("Traitement des Réponses", "Analyser les réponses"),
                   ("Suivi Post-Concert", "Envoyer des emails de remerciement")], start=1))
    a = analyse(text)
    assert len(a.numbered) == 4 and a.numbered[1].startswith("génération")
    spec = compile_request(text).spec
    assert spec.pattern == "prompt_chaining" and len(spec.agents) == 4


def test_work_from_the_first_stage_to_the_last_is_a_series_in_japanese_and_chinese() -> None:
    text = "お問い合わせの受付からAI回答案生成、Slack通知、kintone記録までの自動化システム。"
    assert len(analyse(text).series) == 4
    assert compile_request(text).spec.pattern == "prompt_chaining"
    assert analyse("一个从收集数据、清洗、分析到生成报告的智能体系统。").series == (
        "收集数据", "清洗", "分析", "生成报告")
    assert analyse("从北京到上海的旅行助手。").series == ()  # a trip, not work in series


@pytest.mark.parametrize(("text", "gated"), [
    ("If the refund should proceed, it presents its rationale to the human operative for "
     "approval. Once approved, the agent executes the refund.", True),
    ("The agent decides if it can auto-reply or needs your input.", True),
    ("Emails are labelled 'Agent Pending' when your decision is required.", True),
    ("An agent that answers questions about our approval policy for expenses.", False),
])
def test_approval_asked_of_the_operator_is_a_human_gate(text: str, gated: bool) -> None:
    assert ("human_gate" in analyse(text).scores()) is gated


@pytest.mark.parametrize(("text", "pattern"), [
    # an orchestration whose object is a fixed order is that order
    ("The system orchestrates a sequential triage protocol between three agents: a risk "
     "analyst audits the stock, a procurement specialist picks suppliers and an operations "
     "director writes the summary.", "prompt_chaining"),
    # the team the result goes to is people, not a team of agents
    ("When a pod crashes, it grabs the error logs, explains why it crashed and sends the "
     "explanation directly to your team.", "single_agent"),
])
def test_words_that_name_the_audience_or_the_order_name_no_lead(
        text: str, pattern: str) -> None:
    assert _pattern(text) == pattern


def test_the_named_role_that_manages_the_workflow_is_the_supervisor() -> None:
    spec = compile_request(
        "A supervisor system that coordinates a translator agent and a proofreader agent to "
        "localise product pages. The editor agent manages the workflow, calling the "
        "translator to draft each page and the proofreader to check it."
    ).spec
    assert spec.pattern == "supervisor"
    assert spec.entry == "editor" and len(spec.agents) == 3


def test_one_agents_duties_in_series_and_a_move_to_a_channel_are_one_agent() -> None:
    one = ("This agent watches a Slack help channel, reads incoming questions, asks follow-up "
           "questions when needed, and routes each question to the correct internal channel.")
    assert _pattern(one) == "single_agent"
    assert analyse(one).series == ()
    # the work of a system in series is still a pipeline
    many = ("A multi-agent system for code review. This system detects bugs, suggests "
            "improvements, and generates unit tests using specialized agents.")
    assert len(analyse(many).series) == 3


def test_a_routing_that_names_no_specialist_is_one_specialist_and_a_generalist() -> None:
    spec = compile_request("Our help desk assistant reads each new support ticket, drafts a "
                           "reply from the knowledge base, answers simple tickets itself and "
                           "routes the rest to the right specialist.").spec
    assert spec.pattern == "routing" and len(spec.agents) == 3
    generalist = next(a for a in spec.agents if a.name == "generalist")
    assert len(generalist.tool_names()) >= 5  # the default route serves every area


def test_a_hands_on_manager_title_does_not_lead_the_team() -> None:
    spec = compile_request("A crew with a Product Manager who writes the requirements, a "
                           "Developer who writes the code and a QA Engineer who tests it.").spec
    assert spec.pattern == "prompt_chaining"
    assert [a.name for a in spec.agents] == ["product_manager", "developer", "qa_engineer"]
    # a manager whose duty leads still leads
    lead = compile_request("A project manager agent coordinates a designer and a developer.")
    assert lead.spec.pattern == "orchestrator_workers" and lead.spec.entry == "project_manager"
