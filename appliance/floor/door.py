"""The floor's door: an asyncio server on the floor's port that takes each connection, reads its
request head, and passes the request to waitress (Flask) on a Unix socket in a private folder.

Why a door in front of waitress: waitress takes at most ``connection_limit`` connections and keeps a
connection that trickles a byte now and then for as long as it trickles; 110 slow connections filled
it and the pit view and the tables' ingest waited. Waitress also reads a request's whole body before
the app sees it, spooling past 512 KiB to a file: a 1 GB upload was written to disk before Flask's
``MAX_CONTENT_LENGTH`` could refuse it. And waitress speaks no TLS. Here:

- a connection that has not sent its request head within ``head_timeout_s`` is closed, and the whole
  request and its answer must be done within ``request_timeout_s``;
- connections are capped per address and in all (:class:`appliance.web.front_caps.ConnectionCaps`,
  as the dashboard's front caps its own), with room past the cap in all for the floor's own host;
- a ``Content-Length`` over ``body_limit`` is answered 413 before a byte of the body is read, and a
  body without one (``Transfer-Encoding: chunked``) is refused (411) before a byte of it is read:
  passed on, waitress spooled each to a file up to the limit before answering, and a client sending
  them over and over kept the floor's disk and processor busy (the shipper and browsers send a
  ``Content-Length``). Waitress's ``max_request_body_size`` is the same limit, a second line;
- TLS is terminated here (Python's ``ssl``), as the dashboard's front does.

The door tells waitress who the client is (``X-Forwarded-For``, ``X-Forwarded-Proto``: waitress
trusts them from its private socket only, after the door drops any a client sent). Behind a
TLS-terminating proxy (``proxy``: the proxy's address), the client is the last address the proxy
put in ``X-Forwarded-For``. Requests are answered one per connection (``Connection: close``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
import threading
from dataclasses import dataclass

from ..web.front import HEAD_LIMIT, BadHead, parse_head
from ..web.front_caps import ConnectionCaps, counted_address
from ..web.site_guard import security_headers

log = logging.getLogger(__name__)

# Dropped from what a client sends and set by the door alone.
DROPPED = {"connection", "keep-alive", "proxy-connection", "upgrade", "te", "trailer", "x-forwarded-for",
           "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded"}
STATUS = {400: "Bad Request", 411: "Length Required", 413: "Payload Too Large", 502: "Bad Gateway"}
LINGER_BYTES = 1 << 20  # thrown away after an answer at most: a refused upload is not taken whole


@dataclass(frozen=True)
class DoorLimits:
    body_limit: int  # bytes of a request body
    head_timeout_s: float = 10.0
    # The request (head and body) and its whole answer: a batch of records or a zone image on the
    # floor network takes well under a second, a day's report a few.
    request_timeout_s: float = 60.0
    write_timeout_s: float = 10.0  # for each part of the answer to be taken by the client
    # 60 tables ship on one connection each, a pit screen polls on 4 at a time: 1,000 is room for
    # far more, and what one select() loop serves at ease. Per address: a few browsers behind a NAT.
    connections: int = 1000
    connections_per_address: int = 32
    own_connections: int = 64  # past ``connections``, for the floor's own host (127.0.0.1, ::1)
    linger_s: float = 2.0  # what a client still sends after its answer is taken, and thrown away, this long


class FloorDoor:
    def __init__(self, upstream: str, limits: DoorLimits, tls: ssl.SSLContext | None = None,
                 proxy: str | None = None):
        self.upstream, self.limits, self.tls, self.proxy = upstream, limits, tls, proxy
        self.connections = ConnectionCaps(limits.connections_per_address, limits.connections, limits.own_connections)
        self.refused = 0  # connections closed unanswered: past a cap
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self, sock: socket.socket) -> None:
        """Serve on the bound ``sock`` from a thread of its own until :meth:`stop`."""
        ready = threading.Event()

        def run():
            self._loop = asyncio.new_event_loop()
            try:
                self._loop.run_until_complete(self._serve(sock, ready))
            finally:
                self._loop.close()

        self._thread = threading.Thread(target=run, name="floor-door", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the floor's door did not open within 10 s")

    async def _serve(self, sock: socket.socket, ready: threading.Event) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(
            self._connection, sock=sock, ssl=self.tls, limit=HEAD_LIMIT, backlog=4096,
            ssl_handshake_timeout=self.limits.head_timeout_s if self.tls else None)
        ready.set()
        await self._stopping.wait()
        server.close()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    def stop(self) -> None:
        if self._loop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stopping.set)
            self._thread.join(5)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = counted_address(peer[0] if isinstance(peer, tuple) else "?")
        if not self.connections.admit(address):
            self.refused += 1
            writer.transport.abort()  # unanswered: nothing read, nothing owed
            return
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.limits.head_timeout_s)
            await asyncio.wait_for(self._request(head, reader, writer, peer), self.limits.request_timeout_s)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, TimeoutError, ssl.SSLError,
                asyncio.CancelledError):
            pass  # the client was too slow, sent too much or too little, went, or the floor is stopping
        finally:
            await _close(reader, writer, self.limits.linger_s)  # still counted while it lingers
            self.connections.release(address)

    async def _request(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer) -> None:
        try:
            request = parse_head(head)
        except BadHead as err:
            return await self._answer(writer, 400, str(err))
        if "transfer-encoding" in request.headers:  # one framing, that the door and waitress read alike
            return await self._answer(writer, 411, "send the body with a Content-Length, without Transfer-Encoding")
        length = request.headers.get("content-length")
        if length is not None and not (length.isascii() and length.isdigit()):  # isdigit alone takes "²"
            return await self._answer(writer, 400, "Content-Length is not a number")
        if length is not None and int(length) > self.limits.body_limit:
            return await self._answer(writer, 413, f"the body is {length} bytes; at most {self.limits.body_limit}")
        client = peer[0] if isinstance(peer, tuple) else "?"
        if self.proxy is not None and client == self.proxy and request.headers.get("x-forwarded-for"):
            client = request.headers["x-forwarded-for"].split(",")[-1].strip()
        lines = head.decode("latin-1").split("\r\n")
        kept = [line for line in lines[1:] if line and line.split(":", 1)[0].strip().lower() not in DROPPED]
        secure = self.tls is not None or self.proxy is not None
        forwarded = [lines[0], *kept, f"X-Forwarded-For: {client}", f"X-Forwarded-Proto: {'https' if secure else 'http'}",
                     "Connection: close"]
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream)
        except OSError as err:
            log.error("floor door: waitress does not answer on %s: %s", self.upstream, err)
            return await self._answer(writer, 502, "the floor service is not answering; try again")
        sending = asyncio.create_task(self._send_body(reader, up_writer, int(length or 0)))
        try:
            up_writer.write(("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1"))
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)
        finally:
            sending.cancel()
            up_writer.transport.abort()

    async def _send_body(self, reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter, length: int) -> None:
        """The body as it comes, ``length`` bytes (waitress reads it whole before Flask sees it)."""
        left = length
        try:
            while left > 0:
                chunk = await reader.read(min(left, 65536))
                if not chunk:
                    return
                left -= len(chunk)
                up_writer.write(chunk)
                await up_writer.drain()
        except (ConnectionError, OSError):
            pass  # waitress answered (a refusal) and closed: the answer is passed on all the same

    async def _answer(self, writer: asyncio.StreamWriter, status: int, error: str) -> None:
        body = json.dumps({"error": error}).encode()
        headers = {"Content-Type": "application/json", **security_headers(self.tls is not None), "Connection": "close",
                   "Content-Length": str(len(body))}
        writer.write(f"HTTP/1.1 {status} {STATUS[status]}\r\n".encode()
                     + "".join(f"{k}: {v}\r\n" for k, v in headers.items()).encode() + b"\r\n" + body)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)


async def _close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, linger_s: float) -> None:
    """Close after the answer: say it is complete, then take and throw away what the client still sends
    for at most ``linger_s`` and ``LINGER_BYTES`` (a socket closed with bytes unread resets the connection, and the reset can
    wipe a refused upload's 413 from the client's side before it is read). As the dashboard's front does."""
    try:
        if writer.transport.is_closing():
            return writer.transport.abort()
        if writer.can_write_eof():  # TLS cannot half-close; its client reads to the Content-Length
            writer.write_eof()
        await asyncio.wait_for(_discard(reader), linger_s)
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 2.0)
    except BaseException:  # noqa: BLE001 - a reset, a timeout, or cancellation at stop: nothing to wait for
        writer.transport.abort()


async def _discard(reader: asyncio.StreamReader, most: int = LINGER_BYTES) -> None:
    while most > 0 and (chunk := await reader.read(65536)):
        most -= len(chunk)
