"""Roles, duties and cues read from requests in the seven other languages, ASCII role names,
duty clauses kept whole at parentheses, and the sense rules of stock and finance."""

from __future__ import annotations

import pytest

from a4a.generator.analysis import analyse, first_clause
from a4a.generator.naming import read_title, transliterate
from a4a.generator.pipeline import compile_request


def _roles(text: str) -> list[tuple[str, str]]:
    return [(r.name, r.duty) for r in analyse(text).roles]


def test_japanese_list_of_agents_gets_translated_names_and_duties() -> None:
    text = ("複数のAIエージェントが協調してタスクを実行します。\n"
            "- **議事録エージェント**: 文字起こしから議事録を生成\n"
            "- **タスク抽出エージェント**: 議事録からタスクを抽出\n"
            "- **検索エージェント**: ナレッジベースから情報を検索")
    assert _roles(text) == [("minutes", "文字起こしから議事録を生成"),
                            ("task_extraction", "議事録からタスクを抽出"),
                            ("search", "ナレッジベースから情報を検索")]
    assert len(compile_request(text).spec.agents) >= 3


def test_a_tree_of_roles_with_duties_in_parentheses() -> None:
    text = ("Команда:\n├─ Market Researcher (исследует рынок)\n├─ Content Writer (пишет тексты)\n"
            "└─ Analyst (анализирует результаты)\n\nКаждый агент — эксперт в своей области.")
    assert _roles(text) == [("market_researcher", "исследует рынок"),
                            ("content_writer", "пишет тексты"),
                            ("analyst", "анализирует результаты")]


def test_accented_bold_titles_name_the_role_class_last() -> None:
    text = ("Sistema de IA multiagente para relatórios.\n"
            "- **Pesquisador Científico:** busca e resume artigos recentes\n"
            "- **Analista de Dados:** faz análise crítica e estatística\n"
            "- **Revisor Ético:** valida aspectos de ética")
    assert _roles(text) == [("scientific_researcher", "busca e resume artigos recentes"),
                            ("data_analyst", "faz análise crítica e estatística"),
                            ("ethics_reviewer", "valida aspectos de ética")]


def test_headings_take_their_duty_from_the_line_below_and_bold_names_count() -> None:
    text = ("Le système automatise le support client.\n"
            "#### 1. Agent de Classification\n"
            "* **But** : Classifier les messages entrants.\n"
            "* Les résultats sont envoyés à l'**Agent RAG** pour l'enrichissement.\n"
            "#### 2. Agent d'Extraction\n"
            "* **But** : Extraire des informations du message.")
    assert _roles(text) == [("classification", "classifier les messages entrants"),
                            ("rag", ""), ("extraction", "extraire des informations du message")]


def test_table_rows_name_roles_with_the_last_cell_as_duty() -> None:
    text = ("Sistema de agentes colaborativos con CrewAI.\n\n"
            "| Agente | Rol | Responsabilidad |\n|--------|-----|-----------------|\n"
            "| **Researcher** | Investigador Senior | Busca información en la web |\n"
            "| **Writer** | Escritor Técnico | Genera un borrador en Markdown |")
    assert _roles(text) == [("researcher", "busca información en la web"),
                            ("writer", "genera un borrador en markdown")]


def test_a_list_after_a_word_for_agents_names_each_agent() -> None:
    text = ("Sistema de atendimento com múltiplos agentes especializados "
            "(Suporte, Vendas e Gerente).")
    assert [r.name for r in analyse(text).roles] == ["support", "sales", "coordinator"]


def test_chinese_and_japanese_role_nouns_match_longest_first() -> None:
    text = ("MetaGPT には、プロダクト マネージャー、アーキテクト、"
            "プロジェクト マネージャー、エンジニアが含まれています。")
    assert [r.name for r in analyse(text).roles] == [
        "product_manager", "architect", "project_manager", "developer"]
    zh = "通过主题专家、恶魔辩护人与合伙人三角色博弈，提炼核心论点。"
    assert [r.name for r in analyse(zh).roles] == ["expert", "critic", "partner"]


