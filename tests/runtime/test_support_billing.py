"""Billing in the customer-support pack: the oracle solves its billing templates and loses
reward without any gold call, billing duties get the account and invoice tools while other
duties are not flooded with them, and billing words select the pack only at a helpdesk."""

from __future__ import annotations

import pytest

from a4a.generator.domains import domain_scores
from a4a.generator.pipeline import compile_request
from a4a.generator.plan import AgentPlan, Area
from a4a.generator.text import fold, normalize
from a4a.generator.tools import rank_operations
from a4a.runtime import knowledge
from a4a.runtime.ir.spec import FrameworkSpec
from a4a.runtime.world.synthesis import Task, synthesize
from tests.runtime.test_tasks import oracle, pack_framework, run

PACK = "customer_support"
TEMPLATES = ("customer_account_status", "count_open_invoices", "refund_double_charge",
             "answer_billing_ticket", "reactivate_and_change_plan",
             "refund_unpaid_invoice_recovery")
BILLING_OPS = frozenset({"get_customer", "search_customers", "list_customer_invoices",
                         "get_invoice", "refund_invoice", "update_subscription_plan",
                         "reactivate_account"})


@pytest.fixture(scope="module")
def billing_tasks() -> list[tuple[FrameworkSpec, Task]]:
    """One synthesized task of every billing template, on the pack's one-clerk framework."""
    spec = pack_framework(knowledge.domain_packs()[PACK])
    first: dict[str, Task] = {}
    for task in synthesize(spec, 90, seed=1):
        if task.template in TEMPLATES:
            first.setdefault(task.template, task)
    assert sorted(first) == sorted(TEMPLATES)  # every template drawn, or the test fails
    return [(spec, first[t]) for t in TEMPLATES]


def test_the_billing_templates_span_the_difficulties_and_one_recovers_from_an_error() -> None:
    tasks = {t.id: t for t in knowledge.domain_packs()[PACK].tasks}
    mine = [tasks[t] for t in TEMPLATES]
    assert {t.difficulty for t in mine} == {"easy", "medium", "hard"}
    assert any(s.expect_error == "invalid_state" for t in mine for s in t.plan)
    assert all(t.problem_type[0] == "billing" for t in mine)


def test_the_oracle_earns_full_reward_on_every_billing_template(
        billing_tasks: list[tuple[FrameworkSpec, Task]]) -> None:
    scores = {t.template: run(spec, t, oracle(spec, t)) for spec, t in billing_tasks}
    assert {k: (r["composite"], r["tool"]) for k, r in scores.items()} == dict.fromkeys(
        TEMPLATES, (1.0, 1.0))


def test_dropping_any_gold_call_lowers_the_reward(
        billing_tasks: list[tuple[FrameworkSpec, Task]]) -> None:
    unchanged = []
    for spec, t in billing_tasks:
        for i in range(len(t.plan)):
            dropped = t.plan[:i] + t.plan[i + 1:]
            if run(spec, t, oracle(spec, t, dropped))["composite"] >= 1.0:
                unchanged.append((t.template, i))
    assert unchanged == []


def _tools(request: str) -> dict[str, set[str]]:
    """Per agent, the world operations of the support pack it holds."""
    spec = compile_request(request).spec
    impl = {t.name: t.implementation for t in spec.tools}
    prefix = f"world:{PACK}."
    return {a.name: {impl[t].removeprefix(prefix) for t in a.tools
                     if impl[t].startswith(prefix)} for a in spec.agents}


def test_a_billing_specialist_holds_the_account_and_invoice_tools_and_a_triager_none() -> None:
    tools = _tools("A helpdesk with two agents: a ticket classifier sets the category and "
                   "priority of new support tickets, and a billing specialist answers billing "
                   "questions from customers.")
    assert set(tools) == {"ticket_classifier", "billing_specialist"}
    assert {"list_customer_invoices", "get_customer"} <= tools["billing_specialist"]
    assert "categorize_ticket" in tools["ticket_classifier"]
    assert not tools["ticket_classifier"] & BILLING_OPS


