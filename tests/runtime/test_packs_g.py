"""The HR pack (onboarding, leave and HR policies): every template's gold plan earns reward
1.0 and dropping any of its calls lowers it; agents that hold only the read-only tools of any
two resources get the pack's own tasks; onboarding, leave and HR-policy requests, in English
and seven other languages, select the pack and get tasks the oracle solves; and its words do
not take recruiting, expense, customer-onboarding or 'leave a review' requests."""

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
from tests.runtime.test_packs_b import OTHER_LANGS

PID = "hr"

REQUESTS = [
    "An employee onboarding assistant that welcomes new hires, collects their paperwork, sets "
    "up accounts and equipment, schedules orientation and assigns a buddy.",
    "An HR policy bot that answers employees' questions about the leave policy and benefits "
    "from the employee handbook.",
    "A leave management agent: employees submit PTO requests, it checks their leave balance "
    "and a manager approves or rejects them.",
    "Two agents debate whether to approve a parental leave request; an HR manager judges.",
]

# Requests in other languages that must select the pack.
FOREIGN = [
    "员工入职助手：为新员工准备入职手续，安排培训，并回答年假和病假问题",
    "新入社員の入社手続きを進め、有給休暇の残日数に答える人事エージェント",
    "Un asistente de recursos humanos que gestiona las solicitudes de vacaciones y responde "
    "sobre los beneficios para empleados.",
    "Ein HR-Agent für das Onboarding neuer Mitarbeiter: Urlaubsanträge prüfen und Resturlaub "
    "berechnen.",
    "Un agent RH qui gère les demandes de congé et l'intégration des nouveaux employés.",
    "Um assistente de recursos humanos para pedidos de férias e integração de novos "
    "funcionários.",
    "Бот отдела кадров отвечает на вопросы сотрудников и обрабатывает заявления на отпуск.",
]

# Requests whose words overlap the pack's but that belong elsewhere, with the pack that owns
# each (None: no pack), so a request that selects nothing cannot pass by accident.
NOT_THEIRS = [
    ("Screen resumes for the senior engineer job opening and schedule interviews with the "
     "top candidates.", "recruiting"),
    ("A hiring assistant screens candidates and sends the offer letter to new hires.",
     "recruiting"),
    ("An agent that reads employee expense reports and reimburses approved expense claims.",
     "finance"),
    ("A customer onboarding agent in our CRM sends welcome emails to new customers and tracks "
     "their onboarding checklist.", None),
    ("Improve our app onboarding flow so new users understand the product; write the "
     "onboarding plan.", None),
    ("Build a user onboarding process for our SaaS signup flow.", None),
    ("Leave a review on every product we bought last month and leave a comment for the "
     "seller.", None),
    ("List the benefits of our product for the landing page.", None),
    ("A colony simulation game where players manage human resources, food and wood.", None),
    ("Check the tractor's PTO shaft and the hydraulics before the harvest.", None),
]


def _pack() -> DomainPack:
    return knowledge.domain_packs()[PID]



def test_pack_has_the_depth_of_the_others() -> None:
    assert depth_problems(_pack(), tasks=12, resources=6, operations=20,
                          recoveries=3, terms=(10, 14)) == []


def test_ambiguous_words_are_no_keywords_alone() -> None:
    """Users and customers are onboarded too, and one leaves a review or a room."""
    assert {"onboarding", "onboard", "leave", "leaves", "benefits", "employee", "employees",
            "hr", "policy", "vacation"}.isdisjoint(_pack().keywords)


def test_tools_say_employee_onboarding_leave_hr_policy_and_benefits() -> None:
    said = " ".join(op.description for op in _pack().operations)
    missing = [w for w in ("employee", "onboarding", "leave request", "leave balance",
                           "HR policies", "benefits", "offboarding") if w not in said]
    assert missing == []


def test_approving_more_days_than_the_balance_is_refused() -> None:
    approve = _pack().operation("approve_leave_request")
    assert approve is not None
    assert approve.requires == {"status": "pending"}
    assert approve.forbids == {"exceeds_balance": True}


def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward() -> None:
    assert gold_plan_problems(_pack()) == []


def test_read_only_tools_of_any_two_resources_give_three_of_the_packs_tasks() -> None:
    """Debaters and voters hold the read-only tools of two resources: no arithmetic filler."""
    assert short_read_only_pairs(_pack(), own=True) == []


@pytest.mark.parametrize("text", REQUESTS)
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(text: str) -> None:
    assert compiled_task_problems(text, PID) == []


def test_a_welcome_agent_holds_the_welcome_email_and_buddy_tools() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("A welcome agent sends each new hire the welcome email and assigns "
                           "them a buddy; a checklist agent completes their open onboarding "
                           "tasks.").spec
    assert spec is not None
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"send_welcome_email", "assign_buddy", "list_onboarding_tasks"} <= held, sorted(held)


@pytest.mark.parametrize("text", FOREIGN)
def test_requests_in_other_languages_select_the_pack(text: str) -> None:
    assert PID in domains(text)


def test_other_languages_are_covered() -> None:
    from a4a.generator.text import detect

    langs = {detect(t).main for t in FOREIGN}
    assert langs == OTHER_LANGS, langs


@pytest.mark.parametrize(("text", "owner"), NOT_THEIRS)
def test_overlapping_words_do_not_select_the_pack(text: str, owner: str | None) -> None:
    got = domains(text)
    assert PID in knowledge.domain_packs() and PID not in got
    assert owner is None or owner in got, got
