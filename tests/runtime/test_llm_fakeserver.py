"""The loopback fake server itself, spoken to over plain HTTP."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from a4a.runtime.errors import UserError
from a4a.runtime.llm.fakeserver import FakeOpenAIServer, FaultPlan, Reply

from .conftest import ServerFactory


def _post(conn: http.client.HTTPConnection, body: dict[str, Any]) -> tuple[int, bytes]:
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                 {"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


_open: list[http.client.HTTPConnection] = []


@pytest.fixture(autouse=True)
def _close_connections() -> Iterator[None]:
    yield
    while _open:
        _open.pop().close()


def _conn(server: FakeOpenAIServer) -> http.client.HTTPConnection:
    port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    _open.append(http.client.HTTPConnection("127.0.0.1", port, timeout=5))
    return _open[-1]


HELLO = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_keep_alive_schedule_and_counts(fake_server: ServerFactory) -> None:
    server = fake_server(faults=FaultPlan(schedule={2: "rate_limit", 3: "server_error",
                                                    4: "malformed"}))
    conn = _conn(server)  # one connection for all: HTTP/1.1 keep-alive
    statuses = [_post(conn, HELLO) for _ in range(5)]
    assert [s for s, _ in statuses] == [200, 429, 500, 200, 200]
    with pytest.raises(json.JSONDecodeError):
        json.loads(statuses[3][1])
    assert json.loads(statuses[4][1])["choices"][0]["message"]["content"] == "echo: hi"
    assert server.stats.requests == 5
    assert server.stats.faults == {"rate_limit": 1, "server_error": 1, "malformed": 1}


def test_scripted_replies_then_exhaustion(fake_server: ServerFactory) -> None:
    server = fake_server(script=[Reply("first"), Reply(tool_calls=(("f", "not json"),))])
    conn = _conn(server)
    first = json.loads(_post(conn, HELLO)[1])["choices"][0]
    second = json.loads(_post(conn, HELLO)[1])["choices"][0]
    assert first["message"]["content"] == "first"
    assert second["message"]["tool_calls"][0]["function"] == {"name": "f",
                                                              "arguments": "not json"}
    assert second["finish_reason"] == "tool_calls"
    assert _post(conn, HELLO)[0] == 400


def test_responder_and_empty_choices(fake_server: ServerFactory) -> None:
    server = fake_server(responder=lambda body: Reply(body["model"].upper()),
                         faults=FaultPlan(schedule={2: "empty_choices"}))
    conn = _conn(server)
    assert json.loads(_post(conn, HELLO)[1])["choices"][0]["message"]["content"] == "M"
    assert json.loads(_post(conn, HELLO)[1])["choices"] == []


def test_random_faults_replay_with_their_seed(fake_server: ServerFactory) -> None:
    def run() -> list[int]:
        server = fake_server(faults=FaultPlan(rates={"rate_limit": 0.3, "server_error": 0.2},
                                              seed=11))
        conn = _conn(server)
        return [_post(conn, HELLO)[0] for _ in range(40)]

    first = run()
    assert first == run() and {200, 429, 500} == set(first)


def test_other_routes(fake_server: ServerFactory) -> None:
    conn = _conn(fake_server(model="tiny"))
    conn.request("GET", "/v1/models")
    assert json.loads(conn.getresponse().read())["data"][0]["id"] == "tiny"
    conn.request("GET", "/nowhere")
    assert conn.getresponse().status == 404


@pytest.mark.parametrize("plan", [{"rates": {"fire": 0.1}}, {"schedule": {1: "fire"}},
                                  {"rates": {"hang": 0.7, "malformed": 0.6}}])
def test_bad_fault_plans(plan: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        FaultPlan(**plan)
