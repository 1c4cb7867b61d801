"""The catalog's local web server: the standard library's threading HTTP server around App.

It binds to 127.0.0.1 unless told otherwise, answers GET and HEAD only, rejects requests
whose Host header names another site (a page elsewhere cannot reach it by DNS rebinding) and
sends every response with a strict Content-Security-Policy.

It holds up under abuse (see `Limits`): the request line and the headers are capped while
they are read (414 and 431 answers; the query is capped by the App, 400), every socket read
and write has a timeout, a reaper cuts any connection still open past its deadline (a client
that trickles bytes cannot pin a thread), a connection beyond `max_connections` is answered
503 at once, and a client that goes away is dropped quietly: no traceback reaches the console.
"""

from __future__ import annotations

import io
import ipaddress
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from a4a.catalog.web.app import SECURITY_HEADERS, App, Response

DEFAULT_PORT = 8765
_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
         b"Content-Length: 5\r\nRetry-After: 1\r\nConnection: close\r\n\r\nbusy\n")


@dataclass(frozen=True)
class Limits:
    """What one client may ask of the server; beyond each, a 4xx/5xx answer or a cut."""

    max_line: int = 4096  # bytes of the request line (414 beyond)
    max_header_bytes: int = 16_384  # all header lines together (431 beyond)
    max_headers: int = 64  # header lines (431 beyond)
    read_timeout_s: float = 10.0  # each read and each write on a connection
    deadline_s: float = 30.0  # a connection's whole life, however it trickles
    max_connections: int = 1024  # open at once (503 beyond)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


class CatalogServer(ThreadingHTTPServer):
    """A thread per connection, a bounded number of them, each with a deadline."""

    daemon_threads = True
    request_queue_size = 1024  # a burst of connections waits in the backlog, not refused

    def __init__(self, address: tuple[str, int], handler: type[_Handler], limits: Limits,
                 quiet: bool = True) -> None:
        self.limits = limits
        self.quiet = quiet
        self._open: dict[socket.socket, float] = {}
        self._guard = threading.Lock()
        self._closed = threading.Event()
        super().__init__(address, handler)
        threading.Thread(target=self._reap, name="catalog-reaper", daemon=True).start()

    def open_connections(self) -> int:
        """Connections accepted and not yet closed."""
        with self._guard:
            return len(self._open)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Hand the connection to a thread, or answer 503 when too many are open."""
        with self._guard:
            full = len(self._open) >= self.limits.max_connections
            if not full:
                self._open[request] = time.monotonic() + self.limits.deadline_s
        if not full:
            super().process_request(request, client_address)
            return
        try:
            request.settimeout(1.0)
            request.sendall(_BUSY)
        except OSError:
            pass
        super().shutdown_request(request)

    def shutdown_request(self, request: Any) -> None:
        """Close a finished connection and forget its deadline."""
        with self._guard:
            self._open.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away or stalled is no error of the server; others: one line."""
        err = sys.exc_info()[1]
        if isinstance(err, OSError) or self.quiet:
            return
        sys.stderr.write(f"catalog server: {type(err).__name__} answering {client_address}\n")

    def server_close(self) -> None:
        """Stop the reaper and close the listening socket."""
        self._closed.set()
        super().server_close()

    def _reap(self) -> None:
        tick = min(0.5, self.limits.deadline_s / 4)
        while not self._closed.wait(tick):
            now = time.monotonic()
            with self._guard:
                late = [s for s, due in self._open.items() if due < now]
            for sock in late:  # the handler's blocked read or write then fails and it ends
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class _Handler(BaseHTTPRequestHandler):
    """Transport only: reads a bounded request, checks method and Host, then asks the App."""

    server_version = "a4a-catalog"
    sys_version = ""
    app: App
    allowed_hosts: frozenset[str] | None
    limits: Limits
    quiet = True

    def handle_one_request(self) -> None:
        """Read one request within the limits and answer it; a vanished client ends quietly."""
        self.close_connection = True
        self.command, self.requestline, self.request_version = "", "", "HTTP/1.0"
        try:
            line = self.rfile.readline(self.limits.max_line + 1)
            if len(line) > self.limits.max_line:
                self.send_error(414, "request line too long")
            elif line.endswith(b"\n"):
                self.raw_requestline = line
                self._parse_and_answer()
        except OSError:  # reset, broken pipe, timeout, or cut by the reaper
            pass

    def _parse_and_answer(self) -> None:
        head = self._read_head()
        if head is None:
            self.send_error(431, "request headers too large")
            return
        stream, self.rfile = self.rfile, io.BytesIO(head)
        try:
            parsed = self.parse_request()
        finally:
            self.rfile = stream
        if parsed:
            getattr(self, f"do_{self.command}", self._refuse)()
            self.wfile.flush()

    def _read_head(self) -> bytes | None:
        """The header lines up to the blank line, or None past the size or count cap."""
        lines: list[bytes] = []
        size = 0
        while True:
            line = self.rfile.readline(self.limits.max_header_bytes - size + 1)
            size += len(line)
            if size > self.limits.max_header_bytes:
                return None
            if line in (b"\r\n", b"\n", b""):
                return b"".join([*lines, line])
            if len(lines) >= self.limits.max_headers:
                return None
            lines.append(line)

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def _refuse(self) -> None:
        self._send(Response(405, "text/plain", b"only GET and HEAD\n",
                            {"Allow": "GET, HEAD"}), head=False)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """Every error the stdlib parser raises, sent with the security headers."""
        text = f"{message or self.responses.get(code, ('error',))[0]}\n"
        self._send(Response(code, "text/plain", text.encode("utf-8", "replace"),
                            {"Connection": "close"}), head=False)

    def _answer(self, head: bool) -> None:
        host = self.headers.get("Host", "")
        if self.allowed_hosts is not None and host.lower() not in self.allowed_hosts:
            self._send(Response(421, "text/plain", b"unexpected Host header\n"), head)
        elif not self.path.startswith("/"):
            self._send(Response(400, "text/plain", b"bad request target\n"), head)
        else:
            self._send(self.app.handle(self.path), head)

    def _send(self, response: Response, head: bool) -> None:
        # The parser marks a request it could not read (or a bare `GET /`) as HTTP/0.9, for
        # which the stdlib would send the body alone: every answer here has a status line.
        self.request_version = "HTTP/1.0"
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
                quiet: bool = True, limits: Limits | None = None) -> CatalogServer:
    """A server for the catalog at `db`, bound and ready; port 0 picks a free port."""
    limits = limits or Limits()
    handler: type[_Handler] = type("CatalogHandler", (_Handler,), {
        "app": App(db), "quiet": quiet, "allowed_hosts": None, "limits": limits,
        "timeout": limits.read_timeout_s})
    server = CatalogServer((host, port), handler, limits, quiet)
    bound = server.server_address[1]
    if _loopback(host):
        names = ("127.0.0.1", "localhost", "[::1]", host)
        handler.allowed_hosts = frozenset(f"{n}:{bound}" for n in names) | frozenset(names)
    return server


def serve_in_thread(db: Path, host: str = "127.0.0.1", port: int = 0,
                    limits: Limits | None = None) -> tuple[CatalogServer, str]:
    """Start a server on a background thread; returns it and its base URL (tests, demos)."""
    server = make_server(db, host, port, limits=limits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"
