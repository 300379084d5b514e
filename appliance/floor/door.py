"""The floor's door: an asyncio server, in a process of its own, on the floor's port that takes each
connection, reads its request head, and passes the request to waitress (Flask) on a Unix socket in a
private folder.

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
- a table's request (ingest, head, images) whose ``X-Floor-Table`` and token are not an enrolled
  table's is answered 401 before a byte of its body is read: the door asks the floor's process
  (:mod:`.door_process`, one indexed query) and keeps a table's token it was told is right for
  ``TOKEN_KEPT_S``, so the tables' requests cost no question at all. The app checks the token again;
  when the floor cannot tell (its database down) the request goes on to the app, which answers 503;
- TLS is terminated here (Python's ``ssl``), as the dashboard's front does.

Why a process of its own: run as a thread of the floor's process, every byte of every request went
through Python twice (the door, then waitress) under one interpreter lock, and the attackers' bytes
took the lock from the tables' ingest. This process ends when its feed from the floor's process ends
(the floor stopped or died); the floor's process stops, exiting 1, when this one dies.

The door tells waitress who the client is (``X-Forwarded-For``, ``X-Forwarded-Proto``: waitress
trusts them from its private socket only, after the door drops any a client sent). Behind a
TLS-terminating proxy (``proxy``: the proxy's address), the client is the last address the proxy
put in ``X-Forwarded-For``. Requests are answered one per connection (``Connection: close``).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import signal
import socket
import ssl
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from ..web.front import ACCEPT_QUEUE, TlsFiles
from ..web.front_caps import ConnectionCaps
from ..web.front_feed import FrameReader, frame
from ..web.front_http import (HEAD_LIMIT, BadHead, answer_refusal, body_refusal, forwarded_head, parse_head,
                              peer_address, room_for_descriptors, serve_connection)

log = logging.getLogger(__name__)

# A table's token the floor said is right is taken without asking again for this long: a table whose
# token is changed (enrolled anew) is refused by the app within this, and by the door after it.
TOKEN_KEPT_S = 60.0
# The feed between the floor's process and this one: frames of one kind byte, a 4-byte length, a payload.
READY = b"R"  # to the floor: serving
ASK = b"A"  # to the floor: is this table's token right? [table, token] (JSON)
TOKEN = b"T"  # to the door, one per ASK in order: b"1" right, b"0" wrong or unknown, b"?" cannot tell now
TABLE_PATHS = ("/api/floor/ingest", "/api/floor/head")  # and /api/floor/images/...: the tables' requests


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


class Feed(asyncio.Protocol):
    """The door's end of the feed from the floor's process: the answers to the door's questions."""

    def __init__(self, door: FloorDoor):
        self.door, self.frames, self.ended = door, FrameReader(), asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.door._feed = transport

    def data_received(self, data: bytes) -> None:
        for kind, payload in self.frames.take(data):
            if kind == TOKEN and self.door._asked:
                asked = self.door._asked.popleft()
                if not asked.done():
                    asked.set_result(payload)

    def connection_lost(self, exc: Exception | None) -> None:
        for asked in self.door._asked:
            if not asked.done():
                asked.set_result(b"?")
        if not self.ended.done():
            self.ended.set_result(None)


