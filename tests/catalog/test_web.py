"""The web UI: routes, JSON API, escaping of request text, traversal probes, headers."""

from __future__ import annotations

import dataclasses
import http.client
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from a4a.catalog.store import Catalog
from a4a.catalog.web.app import App
from a4a.catalog.web.server import serve_in_thread
from tests.catalog.conftest import Built

RAW = ("<script", "</script", "<img")
ATTRIBUTE = re.compile(r"<[^>]*\bonerror\b", re.IGNORECASE)


@pytest.fixture()
def app(catalog: Catalog) -> App:
    return App(catalog.path)


def _text(app: App, target: str, status: int = 200) -> str:
    response = app.handle(target)
    assert response.status == status, (target, response.body[:300])
    return response.body.decode()


def test_list_page_and_search(app: App, built: dict[str, Built]) -> None:
    page = _text(app, "/")
    assert all(f"/f/{b.entry.id}" in page for b in built.values())
    hit = _text(app, "/?q=support+ticket&pattern=routing")
    assert f"/f/{built['routing'].entry.id}" in hit and "/f/" + built["loop"].entry.id not in hit
    assert '<option value="routing" selected>' in hit
    assert "1 framework," in _text(app, "/?domain=customer_support")


def test_api_list_filters(app: App, built: dict[str, Built]) -> None:
    data = json.loads(_text(app, "/api/frameworks?q=triage&domain=code_hosting&limit=2"))
    assert data["total"] == 3 and len(data["items"]) == 2 and data["limit"] == 2
    data = json.loads(_text(app, "/api/frameworks?pattern=routing"))
    assert [i["id"] for i in data["items"]] == [built["routing"].entry.id]
    data = json.loads(_text(app, "/api/frameworks?has_cycle=true&min_agents=1&max_agents=9"))
    assert [i["id"] for i in data["items"]] == [built["loop"].entry.id]


def test_api_detail_has_graph_agents_tools_environment(app: App,
                                                       built: dict[str, Built]) -> None:
    b = built["routing"]
    data = json.loads(_text(app, f"/api/frameworks/{b.entry.id[:6]}"))
    graph = data["entry"]["graph"]
    assert len(graph["nodes"]) == b.entry.agents and graph["entry"] == "router"
    assert {a["name"] for a in data["spec"]["agents"]} == {n for n, _ in b.entry.nodes}
    assert all("input_schema" in t for t in data["spec"]["tools"])
    assert data["environment"]["world"]["domains"] == ["customer_support"]
    assert data["readme"].startswith("# ") and "a4a.lock" not in data["files"]


def test_framework_page_shows_everything(app: App, built: dict[str, Built]) -> None:
    b = built["routing"]
    page = _text(app, f"/f/{b.entry.id}")
    for needle in ('id="graph"', 'data-src="/api/frameworks/', "/static/graph.js",
                   'id="agent-router"', "system prompt", 'id="tool-', '<pre class="schema">',
                   "Environment and tasks", '<article class="panel readme">',
                   f"/f/{b.entry.id}/file/framework.yaml", "Near-duplicates"):
        assert needle in page, needle
    assert "<script>" not in page  # scripts come only as files (CSP forbids inline)


def test_request_text_is_escaped_everywhere(app: App, built: dict[str, Built]) -> None:
    fid = built["payload"].entry.id
    pages = [_text(app, t) for t in ("/", "/?q=script", f"/f/{fid}",
                                     f"/f/{fid}/file/README.md",
                                     f"/f/{fid}/file/agents/triager.yaml",
                                     f"/diff?a={fid}&b={built['triage'].entry.id}")]
    for page in pages:
        body = re.sub(r'<script src="/static/[a-z]+\.js" defer></script>', "", page)
        assert not any(raw in body for raw in RAW), [r for r in RAW if r in body]
        assert not ATTRIBUTE.search(body)
    assert "&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;" in pages[2]
    assert "&lt;img src=x onerror=alert(2)&gt;" in pages[2]


