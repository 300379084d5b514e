"""The dashboard's front: an asyncio server, in a process of its own, on the dashboard's port. It
serves the live event stream (``/events``) and the table's state (``GET /api/state``) itself and hands
every other request to waitress (Flask) over a private Unix socket.

Why: an event stream is a connection held open for hours. Served by waitress, each one holds one of
its worker threads, so 16 viewers stopped the dashboard. Here a viewer costs a socket and a bounded
buffer, and the work of serving viewers is done outside the table's process: there it competed with
the table for the interpreter's lock (every write to a viewer hands the lock over), and under 300
viewers the table's process spent 3 times its CPU per round and played at half its rate or less.

The table's process feeds this one (:mod:`.front_process`): its events, each batch written once to
every viewer's transport (no task wakes per viewer), and the state's JSON after each change (the one
rendering, ``LiveTable.state_json``), which this process answers ``GET /api/state`` with, after the
same ``Host`` and ``Origin`` checks and with the same headers as Flask. What a viewer has not taken
yet waits in its transport, up to ``backlog`` bytes and one batch (its queue, counted in bytes) over
a small kernel send buffer; a viewer past that is dropped, never waited for, and so is one whose
backlog has not moved for ``stall_s``: its browser reconnects and reloads the state. A heartbeat from
the table's process goes to every viewer every ``heartbeat_s`` (a frozen appliance falls silent); a
connection that has not sent its request head within ``head_timeout_s`` is closed; a head that the
front and waitress could read differently is refused. Streams are capped per address and in all
(:mod:`.front_caps`), with room kept for the dealer's screens, and counted apart from the other
connections, which are capped per address too, with room kept for the appliance's own: however many
streams or connections strangers hold, ``/api/state``, ``/healthz`` (the watchdog's probe) and the
dealer's screens are answered.

The front also terminates TLS (Python's ``ssl``) and tells waitress who the client is
(``X-Forwarded-For``/``-Proto``, which only the front can set: waitress listens on a socket in a
private folder and trusts those headers from it alone, after the front drops any a client sent).
Requests are answered one per connection (``Connection: close``): the dashboard makes few of them.
This process ends when its feed from the table's process ends (the appliance stopped or died).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import signal
import socket
import ssl
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from .front_caps import (CONNECTIONS_IN_ALL, CONNECTIONS_PER_ADDRESS, DEALER_STREAMS, OWN_CONNECTIONS,
                         STREAMS_IN_ALL, STREAMS_PER_ADDRESS, ConnectionCaps, Holder, Refusal, StreamCaps)
from .front_feed import FrameReader, frame
from .front_http import (HEAD_LIMIT, BadHead, Head, answer_refusal, body_refusal, forwarded_head, header_lines,
                         parse_head, peer_address, room_for_descriptors, serve_connection)
from .request_body import BODY_LIMIT
from .screen_pairing import SCREEN_COOKIE, screen_token_digest
from .site_guard import Site

log = logging.getLogger(__name__)

# Connections the kernel holds for the front to accept (asyncio's default is 100). A client opening
# connections by the thousand at once overflowed a shorter queue, and a connection past it (the
# watchdog's probe's too) waited a second for its SYN to be sent again. The kernel holds it to
# net.core.somaxconn (4096 since Linux 5.4).
ACCEPT_QUEUE = 4096
# The feed between the table's process and this one: frames of one kind byte, a 4-byte length, a payload.
EVENTS, STATE = b"E", b"S"  # to the front: stream chunks for every viewer; the state's JSON
PAIRED = b"P"  # to the front: the paired screens' token digests (a JSON list)
READY, COUNTS = b"R", b"C"  # from the front: serving; viewers open, dropped and refused
HEARTBEAT = b"event: heartbeat\ndata: {}\n\n"  # sent by the table's process (front_process), never made up here


@dataclass(frozen=True)
class FrontLimits:
    # bytes written to one viewer and not yet taken by its kernel; a viewer past that when the next
    # batch of events comes is dropped (so it holds at most this and one batch)
    backlog: int = 64 * 1024
    send_buffer: int = 16 * 1024  # bytes: a viewer's kernel send buffer
    stall_s: float = 30.0  # a viewer whose backlog does not drain for this long is dropped
    # The stream speaks at least this often: the dealer's screen calls the appliance lost after 2 s of
    # silence (as an event: a page never sees comments).
    heartbeat_s: float = 1.0
    head_timeout_s: float = 10.0
    write_timeout_s: float = 10.0  # for one answer to a request
    upstream_timeout_s: float = 30.0
    # Open connections at most that are not event streams (requests, and heads not read yet); more are
    # closed at once. Streams are counted apart, so that they never take a request's place.
    connections: int = CONNECTIONS_IN_ALL
    connections_per_address: int = CONNECTIONS_PER_ADDRESS
    own_connections: int = OWN_CONNECTIONS  # past ``connections``, for the appliance's own address
    streams: int = STREAMS_IN_ALL  # event streams at most, strangers' ...
    dealer_streams: int = DEALER_STREAMS  # ... and past that, the dealer's screens'
    streams_per_address: int = STREAMS_PER_ADDRESS
    linger_s: float = 2.0  # what a client still sends after its answer is taken, and thrown away, this long


@dataclass(frozen=True)
class TlsFiles:
    """The dashboard's certificate and key (PEM), loaded where TLS is terminated: in the front."""

    cert: Path
    key: Path

    def context(self) -> ssl.SSLContext:
        """A server context: TLS 1.2 at least, Python's defaults otherwise."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert, self.key)
        return context


class Feed(asyncio.Protocol):
    """The front's end of the feed. Whatever has arrived is taken at once: the last state, and every
    event in one write to each viewer (a front that fell behind catches up in one go, and a request
    waits behind one write per viewer, not one per event)."""

    def __init__(self, front: Front):
        self.front, self.frames, self.ended = front, FrameReader(), asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.front._feed = transport

    def data_received(self, data: bytes) -> None:
        events = []
        for kind, payload in self.frames.take(data):
            if kind == STATE:
                self.front.state = payload
            elif kind == PAIRED:
                self.front.paired = frozenset(json.loads(payload))
            elif kind == EVENTS:
                events.append(payload)
        if events:
            self.front._fan_out(b"".join(events))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


@dataclass(eq=False)
class Viewer:
    """One open event stream."""

    transport: asyncio.Transport
    holder: Holder
    stalled_since: float | None = None


class Front:
    def __init__(self, site: Site, upstream: str, tls: ssl.SSLContext | None = None, limits: FrontLimits = FrontLimits()):
        self.site, self.upstream, self.tls, self.limits = site, upstream, tls, limits
        self.viewers: set[Viewer] = set()
        self.dropped = 0  # viewers dropped for not keeping up
        self.state = b"{}"  # the table's state as /api/state answers it (the feed sends it first)
        self.paired: frozenset[str] = frozenset()  # paired screens' token digests, as the feed last sent them
        self.streams = StreamCaps(limits.streams_per_address, limits.streams, limits.dealer_streams)
        self.connections = ConnectionCaps(limits.connections_per_address, limits.connections, limits.own_connections)
        self._feed: asyncio.Transport | None = None
        self._counts_due = False

    async def serve(self, sock: socket.socket, feed: socket.socket) -> None:
        """Serve on the bound, listening ``sock`` until the table's process closes ``feed``."""
        server = await asyncio.start_server(self._connection, sock=sock, ssl=self.tls, limit=HEAD_LIMIT,
                                            backlog=ACCEPT_QUEUE,
                                            ssl_handshake_timeout=self.limits.head_timeout_s if self.tls else None)
        _, fed = await asyncio.get_running_loop().connect_accepted_socket(lambda: Feed(self), feed)
        beating = asyncio.create_task(self._watch_stalls())
        self._feed.write(frame(READY, b""))
        try:
            await fed.ended
        finally:
            beating.cancel()
            server.close()
            for viewer in list(self.viewers):
                viewer.transport.abort()

    # --- viewers ----------------------------------------------------------------------------------

    def _fan_out(self, chunk: bytes) -> None:
        for viewer in list(self.viewers):
            transport = viewer.transport
            if transport.is_closing() or transport.get_write_buffer_size() > self.limits.backlog:
                self._drop(viewer)
            else:
                transport.write(chunk)

    def _drop(self, viewer: Viewer) -> None:
        if viewer in self.viewers:
            self._forget(viewer)
            self.dropped += 1
            viewer.transport.abort()  # what it had not taken is thrown away with it

    def _forget(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)
        self.streams.release(viewer.holder)
        self._report_counts()

    def _report_counts(self) -> None:
        """Tell the table's process how many viewers there are, once per burst of changes."""
        if self._counts_due or self._feed is None:
            return
        self._counts_due = True

        def send():
            self._counts_due = False
            if not self._feed.is_closing():
                counts = [len(self.viewers), self.dropped, self.streams.refused]
                self._feed.write(frame(COUNTS, json.dumps(counts).encode()))

        asyncio.get_running_loop().call_later(0.05, send)

    async def _watch_stalls(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.limits.heartbeat_s)
            now = loop.time()
            for viewer in list(self.viewers):
                if viewer.transport.get_write_buffer_size() == 0:
                    viewer.stalled_since = None
                elif viewer.stalled_since is None:
                    viewer.stalled_since = now
                elif now - viewer.stalled_since > self.limits.stall_s:
                    self._drop(viewer)

    # --- requests ---------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def request(head: bytes, address: str) -> None:
            try:
                parsed = parse_head(head)
            except BadHead as err:
                return await self._answer(writer, 400, str(err))
            path = parsed.path.split("?")[0]
            if path == "/events":
                await self._events(parsed, reader, writer, address)
            elif path == "/api/state" and parsed.method == "GET":
                await self._state(parsed, writer)
            else:
                await self._proxy(parsed, head, reader, writer)

        # What a client sends on after its answer is thrown away for the whole linger: the front's bodies
        # are small, and a client sending on is cut off by time.
        await serve_connection(reader, writer, self.connections, self.limits.head_timeout_s, self.limits.linger_s,
                               request, linger_bytes=math.inf)

    def _refusal(self, request: Head) -> tuple[int, str] | None:
        """Flask's ``Host`` and ``Origin`` checks (``app.guard_site``), for what the front answers itself."""
        port = self.site.port
        if not self.site.allows_host(request.headers.get("host", ""), port):
            return 400, "Host is not this dashboard's name"
        origin = request.headers.get("origin")
        if origin is not None and not self.site.allows_origin(origin, port):
            return 403, "requests from pages of other sites are not answered"
        return None

    async def _events(self, request: Head, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      address: str) -> None:
        refused = self._refusal(request)
        if refused:
            return await self._answer(writer, *refused)
        if request.method != "GET":
            return await self._answer(writer, 405, "the event stream is read with GET")
        holder = self._holder(request, address)
        refusal = self.streams.admit(holder)
        if refusal is not None:
            return await self._refuse_stream(writer, refusal)
        # A stream from now on: counted with the streams, no longer with the connections (until it ends
        # and is closed as any connection is).
        self.connections.release(address)
        try:
            await self._stream(holder, reader, writer)
        finally:
            self.connections.count(address)

    def _holder(self, request: Head, address: str) -> Holder:
        """Whose stream this is: a paired screen's (its cookie's token is paired), else its address's."""
        token = cookie(request.headers.get("cookie", ""), SCREEN_COOKIE)
        digest = screen_token_digest(token) if token else None
        return Holder.of(address, digest if digest in self.paired else None)

    async def _refuse_stream(self, writer: asyncio.StreamWriter, refusal: Refusal) -> None:
        """Answer a stream past a cap, then close at once: a GET has no body to take and throw away, so
        a refused stream does not linger (a client opening streams by the thousand would otherwise
        hold as many connections for ``linger_s`` each)."""
        self._report_counts()
        try:
            await self._answer(writer, refusal.status, refusal.reason)
        finally:
            writer.transport.abort()

    async def _stream(self, holder: Holder, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:  # a small kernel buffer: what a stopped viewer holds is bounded by the backlog
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.send_buffer)
        writer.write(b"HTTP/1.1 200 OK\r\n" + header_lines("text/event-stream", self.tls is not None) + b"Cache-Control: no-store\r\n"
                     b"\r\nretry: 2000\n\n")
        viewer = Viewer(writer.transport, holder)
        self.viewers.add(viewer)
        self._report_counts()
        try:
            while await reader.read(4096):  # a viewer sends nothing more; this ends when it goes
                pass
        finally:
            if viewer in self.viewers:  # not dropped already
                self._forget(viewer)

    async def _state(self, request: Head, writer: asyncio.StreamWriter) -> None:
        refused = self._refusal(request)
        if refused:
            return await self._answer(writer, *refused)
        body = self.state
        writer.write(b"HTTP/1.1 200 OK\r\n" + header_lines("application/json", self.tls is not None)
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)

    async def _proxy(self, request: Head, head: bytes, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        refused = body_refusal(request.headers, BODY_LIMIT)  # bodies are small: read whole, then passed on
        if refused:
            return await self._answer(writer, *refused)
        body = await asyncio.wait_for(reader.readexactly(int(request.headers.get("content-length", "0"))),
                                      self.limits.head_timeout_s)
        up_reader, up_writer = await asyncio.wait_for(asyncio.open_unix_connection(self.upstream),
                                                      self.limits.upstream_timeout_s)
        try:
            up_writer.write(forwarded_head(head, peer_address(writer), https=self.tls is not None) + body)
            await up_writer.drain()
            while True:
                chunk = await asyncio.wait_for(up_reader.read(65536), self.limits.upstream_timeout_s)
                if not chunk:
                    break
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)
        finally:
            up_writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, status: int, error: str) -> None:
        await answer_refusal(writer, status, error, self.tls is not None, self.limits.write_timeout_s)

