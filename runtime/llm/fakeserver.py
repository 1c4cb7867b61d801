"""A loopback OpenAI-compatible chat-completions server for tests and benchmarks.

It serves POST /v1/chat/completions on 127.0.0.1 (HTTP/1.1 with keep-alive) from its own
event loop in a background thread, so sync and async callers alike can use it. Replies are
echoed, scripted or computed; faults are injected by probability or by request number; the
server counts every request it sees so callers can reconcile it with their own ledgers.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any

from a4a.runtime.errors import UserError

FAULTS = ("rate_limit", "server_error", "malformed", "empty_choices", "hang",
          "bad_arguments", "unknown_tool")
CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One assistant reply; a tool call's arguments are an object, or text sent verbatim."""

    content: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()


Responder = Callable[[dict[str, Any]], Reply]


@dataclass(frozen=True)
class FaultPlan:
    """Which faults to inject: by probability per request, or at given request numbers.

    Attributes:
        rates: fault name -> probability per request (the rates must sum to at most 1).
        schedule: 1-based request number -> fault name; it wins over `rates`.
        seed: seed of the random draws, so a plan replays identically.
    """

    rates: Mapping[str, float] = field(default_factory=dict)
    schedule: Mapping[int, str] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        unknown = sorted({*self.rates, *self.schedule.values()} - set(FAULTS))
        if unknown:
            raise UserError("fakeserver.unknown_fault", f"unknown faults {unknown}",
                            f"Use some of {', '.join(FAULTS)}.")
        if any(r < 0 for r in self.rates.values()) or sum(self.rates.values()) > 1:
            raise UserError("fakeserver.bad_rates", f"fault rates {dict(self.rates)} are not "
                            "probabilities", "Give each rate in [0, 1], summing to at most 1.")


@dataclass
class ServerStats:
    """What the server has seen (chat-completion requests only)."""

    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    bodies: list[dict[str, Any]] = field(default_factory=list)