@pytest.mark.parametrize("target", [
    "/f/{id}/file/../../../../etc/passwd", "/f/{id}/file/%2e%2e/%2e%2e/etc/passwd",
    "/f/{id}/file/..%2f..%2f..%2fetc%2fpasswd", "/f/{id}/file//etc/passwd",
    "/f/{id}/file/a4a.lock", "/f/{id}/file/agents/../../../../etc/passwd",
    "/f/{id}/file/agents/nobody.yaml", "/f/{id}/file/%00", "/f/..%2f..%2fetc%2fpasswd",
    "/f/../../etc/passwd", "/f/%2e%2e", "/f/{id}%00", "/api/frameworks/..%2fx",
    "/api/frameworks/{id}/../../etc", "/static/..%2fapp.py", "/static/../app.py",
    "/static/style.css/../../store.py", "/f/ZZZZ", "/f/abc", "/nowhere",
])
def test_traversal_probes_are_inert(app: App, built: dict[str, Built], target: str) -> None:
    response = app.handle(target.replace("{id}", built["routing"].entry.id))
    assert response.status == 404, response.body[:200]
    assert b"root:" not in response.body and b"import " not in response.body


def test_a_symlink_out_of_the_framework_is_not_followed(app: App, catalog: Catalog,
                                                        tmp_path: Path,
                                                        built: dict[str, Built]) -> None:
    copy = tmp_path / "fw"
    shutil.copytree(built["routing"].path, copy)
    (tmp_path / "secret.txt").write_text("top secret")
    (copy / "README.md").unlink()
    (copy / "README.md").symlink_to(tmp_path / "secret.txt")
    catalog.add(dataclasses.replace(built["routing"].entry, id="feedfacefeedface",
                                    path=str(copy)))
    response = app.handle("/f/feedfacefeedface/file/README.md")
    assert response.status == 404 and b"top secret" not in response.body


def test_bad_parameters_are_400_with_json_errors(app: App) -> None:
    for target in ("/api/frameworks?limit=abc", "/api/frameworks?min_agents=-1",
                   "/api/frameworks?has_cycle=maybe", "/api/frameworks?limit=0"):
        response = app.handle(target)
        assert response.status == 400
        assert "error" in json.loads(response.body)


def test_an_internal_failure_is_a_500_page_not_a_trace(app: App,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(App, "_list", broken)
    response = app.handle("/")
    assert response.status == 500 and b"secret detail" not in response.body


def test_static_assets_are_vendored(app: App) -> None:
    for name, kind in (("graph.js", "text/javascript"), ("app.js", "text/javascript"),
                       ("style.css", "text/css"), ("favicon.svg", "image/svg+xml")):
        response = app.handle(f"/static/{name}")
        assert response.status == 200 and response.content_type == kind
        assert b"http://" not in response.body.replace(b"http://www.w3.org/2000/svg", b"")
        assert b"https://" not in response.body


@pytest.fixture()
def server(catalog: Catalog) -> Iterator[tuple[str, int]]:
    srv, _ = serve_in_thread(catalog.path)
    yield "127.0.0.1", srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def _request(addr: tuple[str, int], method: str, path: str, host: str | None = None
             ) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(*addr, timeout=10)
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", host or f"{addr[0]}:{addr[1]}")
    conn.endheaders()
    return conn.getresponse()


def test_served_responses_carry_security_headers(server: tuple[str, int]) -> None:
    for path in ("/", "/api/frameworks", "/f/0000", "/static/app.js"):
        response = _request(server, "GET", path)
        csp = response.getheader("Content-Security-Policy") or ""
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert "unsafe-inline" not in csp
        assert response.getheader("X-Content-Type-Options") == "nosniff"
        response.read()


def test_only_get_and_head_from_this_host(server: tuple[str, int]) -> None:
    assert _request(server, "POST", "/api/frameworks").status == 405
    assert _request(server, "DELETE", "/").status == 405
    assert _request(server, "HEAD", "/").status == 200
    assert _request(server, "GET", "/", host="evil.example:80").status == 421
    assert _request(server, "GET", "/", host=f"localhost:{server[1]}").status == 200