class FloorDoor:
    def __init__(self, upstream: str, limits: DoorLimits, tls: ssl.SSLContext | None = None,
                 proxy: str | None = None):
        self.upstream, self.limits, self.tls, self.proxy = upstream, limits, tls, proxy
        self.connections = ConnectionCaps(limits.connections_per_address, limits.connections, limits.own_connections)
        self._feed: asyncio.Transport | None = None
        self._asked: collections.deque[asyncio.Future] = collections.deque()  # answered in the order asked
        self._tokens: dict[tuple[str, str], float] = {}  # (table, token) the floor said is right -> until when

    async def serve(self, sock: socket.socket, feed: socket.socket) -> None:
        """Serve on the bound, listening ``sock`` until the floor's process closes ``feed``."""
        server = await asyncio.start_server(
            self._connection, sock=sock, ssl=self.tls, limit=HEAD_LIMIT, backlog=ACCEPT_QUEUE,
            ssl_handshake_timeout=self.limits.head_timeout_s if self.tls else None)
        _, fed = await asyncio.get_running_loop().connect_accepted_socket(lambda: Feed(self), feed)
        self._feed.write(frame(READY, b""))
        try:
            await fed.ended
        finally:
            server.close()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

    async def _table_refusal(self, request) -> str | None:
        """Why a table's request is refused before its body is read (not an enrolled table, or not its
        token), or None: right, or the floor cannot tell now (the app checks it again)."""
        table = request.headers.get("x-floor-table", "")
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        loop = asyncio.get_running_loop()
        if self._tokens.get((table, token), 0.0) > loop.time():
            return None
        if self._feed is None or self._feed.is_closing():
            return None
        asked = loop.create_future()
        self._asked.append(asked)
        self._feed.write(frame(ASK, json.dumps([table, token]).encode()))
        answer = await asked
        if answer == b"1":
            if len(self._tokens) > 10_000:  # tables are enrolled by the dozen: only a flood of tokens gets here
                self._tokens.clear()
            self._tokens[(table, token)] = loop.time() + TOKEN_KEPT_S
        elif answer == b"0":
            return f"table {table[:100]!r} is not enrolled here, or its token is wrong"
        return None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def request(head: bytes, address: str) -> None:
            await asyncio.wait_for(self._request(head, reader, writer), self.limits.request_timeout_s)

        await serve_connection(reader, writer, self.connections, self.limits.head_timeout_s, self.limits.linger_s,
                               request)

    async def _request(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = parse_head(head)
        except BadHead as err:
            return await self._answer(writer, 400, str(err))
        refused = body_refusal(request.headers, self.limits.body_limit)
        if refused:
            return await self._answer(writer, *refused)
        path = request.path.split("?")[0]
        if path in TABLE_PATHS or path.startswith("/api/floor/images/"):
            refused = await self._table_refusal(request)
            if refused:
                return await self._answer(writer, 401, refused)
        client = peer_address(writer)
        if self.proxy is not None and client == self.proxy and request.headers.get("x-forwarded-for"):
            client = request.headers["x-forwarded-for"].split(",")[-1].strip()
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream)
        except OSError as err:
            log.error("floor door: waitress does not answer on %s: %s", self.upstream, err)
            return await self._answer(writer, 502, "the floor service is not answering; try again")
        length = int(request.headers.get("content-length", "0"))
        sending = asyncio.create_task(self._send_body(reader, up_writer, length))
        try:
            up_writer.write(forwarded_head(head, client, https=self.tls is not None or self.proxy is not None))
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
        await answer_refusal(writer, status, error, self.tls is not None, self.limits.write_timeout_s)


# --- the door's process -----------------------------------------------------------------------------

def arguments(sock: socket.socket, feed: socket.socket, upstream: str, limits: DoorLimits, tls: TlsFiles | None,
              proxy: str | None) -> str:
    """What :func:`main` is started with (the two sockets are passed by descriptor)."""
    return json.dumps({"listen_fd": sock.fileno(), "feed_fd": feed.fileno(), "upstream": upstream,
                       "limits": asdict(limits), "tls": [str(tls.cert), str(tls.key)] if tls else None,
                       "proxy": proxy})


def main(given: str) -> None:
    config = json.loads(given)
    # Ctrl-C and systemd's SIGTERM reach the floor's process too, whose going ends this one: stopped
    # from there, the floor's process does not take this one's going for a failure.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    limits = DoorLimits(**config["limits"])
    room_for_descriptors(2 * (limits.connections + limits.own_connections + 256))  # a connection, and one upstream
    tls = TlsFiles(*map(Path, config["tls"])).context() if config["tls"] else None
    door = FloorDoor(config["upstream"], limits, tls, config["proxy"])
    asyncio.run(door.serve(socket.socket(fileno=config["listen_fd"]), socket.socket(fileno=config["feed_fd"])))


if __name__ == "__main__":
    main(sys.argv[1])
