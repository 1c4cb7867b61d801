"""NexAU's web tools over real HTTP, against loopback servers only (the network stays off)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from a4a.runtime.tools.base import ToolContext
from tests.runtime.test_nexau_tools import call, content

PAGE = (b"<html><head><title>Quantum</title><script>var secret = 1;</script></head>"
        b"<body><h1>Qubits</h1><p>Error rates fell.</p></body></html>")


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/moved":
            self._send(302, b"", "text/plain", Location="/page")
        else:
            self._send(404, b"no", "text/plain")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/search" or self.headers.get("X-API-KEY") != "k":
            self._send(401, b"{}", "application/json")
            return
        hits = [{"title": f"{body['q']} {i}", "link": f"https://e.com/{i}", "snippet": "s"}
                for i in range(body["num"])]
        self._send(200, json.dumps({"organic": hits}).encode(), "application/json")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _online(ws: Path, private: bool = True) -> ToolContext:
    return ToolContext("run", "agent", ws, {}, True, {"web_allow_private": private})


def test_fetch_returns_the_page_text(server: str, tmp_path: Path) -> None:
    text = content(call("web_fetch", _online(tmp_path), url=f"{server}/moved"))
    assert text.startswith("# Quantum") and "Error rates fell." in text
    assert "secret" not in text
    missing = call("web_fetch", _online(tmp_path), url=f"{server}/nothing")
    assert missing.error and missing.error.code == "http_error"


def test_local_addresses_are_refused_unless_allowed(server: str, tmp_path: Path) -> None:
    out = call("web_fetch", _online(tmp_path, private=False), url=f"{server}/page")
    assert out.error and out.error.code == "url_not_allowed"
    scheme = call("web_fetch", _online(tmp_path), url="file:///etc/passwd")
    assert scheme.error and scheme.error.code == "invalid_url"


def test_search_speaks_the_serper_api(server: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    monkeypatch.delenv("SEARCH_API_KEY", raising=False)
    none = call("web_search", _online(tmp_path), query="qubits")
    assert none.error and none.error.code == "search_not_configured"
    monkeypatch.setenv("SERPER_API_KEY", "k")
    monkeypatch.setenv("SERPER_BASE_URL", server)
    text = content(call("web_search", _online(tmp_path), query="qubits", num_results=2))
    assert "1. qubits 0\n   https://e.com/0" in text and "3." not in text
