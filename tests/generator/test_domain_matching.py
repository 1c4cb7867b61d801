"""The fast matchers give the same hits as the plain ones they replace."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import yaml

from a4a.generator import domains
from a4a.generator.pipeline import compile_request
from a4a.generator.text import Text, literal_regex

DATA = Path(__file__).resolve().parents[1] / "data"


def _plain(words: list[str]) -> re.Pattern[str]:
    alts = "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))
    return re.compile(alts)


def test_literal_regex_matches_like_a_longest_first_alternation() -> None:
    rng = random.Random(7)
    alphabet = "abc "
    words = sorted({"".join(rng.choice("abc") for _ in range(rng.randint(1, 6)))
                    for _ in range(60)})
    trie = re.compile(literal_regex(words))
    plain = _plain(words)
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(40))
        assert [m.span() for m in trie.finditer(text)] == \
            [m.span() for m in plain.finditer(text)], text


def test_literal_regex_escapes_and_skips_empty_words() -> None:
    pat = re.compile(literal_regex(["a.b", "", "a"]))
    assert [m.group() for m in pat.finditer("axb a.b")] == ["a", "a.b"]


def _texts() -> list[str]:
    out: list[str] = []
    for name in ("requests_benign.yaml", "requests_labelled.yaml", "requests_malicious.yaml",
                 "generation/tuning.yaml", "policy/benign_tuning.yaml"):
        doc = yaml.safe_load((DATA / name).read_text())

        def walk(node: object) -> None:
            if isinstance(node, str) and len(node) > 12:
                out.append(node)
            elif isinstance(node, dict):
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
        walk(doc)
    return out


def test_vocabulary_gates_change_no_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [Text.of(t) for t in _texts()]
    assert len(texts) > 300
    gated = [domains.domain_hits(t) for t in texts]
    matchers = domains._domain_matchers()
    monkeypatch.setattr(domains._Gate, "admits", lambda *_: True)
    assert gated == [domains.domain_hits(t) for t in texts]
    english = {pid: pats[:1] for pid, pats in matchers.items()}
    monkeypatch.setattr(domains, "_domain_matchers", lambda: english)
    # the texts exercise the other-language vocabulary, so the gates had something to skip
    assert sum(a != domains.domain_hits(t) for a, t in zip(gated, texts, strict=True)) > 20


@pytest.mark.parametrize(("term", "literal"), [
    ("gestion de clientes", ("=", "clientes")),
    ("воронк* продаж", ("=", "продаж")),
    ("verkaufschance*", ("^", "verkaufschance")),
    ("*pipeline", ("%", "pipeline")),
    ("客户关系管理", ("%", "客户关系管理")),
])
def test_gate_literal_is_a_word_every_match_holds(term: str, literal: tuple[str, str]) -> None:
    assert domains._gate_literal(term) == literal


@pytest.mark.parametrize(("text", "pack"), [
    ("持续集成流水线里的不稳定测试由一个智能体来排查", "ci_testing"),
    ("Ein Agent, der fehlgeschlagene Builds und instabile Tests untersucht.", "ci_testing"),
    ("プルリクエストのコードレビューを行うエージェント", "code_hosting"),
    ("Агент делает ревью кода для каждого пулл реквеста.", "code_hosting"),
    ("Un agente que vigila los niveles de stock del almacén y propone la reposición.",
     "inventory"),
    ("库存管理助手：检查仓库的库存水平并生成采购订单", "inventory"),
    ("Un agent qui répartit les tâches du projet sur un tableau kanban.",
     "project_management"),
    ("Agentes para gestão de projetos: atribuir tarefas e acompanhar os marcos do projeto.",
     "project_management"),
    ("Агент пишет SQL запросы к хранилищу данных и строит дашборды.", "sql_analytics"),
    ("データウェアハウスにsqlクエリを投げてダッシュボードを更新するエージェント", "sql_analytics"),
    ("一个管理日历和会议安排的助手", "calendar"),
    ("Ein Agent prüft Spesenabrechnungen und Lieferantenrechnungen.", "finance"),
    ("Агент службы поддержки отвечает на обращения клиентов.", "customer_support"),
    ("ナレッジベースから回答するカスタマーサポートのエージェント", "customer_support"),
    ("Um agente que faz pesquisa na web e cita as fontes num relatório de pesquisa.",
     "web_research"),
    ("Un agent qui réserve les vols et les hôtels d'un voyage d'affaires.", "travel"),
    ("Агент собирает дайджест новостей из новостных источников.", "news"),
    ("議事録を入力するだけで、ネクストアクションを抽出し、必要な会議を自動設定するAIエージェント",
     "calendar"),
    ("Integration von Angeboten in Terminbuchung, Kalender-basierte Terminauswahl.", "calendar"),
])
def test_packs_are_named_in_the_other_languages(text: str, pack: str) -> None:
    assert pack in domains.domain_hits(Text.of(text))


@pytest.mark.parametrize(("text", "term", "acted"), [
    ("it sends via sms or email the care instructions", "email", True),
    ("a main agent writes the required emails", "emails", True),
    ("email drafts saved for review", "email", True),
    ("a web search on email topics", "email", False),  # "search" as often names a thing
    ("short summaries of each email", "email", False)])
def test_a_lone_term_counts_twice_when_the_request_acts_on_it(text: str, term: str,
                                                               acted: bool) -> None:
    assert domains.acted_on("email", (term,), text) is acted


def test_a_games_inventory_is_the_players_items_anywhere_in_the_request() -> None:
    text = ("A text adventure where the player explores dungeons with AI agents.\n"
            "- **ItemAgent:** Handles inventory, rewards, and item descriptions.")
    spec = compile_request(text).spec
    assert not any("warehouse" in t.name or "reorder" in t.name or "supplier" in t.name
                   for t in spec.tools)
    stock = compile_request("An agent that tracks inventory levels in our warehouse and "
                            "reorders stock.").spec
    assert stock.environment is not None and "inventory" in stock.environment.domains


def _tools(text: str) -> dict[str, list[str]]:
    return {a.name: a.tool_names() for a in compile_request(text).spec.agents}


def test_a_role_named_after_a_domain_gets_that_domains_operations() -> None:
    # "météo" is one passing hit: the two-pack limit alone would leave the weather agent bare.
    tools = _tools("Une équipe d'agents pour un hôtel : l'Agent Réception gère les "
                   "réservations de chambres, l'Agent Météo répond aux questions des clients "
                   "sur la météo, et l'Agent Conciergerie recommande des restaurants.")
    assert "get_current_weather" in tools["weather"]
    assert "confirm_booking" in tools["reception"]
    # A hotel's front desk is no clinic's.
    hotel = compile_request("A team for our hotel: a front desk agent manages room bookings "
                            "and a weather analyst answers guests' questions about the "
                            "forecast.").spec
    assert hotel.environment is not None
    assert list(hotel.environment.domains) == ["travel", "weather"]


def test_a_role_title_adds_only_packs_the_requests_reading_kept() -> None:
    # "Finance Agent" doing financial analysis of a company is equity research, not expenses.
    spec = compile_request("A Finance Agent does detailed financial analysis of a company, a "
                           "News Agent gathers the latest headlines about it, and a Report "
                           "Writer writes an investment memo.").spec
    assert spec.environment is not None and "finance" not in spec.environment.domains
    assert "investment_research" in spec.environment.domains
    assert not any("expense" in t.name for t in spec.tools)


def test_a_titled_numbered_step_gets_the_pack_its_title_names() -> None:
    tools = _tools("週末プランニングは、以下のステップを順番に進めるマルチエージェント構成です：\n"
                   "1. 天気調査: 週末の予報を確認し、屋外/屋内の判断を助言\n"
                   "2. カレンダー分析: Googleカレンダーから直近の外出傾向を読み解く\n"
                   "3. しおり作成: タイムライン形式のしおりを出力")
    assert "get_forecast" in tools["weather_research"], tools
    assert "get_forecast" not in tools["calendar_analysis"]


def test_chinese_chart_patterns_of_a_trading_team_are_no_data_analysis() -> None:
    trading = compile_request("交易团队：技术分析师研究股票的技术指标和图表模式，"
                              "交易员给出交易建议。").spec
    assert trading.environment is not None
    assert "data_analysis" not in trading.environment.domains
    report = compile_request("一个智能体读取销售数据集，做统计分析并绘制图表。").spec
    assert report.environment is not None and "data_analysis" in report.environment.domains


def test_packs_of_equal_score_rank_by_how_often_the_request_names_them() -> None:
    """A topic the whole text returns to outranks a tool it names once, whatever the names."""
    assert domains.select_domains({"code_hosting": 1, "news": 1, "investment_research": 1}, False,
                          {"code_hosting": 1, "news": 4, "investment_research": 1}) == (
        "news", "code_hosting")
    assert domains.select_domains({"code_hosting": 1, "news": 1}, False) == ("code_hosting", "news")


def test_github_actions_are_no_shares() -> None:
    """'GitHub Actions' runs a workflow: French shares are named in phrases ('cours des
    actions'), never by the bare word, which also means actions to take."""
    text = "Un système orchestré par GitHub Actions qui exécute trois agents spécialisés."
    assert "investment_research" not in domains.domain_hits(Text.of(text))
    shares = Text.of("Analyse des actions et du portefeuille")
    assert "investment_research" in domains.domain_hits(shares)


def test_an_assembly_line_of_agents_is_no_factory() -> None:
    """'Like an assembly line' says how the agents hand work on, not that they run a plant."""
    text = "Three agents work like an assembly line: a researcher, a writer and an editor."
    assert "industrial_monitoring" not in domains.domain_hits(Text.of(text))
    plant = "Monitor the production line sensors on the factory floor and open work orders."
    assert "industrial_monitoring" in domains.domain_hits(Text.of(plant))


def test_an_english_keyword_run_into_chinese_or_japanese_text_still_names_its_pack() -> None:
    assert domains.domain_scores("slack上で動く幹事ボット").get("messaging", 0) >= 1
    assert domains.domain_scores("用slack通知团队").get("messaging", 0) >= 1
    # ... but not one run into Latin letters.
    assert domains.domain_scores("slackline tricks").get("messaging", 0) == 0


def test_a_lone_term_sent_in_another_language_is_acted_on() -> None:
    assert domains.acted_on("email", ("email",), "et envoie le tout dans un email chaque matin")
    assert domains.acted_on("email", ("correo",), "redacta y envía un correo al cliente")
    assert not domains.acted_on("email", ("email",), "un email de bienvenue a été lu")


def test_a_product_name_counts_like_a_phrase() -> None:
    # one "WhatsApp" beside two calendar terms: the channel is a pack of its own
    text = ("Un bot de WhatsApp que agenda turnos en el calendario y los guarda en el "
            "calendario del local.")
    assert "messaging" in compile_request(text).intent.domains
    ru = compile_request("Бот в телеграме, который каждое утро присылает сводку новостей.")
    assert "messaging" in ru.intent.domains
    # a word that is not a product name still needs a second hit to join as a second pack
    assert "messaging" not in compile_request(
        "A calendar assistant that books meetings in the calendar and sends a notification."
    ).intent.domains


def test_calendar_events_beside_an_inbox_select_the_calendar_too() -> None:
    text = ("An AI agent copilot: from inbox chaos to a smarter calendar. It cleans the inbox, "
            "creates calendar events for emails about meetings and drafts replies.")
    assert set(compile_request(text).intent.domains) >= {"email", "calendar"}


def test_a_chinese_push_to_a_group_bot_posts_a_message() -> None:
    text = "自动发现 GitHub Trending / Hacker News 热门项目，通过 AI 分析后推送至飞书/钉钉机器人。"
    tools = [t.name for t in compile_request(text).spec.tools]
    assert "post_to_channel" in tools


@pytest.mark.parametrize("text", [
    "基于 LangChain 的智能 A 股股票分析系统，支持历史数据查询、新闻资讯获取、"
    "技术指标分析等多项功能。",
    "Der Analyst interpretiert Marktdaten, der zweite Agent berechnet die Positionsgröße und "
    "prüft den Drawdown.",
    "An agent that reads market data, computes technical indicators and sends trading signals.",
])
def test_market_data_and_indicators_name_investment_research(text: str) -> None:
    assert compile_request(text).intent.domains[0] == "investment_research"


def test_a_spanish_lead_assistant_that_finds_properties_is_real_estate_and_crm() -> None:
    text = ("Un asistente virtual que atiende leads por WhatsApp, cualifica clientes, busca "
            "propiedades y agenda visitas automáticamente.")
    assert set(compile_request(text).intent.domains) == {"real_estate", "crm"}


def test_spanish_available_properties_and_booked_visits_are_real_estate() -> None:
    text = ("Agente para inmobiliarias: consulta las propiedades disponibles y las visitas "
            "agendadas, y responde por WhatsApp.")
    assert compile_request(text).intent.domains[0] == "real_estate"
