"""The floor service served: the door (:mod:`.door`, in its own process) on the floor's address and port,
waitress with the Flask app behind it on a Unix socket in a private folder, in this process.

The two are supervised together: when the door's process or waitress stops by itself,
:meth:`FloorService.wait` returns what stopped, and ``appliance floor serve`` stops the other and
exits 1 (systemd starts it again); when this process stops or dies, the door's feed ends and so does
the door.

Plain HTTP is served to loopback only. Any other address (``0.0.0.0``, ``::``, a LAN address) is
served over TLS (a certificate and key: ``appliance tls selfsigned`` makes them), or over plain HTTP
only behind a TLS-terminating proxy that the operator names (``tls_proxy``: the proxy's address;
the site is then https to browsers: Secure cookies, https origins).
"""

from __future__ import annotations

import datetime as dt
import logging
import socket
import threading
from dataclasses import dataclass, field

import psycopg

from ..web.front import ACCEPT_QUEUE, TlsFiles
from ..web.front_http import room_for_descriptors
from ..web.serving import Waitress, shown_host
from ..web.site_guard import Site, SiteError, is_loopback
from .database import Database
from .door import DoorLimits
from .door_process import DoorProcess
from .enroll import token_is_right
from .server import BODY_LIMIT, create_floor_app

log = logging.getLogger(__name__)


@dataclass
class FloorService:
    url: str
    site: Site
    door: DoorProcess
    db: Database
    _waitress: Waitress
    _asked: threading.Event = field(default_factory=threading.Event)

    def stop(self) -> None:
        self.door.stop()
        self._waitress.stop()
        self.db.close()

    def ask_to_stop(self) -> None:
        """Make :meth:`wait` return (from a signal handler: it only sets an event)."""
        self._asked.set()

    def wait(self) -> str | None:
        """Serve until :meth:`ask_to_stop` (None), or until the door's process or waitress stops by itself:
        then what stopped, in words."""
        while not self._asked.wait(0.2):
            if self.door.ended.is_set() or self.door.process.poll() is not None:
                return f"the floor's door (pid {self.door.pid}) stopped, exit status {self.door.process.wait(5)}"
            if not self._waitress.thread.is_alive():
                return "waitress stopped"
        return None


def check_floor_bind(host: str, tls: bool, tls_proxy: str | None) -> None:
    """Plain HTTP is for loopback; anything else is TLS, here or at a proxy the operator names."""
    if not tls and tls_proxy is None and not is_loopback(host):
        raise SiteError(f"--host {host}: off loopback the floor is served over HTTPS: give --tls-cert and --tls-key "
                        "(appliance tls selfsigned makes them), or --tls-proxy ADDRESS behind a TLS-terminating proxy")


def serve_floor(db: Database, day_starts_at: dt.time = dt.time(6, 0), host: str = "127.0.0.1", port: int = 0,
                names: tuple[str, ...] = (), tls: TlsFiles | None = None, tls_proxy: str | None = None,
                limits: DoorLimits = DoorLimits(BODY_LIMIT), threads: int = 16) -> FloorService:
    """Bind, build the app for the bound site, and serve until :meth:`FloorService.stop`."""
    check_floor_bind(host, tls is not None, tls_proxy)
    if tls is not None:
        tls.context()  # an unusable certificate or key fails here, not in the door's process
    room_for_descriptors(limits.connections + limits.own_connections + 256)  # a connection from the door each
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host.strip("[]"), port), family=family, backlog=ACCEPT_QUEUE)
    secure = tls is not None or tls_proxy is not None
    site = Site(host, sock.getsockname()[1], tuple(names), tls=secure)
    served = Waitress.start(
        create_floor_app(db, day_starts_at, site), "appliance-floor-", "floor-waitress", threads=threads,
        max_request_body_size=limits.body_limit + 1, channel_timeout=int(limits.request_timeout_s),
        connection_limit=limits.connections + limits.own_connections + 64, asyncore_use_poll=True, ident="floor")

    def table_token(table: str, token: str) -> bool | None:
        try:
            return token_is_right(db.conn(), table, token)
        except psycopg.Error as err:  # the app answers the request: 503, which the shipper retries
            db.drop()
            log.error("database: %s", err)
            return None

    try:
        door = DoorProcess(sock, served.upstream, limits, tls, tls_proxy, table_token)
    except BaseException:
        served.stop()
        raise
    scheme = "https" if tls is not None else "http"
    return FloorService(f"{scheme}://{shown_host(host)}:{site.port}", site, door, db, served)

