"""Roles read from the forms people write them in: code names, shared plurals, headings and
list items among other roles, acronyms and persona names, and prose that names no role."""

from __future__ import annotations

import pytest

from a4a.generator.analysis import analyse
from a4a.generator.pipeline import compile_request


def _roles(text: str) -> list[str]:
    return [r.name for r in analyse(text).roles]


def _agents(text: str) -> list[str]:
    return [a.name for a in compile_request(text).spec.agents]


def test_a_code_name_between_backticks_is_a_role_with_its_duty() -> None:
    a = analyse("1. `planner_agent` comes up with a plan of search queries.\n"
                "2. We run a `search_agent` for each query.\n"
                "3. Finally, the `writer_agent` receives the summaries and writes a report.")
    assert [r.name for r in a.roles] == ["planner", "search", "writer"]
    assert a.roles[0].duty.startswith("comes up with a plan")
    assert a.roles[2].duty.startswith("receives the summaries")
    # A table's cells are one role each, not a second one from the code name.
    assert _roles("| Agent | ID | Role |\n|---|---|---|\n| Editor | `copy-editor` | Edits |\n"
                  "| Checker | `fact-checker` | Checks facts |") == ["editor", "checker"]


def test_two_roles_may_share_one_plural_agents() -> None:
    assert _roles("Autonomous store and supplier agents coordinating through messages.") == [
        "store", "supplier"]
    assert _roles("It uses four cooperating agents to plan the trip.") == []


def test_words_before_agent_name_it_only_after_the_last_function_word() -> None:
    assert _roles("It runs a translation agent multiple times in parallel.") == ["translation"]
    assert _roles("An 8-round debate (4 arguments per agent).") == []
    assert _roles("If you ask one agent a question it may agree with you.") == []
    assert "right_expert" not in _roles("It routes the question to the right expert agent.")
    assert _roles("Get answers from an AI-powered multi-agent assistant.") == []


def test_padded_workers_are_named_after_the_one_role_or_the_counted_noun() -> None:
    names = _agents("It runs a translation agent multiple times in parallel, and then picks "
                    "the best translation.")
    assert [n for n in names if n.startswith("translation_")] == [
        "translation_1", "translation_2", "translation_3"]


def test_a_heading_between_role_headings_is_a_member_of_the_team() -> None:
    text = ("Each agent has a role:\n\n### Recipe Suggester\n- Suggests recipes\n\n"
            "### Food Inventory\n- Tracks available ingredients\n\n### Grocery List Builder\n"
            "- Creates shopping lists\n\n### Installation\n- pip install it")
    assert _roles(text) == ["recipe_suggester", "food_inventory", "grocery_list_builder"]


def test_a_list_item_among_agents_is_one_when_its_duty_reads_like_theirs() -> None:
    text = ("- **Intake Agent**: Reads the claim\n- **Fraud Scoring**: Scores the claim\n"
            "- **Payout Agent**: Pays the claim\n- **Loop**: Repeats until done")
    assert _roles(text) == ["intake", "fraud_scoring", "payout"]
    # The parent item of a nested list and a step list under roles are no members.
    assert _roles("- **Multi-Agent Analysis System**\n- **Search Agent**: Finds homes\n"
                  "- **Market Analyst**: Reads trends\n- **Valuation Agent**: Values homes\n"
                  "- **Sequential Manual Execution**:\n- Direct data flow") == [
        "search", "market_analyst", "valuation"]


def test_an_acronym_and_a_persona_name_keep_the_role_title() -> None:
    assert "it_setup_coordinator" in _roles(
        "| Agent | Handles |\n|---|---|\n| **Classifier** | Routes requests |\n"
        "| **IT Setup Coordinator** | Laptops, VPN |")
    assert _roles("1. **UX Designer (Alice)**:\n   - Focus: usability\n"
                  "2. **Tech Lead (Bob)**:\n   - Focus: performance") == ["ux_designer",
                                                                         "tech_lead"]


def test_a_named_main_agent_leads_and_peers_that_talk_to_each_other_chat() -> None:
    spec = compile_request("### Recipe Suggester\n- This will be the main agent\n"
                           "### Dietary Advisor\n- Advises on diets\n"
                           "### Grocery List Builder\n- Builds lists").spec
    assert spec.pattern == "orchestrator_workers" and spec.agents[0].name == "recipe_suggester"
    assert len(spec.agents) == 3
    chat = compile_request("Autonomous store and supplier agents coordinating through "
                           "message-passing.").spec
    assert chat.pattern == "group_chat"


