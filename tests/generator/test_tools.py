"""Tools per agent: operations ranked by the agent's work and the request, writers that save
what they draft, and the builtins that the work calls for (generator/tools.py)."""

from __future__ import annotations

import pytest

from a4a.generator.pipeline import compile_request
from a4a.generator.plan import AgentPlan, Area
from a4a.generator.tools import (
    MAX_TOOLS,
    gloss,
    implies_change,
    plan_tools,
    rank_builtins,
    rank_operations,
    requested_changes,
)
from a4a.runtime import knowledge


def _mailbox() -> tuple[Area, ...]:
    ops = tuple(op.name for op in knowledge.domain_packs()["email"].operations)
    assert len(ops) > MAX_TOOLS  # the cap has to choose
    return (Area("email", "message", ops),)


def _kept(plan: AgentPlan, request: str = "") -> set[str]:
    return {c.tool for c in rank_operations(plan, request) if c.kept}


def test_the_cap_keeps_what_the_request_asks_of_a_structural_agent() -> None:
    plan = AgentPlan("executor", "executor", "carrying out approved actions", _mailbox())
    request = "Add every new sender to the address book as a contact."
    assert "email.add_contact" in _kept(plan, request)
    assert "email.add_contact" not in _kept(plan)  # last in pack order: over the cap
    assert len(_kept(plan, request)) == MAX_TOOLS


def test_a_writer_saves_the_drafts_its_work_names_and_sends_nothing() -> None:
    drafter = AgentPlan("reply_drafter", "writer",
                        "Drafts replies in the user's voice and saves them as drafts", _mailbox())
    rows = {c.tool: c for c in rank_operations(drafter)}
    assert rows["email.save_draft"].kept
    assert rows["email.save_draft"].reason == "the work is to draft or save this"
    assert not rows["email.send_email"].kept and not rows["email.send_draft"].kept
    assert not rows["email.discard_draft"].kept


def test_a_writer_whose_work_changes_nothing_stays_read_only() -> None:
    reader = AgentPlan("summarizer", "writer", "Summarizes each thread in two lines", _mailbox(),
                       duty="summarizes each thread in two lines")
    packs = knowledge.domain_packs()["email"]
    assert not any(packs.operation(t.split(".")[1]).writes  # type: ignore[union-attr]
                   for t in _kept(reader))


def test_a_structural_agent_is_cued_by_its_focus() -> None:
    plan = AgentPlan("proposer", "planner", "looks up flights and hotels for the team")
    tools = {c.tool for c in rank_builtins(plan, "Help our team get to the offsite.", set())
             if c.kept}
    assert "builtin:web_search" in tools


@pytest.mark.parametrize("request_text", [
    "Write a cli snake game",
    "写个类似今日头条的推荐系统",
    "pygame をベースとした cli ヘビゲームを書く",
])
def test_a_software_build_gets_the_sandbox_and_workspace_files(request_text: str) -> None:
    held = {n for a in compile_request(request_text).spec.agents for n in a.tool_names()}
    assert {"python", "write_file"} <= held, held


@pytest.mark.parametrize(("request_text", "tool"), [
    ("Un agent qui récupère chaque matin les derniers articles et me les résume.", "web_search"),
    ("Агент создает подкаст на основе контента по ссылке.", "web_read"),
    ("A crew that writes a fiction novel from a single prompt.", "write_file"),
    ("Plan a 5-day cultural trip to Kyoto for a family of 4.", "web_search"),
    ("A support agent that remembers what each customer told it earlier.", "remember"),
    ("一个能记住我饮食偏好的营养助手", "recall"),
    ("Ассистент, который запоминает мои предпочтения.", "remember"),
    ("A RAG assistant that answers employee questions from the HR handbook.", "search_docs"),
    ("Un agente que responde con la base de conocimiento de la empresa.", "search_docs"),
    ("An analyst agent uses file search to query the school's grading rubric.", "search_docs"),
    ("Ein Agent beantwortet Fragen per Dokumentensuche im Vertragsarchiv.", "search_docs"),
    ("Un système multi-agents qui génère des cahiers des charges préliminaires.", "write_file"),
    ("Ein Agent, der aus den Kundengesprächen ein Lastenheft erstellt.", "write_file"),
])
def test_builtins_follow_the_work_in_any_language(request_text: str, tool: str) -> None:
    held = {n for a in compile_request(request_text).spec.agents for n in a.tool_names()}
    assert tool in held, held