def test_function_words_and_plurals_never_name_a_role() -> None:
    text = ("Le pattern **Multi-Agents** permet de spécialiser chaque LLM.\n"
            "1. **Agent Rédacteur** : Écrit un premier brouillon.\n"
            "2. **Agent Critique** : Relit le brouillon.\n")
    assert [r.name for r in analyse(text).roles] == ["writer", "critic"]
    de = ("**Wenn ein Agent:**\n- Nicht weiterkommt\n"
          "### 1. Fördermittel-Verifizierungs-Agent\n**Aufgabe:** Fördersummen verifizieren\n"
          "### 2. Newsletter-Expert-Agent\n**Aufgabe:** Newsletter-System verwalten")
    assert _roles(de) == [("fordermittel_verifizierungs", "fördersummen verifizieren"),
                          ("newsletter_expert", "newsletter-system verwalten")]
    es = ("#### Agente de Calificación\n**Función:** Evaluar si el lead es viable\n"
          "**Criterios:**\n- Presupuesto aproximado\n- Autoridad de decisión (¿es el que decide?)")
    assert [r.name for r in analyse(es).roles] == ["calificacion"]  # "autoridad" is no author


def test_names_are_ascii_and_never_empty() -> None:
    assert transliterate("аналитик") == "analitik"
    assert read_title("Аналитик данных").name == "data_analyst"
    assert read_title("Стажёр-агент").name == "stazher"
    assert read_title("翻译智能体").name == "translator"
    for title in ("Аналитик данных", "Стажёр-агент", "Agente Investigador", "検索エージェント"):
        name = read_title(title).name
        assert name and name.isascii(), title


def test_duty_clauses_are_never_cut_inside_parentheses() -> None:
    rest = " over three workers (an order lookup agent, a refunds agent). Then it answers."
    assert first_clause(rest) == " over three workers (an order lookup agent, a refunds agent)"
    assert first_clause(" over workers (an order lookup agent. a refunds agent") == " over workers"
    a = analyse("A triage agent over three workers (an order lookup agent, a refunds agent and "
                "a billing agent). The triage agent answers.")
    assert all(r.duty.count("(") == r.duty.count(")") for r in a.roles)


def _tool_text(text: str) -> str:
    spec = compile_request(text).spec
    return " ".join(f"{t.name} {t.description}" for t in spec.tools).lower()


def test_stock_trading_and_financial_analysis_are_not_inventory_or_expenses() -> None:
    trading = _tool_text("Automated Trading Bot: Automates stock trading with real-time market "
                         "analysis.")
    assert not any(w in trading for w in ("warehouse", "stock level", "supplier"))
    team = _tool_text("A team of AI agents that work together as a financial analyst.\n"
                      "- Web Agent for general internet research\n"
                      "- Finance Agent for detailed financial analysis\n"
                      "- Real-time financial data access through YFinance")
    assert "expense" not in team and "reimburse" not in team


def test_items_of_one_list_stay_distinct_roles() -> None:
    text = ("Support agents:\n- AgentManager: Orchestrates all agents and handles routing\n"
            "- GeneralSupportAgent: Handles general customer queries\n"
            "- TechnicalSupportAgent: Specialized in technical issues\n"
            "- BillingSupportAgent: Handles payment and billing queries")
    assert [r.name for r in analyse(text).roles] == [
        "agent_manager", "support", "technical_support", "billing_support"]


def test_a_table_names_its_role_in_any_cell_before_the_duty() -> None:
    text = ("| Agent | ID | Role |\n|---|---|---|\n"
            "| Vigil | `risk-flagger` | Legal risk analysis and scoring |\n"
            "| Quill | `redline-drafter` | Redline generation |\n"
            "| **rca-investigator** | Root cause analysis | Deep investigation |")
    assert _roles(text) == [("risk_flagger", "legal risk analysis and scoring"),
                            ("redline_drafter", "redline generation"),
                            ("rca_investigator", "deep investigation")]


def test_one_noun_for_two_agents_names_both() -> None:
    a = analyse("A triage agent, which takes in user inputs and chooses whether to respond "
                "directly, or triage the request to a sales or refunds agent.")
    assert [r.name for r in a.roles] == ["triage", "sales", "refunds"]


def test_a_plain_item_names_a_role_only_when_short_and_numbers_are_no_part_of_names() -> None:
    text = ("**1. Agente Investigador**\n- Realiza búsquedas en la web\n"
            "**2. Agente Redactor**\n- Produce un borrador del informe\n"
            "**3. Agente Revisor**\n- Evalúa coherencia\n- Devuelve retroalimentación al redactor")
    a = analyse(text)
    assert [(r.name, r.title) for r in a.roles] == [
        ("researcher", "agente investigador"), ("writer", "agente redactor"),
        ("reviewer", "agente revisor")]
    assert "evaluator_optimizer" in a.scores()