def cookie(header: str, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header, or None.

    >>> cookie("session=abc; screen=t0k=n", "screen")
    't0k=n'
    """
    for pair in header.split(";"):
        key, sep, value = pair.strip().partition("=")
        if sep and key == name:
            return value
    return None


# --- the front's process ----------------------------------------------------------------------------

def arguments(sock: socket.socket, feed: socket.socket, site: Site, upstream: str, tls: TlsFiles | None,
              limits: FrontLimits) -> str:
    """What :func:`main` is started with (the two sockets are passed by descriptor)."""
    return json.dumps({"listen_fd": sock.fileno(), "feed_fd": feed.fileno(), "site": asdict(site), "upstream": upstream,
                       "tls": [str(tls.cert), str(tls.key)] if tls else None, "limits": asdict(limits)})


def main(given: str) -> None:
    config = json.loads(given)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the appliance, whose going ends this
    limits = FrontLimits(**config["limits"])  # a socket per viewer: room for all of them
    room_for_descriptors(limits.connections + limits.own_connections + limits.streams + limits.dealer_streams + 64)
    site = Site(**{**config["site"], "names": tuple(config["site"]["names"])})
    tls = TlsFiles(*map(Path, config["tls"])).context() if config["tls"] else None
    front = Front(site, config["upstream"], tls, limits)
    asyncio.run(front.serve(socket.socket(fileno=config["listen_fd"]), socket.socket(fileno=config["feed_fd"])))


if __name__ == "__main__":
    main(sys.argv[1])