class FakeOpenAIServer:
    """A loopback chat-completions server on an ephemeral port; use it as a context manager.

    Replies come from `responder` if given, else from `script` in order (a 400 once it runs
    out), else they echo the last user message. When a request asks for logprobs, the tokens
    are whitespace-split words, written as `token_id:N` (as vLLM's `return_tokens_as_token_ids`
    does) when `token_ids` is set.
    """

    def __init__(self, *, latency_s: float = 0.0, script: Sequence[Reply] | None = None,
                 responder: Responder | None = None, faults: FaultPlan | None = None,
                 token_ids: bool = True, hang_s: float = 3600.0,
                 retry_after_s: float | None = None, model: str = "fake-model") -> None:
        self.latency_s = latency_s
        self.token_ids = token_ids
        self.hang_s = hang_s
        self.retry_after_s = retry_after_s
        self.model = model
        self.stats = ServerStats()
        self._script = list(script) if script is not None else None
        self._responder = responder
        self._faults = faults or FaultPlan()
        self._rng = random.Random(self._faults.seed)
        self._port = 0
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._conns: set[asyncio.Task[Any]] = set()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL to hand to a client, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> FakeOpenAIServer:
        """Start serving in a background thread; returns once the port is bound."""
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()),
                                        name="a4a-fake-openai", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None or not self._port:
            raise RuntimeError("the fake server did not start") from self._error
        return self

    def stop(self) -> None:
        """Stop serving, cancel hanging requests and join the thread."""
        if self._loop is not None and self._stop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        self._loop = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def _main(self) -> None:
        try:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            # A deep backlog: hundreds of clients connect at once and a dropped SYN costs 1 s.
            server = await asyncio.start_server(self._on_connection, "127.0.0.1", 0,
                                                backlog=4096)
            self._port = server.sockets[0].getsockname()[1]
        except BaseException as err:
            self._error = err
            raise
        finally:
            self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            for task in list(self._conns):
                task.cancel()
            await asyncio.gather(*self._conns, return_exceptions=True)

    async def _on_connection(self, reader: asyncio.StreamReader,
                             writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conns.add(task)
        try:
            while await self._serve_one(reader, writer):
                pass
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass  # the client went away mid-request: nothing to answer
        except asyncio.CancelledError:
            # Shutdown cancels idle keep-alive connections; ending quietly here keeps asyncio
            # from logging each one as a failed callback.
            pass
        finally:
            writer.close()
            if task is not None:
                self._conns.discard(task)

    async def _serve_one(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection should close."""
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *lines = head.split("\r\n")
        method, path, *_ = [*request_line.split(" "), "", ""]
        headers = {k.strip().lower(): v.strip()
                   for k, _, v in (line.partition(":") for line in lines if line)}
        body = await reader.readexactly(int(headers.get("content-length") or 0))
        if method == "POST" and path == CHAT_PATH:
            status, payload, extra = await self._chat(body)
        elif method == "GET" and path == "/v1/models":
            status, payload, extra = 200, json.dumps(
                {"object": "list", "data": [{"id": self.model, "object": "model"}]}), {}
        else:
            status, payload, extra = 404, _error_body(f"no route {method} {path}", "not_found"), {}
        writer.write(_http(status, payload.encode(), extra))
        await writer.drain()
        return headers.get("connection", "").lower() != "close"

    async def _chat(self, raw: bytes) -> tuple[int, str, dict[str, str]]:
        stats = self.stats
        stats.requests += 1
        number = stats.requests
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            body = json.loads(raw)
            stats.bodies.append(body)
            fault = self._pick_fault(number)
            if fault:
                stats.faults[fault] += 1
            await asyncio.sleep(self.hang_s if fault == "hang" else self.latency_s)
            return self._answer(body, fault, number)
        except json.JSONDecodeError as err:
            return 400, _error_body(f"request body is not JSON: {err}", "invalid_request"), {}
        finally:
            stats.in_flight -= 1

    def _pick_fault(self, number: int) -> str | None:
        if number in self._faults.schedule:
            return self._faults.schedule[number]
        draw, edge = self._rng.random(), 0.0
        for name, rate in self._faults.rates.items():
            edge += rate
            if draw < edge:
                return name
        return None

    def _answer(self, body: dict[str, Any], fault: str | None,
                number: int) -> tuple[int, str, dict[str, str]]:
        if fault == "rate_limit":
            extra = {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}
            return 429, _error_body("rate limited (injected)", "rate_limit_exceeded"), extra
        if fault == "server_error":
            return 500, _error_body("internal error (injected)", "server_error"), {}
        if fault == "malformed":
            return 200, '{"id": "chatcmpl-broken", "choices": [{"index": 0, "mess', {}
        reply = self._reply(body, fault)
        if reply is None:
            return 400, _error_body("the fake server's script is exhausted", "script"), {}
        completion = self._completion(body, reply, number)
        if fault == "empty_choices":
            completion["choices"] = []
        return 200, json.dumps(completion), {}

    def _reply(self, body: dict[str, Any], fault: str | None) -> Reply | None:
        if fault == "bad_arguments":
            tools = body.get("tools") or [{"function": {"name": "lookup"}}]
            return Reply(tool_calls=((tools[0]["function"]["name"], '{"query": "unterminated'),))
        if fault == "unknown_tool":
            return Reply(tool_calls=(("no_such_tool", {}),))
        if self._responder is not None:
            return self._responder(body)
        if self._script is not None:
            return self._script.pop(0) if self._script else None
        users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
        return Reply(f"echo: {users[-1].get('content') or ''}" if users else "echo:")

    def _completion(self, body: dict[str, Any], reply: Reply, number: int) -> dict[str, Any]:
        calls = [{"id": f"call_{number}_{i}", "type": "function",
                  "function": {"name": name, "arguments": args if isinstance(args, str)
                               else json.dumps(args)}}
                 for i, (name, args) in enumerate(reply.tool_calls)]
        words = (reply.content or json.dumps([c["function"] for c in calls])).split()
        choice: dict[str, Any] = {
            "index": 0, "finish_reason": "tool_calls" if calls else "stop",
            "message": {"role": "assistant", "content": reply.content or None,
                        **({"tool_calls": calls} if calls else {})},
            "logprobs": {"content": self._logprobs(words)} if body.get("logprobs") else None,
        }
        prompt = sum(len(str(m.get("content") or "").split()) for m in body.get("messages") or [])
        return {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0,
                "model": body.get("model") or self.model, "choices": [choice],
                "usage": {"prompt_tokens": prompt, "completion_tokens": len(words),
                          "total_tokens": prompt + len(words)}}

    def _logprobs(self, words: list[str]) -> list[dict[str, Any]]:
        return [{"token": f"token_id:{token_id(word)}" if self.token_ids else word,
                 "logprob": -0.1 * (1 + i % 4), "bytes": None, "top_logprobs": []}
                for i, word in enumerate(words)]


def token_id(word: str) -> int:
    """The id the fake server gives a whitespace-separated word (for assertions)."""
    return zlib.crc32(word.encode()) % 100_000


def _error_body(message: str, code: str) -> str:
    return json.dumps({"error": {"message": message, "type": code, "code": code}})


def _http(status: int, body: bytes, extra: Mapping[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in extra.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def main(argv: Sequence[str] | None = None) -> None:
    """Serve from the command line: prints the base URL, serves until stdin closes."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m a4a.runtime.llm.fakeserver")
    parser.add_argument("--latency-s", type=float, default=0.0)
    args = parser.parse_args(argv)
    with FakeOpenAIServer(latency_s=args.latency_s) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # the parent closes stdin to stop the server


if __name__ == "__main__":
    main()
