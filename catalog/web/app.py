"""The web UI's request handling, free of sockets: a path and query in, a Response out.

Routes:
  GET /                         searchable, filterable list (server-rendered; app.js live-updates)
  GET /f/{id}                   one framework: graph, agents, tools, environment, README, files
  GET /f/{id}/file/{path}       one file the framework's a4a.lock lists
  GET /diff?a={id}&b={id}       two frameworks side by side
  GET /api/frameworks?q=&pattern=&domain=&min_agents=&max_agents=&tool=&has_cycle=&limit=&offset=
  GET /api/frameworks/{id}      the detail JSON
  GET /static/{name}            the vendored assets (no CDN)
Ids in URLs are hex prefixes (4 to 16 digits), checked before any lookup; a query of more
than MAX_PARAMS parameters is a 400.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from a4a.catalog.detail import framework_detail
from a4a.catalog.diff import diff_entries
from a4a.catalog.entry import Entry
from a4a.catalog.files import read_lock, read_text
from a4a.catalog.query import Query
from a4a.catalog.store import Catalog
from a4a.catalog.web import pages
from a4a.runtime.errors import A4AError, UserError

ID_IN_URL = re.compile(r"[0-9a-f]{4,16}")
STATIC = {"app.js": "text/javascript", "graph.js": "text/javascript", "style.css": "text/css",
          "favicon.svg": "image/svg+xml"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
RECENT_TTL_S = 10.0  # facets, details and diffs may lag the catalog by this much
RECENT_SIZE = 256
MAX_PARAMS = 32


@dataclass(frozen=True)
class Response:
    """An HTTP response: status, content type, body and extra headers."""

    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


class Recent:
    """The last `size` values computed, each reused for `ttl` seconds (thread-safe)."""

    def __init__(self, size: int, ttl: float) -> None:
        self.size, self.ttl = size, ttl
        self._items: OrderedDict[tuple[str, ...], tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ...], make: Callable[[], Any]) -> Any:
        """The value for `key`, made afresh when absent or older than `ttl`."""
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
        if hit is not None and now - hit[0] <= self.ttl:
            return hit[1]
        value = make()  # outside the lock: two threads may both make it, and that is fine
        with self._lock:
            self._items[key] = (now, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


class NotFound(Exception):
    """The path names nothing the UI serves."""


class BadRequest(Exception):
    """A query parameter is malformed."""


class App:
    """Routes requests to views over the catalog at `db` (one connection per thread)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._local = threading.local()
        self._recent = Recent(RECENT_SIZE, RECENT_TTL_S)
        Catalog(db).close()  # create or migrate once, before requests race to do it

    def catalog(self) -> Catalog:
        """This thread's catalog connection."""
        cat: Catalog | None = getattr(self._local, "catalog", None)
        if cat is None:
            cat = self._local.catalog = Catalog(self.db)
        return cat

    def facets(self) -> dict[str, list[tuple[str, int]]]:
        """Pattern and domain counts, cached a few seconds (they scan the whole catalog)."""
        facets: dict[str, list[tuple[str, int]]] = self._recent.get(
            ("facets",), lambda: self.catalog().facets())
        return facets

    def detail(self, entry: Entry) -> dict[str, Any]:
        """framework_detail, cached a few seconds (it loads and validates the directory)."""
        data: dict[str, Any] = self._recent.get(
            ("detail", entry.id), lambda: framework_detail(self.catalog(), entry))
        return data

    def handle(self, target: str) -> Response:
        """Answer GET `target` (path and query string)."""
        url = urlsplit(target)
        api = url.path.startswith("/api/")
        try:
            return self._route(url.path, _params(url.query))
        except NotFound as err:
            return _error(404, "not found", str(err) or "Nothing lives at this address.", api)
        except BadRequest as err:
            return _error(400, "bad request", str(err), api)
        except UserError as err:
            return _error(400, err.code, err.message, api)
        except A4AError as err:
            status = 404 if err.code in ("catalog.not_found", "catalog.ambiguous") else 503
            return _error(status, err.code, err.message, api)
        except Exception as err:  # a page must never take the server down or leak a trace
            return _error(500, "internal", f"internal error ({type(err).__name__})", api)

    def _route(self, path: str, params: dict[str, str]) -> Response:
        parts = [unquote(p) for p in path.split("/")[1:]]
        match parts:
            case [""]:
                return self._list(params)
            case ["f", ref]:
                return self._framework(ref)
            case ["f", ref, "file", *rel] if rel:
                return self._file(ref, "/".join(rel))
            case ["diff"]:
                return self._diff(params)
            case ["api", "frameworks"]:
                return self._api_list(params)
            case ["api", "frameworks", ref]:
                return _json(self.detail(self._entry(ref)))
            case ["static", name] if name in STATIC:
                body = resources.files("a4a.catalog.web").joinpath("static", name).read_bytes()
                return Response(200, STATIC[name], body)
        raise NotFound()

    def _entry(self, ref: str) -> Entry:
        if not ID_IN_URL.fullmatch(ref):
            raise NotFound("Framework ids are 4 to 16 hex digits.")
        return self.catalog().resolve(ref)

    def _api_list(self, params: dict[str, str]) -> Response:
        page = self.catalog().query(query_from(params))
        items = [{**e.summary(), "score": s} for e, s in zip(page.items, page.scores,
                                                             strict=True)]
        return _json({"total": page.total, "offset": page.query.offset,
                      "limit": page.query.limit, "items": items})

    def _list(self, params: dict[str, str]) -> Response:
        q = query_from(params)
        page = self.catalog().query(q)
        return _html(pages.list_page(page, self.facets(), params))

    def _framework(self, ref: str) -> Response:
        entry = self._entry(ref)
        return _html(pages.framework_page(self.detail(entry)))

    def _file(self, ref: str, rel: str) -> Response:
        entry = self._entry(ref)
        if not entry.path:
            raise NotFound("This framework's directory is gone.")
        root = Path(entry.path)
        text = read_text(root, rel, read_lock(root))
        if text is None:
            raise NotFound("Only files listed in the framework's a4a.lock can be shown.")
        return _html(pages.file_page(entry, rel, text))

    def _diff(self, params: dict[str, str]) -> Response:
        a = self._entry(params.get("a", ""))
        b = self._entry(params.get("b", ""))
        diff = self._recent.get(("diff", a.id, b.id), lambda: diff_entries(a, b))
        return _html(pages.diff_page(a, b, diff))


