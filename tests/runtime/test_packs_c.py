"""The maps, media studio, weather and insurance packs, and the observability part of incident
response:
every template's gold plan earns reward 1.0 and dropping any of its calls lowers it; agents that
hold only read-only tools still get tasks; requests in these domains, in several languages,
select the pack and get tasks the oracle solves; and their words do not take requests that
belong to other packs."""

from __future__ import annotations

import itertools

import pytest

from a4a.generator.intent import RuleIntentParser
from a4a.runtime import knowledge
from a4a.runtime.ir.domain import DomainPack
from a4a.runtime.world.synthesis import synthesize
from a4a.runtime.world.tasks import check
from tests.runtime.test_packs_b import OTHER_LANGS, _holding, _reads_only, template_task
from tests.runtime.test_tasks import oracle, pack_framework, run

PACK_IDS = ("maps", "media_studio", "weather", "insurance")

REQUESTS = {
    "maps": [
        "A city guide that uses Google Maps to find places nearby, geocode the hotel address and "
        "give walking directions between the stops.",
        "Two agents debate whether the walking tour should start at the castle or the market; "
        "a judge checks the distance between the points of interest on the map and decides.",
        "Three local guides independently pick the best places to visit near the station with "
        "Google Maps and vote.",
    ],
    "media_studio": [
        "A podcast producer turns a blog post into a podcast episode: text-to-speech for each "
        "line with ElevenLabs voices, then the clips are mixed into one MP3.",
        "An image generation agent creates banner images with Stable Diffusion, and a reviewer "
        "approves or rejects each image.",
        "Three transcription agents independently transcribe the audio recording (speech to "
        "text) and vote on the best transcript.",
        "A video summarizer agent reads the captions of each YouTube video in our library and "
        "writes a short summary of it.",
    ],
    "weather": [
        "A weather assistant that reads the current weather conditions and the weather forecast "
        "for our farms and warns us of severe weather alerts.",
        "Two agents debate whether to move the outdoor concert indoors given the weather "
        "forecast; a judge decides.",
        "Three forecasters independently read the weather data for the port and vote on "
        "whether a storm warning is needed.",
    ],
    "insurance": [
        "An insurance claims team: an intake agent takes the first notice of loss and files the "
        "claim, an adjuster assesses the damage, and a fraud investigator checks for duplicates.",
        "Two agents debate whether the water damage claim is covered by the home insurance "
        "policy; a judge decides.",
        "Three claims adjusters independently estimate the claim and vote on the amount.",
    ],
}

# Requests in other languages and the pack each must select.
FOREIGN = [
    ("Агент исследователь города: интересные места + карта с помощью 2GIS.", "maps"),
    ("帮我规划路线规划：附近的景点和步行路线", "maps"),
    ("Busca lugares cercanos y dame indicaciones para llegar al museo.", "maps"),
    ("Агент генерации подкастов: создает подкаст на основе статьи.", "media_studio"),
    ("画像生成とナレーションの音声合成を行うエージェント", "media_studio"),
    ("Ein Agent für Bildgenerierung und Sprachsynthese für unsere Werbung.", "media_studio"),
    ("Un agent qui lit la météo et les prévisions météo pour nos chantiers.", "weather"),
    ("Um agente que acompanha a previsão do tempo e alertas de tempestade.", "weather"),
    ("天气预报助手：每天早上告诉我气温和降雨", "weather"),
    ("Анализ логов и метрик сервиса после инцидента", "incident_response"),
    ("Агент для урегулирования убытков: принимает страховой случай и проверяет полис.",
     "insurance"),
    ("保险理赔助手：登记出险信息并检查保单的免赔额", "insurance"),
    ("Ein Agent für die Schadenregulierung unserer Kfz-Versicherung.", "insurance"),
    ("Un agente que registra siniestros y revisa la póliza del asegurado.", "insurance"),
]

# Requests whose words overlap the new packs' but that belong elsewhere (or nowhere).
NOT_THEIRS = [
    ("Use map-reduce: a mapper summarizes each chapter and a reducer merges the summaries.",
     {"maps"}),
    ("Draw a mind map of the project risks on a map of the roadmap.", {"maps"}),
    ("Our team has to weather the storm of the product recall.", {"weather"}),
    ("Build a sales forecast from the CRM pipeline.", {"weather"}),
    ("Two agents debate whether AI-generated art is real art; a judge decides.",
     {"media_studio"}),
    ("An agent that sorts my receipts and marks which ones are tax deductible.",
     {"insurance"}),
    ("Estoy seguro de que un agente puede ordenar mis correos.", {"insurance"}),
]


