"""The web server under abuse: each limit answered with a 4xx/5xx or a cut, never a trace.

Small limits keep these fast; bench/web_abuse.py measures the real ones under load.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from a4a.catalog.store import Catalog
from a4a.catalog.web.app import App, Recent
from a4a.catalog.web.server import CatalogServer, Limits, serve_in_thread
from tests.catalog.conftest import Built

SMALL = Limits(max_line=512, max_header_bytes=1024, max_headers=8, read_timeout_s=0.5,
               deadline_s=1.5, max_connections=48)


@pytest.fixture()
def server(catalog: Catalog) -> Iterator[CatalogServer]:
    srv, _ = serve_in_thread(catalog.path, limits=SMALL)
    yield srv
    srv.shutdown()
    srv.server_close()


def _connect(srv: CatalogServer) -> socket.socket:
    return socket.create_connection(srv.server_address[:2], timeout=10)


def _exchange(srv: CatalogServer, raw: bytes) -> bytes:
    """Send `raw`, read until the server closes; the whole answer."""
    with _connect(srv) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


def _get(srv: CatalogServer, target: str, headers: str = "") -> bytes:
    host = f"127.0.0.1:{srv.server_address[1]}"
    return _exchange(srv, f"GET {target} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())


def _until(check: Callable[[], bool], tries: int = 200) -> bool:
    for _ in range(tries):
        if check():
            return True
        time.sleep(0.05)
    return False


def test_forty_query_parameters_are_a_400(server: CatalogServer, catalog: Catalog) -> None:
    query = "&".join(f"p{i}=x" for i in range(40))
    answer = _get(server, f"/api/frameworks?{query}")
    assert _status(answer) == 400 and b"query parameters" in answer
    assert App(catalog.path).handle(f"/?{query}").status == 400
    assert _status(_get(server, "/api/frameworks?" + query.replace("&p32", "#"))) == 200


def test_a_long_request_line_is_a_414(server: CatalogServer) -> None:
    answer = _get(server, "/?q=" + "a" * 600)
    assert _status(answer) == 414 and b"Content-Security-Policy" in answer
    assert _status(_get(server, "/?q=" + "a" * 100)) == 200


def test_too_many_or_too_large_headers_are_a_431(server: CatalogServer) -> None:
    many = "".join(f"X-{i}: y\r\n" for i in range(9))
    assert _status(_get(server, "/", many)) == 431
    assert _status(_get(server, "/", f"X-Big: {'z' * 1100}\r\n")) == 431
    assert _status(_get(server, "/", "X-Small: z\r\n")) == 200


def test_an_idle_connection_is_closed_after_the_read_timeout(server: CatalogServer) -> None:
    with _connect(server) as sock:
        assert sock.recv(1) == b""  # the server hung up: it did not wait forever
    assert _until(lambda: server.open_connections() == 0)


def test_a_trickling_client_is_cut_at_the_deadline(server: CatalogServer) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n")
        cut = False
        for _ in range(60):  # one byte per 0.1 s: each read is well inside the read timeout
            try:
                sock.sendall(b"X")
            except OSError:
                cut = True
                break
            time.sleep(0.1)
            if _until(lambda: server.open_connections() == 0, tries=1):
                cut = True
                break
        assert cut, "a client sending a byte at a time held its connection for 6 s"


def test_it_keeps_answering_with_idle_connections_open(server: CatalogServer) -> None:
    idle = [_connect(server) for _ in range(40)]
    try:
        assert _until(lambda: server.open_connections() == 40)
        assert _status(_get(server, "/api/frameworks")) == 200
        over = [_connect(server) for _ in range(SMALL.max_connections)]
        busy = _exchange(server, b"GET / HTTP/1.1\r\n\r\n")
        assert _status(busy) == 503
        for sock in over:
            sock.close()
    finally:
        for sock in idle:
            sock.close()
    assert _until(lambda: server.open_connections() == 0)
    assert _status(_get(server, "/")) == 200


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0): the server's next read or write fails."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_clients_that_vanish_leave_no_traceback(server: CatalogServer,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    host = f"127.0.0.1:{server.server_address[1]}"
    for i in range(20):
        sock = _connect(server)
        sock.sendall(f"GET /?q=x{i} HTTP/1.1\r\nHost: {host}\r\n".encode())
        if i % 2:
            sock.sendall(b"\r\n")
        _reset(sock)
    assert _until(lambda: server.open_connections() == 0)
    assert _status(_get(server, "/")) == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception" not in err, err


def test_a_hard_link_out_of_the_framework_is_refused(catalog: Catalog, tmp_path: Path,
                                                     built: dict[str, Built]) -> None:
    copy = tmp_path / "fw"
    shutil.copytree(built["routing"].path, copy)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (copy / "README.md").unlink()
    os.link(secret, copy / "README.md")
    catalog.add(dataclasses.replace(built["routing"].entry, id="feedfacefeedface",
                                    path=str(copy)))
    app = App(catalog.path)
    response = app.handle("/f/feedfacefeedface/file/README.md")
    assert response.status == 404 and b"top secret" not in response.body
    assert app.handle("/f/feedfacefeedface/file/framework.yaml").status == 200


def test_recent_values_are_reused_and_bounded() -> None:
    made: list[str] = []
    recent = Recent(size=2, ttl=60.0)

    def make(key: str) -> Callable[[], str]:
        return lambda: made.append(key) or key

    assert [recent.get((k,), make(k)) for k in ("a", "a", "b", "c", "a")] == list("aabca")
    assert made == ["a", "b", "c", "a"]  # "a" was evicted by "c", the oldest of three
    assert Recent(size=2, ttl=0.0).get(("x",), make("x")) == "x"


@pytest.mark.parametrize("raw", [b"GET\r\n\r\n", b"\x00\xff\xfe garbage\r\n\r\n",
                                 b"GET / HTTP/9.9\r\n\r\n"])
def test_malformed_requests_get_a_status_line_and_the_headers(server: CatalogServer,
                                                              raw: bytes) -> None:
    answer = _exchange(server, raw)
    assert _status(answer) in (400, 505) and b"Content-Security-Policy" in answer
