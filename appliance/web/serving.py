"""The dashboard served: the front (:mod:`.front`, in its own process) on the dashboard's address and
port, waitress with the Flask app behind it on a Unix socket in a private folder, the front fed by the
live table (:mod:`.front_process`).

Plain HTTP is served to loopback only; any other address (``0.0.0.0``, ``::``, a LAN address) is
served over TLS, or over plain HTTP only when ``insecure_http`` is given, and then every page says so.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import waitress
from flask import Flask

from ..table.live import LiveTable
from .front import ACCEPT_QUEUE, HEAD_LIMIT, FrontLimits, TlsFiles
from .front_process import FrontProcess
from .request_body import BODY_LIMIT
from .services import services_of
from .site_guard import Site, bracketed, check_bind


@dataclass
class Waitress:
    """Waitress serving a Flask app in a thread of its own, on a Unix socket in a private folder (mode
    700: only this user reaches the socket). Only the front (the floor's door) connects there, so the
    client's address and scheme come from the headers it sets, which waitress trusts from there alone
    after dropping any a client sent."""

    upstream: str  # the socket's path
    server: object
    thread: threading.Thread
    stopping: threading.Event
    folder: Path

    @classmethod
    def start(cls, app: Flask, prefix: str, name: str, **options) -> Waitress:
        """Serve ``app`` from a thread named ``name``, in a folder named from ``prefix``; ``options``
        are waitress's."""
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        upstream = str(folder / "flask.sock")
        server = waitress.create_server(
            app, unix_socket=upstream, unix_socket_perms="600", trusted_proxy="localhost",
            trusted_proxy_headers={"x-forwarded-for", "x-forwarded-proto"}, clear_untrusted_proxy_headers=True,
            max_request_header_size=HEAD_LIMIT, **options)
        stopping = threading.Event()

        def run():
            try:
                server.run()
            except OSError:
                if not stopping.is_set():
                    raise

        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        return cls(upstream, server, thread, stopping, folder)

    def stop(self) -> None:
        self.stopping.set()
        self.server.task_dispatcher.shutdown()  # its workers finish before their sockets close
        for channel in list(self.server._map.values()):
            channel.close()
        self.server.close()
        self.thread.join(5)
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Dashboard:
    url: str
    site: Site
    front: FrontProcess
    _waitress: Waitress
    _live: LiveTable

    def stop(self) -> None:
        self._live.unsubscribe(self.front)
        self.front.stop()
        self._waitress.stop()


def serve_dashboard(make_app: Callable[[Site], Flask], live: LiveTable, host: str = "127.0.0.1", port: int = 0,
                    names: tuple[str, ...] = (), tls: TlsFiles | None = None, insecure_http: bool = False,
                    threads: int = 8, limits: FrontLimits = FrontLimits()) -> Dashboard:
    """Bind, build the app for the bound site, and serve until :meth:`Dashboard.stop`."""
    check_bind(host, tls is not None, insecure_http)
    if tls is not None:
        tls.context()  # a certificate or key that cannot be used fails here, not in the front's process
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host.strip("[]"), port), family=family, backlog=ACCEPT_QUEUE)
    site = Site(host, sock.getsockname()[1], tuple(names), tls=tls is not None, insecure_http=insecure_http)
    app = make_app(site)
    served = Waitress.start(app, "appliance-dashboard-", "dashboard-waitress", threads=threads,
                            max_request_body_size=BODY_LIMIT, channel_timeout=30, ident="appliance")
    pairings = services_of(app).pairings  # None without the dealer's controls: nobody is paired
    front = FrontProcess(live, sock, site, served.upstream, tls, limits, pairings.digests if pairings else frozenset)
    live.subscribe(front)
    return Dashboard(f"{site.scheme}://{shown_host(host)}:{site.port}", site, front, served, live)


def shown_host(host: str) -> str:
    """How a URL names the bound ``host``: a wildcard address as localhost.

    >>> shown_host("0.0.0.0"), shown_host("::1"), shown_host("10.0.0.5")
    ('localhost', '[::1]', '10.0.0.5')
    """
    return "localhost" if host in ("0.0.0.0", "::", "") else bracketed(host)
