"""NexAU's web tools: search and fetch over real HTTP, only when the run enables the network.

With the network off (the default) both answer `network_disabled`. With it on, fetches go
through aiohttp (http and https only, redirects followed one by one and checked, bodies
capped) and never to loopback, private or link-local addresses unless the run allows them
(tests serving pages on 127.0.0.1 do). Search speaks the Serper API: SERPER_API_KEY (or
SEARCH_API_KEY) and, optionally, SERPER_BASE_URL from the environment.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

from a4a.runtime.tools.base import ToolContext, ToolOutcome
from a4a.runtime.tools.nexau.common import Failure, arg, ok, text_arg

MAX_BODY = 2_000_000
MAX_TEXT = 100_000
MAX_REDIRECTS = 5
TIMEOUT_S = 30.0
SERPER_URL = "https://google.serper.dev"


def _network(ctx: ToolContext) -> None:
    if not ctx.network:
        raise Failure("NETWORK_DISABLED", "network access is off for this run",
                      "Work with the other tools; run with the network enabled to use it.")


async def _check_host(url: str, ctx: ToolContext) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Failure("INVALID_URL", f"{url} is not an absolute http(s) URL",
                      "Pass a full http:// or https:// URL.")
    if ctx.services.get("web_allow_private"):
        return
    try:
        infos = await asyncio.to_thread(socket.getaddrinfo, parts.hostname, parts.port or 443)
    except OSError as err:
        raise Failure("FETCH_FAILED", f"cannot resolve {parts.hostname}: {err}",
                      "Check the URL.") from err
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if (address.is_private or address.is_loopback or address.is_link_local
                or address.is_reserved or address.is_multicast):
            raise Failure("URL_NOT_ALLOWED", f"{parts.hostname} resolves to a local or private "
                          "address", "Fetch public web pages only.")


async def _request(ctx: ToolContext, method: str, url: str, **kw: Any) -> tuple[int, str, str]:
    """(status, content type, text) of a request, redirects checked hop by hop."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for _ in range(MAX_REDIRECTS + 1):
            await _check_host(url, ctx)
            try:
                async with session.request(method, url, allow_redirects=False, **kw) as resp:
                    if resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                        url = urljoin(url, resp.headers["Location"])
                        method = "GET" if resp.status == 303 else method
                        continue
                    body = await resp.content.read(MAX_BODY + 1)
                    kind = resp.headers.get("Content-Type", "")
                    return resp.status, kind, body[:MAX_BODY].decode(
                        resp.charset or "utf-8", errors="replace")
            except (aiohttp.ClientError, TimeoutError) as err:
                raise Failure("FETCH_FAILED", f"{method} {url} failed: {err or type(err)}",
                              "Try again or another URL.") from err
    raise Failure("FETCH_FAILED", f"{url}: more than {MAX_REDIRECTS} redirects",
                  "Fetch the final URL directly.")


class _Text(HTMLParser):
    """The visible text of an HTML page (scripts and styles dropped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style", "noscript")
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style", "noscript") and self._skip > 0
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip and data.strip():
            self.parts.append(data.strip())


def html_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML document."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser.title.strip(), "\n".join(parser.parts)


async def web_fetch(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Fetch a URL and return its text (NexAU's web_fetch / the older web_read)."""
    _network(ctx)
    url = text_arg(args, "url")
    status, kind, body = await _request(ctx, "GET", url)
    if status >= 400:
        raise Failure("HTTP_ERROR", f"GET {url}: HTTP {status}", "Try another URL.")
    title, text = html_text(body) if "html" in kind.lower() else ("", body)
    cut = len(text) > MAX_TEXT
    head = f"# {title}\n\n" if title else ""
    return ok(head + text[:MAX_TEXT] + ("\n\n[content truncated]" if cut else ""),
              url=url, status_code=status, content_type=kind)


async def web_search(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Search through a Serper-compatible API (NexAU's google_web_search / web_search)."""
    _network(ctx)
    query = text_arg(args, "query")
    key = os.environ.get("SERPER_API_KEY") or os.environ.get("SEARCH_API_KEY")
    if not key:
        raise Failure("SEARCH_NOT_CONFIGURED", "no search API key is set",
                      "Set SERPER_API_KEY (a Serper-compatible search API).")
    count = arg(args, "num_results", default=10)
    base = os.environ.get("SERPER_BASE_URL") or SERPER_URL
    status, _, body = await _request(
        ctx, "POST", base.rstrip("/") + "/search", json={"q": query, "num": count},
        headers={"X-API-KEY": key, "Content-Type": "application/json"})
    if status >= 400:
        raise Failure("SEARCH_FAILED", f"search API answered HTTP {status}", "Try again.")
    import json

    try:
        results = json.loads(body).get("organic") or []
    except (ValueError, AttributeError) as err:
        raise Failure("SEARCH_FAILED", "the search API sent no JSON", "Try again.") from err
    rows = [f"{i}. {r.get('title', '')}\n   {r.get('link', '')}\n   {r.get('snippet', '')}"
            for i, r in enumerate(results[:int(count) if isinstance(count, int) else 10], 1)
            if isinstance(r, dict)]
    text = "\n".join(rows) or "No results."
    return ok(f'Web search results for "{query}":\n\n{text}', results=results[:20])