def test_a_team_heading_is_no_role() -> None:
    assert not read_title("Analyst Team 并行分析").names_agent
    assert not read_title("Equipo de Investigadores").names_agent
    assert read_title("Trader Agent 综合").names_agent


def test_japanese_role_suffixes_and_chinese_reviewer_nouns_name_roles() -> None:
    from a4a.generator.analysis import analyse

    names = [r.name for r in analyse("このシステムは3つのエージェントで構成されます：企画担当、"
                                     "執筆担当、校正担当。").roles]
    assert names == ["planner", "writer", "reviewer"]
    assert [r.name for r in analyse("調査役、分析役、報告役が順番に作業します。").roles] == [
        "researcher", "analyst", "reporter"]
    assert "reviewer" in [r.name for r in analyse("写作者负责撰写，审稿人负责审核。").roles]


def test_workers_are_never_named_after_the_planner_that_splits_their_work() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("Ein Planer-Agent zerlegt die Aufgabe, dann führen drei "
                           "Worker-Agenten die Teilaufgaben parallel aus.").spec
    assert not any(a.name.startswith("planner_") for a in spec.agents)


def test_agents_titled_agent_name_in_romance_languages_are_roles_with_duties() -> None:
    text = ("Une équipe pour un hôtel : l'Agent Réception gère les réservations de chambres, "
            "l'Agent Météo répond aux questions des clients sur la météo, et l'Agent "
            "Conciergerie recommande des restaurants.")
    # Duties keep the request's own spelling: prompts quote them.
    assert _roles(text) == [("reception", "gère les réservations de chambres"),
                            ("weather", "répond aux questions des clients sur la météo"),
                            ("concierge", "recommande des restaurants")]
    # The next agent's title ends the duty before it; "de" links a name, never names one.
    assert _roles("O Agente Financeiro analisa as despesas e o Agente de Vendas acompanha os "
                  "leads.") == [("finance", "analisa as despesas e o"),
                                ("sales", "acompanha os leads")]
    # A lower-case "agente" is prose, not a title.
    assert _roles("Un agente de reservas que gestiona las reservas del hotel.") == []


def test_framework_names_are_ascii_words_of_the_request_in_any_language() -> None:
    names = {text: compile_request(text).spec.name for text in (
        "Une équipe d'agents pour un hôtel qui gère les réservations.",
        "Агент службы поддержки отвечает на обращения клиентов.",
        "一个管理日历和会议安排的助手",
        "ナレッジベースから回答するカスタマーサポートのエージェント")}
    assert list(names.values()) == ["equipe-hotel-gere-reservations",
                                    "sluzhby-support-otvechaet-obrashcheniya",
                                    "assistant-calendar", "knowledge-customer-service"]


def test_a_table_row_titled_in_two_languages_is_one_role_with_its_responsibility() -> None:
    text = ("| Агент | Зона ответственности | Инструменты | Не делает |\n"
            "|---|---|---|---|\n"
            "| **Менеджер командировок** - Supervisor | Диалог с пользователем, делегирование "
            "задач | - | Не ищет билеты сам |\n"
            "| **Поисковик билетов** - Flight Searcher | Поиск и сравнение авиа вариантов | "
            "`search_flights` | Не бронирует |\n"
            "| **Бронировщик отелей** - Hotel Booker | Поиск и сравнение отелей | "
            "`search_hotels` | Не проверяет бюджет |")
    assert _roles(text) == [("supervisor", "диалог с пользователем, делегирование задач"),
                            ("flight_searcher", "поиск и сравнение авиа вариантов"),
                            ("hotel_booker", "поиск и сравнение отелей")]


def test_a_native_title_with_an_english_name_in_brackets_takes_the_english_name() -> None:
    text = ("系统通过多个专业智能体的并行协作。\n"
            "1. **景点搜索智能体 (Attraction Agent)**\n   - 根据用户偏好搜索相关景点\n"
            "2. **酒店推荐智能体 (Hotel Agent)**\n   - 根据住宿偏好推荐酒店\n"
            "3. **行程规划智能体 (Planner Agent)**\n   - 整合所有智能体的结果\n")
    assert [r.name for r in analyse(text).roles] == ["attraction", "hotel", "planner"]
    # The English name is the role's title: "planner" inside it is no plan-and-execute cue,
    # and the planner that merges the others' results closes the fan-out itself.
    spec = compile_request(text).spec
    assert spec.pattern == "parallel_sectioning"
    assert len(spec.agents) == 4, [a.name for a in spec.agents]