def test_run_memory_is_wired_only_where_the_work_asks_to_remember() -> None:
    held = {n for a in compile_request("An agent that triages GitHub issues").spec.agents
            for n in a.tool_names()}
    assert not {"remember", "recall"} & held, held


def test_mail_and_social_operations_say_what_they_read_and_write() -> None:
    email = knowledge.domain_packs()["email"]
    social = knowledge.domain_packs()["social_media"]
    said = {n: email.operation(n).description.lower()  # type: ignore[union-attr]
            for n in ("list_messages", "search_mail", "read_message", "save_draft")}
    assert all("email" in text for text in said.values()), said
    assert "draft an email" in said["save_draft"]
    for name in ("list_posts", "draft_post", "list_mentions"):
        assert "social media" in social.operation(name).description.lower()  # type: ignore[union-attr]


@pytest.mark.parametrize(("duty", "request_text"), [
    ("ищет письма клиентов", "Агент ищет письма клиентов в почтовом ящике и готовит отчёт."),
    ("在邮箱中搜索客户邮件", "一个智能体在邮箱中搜索客户邮件并写一份报告。"),
    ("sucht E-Mails der Kunden", "Ein Agent sucht E-Mails der Kunden im Postfach und schreibt "
                                 "einen Bericht darüber."),
])
def test_a_duty_in_another_language_ranks_tools_by_its_english_gloss(
        duty: str, request_text: str) -> None:
    plan = AgentPlan("mail_searcher", "specialist", duty, _mailbox(), duty=duty)
    top = rank_operations(plan, request_text)[0]
    assert top.tool == "email.search_mail" and top.reason == "relevant to the duty"


def test_the_gloss_reads_the_request_language_and_leaves_english_alone() -> None:
    assert gloss("sucht E-Mails", "de").split() == ["search", "email"]
    assert gloss("画像を生成する", "ja").split() == ["image", "generation", "create"]
    assert gloss("searches mail", "en") == ""


@pytest.mark.parametrize("duty", ["verwaltet den Newsletter", "gestiona los pedidos",
                                  "gère les commandes", "управляет заказами", "管理订单"])
def test_managing_asks_for_a_change_in_every_language_as_in_english(duty: str) -> None:
    assert implies_change(duty)


@pytest.mark.parametrize(("text", "pack"), [
    ("分析社交媒体上的舆情和粉丝", "social_media"),
    ("анализ подписчиков во вконтакте", "social_media"),
    ("acompanhar o funil de vendas e os leads", "crm"), ("跟进销售线索和商机", "crm"),
    ("planificación de rutas inteligentes y predicción de tráfico", "maps"),
    ("queries the PostgreSQL database and the MySQL replica", "sql_analytics")])
def test_packs_are_named_in_other_languages(text: str, pack: str) -> None:
    from a4a.generator.domains import domain_scores
    from a4a.generator.text import fold, normalize

    assert domain_scores(fold(normalize(text)))[pack] >= 2


def test_an_area_the_request_asks_for_gets_a_hands_on_owner() -> None:
    from a4a.generator.framework import named_for
    from a4a.generator.intent import IntentSpec

    pack = knowledge.domain_packs()["email"]
    areas = tuple(Area("email", r.name, tuple(o.name for o in pack.operations
                                               if o.resource == r.name))
                  for r in pack.resources)
    areas = tuple(a for a in areas if a.ops)
    asked = next(a for a in areas if "send_email" in a.ops)
    order = (*(a for a in areas if a != asked), asked)  # the asked area last: no default owner
    intent = IntentSpec(text="Two agents: a researcher and a classifier.", goal="",
                        domains=("email",), capabilities=("email.send_email",), roles=(),
                        cues=(), named_agents=("researcher", "classifier"))
    plans = named_for(intent, order)
    owners = [p.name for p in plans if asked in p.areas]
    assert len(owners) == 1
    assert all(order[0] in p.areas for p in plans)  # what each already held stays


def _holders(request: str) -> set[str]:
    c = compile_request(request)
    return {t.implementation for t in c.spec.tools}


def test_a_change_the_request_names_goes_to_one_agent_even_without_a_duty() -> None:
    request = ("Multi-agent system for generating, selecting, and sending personalized cold "
               "sales emails with automated workflow orchestration.")
    plans = [AgentPlan("reply_drafter", "writer", "drafting", _mailbox()),
             AgentPlan("mail_reader", "researcher", "reading", _mailbox())]
    assert not any(c.kept for p in plans for c in rank_operations(p, request)
                   if c.tool == "email.send_email")  # read-only on their own work
    rows = plan_tools(plans, request)
    owners = [n for n, rs in rows.items() for c in rs if c.tool == "email.send_email" and c.kept]
    assert len(owners) == 1
    reason = next(c.reason for c in rows[owners[0]] if c.tool == "email.send_email")
    assert reason == "the request asks for this change"
    assert requested_changes(plans, request) == ["email.send_email"]


