"""The `openai:<model>` backend: any OpenAI-compatible server through the official client.

The client never retries (`max_retries=0`): retries belong to the runtime, which counts
every attempt. Failures become LLMError with stable codes and `retryable` in `.data`:

llm.rate_limited   HTTP 429                 retryable
llm.server_error   HTTP 5xx                 retryable
llm.timeout        no answer in time        retryable
llm.connection     server unreachable       retryable
llm.bad_response   body is no completion    retryable
llm.bad_request    any other HTTP 4xx       not retryable
llm.blocked        real calls are blocked   not retryable (see guard.py)

`openai` (and aiohttp under it) is imported on first use only: it is slow to import and the
CLI must stay light.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from a4a.runtime.errors import LLMError, UserError
from a4a.runtime.llm import wire
from a4a.runtime.llm.base import LLMRequest, LLMResponse
from a4a.runtime.llm.guard import ensure_real_calls_allowed, is_loopback_url

if TYPE_CHECKING:
    from openai import AsyncOpenAI

DEFAULT_BASE_URL = "https://api.openai.com/v1"

# The HTTP transports under the official client. aiohttp (the client's `DefaultAioHttpClient`)
# costs about 1 ms of client CPU per request against httpx's 2-2.5 ms (measured, 512 in
# flight): httpx's pool checks every connection's socket on each request and response.
Http = Literal["aiohttp", "httpx"]
HTTP_CLIENTS: tuple[Http, ...] = ("aiohttp", "httpx")

# Requests in flight per httpx client. httpcore's pool scans every connection on each request
# (quadratic in the pool size), so a few hundred requests over one client cost more client
# CPU than splitting them over several small pools. aiohttp needs no lanes: one client.
LANE_SIZE = 32


@dataclass
class _Connection:
    """Clients and their free slots, all tied to the event loop that made them.

    `free` holds one entry per slot, naming the client (lane) the slot belongs to: taking an
    entry bounds the backend's concurrency and each client's at once. `closer` closes the
    clients when finalized (see `_closer`).
    """

    loop: asyncio.AbstractEventLoop
    clients: list[AsyncOpenAI]
    free: asyncio.Queue[int]
    closer: AsyncGenerator[None, None]


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server (OpenAI, vLLM, SGLang, Ollama).

    Args:
        model: the model name the server knows.
        base_url: the server's /v1 URL; defaults to OPENAI_BASE_URL, then OpenAI's.
        api_key: defaults to OPENAI_API_KEY; local servers accept a dummy ("EMPTY").
        max_concurrency: requests in flight at once from this backend.
        timeout_s: seconds to wait for one answer.
        capture_tokens: request logprobs and keep token ids and logprobs in responses
            (token ids need vLLM's `--return-tokens-as-token-ids` or `return_token_ids`).
        extra_body: extra request fields for server-specific options (vLLM's
            `return_token_ids`, say); the request's own fields win over them.
        http: the client's HTTP transport, one of `HTTP_CLIENTS`; both keep connections
            alive, pooled to `max_concurrency`.

    Raises:
        UserError: on an empty model name, a bound below 1, an unknown transport, or no
            API key for OpenAI itself.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_concurrency: int = 64, timeout_s: float = 60.0,
                 capture_tokens: bool = False, extra_body: Mapping[str, Any] | None = None,
                 http: Http = "aiohttp") -> None:
        if not model:
            raise UserError("llm.no_model", "the openai backend needs a model name",
                            "Write the spec as openai:<model>, e.g. openai:gpt-4o-mini.")
        if max_concurrency < 1 or timeout_s <= 0:
            raise UserError("llm.bad_limits", f"max_concurrency={max_concurrency} and "
                            f"timeout_s={timeout_s} must be positive", "Pass positive limits.")
        if http not in HTTP_CLIENTS:
            raise UserError("llm.bad_http", f"unknown HTTP transport {http!r}",
                            f"Use one of {', '.join(HTTP_CLIENTS)}.")
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self.capture_tokens = capture_tokens
        self.extra_body = dict(extra_body or {})
        self.http = http
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        if not self._api_key and self.base_url == DEFAULT_BASE_URL:
            raise UserError("llm.no_api_key", "no API key for api.openai.com",
                            "Set OPENAI_API_KEY, or point OPENAI_BASE_URL at a local server.")
        self._live: _Connection | None = None

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request with one HTTP call (never retried here).

        Raises:
            LLMError: with a code from the module docstring and `retryable` in `.data`.
        """
        ensure_real_calls_allowed(self.name, base_url=self.base_url)
        conn = await self._connection()
        body = {"model": self.model, **self.extra_body,
                **wire.request_body(request, capture_tokens=self.capture_tokens)}
        lane = await conn.free.get()
        try:
            # The client's documented generic `post`, not `chat.completions.create`: the body
            # is already wire-ready, and the typed path re-walks every message against its
            # TypedDicts, which cost about a third of the client's CPU per call (measured).
            payload = await conn.clients[lane].post("/chat/completions", cast_to=bytes,
                                                    body=body)
        except Exception as err:
            mapped = _map_error(err, self)
            if mapped is None:
                raise  # not the client's error: a bug to see, not a failure to retry
            raise mapped from err
        finally:
            conn.free.put_nowait(lane)
        return wire.parse_completion(payload, self.name)

    async def aclose(self) -> None:
        """Close the HTTP connections of the current event loop's clients.

        A backend never closed is closed as its loop ends under `asyncio.run`.
        """
        live, self._live = self._live, None
        if live is not None and not live.loop.is_closed():
            await live.closer.aclose()

    async def __aenter__(self) -> OpenAIBackend:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, err: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def _connection(self) -> _Connection:
        # HTTP pools and queues bind to the loop that first uses them; a backend reused
        # under a new loop (a second asyncio.run) gets fresh ones.
        loop = asyncio.get_running_loop()
        if self._live is None or self._live.loop is not loop:
            lane_size = LANE_SIZE if self.http == "httpx" else self.max_concurrency
            lanes = -(-self.max_concurrency // lane_size)
            clients = [self._client(min(lane_size, self.max_concurrency)) for _ in range(lanes)]
            free: asyncio.Queue[int] = asyncio.Queue()
            for slot in range(self.max_concurrency):
                free.put_nowait(slot // lane_size)
            closer = _closer(clients)
            await anext(closer)
            self._live = _Connection(loop, clients, free, closer)
        return self._live

    def _client(self, connections: int) -> AsyncOpenAI:
        """One official client whose pool keeps `connections` connections alive."""
        import openai

        # The Limits class of whichever httpx the installed client is built on.
        limits = type(openai.DEFAULT_CONNECTION_LIMITS)(
            max_connections=connections, max_keepalive_connections=connections)
        try:
            http_client = (openai.DefaultAioHttpClient(limits=limits) if self.http == "aiohttp"
                           else openai.DefaultAsyncHttpxClient(limits=limits))
        except RuntimeError as err:  # the client says the aiohttp extra is missing
            raise UserError("llm.no_aiohttp", f"{self.name}: {err}",
                            "Install it (pip install 'openai[aiohttp]') or pass http='httpx'."
                            ) from err
        return openai.AsyncOpenAI(api_key=self._api_key or "EMPTY", base_url=self.base_url,
                                  timeout=self.timeout_s, max_retries=0,
                                  http_client=http_client)


async def _closer(clients: list[AsyncOpenAI]) -> AsyncGenerator[None, None]:
    """Close the clients once finalized: by `aclose`, or by the loop's shutdown.

    `asyncio.run` finalizes the async generators still open as its loop ends, so a backend
    its caller never closed (one run per `asyncio.run`) still closes its connections, in its
    own loop; aiohttp would otherwise log each unclosed session.
    """
    try:
        yield
    finally:
        for client in clients:
            await client.close()


def _map_error(err: Exception, backend: OpenAIBackend) -> LLMError | None:
    """The LLMError for a client failure (stable code, `retryable`); None for other errors."""
    import openai

    name, url = backend.name, backend.base_url
    if isinstance(err, openai.APITimeoutError) and not _refused(err):
        return LLMError("llm.timeout", f"{name}: no answer within {backend.timeout_s}s",
                        "Raise timeout_s or lower the server's load; the call is retried.",
                        retryable=True, backend=name)
    if isinstance(err, openai.APIConnectionError):
        where = "a local server" if is_loopback_url(url) else "the server"
        return LLMError("llm.connection", f"{name}: cannot reach {url}: {err}",
                        f"Check OPENAI_BASE_URL and that {where} is up; the call is retried.",
                        retryable=True, backend=name)
    if isinstance(err, openai.APIStatusError):
        return _status_error(err, name)
    if isinstance(err, openai.OpenAIError):
        return LLMError("llm.bad_response", f"{name}: {type(err).__name__}: {err}",
                        "Check that the base URL serves OpenAI-compatible chat completions.",
                        retryable=True, backend=name)
    return None


def _refused(err: BaseException) -> bool:
    """Whether a client "timeout" was a refused or failed connection.

    The client's aiohttp transport reports those as connect timeouts; the OSError that is
    no TimeoutError under them tells them apart.
    """
    cause = err.__cause__
    while cause is not None:
        if isinstance(cause, OSError) and not isinstance(cause, TimeoutError):
            return True
        cause = cause.__cause__
    return False


def _status_error(err: Any, name: str) -> LLMError:
    status = int(err.status_code)
    data: dict[str, Any] = {"backend": name, "status": status}
    message = f"{name}: HTTP {status}: {err.message}"
    if status == 429:
        retry_after = _retry_after(err.response.headers.get("retry-after"))
        if retry_after is not None:
            data["retry_after_s"] = retry_after
        return LLMError("llm.rate_limited", message, "The server is throttling; the call is "
                        "retried with backoff. Lower max_concurrency if it persists.",
                        retryable=True, **data)
    if status >= 500:
        return LLMError("llm.server_error", message, "The model server failed; the call is "
                        "retried. Check the server's log if it persists.", retryable=True, **data)
    hints = {401: "Check OPENAI_API_KEY.", 403: "Check the API key's permissions.",
             404: "Check the model name and that the base URL ends in /v1."}
    return LLMError("llm.bad_request", message, hints.get(status, "Fix the request "
                    "(model name, parameters); it is not retried."), retryable=False, **data)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:  # an HTTP date: rare from model servers; let the backoff decide
        return None