def test_an_english_list_after_a_word_for_agents_names_its_items() -> None:
    assert _roles("- Two professional agents (Scientist and Philosopher) debating a topic") == [
        "scientist", "philosopher"]
    assert _roles("- Supervisor + Sub-agents: Collector + Analyst; Supervisor compiles "
                  "report.") == ["supervisor", "collector", "analyst"]
    assert _roles("AI agents specialize in different domains (e.g. HR policy, Finance).") == [
        "hr_policy", "finance"]
    assert _roles("It uses agents (LLM-based, tool-using) for the work.") == []


def test_the_named_role_whose_duty_routes_is_the_router_wherever_it_stands() -> None:
    spec = compile_request(
        "AI agents specialize in different domains (e.g. HR policy, Finance).\n"
        "- A **Team Leader Agent** intelligently routes the user's question to the right "
        "expert agent.").spec
    assert spec.pattern == "routing" and spec.agents[0].name == "team_leader"
    assert [a.name for a in spec.agents] == ["team_leader", "hr_policy", "finance"]


def test_one_agent_another_agent_a_third_agent_are_named_after_their_duties() -> None:
    a = analyse("Build a team where one agent researches the topic, another agent writes the "
                "draft, and a third agent reviews it.")
    assert [(r.name, r.duty) for r in a.roles] == [
        ("researcher", "researches the topic"), ("writer", "writes the draft"),
        ("reviewer", "reviews it")]
    assert _roles("One agent checks if details are complete, another estimates the amount, "
                  "and one checks for duplicates.") == ["details_checker", "estimator",
                                                        "duplicates_checker"]
    assert _roles("Use one agent that plans the trip and one that books it.") == ["planner",
                                                                                   "booker"]
    assert _roles("If you ask one agent a question, it agrees.") == []


def test_inline_english_forms_name_roles() -> None:
    assert _roles("We have Researcher, Writer and Editor agents.") == [
        "researcher", "writer", "editor"]
    a = analyse("Agent 1 (Researcher) gathers sources, Agent 2 (Writer) drafts the article, "
                "and Agent 3 (Editor) polishes it.")
    assert [(r.name, r.duty) for r in a.roles] == [
        ("researcher", "gathers sources"), ("writer", "drafts the article"),
        ("editor", "polishes it")]
    a = analyse("The team: Planner (breaks down tasks), Coder (writes code), Reviewer (checks "
                "the code).")
    assert [(r.name, r.duty) for r in a.roles] == [
        ("planner", "breaks down tasks"), ("coder", "writes code"),
        ("reviewer", "checks the code")]
    assert _roles("It uses GPT-4 (the model), Python (the language) and Docker (optional).") == []


def test_agents_for_areas_of_work_are_one_agent_per_area() -> None:
    assert _roles("A multi-agent system for customer service with agents for orders, returns "
                  "and billing.") == ["orders", "returns", "billing"]


def test_peers_that_negotiate_chat_and_a_named_orchestrator_keeps_its_name() -> None:
    spec = compile_request("Build an app where two AI agents negotiate the price of a used "
                           "car.").spec
    assert spec.pattern == "group_chat" and len(spec.agents) == 3
    assert _agents("An orchestrator that delegates coding tasks to sub-agents.")[0] == (
        "orchestrator")


def test_lists_after_roles_members_or_a_counted_plural_name_their_items() -> None:
    assert _roles("Roles: Product Manager, Architect, Engineer, QA Engineer.") == [
        "product_manager", "architect", "engineer", "qa_engineer"]
    assert _roles("We built two agents, a buyer and a seller, that negotiate prices.") == [
        "buyer", "seller"]
    assert _roles("Supervisor agent + 3 worker agents (search, code, math).") == [
        "supervisor", "search", "code", "math"]
    assert _roles("It uses agents, the core of the system, to work.") == []


def test_a_named_reviewer_that_already_loops_gets_no_second_reviewer() -> None:
    assert _agents("The Planner Agent creates a plan. The Executor Agent follows it. The "
                   "Reviewer Agent checks the result.") == [
        "planner_agent", "executor_agent", "reviewer_agent"]


def test_latin_names_in_series_before_a_cjk_word_for_agents() -> None:
    assert _roles("Planner、Coder、Reviewerエージェントでアプリを作る") == [
        "planner", "coder", "reviewer"]
    assert _roles("用Planner，Coder和Reviewer智能体协作开发应用") == [
        "planner", "coder", "reviewer"]
    # Words that are no names are no roles.
    assert _roles("the data, the code、the rest エージェント") == []


def test_a_list_item_with_a_cjk_duty_between_roles_is_one() -> None:
    text = ("以下のエージェントで構成されています:\n"
            "1. **News Analyzer** - ニュースから驚きを発掘\n"
            "2. **Quality Guardian** - 品質をチェックする\n"
            "3. **Script Writer** - 台本の初稿を執筆")
    assert [r.title for r in analyse(text).roles] == [
        "news analyzer", "quality guardian", "script writer"]