def _params(query: str) -> dict[str, str]:
    """The query's parameters (the last value of each); BadRequest past MAX_PARAMS."""
    try:
        pairs = parse_qs(query, max_num_fields=MAX_PARAMS)
    except ValueError as err:
        raise BadRequest(f"at most {MAX_PARAMS} query parameters") from err
    return {k: v[-1] for k, v in pairs.items()}


def _int(params: dict[str, str], name: str) -> int | None:
    raw = params.get(name, "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"\d{1,7}", raw):
        raise BadRequest(f"{name} must be a whole number")
    return int(raw)


def query_from(params: dict[str, str]) -> Query:
    """A Query from URL parameters; raises BadRequest for malformed numbers or flags."""
    cycle = params.get("has_cycle", "")
    if cycle not in ("", "true", "false", "1", "0", "yes", "no"):
        raise BadRequest("has_cycle must be true or false")
    given = _int(params, "limit")
    limit = 25 if given is None else given
    page = _int(params, "page")
    offset = (page - 1) * limit if page else _int(params, "offset") or 0
    q = Query(text=params.get("q", ""), pattern=params.get("pattern") or None,
              domain=params.get("domain") or None, tool=params.get("tool") or None,
              mcp=params.get("mcp") or None, min_agents=_int(params, "min_agents"),
              max_agents=_int(params, "max_agents"),
              has_cycle=None if not cycle else cycle in ("true", "1", "yes"),
              limit=min(limit, 200), offset=offset)
    if q.problems():
        raise BadRequest("; ".join(q.problems()))
    return q


def _json(data: Any, status: int = 200) -> Response:
    return Response(status, "application/json",
                    json.dumps(data, ensure_ascii=False, default=str).encode("utf-8"))


def _html(text: str, status: int = 200) -> Response:
    return Response(status, "text/html; charset=utf-8", text.encode("utf-8"))


def _error(status: int, code: str, message: str, api: bool) -> Response:
    if api:
        return _json({"error": {"code": code, "message": message}}, status)
    return _html(pages.error_page(status, message), status)