def _pack(pid: str) -> DomainPack:
    return knowledge.domain_packs()[pid]


def _domains(text: str) -> tuple[str, ...]:
    return RuleIntentParser().parse(text).domains


@pytest.mark.parametrize("pid", PACK_IDS)
def test_pack_has_the_depth_of_the_others(pid: str) -> None:
    pack = _pack(pid)
    assert check(pack, range(8)) == []
    assert len(pack.tasks) >= 10 and len(pack.resources) >= 4
    assert {t.difficulty for t in pack.tasks} == {"easy", "medium", "hard"}
    assert sum(_reads_only(pack, t) for t in pack.tasks) >= 5
    assert len([t for t in pack.tasks if any(s.expect_error for s in t.plan)]) >= 2
    assert set(pack.vocabulary) == OTHER_LANGS
    assert all(len(terms) >= 10 for terms in pack.vocabulary.values())
    assert pack.senses and all(s.term in pack.keywords for s in pack.senses)
    assert len(pack.personas) >= 3 and len(pack.roles) >= 4
    assert {t.problem_type[0] for t in pack.tasks} == {p.id for p in pack.problem_types}


@pytest.mark.parametrize("pid", [*PACK_IDS, "incident_response"])
def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward(pid: str) -> None:
    pack = _pack(pid)
    spec = pack_framework(pack)
    failed, unchanged = [], []
    for t in pack.tasks:
        task = template_task(pack, t)
        got = run(spec, task, oracle(spec, task))
        if got["composite"] < 1.0 or got["tool"] < 1.0:
            failed.append((t.id, got))
        for i in range(len(task.plan)):
            dropped = task.plan[:i] + task.plan[i + 1:]
            if run(spec, task, oracle(spec, task, dropped))["composite"] >= 1.0:
                unchanged.append((t.id, i))
    assert failed == []
    assert unchanged == []


@pytest.mark.parametrize("pid", PACK_IDS)
def test_read_only_tools_of_any_two_resources_give_three_tasks(pid: str) -> None:
    pack = _pack(pid)
    spec = pack_framework(pack)
    short = []
    for a, b in itertools.combinations([r.name for r in pack.resources], 2):
        reads = {op.name for op in pack.operations if not op.writes and op.resource in (a, b)}
        got = synthesize(_holding(spec, reads), 3, seed=2)
        if len(got) < 3:
            short.append((a, b, len(got)))
    assert short == []


@pytest.mark.parametrize(("pid", "text"),
                         [(p, t) for p, texts in REQUESTS.items() for t in texts])
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(pid: str, text: str) -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request(text).spec
    assert spec is not None and spec.environment is not None
    assert pid in spec.environment.domains
    tasks = [t for t in synthesize(spec, 6, seed=2) if t.pack == pid]
    assert len(tasks) >= 3, (spec.pattern, len(tasks))
    assert [t.id for t in tasks if run(spec, t, oracle(spec, t))["composite"] < 1.0] == []


@pytest.mark.parametrize(("text", "pid"), FOREIGN)
def test_requests_in_other_languages_select_the_pack(text: str, pid: str) -> None:
    assert pid in _domains(text)


@pytest.mark.parametrize(("text", "packs"), NOT_THEIRS)
def test_overlapping_words_do_not_select_the_new_packs(text: str, packs: set[str]) -> None:
    assert packs.isdisjoint(_domains(text))


def test_observability_work_gets_log_metric_and_trace_tools() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("An SRE agent investigates the outage: it searches the error logs, "
                           "checks the service metrics and reads the slow traces.").spec
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"search_logs", "list_metrics", "list_traces"} <= held, sorted(held)


def test_a_video_summarizer_holds_the_video_tools() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request("A video summarizer agent reads the transcript of each YouTube "
                           "video in our library and writes a short summary of it.").spec
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"list_videos", "get_video"} <= held, sorted(held)