def test_a_function_that_makes_agents_is_no_role() -> None:
    text = ("`create_react_agent` で2つのエージェントを作成します。"
            "検索は `researcher` エージェントに、作図は `python_executor` エージェントに任せます。")
    assert _roles(text) == ["researcher", "python_executor"]


def test_a_numbered_agent_names_its_role_in_brackets() -> None:
    text = ("A multi-agent debate system for design problems.\n"
            "├── Agent 1 (Architect): Proposes token bucket algorithm\n"
            "├── Agent 2 (Security): Proposes Redis-based distributed solution\n"
            "└── Agent 3 (Performance): Proposes in-memory solution with sync")
    assert _roles(text) == ["architect", "security", "performance"]
    built = compile_request(text).spec
    assert built.pattern == "debate"
    assert {"architect", "security", "performance"} <= {a.name for a in built.agents}


def test_a_role_cards_fields_describe_that_role_and_name_no_other() -> None:
    text = ("Полная документация мультиагентной системы, где каждый агент является экспертом в "
            "своей области. Система автоматически выбирает подходящего агента на основе типа "
            "задачи. Маршрутизация сложных задач выполняется автоматически.\n\n"
            "### 1. Orchestrator Agent\n\n**Роль**: Главный координатор и "
            "маршрутизатор задач.\n\nCoder Agent пишет код.\nDebug Agent ищет ошибки.")
    assert _roles(text) == ["orchestrator", "coder", "debug"]
    built = compile_request(text).spec
    assert built.pattern == "routing"  # the named lead routes: no second router
    assert [a.name for a in built.agents] == ["orchestrator_agent", "coder", "debug"]


def test_a_multi_agent_system_in_another_language_is_never_one_agent() -> None:
    pt = ("Este projeto cria um sistema multiagente com CrewAI para gerar artigos de no mínimo "
          "300 palavras a partir de um tema, com base em informações da API da Wikipedia.")
    built = compile_request(pt).spec
    assert built.pattern == "prompt_chaining" and 2 <= len(built.agents) <= 3
    # A team with no written work to produce keeps its lead.
    assert compile_request("a team that triages GitHub issues").spec.pattern == (
        "orchestrator_workers")


def test_numbered_steps_are_named_after_their_titles_in_any_language() -> None:
    text = ("週末プランニングは、以下のステップを順番に進めるマルチエージェント構成です：\n\n"
            "1. 天気調査: 週末の予報を確認し、持ち物を助言\n"
            "2. カレンダー分析: 直近の外出傾向を読み解く\n"
            "3. 交通計画: 移動手段と所要時間を整理")
    assert _agents(text) == ["weather_research", "calendar_analysis", "transport_planning"]


def test_agent_nouns_of_a_drawn_diagram_stay_on_their_line() -> None:
    text = ("Aristóteles es un sistema multiagente de apoyo a decisiones.\n\n"
            "Usuario\n  ├── Documentos ──► Document Agent ──► Corpus RAG\n"
            "  └── Solicitud ───► Planner Agent\n          Research Agent    Comparison Agent\n"
            "                   Decision Agent\n")
    assert _roles(text) == ["document", "planner", "research", "comparison", "decision"]


def test_one_named_agent_names_the_single_agent() -> None:
    assert _agents("An email assistant that drafts replies to my inbox.") == ["email_assistant"]


def test_a_single_agent_said_in_so_many_words_stays_one_with_its_gate() -> None:
    built = compile_request(
        "Build a LangGraph workflow with a single Pydantic AI agent that manages email "
        "operations with human-in-the-loop approval for sending emails.\n\nState Flow: Input "
        "→ Agent Processing → Human Approval Node → Send Execution → Final Response").spec
    assert built.pattern == "human_gate" and len(built.agents) <= 2


def test_a_named_role_that_sends_work_back_closes_the_loop_itself() -> None:
    built = compile_request(
        "A conversation between two agents.\n\n1. **CopyWriter**: This agent is tasked with "
        "refining copy based on user input.\n2. **ArtDirector**: This agent reviews the copy "
        "provided by the CopyWriter and gives approval or feedback for further refinement.").spec
    assert built.pattern == "evaluator_optimizer"
    assert [a.name for a in built.agents] == ["copy_writer", "art_director"]
    assert any(e.source == "art_director" and e.kind == "loop" for e in built.edges)


def test_a_lead_named_in_another_language_leads_without_a_second_orchestrator() -> None:
    text = ("Un système multi-agents pour la réception d'hôtel.\n\n"
            "- **Agent Principal** : Coordonne tous les autres agents\n"
            "- **Agent de Réservation** : Gère les réservations des chambres\n"
            "- **Agent Météo** : Fournit des informations météorologiques")
    names = _agents(text)
    assert names[0] == "principal" and "orchestrator" not in names and len(names) == 3


