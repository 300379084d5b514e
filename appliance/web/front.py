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
import resource
import signal
import socket
import ssl
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from .front_caps import (CONNECTIONS_IN_ALL, CONNECTIONS_PER_ADDRESS, DEALER_STREAMS, OWN_CONNECTIONS,
                         STREAMS_IN_ALL, STREAMS_PER_ADDRESS, ConnectionCaps, Holder, Refusal, StreamCaps,
                         counted_address)
from .request_body import BODY_LIMIT
from .screen_pairing import SCREEN_COOKIE, screen_token_digest
from .site_guard import Site, security_headers

log = logging.getLogger(__name__)

HEAD_LIMIT = 16 * 1024  # bytes of a request line and headers
# Connections the kernel holds for the front to accept (asyncio's default is 100). A client opening
# connections by the thousand at once overflowed a shorter queue, and a connection past it (the
# watchdog's probe's too) waited a second for its SYN to be sent again. The kernel holds it to
# net.core.somaxconn (4096 since Linux 5.4).
ACCEPT_QUEUE = 4096
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "transfer-encoding",
              "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded"}
# The feed between the table's process and this one: frames of one kind byte, a 4-byte length, a payload.
EVENTS, STATE = b"E", b"S"  # to the front: stream chunks for every viewer; the state's JSON
PAIRED = b"P"  # to the front: the paired screens' token digests (a JSON list)
READY, COUNTS = b"R", b"C"  # from the front: serving; viewers open, dropped and refused
HEARTBEAT = b"event: heartbeat\ndata: {}\n\n"  # sent by the table's process (front_process), never made up here
STATUS = {400: "Bad Request", 403: "Forbidden", 405: "Method Not Allowed", 411: "Length Required",
          413: "Payload Too Large", 429: "Too Many Requests", 503: "Service Unavailable"}


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


def frame(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


class Feed(asyncio.Protocol):
    """The front's end of the feed. Whatever has arrived is taken at once: the last state, and every
    event in one write to each viewer (a front that fell behind catches up in one go, and a request
    waits behind one write per viewer, not one per event)."""

    def __init__(self, front: "Front"):
        self.front, self.pending, self.ended = front, bytearray(), asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.front._feed = transport

    def data_received(self, data: bytes) -> None:
        self.pending += data
        events = []
        while len(self.pending) >= 5 and len(self.pending) >= 5 + (length := int.from_bytes(self.pending[1:5], "big")):
            kind, payload = bytes(self.pending[:1]), bytes(self.pending[5:5 + length])
            del self.pending[:5 + length]
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
        peer = writer.get_extra_info("peername")
        address = counted_address(peer[0] if isinstance(peer, tuple) else "?")
        if not self.connections.admit(address):
            writer.transport.abort()  # unanswered: nothing read, nothing owed
            return
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.limits.head_timeout_s)
            try:
                request = parse_head(head)
            except BadHead as err:
                return await self._answer(writer, 400, str(err))
            path = request.path.split("?")[0]
            if path == "/events":
                await self._events(request, reader, writer, address)
            elif path == "/api/state" and request.method == "GET":
                await self._state(request, writer)
            else:
                await self._proxy(request, head, reader, writer, writer.get_extra_info("peername"))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, TimeoutError, ssl.SSLError,
                asyncio.CancelledError):
            pass  # the client was too slow, sent too much or too little, went, or the dashboard is stopping
        finally:
            await _close(reader, writer, self.limits.linger_s)  # still counted while it lingers
            self.connections.release(address)

    def _refusal(self, request: "Head") -> tuple[int, str] | None:
        """Flask's ``Host`` and ``Origin`` checks (``app.guard_site``), for what the front answers itself."""
        port = self.site.port
        if not self.site.allows_host(request.headers.get("host", ""), port):
            return 400, "Host is not this dashboard's name"
        origin = request.headers.get("origin")
        if origin is not None and not self.site.allows_origin(origin, port):
            return 403, "requests from pages of other sites are not answered"
        return None

    def _headers(self, content_type: str) -> bytes:
        headers = {"Content-Type": content_type, **security_headers(self.tls is not None), "Connection": "close"}
        return "".join(f"{name}: {value}\r\n" for name, value in headers.items()).encode()

    async def _events(self, request: "Head", reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
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

    def _holder(self, request: "Head", address: str) -> Holder:
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
        writer.write(b"HTTP/1.1 200 OK\r\n" + self._headers("text/event-stream") + b"Cache-Control: no-store\r\n"
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

    async def _state(self, request: "Head", writer: asyncio.StreamWriter) -> None:
        refused = self._refusal(request)
        if refused:
            return await self._answer(writer, *refused)
        body = self.state
        writer.write(b"HTTP/1.1 200 OK\r\n" + self._headers("application/json")
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)

    async def _proxy(self, request: "Head", head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     peer) -> None:
        if "transfer-encoding" in request.headers:  # bodies are small: one framing, that both ends read alike
            return await self._answer(writer, 411, "send the body with a Content-Length, without Transfer-Encoding")
        length = request.headers.get("content-length", "0")
        if not (length.isascii() and length.isdigit()):  # str.isdigit alone takes "²" and "٥"
            return await self._answer(writer, 400, "Content-Length is not a number")
        if int(length) > BODY_LIMIT:
            return await self._answer(writer, 413, f"the body is {length} bytes; at most {BODY_LIMIT}")
        body = await asyncio.wait_for(reader.readexactly(int(length)), self.limits.head_timeout_s)
        lines = head.decode("latin-1").split("\r\n")
        kept = [line for line in lines[1:] if line and line.split(":", 1)[0].strip().lower() not in HOP_BY_HOP]
        address = peer[0] if isinstance(peer, tuple) else "?"
        forwarded = [lines[0], *kept, f"X-Forwarded-For: {address}",
                     f"X-Forwarded-Proto: {'https' if self.tls else 'http'}", "Connection: close"]
        up_reader, up_writer = await asyncio.wait_for(asyncio.open_unix_connection(self.upstream),
                                                      self.limits.upstream_timeout_s)
        try:
            up_writer.write(("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1") + body)
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
        body = json.dumps({"error": error}).encode()
        writer.write(f"HTTP/1.1 {status} {STATUS[status]}\r\n".encode() + self._headers("application/json")
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)


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


async def _close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, linger_s: float) -> None:
    """Close gracefully: say the answer is complete, then take and throw away what the client still
    sends, until it closes, for at most ``linger_s``. A socket closed with bytes unread
    resets the connection, and the reset can wipe the answer from the client's side before it is
    read: a refused upload would see "connection reset" instead of its 411 or 413. If that does not
    finish in time or the dashboard is stopping, drop the connection."""
    try:
        if writer.can_write_eof():  # TLS cannot half-close; its client reads to the Content-Length
            writer.write_eof()
        await asyncio.wait_for(_discard(reader), linger_s)
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 2.0)
    except BaseException:  # noqa: BLE001 - a reset, a timeout, or cancellation at stop: nothing to wait for
        writer.transport.abort()


