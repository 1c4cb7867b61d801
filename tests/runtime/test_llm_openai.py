"""The openai backend against the loopback fake server: wire format, token data, errors."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from typing import Any

import pytest

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm.base import LLMRequest, LLMResponse, Message, ToolCall, ToolSchema
from a4a.runtime.llm.fakeserver import FaultPlan, Reply, token_id
from a4a.runtime.llm.openai_backend import HTTP_CLIENTS, Http, OpenAIBackend

from .conftest import ServerFactory

WEATHER = ToolSchema("get_weather", "Weather for a city.",
                     {"type": "object", "properties": {"city": {"type": "string"}},
                      "required": ["city"]})


@pytest.fixture(params=HTTP_CLIENTS)
def http(request: pytest.FixtureRequest) -> Http:
    """Each HTTP transport under the official client, for tests of transport behaviour."""
    value: Http = request.param
    return value


def _hello(text: str = "hello there", **kwargs: Any) -> LLMRequest:
    return LLMRequest((Message("system", "be brief"), Message("user", text)), **kwargs)


def _ask(backend: OpenAIBackend, request: LLMRequest) -> LLMResponse:
    async def go() -> LLMResponse:
        async with backend:
            return await backend.complete(request)
    return asyncio.run(go())


def _fail(backend: OpenAIBackend, request: LLMRequest) -> LLMError:
    with pytest.raises(LLMError) as info:
        _ask(backend, request)
    return info.value


def test_plain_answer(fake_server: ServerFactory, http: Http) -> None:
    server = fake_server()
    out = _ask(OpenAIBackend("m1", base_url=server.base_url, api_key="EMPTY", http=http),
               _hello())
    assert out.message == Message("assistant", "echo: hello there")
    assert (out.finish_reason, out.model) == ("stop", "m1")
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (4, 3)
    assert out.token_ids is None and out.logprobs is None
    body = server.stats.bodies[0]
    assert body["model"] == "m1" and "logprobs" not in body and "tools" not in body
    assert body["messages"] == [{"role": "system", "content": "be brief"},
                                {"role": "user", "content": "hello there"}]


def test_request_options_reach_the_wire(fake_server: ServerFactory) -> None:
    server = fake_server()
    request = _hello(temperature=0.0, max_tokens=16, stop=("END",), seed=7)
    _ask(OpenAIBackend("m", base_url=server.base_url, api_key="k"), request)
    body = server.stats.bodies[0]
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == (
        0.0, 16, ["END"], 7)


def test_tool_calls_round_trip(fake_server: ServerFactory) -> None:
    server = fake_server(script=[Reply(tool_calls=(("get_weather", {"city": "Paris"}),)),
                                 Reply("It is sunny.")])
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="EMPTY")
    first = _ask(backend, _hello("weather in Paris?", tools=(WEATHER,)))
    (call,) = first.message.tool_calls
    assert (call.name, call.arguments, call.raw) == ("get_weather", {"city": "Paris"}, None)
    assert first.finish_reason == "tool_calls"
    assert server.stats.bodies[0]["tools"] == [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city.",
        "parameters": WEATHER.parameters}}]

    history = (*_hello("weather in Paris?").messages, first.message,
               Message("tool", '{"sky": "sunny"}', tool_call_id=call.id, name=call.name))
    second = _ask(backend, LLMRequest(history, tools=(WEATHER,)))
    assert second.message.content == "It is sunny."
    sent = server.stats.bodies[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"] == {"name": "get_weather",
                                                    "arguments": '{"city": "Paris"}'}
    assert sent[3] == {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny"}'}


def test_text_tool_modes_send_no_tools(fake_server: ServerFactory) -> None:
    server = fake_server()
    _ask(OpenAIBackend("m", base_url=server.base_url, api_key="k"),
         _hello(tools=(WEATHER,), tool_mode="hermes"))
    assert "tools" not in server.stats.bodies[0]


def test_invalid_json_arguments_are_kept_raw(fake_server: ServerFactory) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: "bad_arguments"}))
    out = _ask(OpenAIBackend("m", base_url=server.base_url, api_key="k"),
               _hello(tools=(WEATHER,)))
    (call,) = out.message.tool_calls
    assert call == ToolCall(call.id, "get_weather", {}, raw='{"query": "unterminated')


def test_unknown_tool_names_pass_through_for_the_loop(fake_server: ServerFactory) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: "unknown_tool"}))
    out = _ask(OpenAIBackend("m", base_url=server.base_url, api_key="k"), _hello())
    assert [(c.name, c.arguments) for c in out.message.tool_calls] == [("no_such_tool", {})]


def test_token_ids_and_logprobs_are_captured(fake_server: ServerFactory) -> None:
    server = fake_server()
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="k", capture_tokens=True)
    out = _ask(backend, _hello("hi you"))
    assert server.stats.bodies[0]["logprobs"] is True
    assert out.token_ids == tuple(token_id(w) for w in ["echo:", "hi", "you"])
    assert out.logprobs == pytest.approx((-0.1, -0.2, -0.3))


def test_plain_token_strings_give_logprobs_without_ids(fake_server: ServerFactory) -> None:
    server = fake_server(token_ids=False)
    out = _ask(OpenAIBackend("m", base_url=server.base_url, api_key="k", capture_tokens=True),
               _hello("hi"))
    assert out.token_ids is None
    assert out.logprobs is not None and len(out.logprobs) == 2


@pytest.mark.parametrize(("fault", "code", "retryable"), [
    ("rate_limit", "llm.rate_limited", True),
    ("server_error", "llm.server_error", True),
    ("malformed", "llm.bad_response", True),
    ("empty_choices", "llm.bad_response", True),
])
def test_faults_map_to_stable_codes(fake_server: ServerFactory, http: Http, fault: str,
                                    code: str, retryable: bool) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: fault}))
    err = _fail(OpenAIBackend("m", base_url=server.base_url, api_key="k", http=http), _hello())
    assert (err.code, err.data["retryable"]) == (code, retryable)
    assert err.hint and err.data["backend"] == "openai:m"
    assert server.stats.requests == 1  # the client itself never retried


def test_rate_limit_carries_retry_after(fake_server: ServerFactory) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: "rate_limit"}), retry_after_s=2)
    err = _fail(OpenAIBackend("m", base_url=server.base_url, api_key="k"), _hello())
    assert (err.data["status"], err.data["retry_after_s"]) == (429, 2.0)


def test_other_4xx_is_a_bad_request_not_retried(fake_server: ServerFactory) -> None:
    server = fake_server(script=[])  # an exhausted script answers 400
    err = _fail(OpenAIBackend("m", base_url=server.base_url, api_key="k"), _hello())
    assert (err.code, err.data["retryable"], err.data["status"]) == (
        "llm.bad_request", False, 400)


def test_a_hanging_server_times_out(fake_server: ServerFactory, http: Http) -> None:
    server = fake_server(faults=FaultPlan(schedule={1: "hang"}))
    err = _fail(OpenAIBackend("m", base_url=server.base_url, api_key="k", timeout_s=0.3,
                              http=http), _hello())
    assert (err.code, err.data["retryable"]) == ("llm.timeout", True)


def test_a_closed_port_is_a_connection_error(fake_server: ServerFactory, http: Http) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        err = _fail(OpenAIBackend("m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
                                  http=http), _hello())
    assert (err.code, err.data["retryable"]) == ("llm.connection", True)


def test_concurrency_is_bounded(fake_server: ServerFactory, http: Http) -> None:
    server = fake_server(latency_s=0.2)
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="k", max_concurrency=4,
                            http=http)

    async def go() -> list[LLMResponse]:
        async with backend:
            return await asyncio.gather(*(backend.complete(_hello(f"q{i}")) for i in range(12)))

    answers = asyncio.run(go())
    assert [a.message.content for a in answers] == [f"echo: q{i}" for i in range(12)]
    assert server.stats.max_in_flight == 4


def test_bound_holds_across_client_lanes(fake_server: ServerFactory, http: Http) -> None:
    server = fake_server(latency_s=0.1)
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="k", max_concurrency=40,
                            http=http)

    async def go() -> None:
        async with backend:
            await asyncio.gather(*(backend.complete(_hello()) for _ in range(100)))

    asyncio.run(go())
    assert server.stats.requests == 100 and server.stats.max_in_flight <= 40


def test_a_backend_survives_a_new_event_loop(fake_server: ServerFactory, http: Http) -> None:
    server = fake_server()
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="k", http=http)
    assert _ask(backend, _hello("one")).message.content == "echo: one"
    assert _ask(backend, _hello("two")).message.content == "echo: two"


def test_an_unclosed_backend_closes_with_its_loop(fake_server: ServerFactory, http: Http,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    server = fake_server()
    backend = OpenAIBackend("m", base_url=server.base_url, api_key="k", http=http)
    for text in ("one", "two"):  # one asyncio.run per call, as `a4a run` does; no aclose
        assert asyncio.run(backend.complete(_hello(text))).message.content == f"echo: {text}"
    del backend
    gc.collect()  # an unclosed session or socket would warn (an error here) or log now
    assert not [r.getMessage() for r in caplog.records if "nclosed" in r.getMessage()]


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = OpenAIBackend("m")
    assert (backend.base_url, backend.name) == ("http://127.0.0.1:9/v1", "openai:m")


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"model": ""}, "llm.no_model"),
    ({"model": "m", "max_concurrency": 0}, "llm.bad_limits"),
    ({"model": "m", "base_url": "http://127.0.0.1:9/v1", "http": "requests"}, "llm.bad_http"),
    ({"model": "m"}, "llm.no_api_key"),
])
def test_bad_settings_are_user_errors(monkeypatch: pytest.MonkeyPatch,
                                      kwargs: dict[str, Any], code: str) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError) as info:
        OpenAIBackend(**kwargs)
    assert info.value.code == code and info.value.hint


def test_the_wire_body_is_json_serialisable() -> None:
    from a4a.runtime.llm.wire import request_body

    call = ToolCall("c1", "get_weather", {}, raw="{broken")
    body = request_body(LLMRequest((Message("assistant", "", (call,)),), tools=(WEATHER,)))
    # Invalid argument text is not echoed back: servers that render templates reject it.
    assert json.loads(json.dumps(body))["messages"][0]["tool_calls"][0]["function"] == {
        "name": "get_weather", "arguments": "{}"}
