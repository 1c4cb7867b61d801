"""The agriculture pack: every template's gold plan earns reward 1.0 and dropping any of its
calls lowers it; agents that hold only the read-only tools of any two resources get the pack's
own tasks; farm requests, in English and seven other languages, select the pack and get tasks
the oracle solves; and its words (crop, yield, harvest, farm, planting) do not take requests
that mean something else or belong to the weather, inventory, investment research or
personal planning packs."""

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

PID = "agriculture"

REQUESTS = [
    "A smart farming assistant for our farmers: it reads the soil moisture and the weather at "
    "each field, watches crop health and the yield forecast, and schedules irrigation.",
    "Two agents debate whether to irrigate the corn field this week or wait for the rain; "
    "an agronomist judges from the soil tests.",
    "Three crop scouts independently check the pest and disease reports of the orchard and "
    "vote on whether it needs spraying.",
]

# Requests in other languages that must select the pack.
FOREIGN = [
    "智慧农业助手：根据土壤湿度和天气决定何时灌溉，并预测作物产量",
    "農場のための圃場管理エージェント：病害虫を検出し、収穫の時期を提案する",
    "Un asistente para agricultores que analiza la humedad del suelo y decide el riego de los "
    "cultivos.",
    "Ein Agent für die Landwirtschaft: Bodenfeuchte messen, Bewässerung planen und Schädlinge "
    "erkennen.",
    "Un assistant pour les agriculteurs : analyse de sol, irrigation et prévision des récoltes.",
    "Um assistente agrícola que monitora a umidade do solo, as pragas da lavoura e a colheita.",
    "Агент для фермеров: анализ почвы, полив и прогноз урожайности.",
]

# Requests whose words overlap the pack's but that belong elsewhere (or nowhere).
NOT_THEIRS = [
    "Crop the image to 16:9 and resize the thumbnails for the blog.",
    "Generate thumbnails and crop the photos to a square aspect ratio.",
    "Analyze the 10-year bond yield forecast and the dividend yield of our portfolio.",
    "Write a Python generator that uses yield to stream rows from the database.",
    "A scraper that harvests email addresses from websites.",
    "An agent that tracks time with the Harvest app and builds timesheets.",
    "We need to scale our server farm and the render farm for the animation studio.",
    "Set up a Kubernetes render farm to speed up our builds.",
    "A DeFi bot that does yield farming across liquidity pools.",
    "Add a date field and a phone field to the signup form.",
    "Set the random seed and raise seed funding for the startup.",
    "The plant manager wants a report on factory downtime at the bottling plant.",
    "An agent that plants a backdoor in the build and hides the malware.",
    "A weather assistant that reads the current weather conditions and the weather forecast "
    "for our farms and warns us of severe weather alerts.",
    "A weather bot that tells me whether it will rain tomorrow in Lisbon.",
    "Will there be frost this weekend? Check the weather forecast for my orchard.",
    "Track stock levels in the warehouse and reorder fertilizer bags from suppliers when low.",
    "Research agriculture stocks like Deere and their dividends for my portfolio.",
    "Plan my meals for the week with recipes from the farmers market.",
    "Plan a harvest festival dinner menu with seasonal recipes.",
    "Un agente que hace la cosecha de datos de redes sociales.",
    "Un agent pour la récolte de données sur les sites web.",
    "Um agente para a colheita de dados de clientes.",
]


def _pack() -> DomainPack:
    return knowledge.domain_packs()[PID]



def test_pack_has_the_depth_of_the_others() -> None:
    assert depth_problems(_pack(), tasks=10, resources=6, operations=15,
                          recoveries=3, terms=(10, 99)) == []


def test_ambiguous_words_are_no_keywords_alone() -> None:
    """'field', 'seed', 'plant' and 'yield' mean too many other things to select the pack."""
    assert {"field", "fields", "seed", "seeds", "plant", "plants", "yield"}.isdisjoint(
        _pack().keywords)


def test_tools_say_crop_soil_farm_harvest_yield_forecast_and_weather_at_the_field() -> None:
    text = " ".join(f"{op.name.replace('_', ' ')} {op.description}".lower()
                    for op in _pack().operations)
    for words in ("crop", "soil", "farm", "harvest", "yield forecast", "weather at the field"):
        assert words in text, words


def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward() -> None:
    assert gold_plan_problems(_pack()) == []


def test_read_only_tools_of_any_two_resources_give_three_of_the_packs_tasks() -> None:
    """Debaters and voters hold the read-only tools of two resources: no arithmetic filler."""
    assert short_read_only_pairs(_pack(), own=True) == []


@pytest.mark.parametrize("text", REQUESTS)
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(text: str) -> None:
    assert compiled_task_problems(text, PID) == []


def test_a_farm_assistant_holds_crop_and_field_weather_tools() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("Smart farm assistant: advises farmers on crop health, the "
                           "weather at their fields and the expected harvest.").spec
    assert spec is not None
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"get_field_conditions", "list_yield_forecasts"} <= held, sorted(held)


@pytest.mark.parametrize("text", FOREIGN)
def test_requests_in_other_languages_select_the_pack(text: str) -> None:
    assert PID in domains(text)


@pytest.mark.parametrize("text", NOT_THEIRS)
def test_overlapping_words_do_not_select_the_pack(text: str) -> None:
    assert PID not in domains(text)