def test_a_customer_profile_duty_reads_the_account_and_a_reply_writer_does_not() -> None:
    tools = _tools("Customer support team: an account agent looks up the customer profile "
                   "and customer history, and a reply writer drafts replies to tickets.")
    assert {"get_customer", "search_customers"} <= tools["account"]
    assert not tools["reply_writer"] & BILLING_OPS


def test_a_finance_team_processing_invoices_gives_the_support_team_no_invoice_tools() -> None:
    tools = _tools("A whole company of agents: a CEO supervising a support team handling "
                   "helpdesk tickets, a sales team working CRM deals, and a finance team "
                   "processing invoices, each team with a lead and two specialists.")
    assert any("create_ticket" in held for held in tools.values())
    assert not any("list_customer_invoices" in held for held in tools.values())


@pytest.mark.parametrize(("request_text", "wanted"), [
    ("An assistant that answers billing inquiries for our SaaS customers",
     {"list_customer_invoices", "get_customer", "post_public_reply"}),
    # the gloss "billing" cues no invoices (faturamento, revenue, glosses the same), but the
    # customer's account and the replies stay
    ("Un agente de atención al cliente que responde consultas de facturación",
     {"get_customer", "post_public_reply"}),
    # a clinic's customer service: beside the clinic's appointments (the healthcare pack, read
    # in Portuguese), the support pack's customer account
    ("Automatize o atendimento ao cliente de uma clínica: agendamento de consultas, dúvidas "
     "sobre convênio e cobrança.", {"get_customer", "search_customers"}),
])
def test_a_billing_assistant_reads_the_account_and_keeps_its_replies(
        request_text: str, wanted: set[str]) -> None:
    held = set().union(*_tools(request_text).values())
    assert wanted <= held


def _areas() -> tuple[Area, ...]:
    pack = knowledge.domain_packs()[PACK]
    rows = (Area(PACK, r.name, tuple(o.name for o in pack.operations if o.resource == r.name))
            for r in pack.resources)
    return tuple(a for a in rows if a.ops)


def test_billing_operations_rank_first_for_billing_work_and_last_for_triage() -> None:
    billing = AgentPlan("billing_agent", "specialist", "answers billing questions", _areas(),
                        duty="answers billing questions about invoices and subscriptions")
    top = [c.tool.split(".")[1] for c in rank_operations(billing)[:4]]
    assert {"list_customer_invoices", "update_subscription_plan"} <= set(top)
    triage = AgentPlan("ticket_triager", "classifier", "triages tickets", _areas(),
                       duty="triages new tickets: sets their category and priority")
    rows = rank_operations(triage)
    assert all(c.relevance == 0 for c in rows if c.tool.split(".")[1] in BILLING_OPS)
    assert rows[0].tool == f"{PACK}.categorize_ticket"


@pytest.mark.parametrize(("text", "expected"), [
    ("An assistant that answers billing inquiries for our SaaS customers", 1),
    ("Agente que responde consultas de facturación de nuestros clientes", 1),
    ("Un agent qui traite les questions de facturation des clients", 1),
    ("Ein Agent für Abrechnungsfragen unserer Kunden", 1),
    ("Um agente para dúvidas de faturamento dos clientes", 1),
    ("Бот отвечает на вопросы по биллингу", 1),
    ("处理客户的账单查询和计费问题", 2),
    # billing of insurers, patients and expenses is no helpdesk's
    ("Insurance & Billing Support: answers insurance queries and resolves billing issues.", 0),
    ("A billing support agent for hospital patients and their claims", 0),
    ("An expense assistant that handles billing questions about employee reimbursements", 0),
    # invoicing, revenue and expense settlement name no billing questions
    ("Sistema de facturación electrónica y control de gastos", 0),
    ("Análise do faturamento mensal da empresa", 0),
    ("Reisekostenabrechnung und Spesenabrechnung automatisieren", 0),
])
def test_billing_words_select_the_pack_only_at_a_helpdesk(text: str, expected: int) -> None:
    assert domain_scores(fold(normalize(text)))[PACK] == expected