@pytest.mark.parametrize("text", [
    "a single agent that summarizes my unread email every morning",
    "An assistant that reads my emails and drafts replies for me to check.",
])
def test_no_change_is_added_that_the_request_does_not_name(text: str) -> None:
    plans = compile_request(text).plans
    assert "email.send_email" not in requested_changes(plans, text)


def test_a_help_center_assistant_searches_the_knowledge_base() -> None:
    request = ("A customer service bot with a help center assistant that answers questions "
               "from our FAQ and documentation.")
    tools = _holders(request)
    assert "world:customer_support.search_articles" in tools
    assert "world:customer_support.publish_article" not in tools


def test_a_short_duty_of_a_german_request_asks_for_a_change_in_german() -> None:
    duty = "newsletter-system verwalten & verbessern"  # reads as English on its own
    assert not implies_change(duty)
    assert implies_change(duty, "de")


def test_a_communicator_saves_the_drafts_its_duty_names() -> None:
    plan = AgentPlan("email_assistant", "communicator", "drafts replies to customer emails",
                     _mailbox(), duty="drafts replies to customer emails")
    assert "email.save_draft" in _kept(plan)


def test_a_debater_may_search_the_web_the_request_asks_for() -> None:
    plan = AgentPlan("expert", "debater", "argues for the proposal")
    tools = {c.tool for c in rank_builtins(plan, "Search the web for evidence.", set())
             if c.kept}
    assert "builtin:web_search" in tools


def test_false_friends_wire_no_builtin_and_select_no_pack() -> None:
    from a4a.generator.tools import cue_hits

    assert "remember" not in cue_hits("proposes an in-memory cache with sync")
    assert "remember" in cue_hits("remembers the user's preferences between sessions")
    assert "web_search" not in cue_hits("a CLI tool first, then a web interface")
    assert "web_search" in cue_hits("searches the web for recent papers")
    assert "read_file" not in cue_hits("This document specifies a debate system")
    spec = compile_request("This document specifies a multi-agent debate system for software "
                           "design problems.").spec
    assert not any(t.name.endswith("_document") or "document" in t.name for t in spec.tools)


def test_a_usage_aside_selects_no_pack() -> None:
    spec = compile_request(
        "Example script to write a screenplay from a newsgroup post using agents. You can also "
        "try it out with a personal email with many replies and see it turn into a movie "
        "script.").spec
    assert not any("mail" in t.name for t in spec.tools)


def test_scraping_spreadsheets_and_charts_wire_builtins_in_every_language() -> None:
    from a4a.generator.tools import cue_hits

    cases = {
        "web_read": ["抓取网页上的价格", "サイトをスクレイピングする",
                     "парсинг страниц конкурентов"],
        "read_file": ["读取销售表格", "lee la hoja de cálculo de ventas", "liest die Tabelle",
                      "lê a planilha de vendas", "читает таблицу продаж"],
        "python": ["生成销售图表", "データ分析を行う", "hace un análisis de datos",
                   "erstellt ein Diagramm", "fait l'analyse de données",
                   "faz a análise de dados", "строит график продаж"],
    }
    missed = [(tool, t) for tool, texts in cases.items() for t in texts
              if tool not in cue_hits(t)]
    assert missed == []


def _single_tools(request: str) -> set[str]:
    c = compile_request(request)
    assert c.spec.pattern == "single_agent"
    return set(c.spec.agents[0].tool_names())


def test_a_single_agent_keeps_the_central_operations_of_every_pack_it_spans() -> None:
    # two packs with many areas: the agent sees them all, and each pack keeps its share of the
    # cap, so the calendar's events and the mailbox's sending are both there
    tools = _single_tools("A personal assistant that manages my email, my calendar and my "
                          "to-do list.")
    assert {"list_events", "schedule_event", "send_email", "list_messages"} <= tools


def test_a_single_agent_ranks_its_operations_by_the_request_it_serves() -> None:
    # its focus ("the whole request") is no work of its own: "request" names no leave request
    tools = _single_tools("The HR Onboarding Agent automates parts of the employee onboarding "
                          "process. It can generate welcome emails, collect necessary paperwork "
                          "and schedule introductory meetings.")
    assert {"send_welcome_email", "send_email", "request_employee_document"} <= tools
    assert not any("leave" in t for t in tools)