def test_kinds_of_agents_in_the_plural_and_job_titles_are_roles() -> None:
    assert _roles("Retailer-Agenten und Supplier-Agenten handeln autonom über Preis und "
                  "Menge.") == ["retailer", "supplier"]
    assert _roles("The supervisor orchestrates worker agents.") == ["supervisor"]
    assert _roles("1. **Product Owner** - Schreibt die Anforderungen\n2. **Developer** - "
                  "Programmiert den Code\n3. **QA Engineer** - Findet Bugs") == [
        "product_owner", "developer", "qa_engineer"]


def test_plural_agents_in_another_language_are_a_team_not_one_agent() -> None:
    ru = ("Система технического собеседования с использованием нескольких AI-агентов. Агенты "
          "взаимодействуют между собой перед тем как задать следующий вопрос.")
    built = compile_request(ru).spec
    assert built.pattern == "group_chat" and len(built.agents) >= 2


def test_a_swarm_of_named_peers_needs_no_front_desk_and_one_word_is_one_role() -> None:
    text = ("A swarm where specialized agents hand off to each other.\n\n"
            "#### Search Agent\n- Executes property searches\n- **Transfers to**: Property Agent\n"
            "#### Property Agent\n- Analyzes property information\n"
            "#### Scheduling Agent\n- Manages visit scheduling\n")
    built = compile_request(text).spec
    assert built.pattern == "handoff"
    assert [a.name for a in built.agents] == ["search", "property", "scheduling"]
    es = ("El sistema usa agentes especializados coordinados por un orquestador inteligente.\n\n"
          "Orquestador (analiza y decide)\n   ├→ Reservas Agent (crear/cancelar reservas)\n"
          "   └→ Info Agent (horarios/general)\n- Orquestador analiza consultas")
    assert len(compile_request(es).spec.agents) == 3


def test_the_last_item_of_a_role_list_and_workers_named_in_brackets_are_roles() -> None:
    text = ("- **Field Extraction Agent**: Extracts data from receipts\n"
            "- **Policy Validation Agent**: Checks expenses against policies\n"
            "- **Audit & Reporting**: Generates audit reports")
    assert _roles(text)[-1] == "audit_reporting"
    assert _roles("It uses a Planner and several specialized workers (categorizer, summary "
                  "builder, forecast generator).")[-3:] == [
        "categorizer", "summary_builder", "forecast_generator"]


def test_two_kinds_of_agents_sharing_one_plural_are_two_roles() -> None:
    assert _roles("A central supervisor coordinates specialized calendar and email "
                  "agents.") == ["supervisor", "calendar", "email"]
    assert _roles("Other or later agents wait their turn.") == []


def test_agents_for_areas_of_several_words_name_one_agent_each() -> None:
    text = ("The system uses decentralized agent orchestration. It leverages modular agents "
            "for triaging, tracking, login management, order management, and returns.")
    assert [r.name for r in analyse(text).roles] == [
        "triaging", "tracking", "login_management", "order_management", "returns"]
    # "agent" modifying the system's parts names no agent; an agent's workflow still does.
    assert [r.name for r in analyse("A content creator agent workflow that repurposes my "
                                    "posts.").roles] == ["content_creator"]


def test_agent_as_a_modifier_of_handoffs_and_applications_names_no_agent() -> None:
    text = ("A supervisor agent orchestrates multiple specialized agents.\n"
            "- Tool-based agent handoff mechanism for communication between agents.\n"
            "Built on a framework for building agent applications.")
    assert [r.name for r in analyse(text).roles] == ["supervisor"]


def test_orchestrator_and_supervisor_keep_their_own_names_in_other_languages() -> None:
    assert [r.name for r in analyse("Orquestador (analiza y decide)\n"
                                    "   ├→ Reservas Agent (crear reservas)\n"
                                    "   └→ Info Agent (horarios)").roles][:1] == ["orchestrator"]
    assert "supervisor" in [r.name for r in analyse(
        "Le superviseur reçoit la question et choisit un agent spécialisé : "
        "ProfilingAgent, SegmentationAgent.").roles]


def test_a_counted_list_of_agents_adds_the_ones_its_headings_leave_out() -> None:
    text = ("A system that processes patient cases through three specialized agents: "
            "**Intake**, **Diagnosis Reasoning**, and **Care Plan Generation**.\n\n"
            "**Intake Agent** — Retrieves patient records into a summary.\n\n"
            "**Diagnosis Agent** — Searches medical literature for an assessment.")
    names = _roles(text)
    assert len(names) == 3 and names[-1] == "care_plan_generation", names
    # Headings that describe every listed agent keep their own fuller names.
    personas = ("A roundtable between expert personas (UX, Tech, Business).\n"
                "1. **UX Designer (Alice)**: user experience.\n"
                "2. **Tech Lead (Bob)**: performance.\n"
                "3. **Project Manager (Charlie)**: scope.")
    assert _roles(personas) == ["ux_designer", "tech_lead", "project_manager"]


