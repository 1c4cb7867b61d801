"""Every domain pack is reachable in the eight languages: each has vocabulary in the seven
other languages, requests about hiring, clinics, contracts and schools written in them select
their pack, and the words those packs share with everyday speech in other senses ("tutorial",
"hospitality", "proof of concept", "adopt a technology") select nothing."""

from __future__ import annotations

import pytest

from a4a.generator.intent import RuleIntentParser
from a4a.runtime import knowledge
from tests.runtime.test_packs_b import OTHER_LANGS


def _domains(text: str) -> tuple[str, ...]:
    return RuleIntentParser().parse(text).domains


def test_every_pack_has_vocabulary_in_the_seven_other_languages() -> None:
    packs = knowledge.domain_packs()
    thin = {pid: sorted(OTHER_LANGS - {k for k, v in pack.vocabulary.items() if len(v) >= 2})
            for pid, pack in packs.items() if pid != "generic"}
    assert {pid: langs for pid, langs in thin.items() if langs} == {}
    for pid in ("recruiting", "healthcare", "legal", "education"):  # as deep as the newest
        assert min(len(packs[pid].vocabulary[k]) for k in OTHER_LANGS) >= 10, pid


FOREIGN = [
    ("招聘助手：筛选简历并安排面试", "recruiting"),
    ("応募者の履歴書を書類選考して面接日程を調整するエージェント", "recruiting"),
    ("Un agente que filtra los currículums de los candidatos para la vacante.", "recruiting"),
    ("Ein Agent, der Bewerbungen sichtet und Vorstellungsgespräche plant.", "recruiting"),
    ("Un agent qui trie les candidatures et rédige la fiche de poste.", "recruiting"),
    ("Um agente que analisa currículos de candidatos para a vaga de emprego.", "recruiting"),
    ("Бот для подбора персонала: проверяет резюме кандидатов и назначает собеседования.",
     "recruiting"),
    ("帮我整理收件箱里的邮件并回复重要邮件", "email"),
    ("Un bot de Telegram para la gestión de citas y el agendamiento de citas.", "calendar"),
    ("诊所预约助手：帮患者挂号并提醒复诊", "healthcare"),
    ("医療相談：患者の症状を聞いて診察予約を取る", "healthcare"),
    ("Un asistente que agenda citas médicas para los pacientes de la clínica.", "healthcare"),
    ("Ein Agent, der Arzttermine für die Patienten unserer Arztpraxis vergibt.", "healthcare"),
    ("Un agent qui gère la prise de rendez-vous médical des patients du cabinet médical.",
     "healthcare"),
    ("Um agente que faz o agendamento de consultas dos pacientes da clínica.", "healthcare"),
    ("Агент для записи пациентов к врачу и проверки симптомов.", "healthcare"),
    ("合同审查助手：找出保密协议中的风险条款", "legal"),
    ("契約書レビュー：条項のリスクを洗い出す弁護士向けエージェント", "legal"),
    ("Un agente que revisa contratos y detecta cláusulas de riesgo.", "legal"),
    ("Ein Agent für die Vertragsprüfung, der riskante Klauseln markiert.", "legal"),
    ("Un agent qui fait la revue de contrats et signale les clauses à risque.", "legal"),
    ("Um agente de revisão de contratos que aponta cláusulas de risco para o advogado.",
     "legal"),
    ("Юрист-агент проверяет договоры и находит рискованные пункты договора.", "legal"),
    ("辅导老师助手：给学生出测验并批改作业", "education"),
    ("先生の代わりに生徒の宿題を採点するエージェント", "education"),
    ("Un asistente para profesores que califica los deberes de los alumnos.", "education"),
    ("Ein Agent, der für Lehrer die Hausaufgaben der Schüler korrigiert.", "education"),
    ("Un tuteur qui crée des quiz pour les élèves et corrige leurs devoirs.", "education"),
    ("Um assistente que corrige a lição de casa dos alunos para o professor.", "education"),
    ("Помощник учителя проверяет домашние задания учеников.", "education"),
]


@pytest.mark.parametrize(("text", "pid"), FOREIGN)
def test_requests_in_other_languages_select_the_pack(text: str, pid: str) -> None:
    assert pid in _domains(text)


# Words of these packs in another sense, and the packs they must not select.
NOT_THEIRS = [
    ("Un agente que escribe un tutorial de Python paso a paso.", {"education"}),
    ("Um agente que escreve um tutorial sobre APIs REST.", {"education"}),
    ("Un agente para hoteles que mejora la hospitalidad con los huéspedes.", {"healthcare"}),
    ("Um agente que monta uma prova de conceito da API de pagamentos.", {"education"}),
    ("Un agent qui fait l'examen du code de chaque pull request.", {"education"}),
    ("新しい技術を採用するかどうかを議論するエージェント", {"recruiting"}),
    ("批处理作业失败时通知运维人员", {"education"}),
    ("Um agente que acompanha a receita mensal e as despesas da empresa.",
     {"personal_planning"}),
    ("Um agente que pesquisa o mercado de carros elétricos.", {"personal_planning"}),
    ("Un bot hecho con herramientas de código abierto que responde preguntas.",
     {"code_hosting"}),
]


@pytest.mark.parametrize(("text", "packs"), NOT_THEIRS)
def test_other_senses_do_not_select_the_packs(text: str, packs: set[str]) -> None:
    assert packs.isdisjoint(_domains(text))
