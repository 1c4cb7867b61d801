"""The catalog's local web server: the standard library's threading HTTP server around App.

It binds to 127.0.0.1 unless told otherwise, answers GET and HEAD only, rejects requests
whose Host header names another site (a page elsewhere cannot reach it by DNS rebinding) and
sends every response with a strict Content-Security-Policy.
"""

from __future__ import annotations

import ipaddress
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from a4a.catalog.web.app import SECURITY_HEADERS, App, Response

DEFAULT_PORT = 8765
MAX_TARGET = 4096


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


class _Handler(BaseHTTPRequestHandler):
    """Transport only: checks method, size and Host, then asks the App."""

    server_version = "a4a-catalog"
    sys_version = ""
    app: App
    allowed_hosts: frozenset[str] | None
    quiet = True

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def _refuse(self) -> None:
        self._send(Response(405, "text/plain", b"only GET and HEAD\n",
                            {"Allow": "GET, HEAD"}), head=False)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _answer(self, head: bool) -> None:
        host = self.headers.get("Host", "")
        if self.allowed_hosts is not None and host.lower() not in self.allowed_hosts:
            self._send(Response(421, "text/plain", b"unexpected Host header\n"), head)
        elif len(self.path) > MAX_TARGET or not self.path.startswith("/"):
            self._send(Response(414, "text/plain", b"bad request target\n"), head)
        else:
            self._send(self.app.handle(self.path), head)

    def _send(self, response: Response, head: bool) -> None:
        self.send_response(response.status)
        headers = {**SECURITY_HEADERS, "Content-Type": response.content_type,
                   "Content-Length": str(len(response.body)), **response.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(db: Path, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                quiet: bool = True) -> ThreadingHTTPServer:
    """A server for the catalog at `db`, bound and ready; port 0 picks a free port."""
    app = App(db)
    handler: type[_Handler] = type("CatalogHandler", (_Handler,), {
        "app": app, "quiet": quiet, "allowed_hosts": None})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    bound = server.server_address[1]
    if _loopback(host):
        names = ("127.0.0.1", "localhost", "[::1]", host)
        handler.allowed_hosts = frozenset(f"{n}:{bound}" for n in names) | frozenset(names)
    return server


def serve_in_thread(db: Path, host: str = "127.0.0.1", port: int = 0
                    ) -> tuple[ThreadingHTTPServer, str]:
    """Start a server on a background thread; returns it and its base URL (tests, demos)."""
    server = make_server(db, host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"