def test_agent_nouns_after_a_preposition_of_another_language_and_non_person_specialties() -> None:
    assert _roles("**Zweck:** Koordination von Browser-Agent, Search-Agent, Scoring-Agent, "
                  "Extraction-Agent")[:2] == ["browser", "search"]
    assert _roles("A travel agent books the flights, a weather agent checks the forecast.") == [
        "travel", "weather"]
    assert _roles("Each answer goes on to the other agent.") == []


def test_a_list_between_dashes_names_the_agents_and_each_opens_its_duty() -> None:
    a = analyse("A five-agent system built on Elastic Agent Builder. The commander agent routes "
                "the event through four specialist agents — Triage, Diagnosis, and Remediation "
                "— that work in sequence. Triage correlates related alerts. Diagnosis performs "
                "root-cause analysis using logs.")
    roles = {r.name: r.duty for r in a.roles}
    assert list(roles) == ["commander", "triage", "diagnosis", "remediation"], roles
    assert roles["triage"] == "correlates related alerts"
    assert roles["diagnosis"].startswith("performs root-cause analysis")
    assert roles["remediation"] == ""  # no sentence opens with it


def test_a_table_s_last_column_names_the_role_when_the_first_holds_a_tier() -> None:
    assert _roles("| Role | Team Role |\n|------|-----------|\n| Chair | Creative Director |\n"
                  "| Operative | Copywriter |\n| Operative | Media Planner |") == [
        "creative_director", "copywriter", "media_planner"]


def test_a_list_under_a_line_that_counts_its_agents_is_all_roles() -> None:
    text = ("Agents for campaign generation.\n\n3 specialized agents (reduced from 5):\n"
            "    - Researcher: Web search, competitor analysis\n"
            "    - Visual: Image generation, art direction\n"
            "    - Critic: Quality review, brand validation\n")
    assert _roles(text) == ["researcher", "visual", "critic"]
    # A count that does not match the items says nothing about them.
    assert "visual" not in _roles(text.replace("3 specialized", "4 specialized"))


def test_a_graph_s_edges_name_its_nodes_and_branches_are_no_chain() -> None:
    text = ("The system is modeled as a state machine:\n\n"
            "1. **START** → **Supervisor**: Analyzes the query.\n"
            "2. **Supervisor** → **Information Node**: If the user asks when a doctor is free.\n"
            "3. **Supervisor** → **Booking Node**: If the user asks to book an appointment.\n"
            "4. **Supervisor** → **END**: When the query is resolved.")
    a = analyse(text)
    assert [(r.name, r.duty) for r in a.roles] == [
        ("supervisor", "analyzes the query"), ("information_node", ""), ("booking_node", "")]
    assert "prompt_chaining" not in a.scores()
    # One edge after another is a chain still.
    chain = analyse("1. **Researcher** → **Writer**: drafts.\n2. **Writer** → **Editor**: edits.")
    assert [r.name for r in chain.roles] == ["researcher", "writer", "editor"]


def test_where_a_chain_of_agents_ends_is_no_agent() -> None:
    assert _roles("- **Arquitetura**: Agente Buscador → Agente Redator → Resposta final") == [
        "agente_buscador", "agente_redator"]
    assert _roles("Flow: Researcher → Writer → Final answer") == ["researcher", "writer"]


def test_one_searches_one_analyzes_one_writes_names_three_agents_in_order() -> None:
    a = analyse("A team of AI agents that collaborate to research any topic - one searches, "
                "one analyzes, one writes.")
    assert [(r.name, r.duty) for r in a.roles] == [
        ("searcher", "searches"), ("analyst", "analyzes"), ("writer", "writes")]
    assert max(a.scores(), key=a.scores().get) == "prompt_chaining"
    # A lone "one" with a verb is no series.
    assert _roles("The system has one goal and one writes nothing.") == []


def test_a_file_tree_line_names_its_agent_and_its_comment_the_duty() -> None:
    text = ("│   ├── analyzer.py        # NLU analysis agent (LLM)\n"
            "│   ├── summarizer.py      # Text summarization agent (LLM)\n"
            "│   ├── router.py          # Routing agent (rules)\n")
    a = analyse(text)
    assert [r.name for r in a.roles] == ["analyzer", "summarizer", "router"]
    assert a.roles[0].duty.startswith("nlu analysis agent")