def test_a_tables_heading_row_is_no_role() -> None:
    text = ("| Team | Ordner | Agenten | Fokus |\n|------|--------|---------|-------|\n"
            "| Website Team | `./` | 6 | Entwicklung, Design |\n\n"
            "| # | Agent | Datei | Expertise |\n|---|-------|-------|-----------|\n"
            "| 1 | Campaign Manager | `02-campaign-manager.md` | Paid Ads, Funnels |\n"
            "| 2 | Content Writer | `03-writer.md` | Blog, Social |")
    names = [n for n, _ in _roles(text)]
    assert "ordner" not in names and len(names) == 2, names


def test_agents_that_negotiate_with_each_other_talk_in_a_group_in_any_language() -> None:
    for text in ("Ein Multi-Agent-System, das B2B-Verhandlungen zwischen Einzelhändlern und "
                 "Lieferanten automatisiert.",
                 "Agentes compradores y vendedores que negocian entre sí el precio.",
                 "Агенты покупателя и продавца ведут переговоры о цене."):
        assert "group_chat" in analyse(text).scores(), text


def test_a_supervisor_that_picks_the_agent_is_a_cue_in_every_language() -> None:
    for text in ("Le superviseur reçoit la question, choisit un agent spécialisé, puis rédige "
                 "la réponse finale.",
                 "El supervisor recibe la pregunta y elige un agente especializado.",
                 "Супервизор получает вопрос и выбирает агента."):
        scores = analyse(text).scores()
        assert max(scores, key=scores.get) == "supervisor", (text, scores)


def test_the_product_a_team_develops_selects_software_development_not_its_subject() -> None:
    from a4a.generator.intent import RuleIntentParser

    parse = RuleIntentParser().parse
    for text in ("A crew of agents that builds an expense tracker app: a backend developer, a "
                 "frontend developer and a QA engineer.",
                 "Structure hiérarchique d'agents IA pour le développement du projet Expense "
                 "Tracker.",
                 "Un equipo de agentes para el desarrollo de la aplicación Recetas Fáciles."):
        assert parse(text).domains == ("software_dev",), text
    assert parse("An agent that tracks my expenses and builds a monthly report.").domains == (
        "finance",)


def test_a_hierarchy_that_names_no_teams_is_a_lead_over_two_teams() -> None:
    spec = compile_request("Structure hiérarchique d'agents IA pour le développement du projet "
                           "Expense Tracker.").spec
    assert spec.pattern == "hierarchical_teams" and len(spec.agents) == 7
    assert not any("receipt" in t.name or "reimburs" in t.name for t in spec.tools)


@pytest.mark.parametrize(("title", "name"), [
    ("Agente de IA especializado", ""), ("spezialisierter Agent", ""), ("Specialized Agent", ""),
    ("Agente especializado en ventas", "sales"), ("agent spécialisé", ""),
])
def test_specialized_names_no_role(title: str, name: str) -> None:
    # "cada etapa é tratada por um **Agente de IA especializado**": no agent called that
    assert read_title(title).name == name


def test_a_specialized_agent_in_bold_prose_is_no_role() -> None:
    text = ("Um sistema RAG em que cada etapa é tratada por um **Agente de IA especializado**.\n\n"
            "- `Extraction Agent`: transforma o PDF em texto.\n"
            "- `Analysis Agent`: responde à pergunta do usuário.\n")
    assert [r.name for r in analyse(text).roles] == ["extraction", "analysis"]


@pytest.mark.parametrize(("text", "names"), [
    ("転職活動の流れを段階的に自動化します。\n\n"
     "1. **SimulatedHR（企業人事AI）が企業要望・求人要件を提示**\n"
     "2. **HR担当者とEmployerAgentが会話形式で要件を確認**\n"
     "3. **EmployerAgentが要件をもとにリッチな求人票を自動生成**\n"
     "4. **SeekerAgent/SimulatedSeekerが求人提案・応募意思返答**\n"
     "5. **書類選考・履歴書生成・二段階合否判定**\n", ["employer", "seeker"]),
    ("- Planner Agent 负责拆分任务\n- Coder Agent 负责编写代码\n", ["planner", "coder"]),
])
def test_an_english_title_as_the_subject_of_a_cjk_duty_is_a_role(
        text: str, names: list[str]) -> None:
    assert [r.name for r in analyse(text).roles] == names
