"""The messaging pack (team chat and notifications): every template's gold plan earns reward
1.0 and dropping any of its calls lowers it; agents that hold only read-only tools still get
tasks; requests about Slack, Teams, SMS, WhatsApp or Telegram, in several languages, select
the pack and get tasks the oracle solves; and its words do not take email, social-media,
support-ticket or agent-team requests."""

from __future__ import annotations

import pytest

from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack
from tests.runtime.pack_checks import (
    compiled_task_problems,
    depth_problems,
    domains,
    gold_plan_problems,
    short_read_only_pairs,
)

PID = "messaging"

REQUESTS = [
    "An n8n workflow that posts a daily sales summary to our Slack channel and sends an SMS "
    "to the sales lead when a big deal closes.",
    "A WhatsApp chatbot answers customers about their orders, and a Telegram bot notifies the "
    "team when an order ships.",
    "Two agents debate whether the outage update should go to the Microsoft Teams channel or "
    "out by text message to every customer; a judge decides.",
    "Three channel monitors independently read the recent messages of the Slack channel and "
    "vote on which thread needs a reply.",
]

# Requests in other languages (and English brand names inside Chinese and Japanese text).
FOREIGN = [
    "Un agente que envía mensajes de texto a los clientes y publica en el canal de Slack.",
    "Ein Agent, der das Team per Push-Benachrichtigung und Textnachricht informiert.",
    "Un agent qui publie un résumé dans le canal Slack et envoie un SMS aux clients.",
    "Um agente que envia mensagens de texto e notificações push para a equipe.",
    "Агент отправляет уведомления в Слак и смс клиентам.",
    "Бот в телеграме, который отвечает на вопросы клиентов.",
    "每天把销售数据推送到钉钉群，并给客户发短信",
    "每天在Slack频道发布部署摘要",
    "Slackに毎朝売上のサマリーを投稿し、プッシュ通知を送るエージェント",
]

# Requests whose words overlap the pack's but that belong elsewhere, with the pack that owns
# each (None: no pack), so a request that selects nothing cannot pass by accident.
NOT_THEIRS = [
    ("Reply to my unread emails and flag the important ones.", "email"),
    ("An agent that drafts email replies to every message in my inbox.", "email"),
    ("Post our product launch on Twitter and LinkedIn and schedule the posts.", "social_media"),
    ("Grow our YouTube channel and reply to the comments.", "social_media"),
    ("A customer support agent answers support tickets in Zendesk with canned responses.",
     "customer_support"),
    ("Build two agent teams that debate the proposal, then a judge decides.", None),
    ("Split the work across teams of agents; each team channel their findings to the lead.",
     None),
    ("The project plan has some slack time before launch; find the critical path.",
     "project_management"),
    ("Cut the new hire some slack and write an onboarding plan.", None),
    ("Write an essay on the Zimmermann telegram and its place in history.", None),
    ("The agents sow discord among the debaters; a judge restores harmony.", None),
]


def _pack() -> DomainPack:
    return knowledge.domain_packs()[PID]



def test_pack_has_the_depth_of_the_others() -> None:
    assert depth_problems(_pack(), tasks=10, resources=5,
                          recoveries=2, terms=(10, 12), english_senses=True) == []


def test_tools_say_plainly_what_they_reach() -> None:
    said = " ".join(op.description for op in _pack().operations)
    missing = [w for w in ("Slack", "Teams", "Discord", "SMS", "WhatsApp", "Telegram",
                           "notification", "chat message") if w not in said]
    assert missing == []


def test_ambiguous_words_are_no_keywords_alone() -> None:
    assert {"teams", "channel", "message", "notification"}.isdisjoint(_pack().keywords)


def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward() -> None:
    assert gold_plan_problems(_pack()) == []


def test_read_only_tools_of_any_two_resources_give_three_tasks() -> None:
    assert short_read_only_pairs(_pack()) == []


@pytest.mark.parametrize("text", REQUESTS)
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(text: str) -> None:
    assert compiled_task_problems(text, PID) == []


def test_a_notifier_gets_the_tools_that_post_and_send() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("When a deploy fails, post an alert to the Slack channel and send "
                           "an SMS to the on-call engineer.").spec
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"post_to_channel", "send_text_message"} <= held, sorted(held)


@pytest.mark.parametrize("text", FOREIGN)
def test_requests_in_other_languages_select_the_pack(text: str) -> None:
    assert PID in domains(text)


def test_other_languages_are_covered() -> None:
    from a4a.generator.text import detect

    langs = {detect(t).main for t in FOREIGN}
    assert len(langs - {"en"}) >= 6, langs


@pytest.mark.parametrize(("text", "owner"), NOT_THEIRS)
def test_overlapping_words_do_not_select_the_pack(text: str, owner: str | None) -> None:
    got = domains(text)
    assert PID in knowledge.domain_packs() and PID not in got
    assert owner is None or owner in got, got