def test_an_english_title_in_a_chinese_readme_keeps_its_name_and_a_group_names_its_members(
        ) -> None:
    text = ("采用层级化多智能体架构：\n"
            "*   **Gateway Agent**: 流量入口，负责会话管理及路由。\n"
            "*   **Manager Agent**: 业务总控，负责意图识别、任务拆解及子智能体调度。\n"
            "*   **Domain Sub-Agents**: 专职子智能体（Order Agent, Product Agent），"
            "专注于特定领域业务。\n")
    assert _roles(text) == ["gateway", "manager", "order", "product"]


def test_a_tree_keeps_its_top_level_agents_before_their_sub_agents() -> None:
    top = ["Research", "CodeAnalysis", "BugDetection", "SecurityAnalysis", "TestGeneration",
           "CodeGeneration", "Documentation"]
    lines = ["OrchestratorAgent (Coordinates all agents)", "│"]
    for k, name in enumerate(top, 1):
        lines.append(f"├── {k}. {name}Agent (a command - 4 sub-agents in parallel)")
        lines += [f"│   ├── {name}Checker{j} - checks one thing" for j in range(1, 3)]
    names = _roles("\n".join(lines))
    assert names == ["orchestrator", "research", "code_analysis", "bug_detection",
                     "security_analysis", "test_generation", "code_generation", "documentation"]


def test_an_english_job_title_in_a_german_table_keeps_its_english_name() -> None:
    text = ("Ein KI-gestütztes Team-System für Website-Entwicklung und Marketing.\n\n"
            "## Marketing Team - Agenten\n\n| # | Agent | Datei | Expertise |\n"
            "|---|-------|-------|-----------|\n"
            "| 1 | Marketing Director | `01-marketing-director.md` | Strategie, KPIs, Planung |\n"
            "| 2 | Campaign Manager | `02-campaign-manager.md` | Paid Ads, Funnels |\n\n"
            "**Hinweis:** Diese Agenten ersetzen keine echte Rechtsberatung.\n")
    assert analyse(text).lang == "de"
    assert _roles(text)[:2] == ["marketing_director", "campaign_manager"]
    # A Spanish title is read in Spanish.
    assert _roles("**1. Agente Investigador**\n- Realiza búsquedas en la web\n\n"
                  "**2. Agente Redactor**\n- Produce un borrador del informe\n") == [
        "researcher", "writer"]


def test_each_agent_given_a_task_in_a_list_names_one_agent_per_task_in_order() -> None:
    a = analyse("A four-agent service where each agent handles one job: collecting receipts, "
                "checking totals, drafting the expense report and filing it.")
    assert [r.name for r in a.roles] == ["receipt_collector", "total_checker",
                                         "expense_report_drafter", "filer"]
    assert a.roles[1].duty == "checking totals"
    assert max(a.scores(), key=a.scores().get) == "prompt_chaining"
    # A list that is not all work done by agents names none.
    assert _roles("Each agent has a setting: temperature, model name and a budget.") == []


def test_a_table_headed_agent_names_every_row_even_unknown_words() -> None:
    text = ("| Agent | Rôle |\n|---|---|\n| **Research** | Recherche web |\n"
            "| **Feedback** | Retours des lecteurs |\n| **Memory** | Historique |")
    assert _roles(text) == ["research", "feedback", "memory"]
    # Without the heading, such words are no roles.
    assert _roles("| Step | What |\n|---|---|\n| Research | Web |\n| Memory | History |") == []


def test_a_heading_that_counts_the_agents_makes_each_item_under_it_one() -> None:
    text = ("## Agents (3)\n\n1. Release Manager\n\n- Goal: Plan the release window.\n\n"
            "2. Data Triage\n\n- Goal: Sort the failing jobs by cause.\n\n"
            "3. Docs Writer\n\n- Goal: Write the release notes.\n")
    assert _roles(text) == ["release_manager", "data_triage", "docs_writer"]
    # a count that disagrees with the items leaves the item that reads as no role out
    assert "data_triage" not in _roles(text.replace("(3)", "(4)"))


def test_an_agent_given_sub_agents_of_its_own_is_the_system() -> None:
    roles = _roles("This example shows how you might compose a richer travel research agent "
                   "using the SDK, with specialized sub-agents and a check step.\n\n"
                   "1. **Flights**: A flight finder agent searches fares.\n"
                   "2. **Hotels**: A hotel scout agent compares rooms.")
    assert roles == ["flight_finder", "hotel_scout"]


def test_one_english_role_word_in_a_heading_of_another_language_names_the_role() -> None:
    text = ("Система из двух агентов:\n\n1. **research_agent** — ищет данные о компании.\n\n"
            "2. **math_agent** — проводит вычисления.\n\n"
            "Управляет ими **Supervisor**, который решает:\n\n"
            "* если запрос про факты → отправить к research_agent\n\n"
            "* **Supervisor** знает, кого когда вызвать")
    names = _roles(text)
    assert sum("supervisor" in n for n in names) == 1, names