async def _discard(reader: asyncio.StreamReader) -> None:
    while await reader.read(65536):
        pass


@dataclass
class Head:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; a repeated header (not Host, not Content-Length) keeps its last value


class BadHead(ValueError):
    """A request line or headers the front will not pass on; the message says what is wrong."""


def parse_head(head: bytes) -> Head:
    """The request line and headers of plain HTTP/1.0 or 1.1, or :class:`BadHead`: a control
    character (a bare CR or LF, NUL) anywhere, a header name with spaces, or a second ``Host`` or
    ``Content-Length`` (where the front and waitress could read different requests in the same bytes)."""
    text = head.decode("latin-1").removesuffix("\r\n\r\n")
    if any(ord(c) < 32 and c != "\t" or c == "\x7f" for c in text.replace("\r\n", "")):
        raise BadHead("a control character (a bare CR or LF, NUL) in the request head")
    lines = text.split("\r\n")
    try:
        method, path, version = lines[0].split(" ")
    except ValueError:
        raise BadHead("the request line is not METHOD PATH VERSION") from None
    if version not in ("HTTP/1.0", "HTTP/1.1"):
        raise BadHead(f"{version[:20]!r} is not HTTP/1.0 or HTTP/1.1")
    if not path.startswith("/"):
        raise BadHead("the request's target is not a path")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadHead(f"header {line[:40]!r} is not NAME: VALUE")
        name = name.lower()
        if name in headers and name in ("host", "content-length"):
            raise BadHead(f"{name} is given twice")
        headers[name] = value.strip()
    return Head(method, path, headers)


# --- the front's process ----------------------------------------------------------------------------

def arguments(sock: socket.socket, feed: socket.socket, site: Site, upstream: str, tls: TlsFiles | None,
              limits: FrontLimits) -> str:
    """What :func:`main` is started with (the two sockets are passed by descriptor)."""
    return json.dumps({"listen_fd": sock.fileno(), "feed_fd": feed.fileno(), "site": asdict(site), "upstream": upstream,
                       "tls": [str(tls.cert), str(tls.key)] if tls else None, "limits": asdict(limits)})


def main(given: str) -> None:
    config = json.loads(given)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the appliance, whose going ends this
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket per viewer: room for all of them
    limits = FrontLimits(**config["limits"])
    wanted = limits.connections + limits.own_connections + limits.streams + limits.dealer_streams + 64
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
    site = Site(**{**config["site"], "names": tuple(config["site"]["names"])})
    tls = TlsFiles(*map(Path, config["tls"])).context() if config["tls"] else None
    front = Front(site, config["upstream"], tls, limits)
    asyncio.run(front.serve(socket.socket(fileno=config["listen_fd"]), socket.socket(fileno=config["feed_fd"])))


if __name__ == "__main__":
    main(sys.argv[1])
