"""The industrial monitoring pack (IoT sensors, alarms, maintenance, quality, energy):
every template's gold plan earns reward 1.0 and dropping any of its calls lowers it; agents that
hold only read-only tools still get tasks; requests in this domain, in several languages,
select the pack and get tasks the oracle solves; and its words do not take requests that
belong to other packs (servers, stock levels, weather, software pipelines) or to nobody."""

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

PID = "industrial_monitoring"

REQUESTS = [
    "A predictive maintenance team for our factory: a process monitor reads the sensor data of "
    "the machines, a maintenance planner creates work orders and assigns technicians.",
    "Two agents debate whether to stop the production line after the vibration alarm; a judge "
    "decides.",
    "Three energy analysts independently read the energy consumption of our plants and the "
    "grid load forecast and vote on whether to shift the night shift.",
    "Factory Process Monitoring Agent: Monitors production lines and ensures quality control.",
]

# Requests in other languages: each must select the pack.
FOREIGN = [
    "工厂设备预测性维护：读取传感器数据并创建维修工单",
    "工場の生産ラインの予知保全と品質検査を行うエージェント",
    "Un agente que supervisa la línea de producción y el mantenimiento predictivo de la fábrica.",
    "Ein Agent für vorausschauende Wartung und den Energieverbrauch unserer Fabrik.",
    "Un agent qui surveille les capteurs IoT de l'usine et la consommation énergétique.",
    "Um agente que monitora a linha de produção e a manutenção preditiva da fábrica.",
    "Агент для предиктивного обслуживания оборудования на заводе: читает показания датчиков.",
]

# Requests whose words overlap the pack's but that belong elsewhere (or nowhere).
NOT_THEIRS = [
    "Implement the factory pattern for our plugin loader.",
    "A plant care assistant that reminds me to water my houseplants.",
    "My houseplant app: a plant manager that tells me when to water the ferns.",
    "Acme plc wants an agent to summarise its annual report.",
    "Build a CSS grid layout with grid management for the dashboard.",
    "An alarm clock app with alarm management and snooze.",
    "Our SRE agent checks the Prometheus alerts and the service telemetry and pages the on-call.",
    "Check the stock levels in the warehouse and reorder the products that run low.",
    "Fix the CI pipeline on the build server.",
    "Reduce the power consumption of my laptop battery.",
    "A robot vacuum that uses sensor fusion to map the room.",
    "Weather forecast for the wind farm tomorrow.",
    "Process monitoring of the Linux server's CPU usage.",
    "Use the abstract factory design pattern in our Java code.",
]


def _pack() -> DomainPack:
    return knowledge.domain_packs()[PID]



def test_pack_has_the_depth_of_the_others() -> None:
    assert depth_problems(_pack(), tasks=10, resources=4, recoveries=2, terms=(5, 12)) == []


def test_words_alone_too_generic_are_not_keywords() -> None:
    keywords = set(_pack().keywords)
    assert keywords.isdisjoint({"line", "monitoring", "grid", "alarm", "plant", "sensor",
                                "telemetry", "pipeline", "warehouse"})


def test_tool_descriptions_name_what_they_read() -> None:
    ops = {op.name: op.description.lower() for op in _pack().operations}
    assert "sensor readings" in ops["get_sensor_readings"]
    assert "telemetry" in ops["get_sensor_readings"]
    assert "metrics" in ops["get_asset_metrics"]
    assert all("alarm" in ops[n] and "alert" in ops[n]
               for n in ("list_alarms", "acknowledge_alarm", "resolve_alarm"))


def test_oracle_solves_every_template_and_dropping_a_call_lowers_the_reward() -> None:
    assert gold_plan_problems(_pack()) == []


def test_read_only_tools_of_any_two_resources_give_three_tasks() -> None:
    assert short_read_only_pairs(_pack()) == []


@pytest.mark.parametrize("text", REQUESTS)
def test_compiled_frameworks_get_three_tasks_the_oracle_solves(text: str) -> None:
    assert compiled_task_problems(text, PID) == []


@pytest.mark.parametrize("text", [*REQUESTS, *FOREIGN])
def test_requests_select_the_pack(text: str) -> None:
    assert PID in domains(text)


@pytest.mark.parametrize("text", NOT_THEIRS)
def test_overlapping_words_do_not_select_the_pack(text: str) -> None:
    assert PID not in domains(text)


def test_monitoring_work_gets_sensor_alarm_and_work_order_tools() -> None:
    from a4a.generator.pipeline import compile_request

    spec = compile_request(REQUESTS[0]).spec
    held = {n for a in spec.agents for n in a.tool_names()}
    assert {"get_sensor_readings", "create_work_order"} <= held, sorted(held)