# Who leads a team, and so its shape, comes from the named roles' duties before their titles.
_DUTY_BEFORE_TITLE = [
    # the role whose duty coordinates leads over a lead by title only
    ("An incident team of agents:\n- Comms Lead: drafts the stakeholder updates.\n- Incident "
     "Commander: coordinates the response and makes the final decisions.\n- Log Analyst: reads "
     "the logs and finds the cause.", "orchestrator_workers", "incident_commander"),
    # with no duty that leads, the title still decides
    ("An incident team of agents:\n- Comms Lead: drafts the updates.\n- Log Analyst: reads the "
     "logs.\n- Fixer: patches the service.", "orchestrator_workers", "comms_lead"),
    # a router by title whose duty sends nothing on is a pipeline's first stage
    ("Three agents:\n- **Intake Agent** - collects the applicant's documents and summarises "
     "them.\n- **Checker Agent** - checks the summary against the rules.\n- **Letter Agent** - "
     "writes the decision letter.", "prompt_chaining", "intake"),
    # ... and one whose duty routes still routes
    ("Three agents:\n- **Intake Agent** - routes each ticket to billing or to tech support.\n"
     "- **Billing Agent** - answers invoice questions.\n- **Tech Agent** - fixes login "
     "problems.", "routing", "intake"),
]


@pytest.mark.parametrize("text, pattern, entry", _DUTY_BEFORE_TITLE)
def test_the_duty_of_a_named_role_decides_before_its_title(text: str, pattern: str,
                                                           entry: str) -> None:
    spec = compile_request(text).spec
    assert (spec.pattern, spec.entry) == (pattern, entry)


@pytest.mark.parametrize(("text", "roles"), [
    ("Der Orchestrator entscheidet, welcher Agent wann arbeitet, und bricht bei Blockern ab.",
     ["orchestrator"]),
    ("Le coordinateur choisit quel agent répond et quand.", ["coordinator"]),
])
def test_which_agent_in_another_language_names_no_role(text: str, roles: list[str]) -> None:
    assert _roles(text) == roles


def test_an_agent_said_to_be_another_kind_of_agent_is_one_role() -> None:
    assert _roles("The Docs Agent answers questions about the manual.\n\nThe Docs Agent is a "
                  "retrieval agent designed to search the manual and quote it.") == ["docs"]


def test_list_items_that_differ_by_a_rank_are_two_roles() -> None:
    assert _roles("A crew writes the weekly digest.\n\nAgents:\n1. Analyst\n2. Lead analyst\n"
                  "3. Writer\n4. Senior writer\n") == [
        "analyst", "lead_analyst", "writer", "senior_writer"]


def test_a_teammate_is_an_agent_word_and_two_named_roles_together_name_no_third() -> None:
    from a4a.generator.analysis import _merge
    from a4a.generator.naming import read_title
    from a4a.generator.rolewords import Role

    assert read_title("teammate「designer」").name == "designer"
    listed = [Role(n, n, "", "header", k) for k, n in enumerate(("researcher", "designer",
                                                                  "writer"))]
    flow = [Role("designer_writer", "designer + writer", "", "header", 10)]
    assert [r.name for r in _merge([listed, flow])] == ["researcher", "designer", "writer"]


def test_a_title_whose_duty_says_it_is_an_agent_is_a_role() -> None:
    text = ("Key parts\n\nClassifier Agent: decides whether the visitor wants help or wants "
            "to buy.\n\nWeb Chat Bot: An agent focused on support questions.\n\n"
            "Lead Capture: A persuasive agent designed to collect the buyer's details.")
    assert _roles(text) == ["classifier", "web_chat_bot", "lead_capture"]
    # a duty that names its own agent keeps that name ("A planner agent ...")
    assert _roles("1. **Planning**: A planner agent lists the search terms.\n"
                  "2. **Writing**: A writer agent drafts the report.") == ["planner", "writer"]


def test_a_role_listed_twice_as_title_and_as_agent_is_one_agent() -> None:
    text = ("## Roles\n- **Researcher**: gathers the sources\n- **Writer**: drafts the article\n"
            "- **Reviewer**: checks the draft\n- **Coordinator**: assigns the work to the others\n"
            "## Implementation\n- **Researcher Agent**: calls the search API\n"
            "- **Writer Agent**: writes the markdown file\n- **Reviewer Agent**: scores the draft")
    built = compile_request(text)
    names = [a.name for a in built.spec.agents]
    assert len(names) == len(set(names)) == 4, names
    assert not [i.code for i in built.issues if i.severity == "error"]


def test_boxes_of_a_drawn_diagram_name_the_roles() -> None:
    text = ("A multi-agent travel planning system:\n\n"
            "┌─────────────────────────┐\n"
            "│   Travel Coordinator    │  <-- Main orchestrator\n"
            "│   (Root Agent)          │\n"
            "└───────────┬─────────────┘\n"
            "    ┌───────┴────────┬─────────────┬──────────────┐\n"
            "┌───▼────┐    ┌─────▼─────┐   ┌──▼──────┐   ┌──▼─────┐\n"
            "│ Flight │    │   Hotel   │   │Activity │   │ Tools  │\n"
            "│ Agent  │    │   Agent   │   │  Agent  │   │        │\n"
            "└────────┘    └───────────┘   └─────────┘   └────────┘\n\n"
            "The coordinator agent manages three specialized sub-agents.")
    assert [r.name for r in analyse(text).roles] == [
        "travel_coordinator", "flight", "hotel", "activity"]
    assert len(compile_request(text).spec.agents) == 4
    # boxes that hold no role (the user, a database) name none
    plain = ("┌────────────┐     ┌──────────┐\n"
             "│ User Query │ ──▶ │ Database │\n"
             "└────────────┘     └──────────┘\n")
    assert analyse(plain).roles == ()


def test_a_place_in_a_sequence_before_a_heading_is_not_its_title() -> None:
    text = ("Двух-агентная система для автоматизации GitHub workflow:\n\n"
            "### Part I: Issue Solver Agent\n1. **Worker** обрабатывает issues\n"
            "2. **Pull Request** создаёт PR с исправлениями\n\n"
            "### Part II: PR Review Agent\n1. **Review файлов** только изменённые файлы\n"
            "2. **GitHub Comment** сводка всех результатов review\n")
    assert _roles(text) == ["issue_solver", "pr_review"]
    assert _roles("A crew.\n\n### Step 1: Researcher\nFinds sources.\n\n"
                  "### Step 2: Writer\nWrites the post.") == ["researcher", "writer"]


@pytest.mark.parametrize("text", [
    "Three agents work in turn:\n* **🕵️‍♂️ Risk Analyst:** audits the bill of materials.\n"
    "* **🤝 Procurement Specialist:** scans the supplier database.\n"
    "* **👔 Operations Director:** reviews the findings and writes the summary.",
    "| Agent | Focus |\n|---|---|\n| 🚀 Risk Analyst | audits the bill of materials |\n"
    "| 💰 Procurement Specialist | scans the supplier database |\n"
    "| 🔒 Operations Director | reviews the findings |",
])
def test_pictographs_before_a_title_are_no_part_of_the_role(text: str) -> None:
    names = [r.name for r in analyse(text).roles]
    assert names == ["risk_analyst", "procurement_specialist", "operations_director"]


def test_a_step_then_the_role_that_takes_it_names_the_role() -> None:
    text = ("从需求到交付的开发流程：\n\nPhase 1: 需求分析 → Requirements Analyst\n"
            "Phase 2: 架构设计 → Architect\nPhase 3: 并行开发 → 3x Developer (parallel)\n"
            "Phase 4: 合并分支 → git merge\nPhase 5: 交付验证 → Code Review\n")
    roles = analyse(text).roles
    assert [(r.name, r.duty) for r in roles] == [
        ("requirements_analyst", "需求分析"), ("architect", "架构设计"), ("developer", "并行开发")]


def test_a_judge_named_in_prose_beside_a_list_of_roles_is_a_role() -> None:
    text = ("Three agents race to fix a slow query:\n\n- **Index Agent**: speed and indexes\n"
            "- **Cost Agent**: bytes scanned and compute\n- **Safety Agent**: injection risks\n\n"
            "A **Judge Agent** reviews all three reports and picks a winner.")
    names = [r.name for r in analyse(text).roles]
    assert "judge" in names and len(names) == 4


@pytest.mark.parametrize(("text", "names"), [
    ("Route customer questions to billing, technical or sales specialists.",
     ["billing_specialist", "technical_specialist", "sales_specialist"]),
    ("A team of research, writing and editing agents.", ["research", "writing", "editing"]),
    ("It keeps other, later and better agents out of the loop.", []),
])
def test_kinds_of_work_listed_before_a_plural_role_noun_are_roles(
        text: str, names: list[str]) -> None:
    assert [r.name for r in analyse(text).roles] == names


@pytest.mark.parametrize("text", [
    "The agents operate in a group chat. The chat concludes after the last agent has responded.",
    "The first agent drafts a reply and the next agent checks it.",
])
def test_a_place_in_the_turn_order_names_no_role(text: str) -> None:
    names = [r.name for r in analyse(text).roles]
    assert not {"last", "first", "next"} & set(names), names
