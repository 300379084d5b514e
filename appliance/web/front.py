"""The dashboard's front: one asyncio server on the dashboard's port that serves the live event
stream (``/events``) itself and hands every other request to waitress (Flask) over a private Unix
socket.

Why: an event stream is a connection held open for hours. Served by waitress, each one holds one of
its worker threads, so 16 viewers stopped the dashboard. Here a viewer costs a socket and a bounded
buffer: the table's listener serialises each event once and hands it to the event loop, which writes
the same bytes to every viewer's transport (no task wakes per viewer). What a viewer has not taken
yet waits in its transport, up to ``backlog`` bytes (its queue, counted in bytes) over a small kernel
send buffer; a viewer past that is dropped, never waited for, and so is one whose backlog has not
moved for ``stall_s``: its browser reconnects and reloads the state. A heartbeat goes to every
viewer every ``heartbeat_s``; a connection that has not sent its request head within
``head_timeout_s`` is closed. The front also terminates TLS (Python's ``ssl``) and tells waitress who the client is
(``X-Forwarded-For``/``-Proto``, which only the front can set: waitress listens on a socket in a
private folder and trusts those headers from it alone, after the front drops any a client sent).
Requests are answered one per connection (``Connection: close``): the dashboard makes few of them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
import threading
from dataclasses import dataclass

from .request_body import BODY_LIMIT
from .site_guard import Site

log = logging.getLogger(__name__)

HEAD_LIMIT = 16 * 1024  # bytes of a request line and headers
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "transfer-encoding",
              "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded"}


@dataclass(frozen=True)
class FrontLimits:
    backlog: int = 64 * 1024  # bytes written to one viewer and not yet taken by its kernel; past that: dropped
    send_buffer: int = 16 * 1024  # bytes: a viewer's kernel send buffer
    stall_s: float = 30.0  # a viewer whose backlog does not drain for this long is dropped
    # The stream speaks at least this often: the dealer's screen calls the appliance lost after 2 s of
    # silence (as an event: a page never sees comments).
    heartbeat_s: float = 1.0
    head_timeout_s: float = 10.0
    write_timeout_s: float = 10.0  # for one answer to a request
    upstream_timeout_s: float = 30.0
    connections: int = 2000  # open connections at most (viewers and requests); more are closed at once


@dataclass(eq=False)
class Viewer:
    """One open event stream."""

    transport: asyncio.Transport
    stalled_since: float | None = None


class Front:
    def __init__(self, site: Site, upstream: str, tls: ssl.SSLContext | None = None, limits: FrontLimits = FrontLimits()):
        self.site, self.upstream, self.tls, self.limits = site, upstream, tls, limits
        self.viewers: set[Viewer] = set()
        self.dropped = 0  # viewers dropped for not keeping up
        self._connections = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None

    # --- the table's side (any thread) -------------------------------------------------------------

    def put_nowait(self, message: dict) -> None:
        """A live-table subscriber: one event, serialised once, for every viewer."""
        chunk = f"event: {message['event']}\ndata: {json.dumps(message)}\n\n".encode()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._fan_out, chunk)

    # --- running ----------------------------------------------------------------------------------

    def start(self, sock: socket.socket) -> None:
        """Serve on the bound, listening ``sock`` from an event loop in its own thread."""
        ready = threading.Event()

        def run():
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self._open(sock))
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="dashboard-front", daemon=True)
        self._thread.start()
        ready.wait(10)

    async def _open(self, sock: socket.socket) -> None:
        self._server = await asyncio.start_server(self._connection, sock=sock, ssl=self.tls, limit=HEAD_LIMIT,
                                                  ssl_handshake_timeout=self.limits.head_timeout_s if self.tls else None)
        self._loop.create_task(self._heartbeat())

    def stop(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        async def close():
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            loop.stop()

        asyncio.run_coroutine_threadsafe(close(), loop)
        self._thread.join(10)

    # --- the loop's side --------------------------------------------------------------------------

    def _fan_out(self, chunk: bytes) -> None:
        for viewer in list(self.viewers):
            transport = viewer.transport
            if transport.is_closing() or transport.get_write_buffer_size() + len(chunk) > self.limits.backlog:
                self._drop(viewer)
            else:
                transport.write(chunk)

    def _drop(self, viewer: Viewer) -> None:
        if viewer in self.viewers:
            self.viewers.discard(viewer)
            self.dropped += 1
            viewer.transport.abort()  # what it had not taken is thrown away with it

    async def _heartbeat(self) -> None:
        beat = b"event: heartbeat\ndata: {}\n\n"
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
            self._fan_out(beat)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        try:
            if self._connections > self.limits.connections:
                return
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.limits.head_timeout_s)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
                return  # too slow, too long or gone: no answer is owed
            request = parse_head(head)
            if request is None:
                await self._answer(writer, 400, "malformed request")
            elif request.path.split("?")[0] == "/events":
                await self._events(request, reader, writer)
            else:
                await self._proxy(request, head, reader, writer, writer.get_extra_info("peername"))
        except (ConnectionError, TimeoutError, ssl.SSLError, asyncio.CancelledError):
            pass  # the client went, was too slow, or the dashboard is stopping
        finally:
            self._connections -= 1
            await _close(writer)

    async def _events(self, request: "Head", reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = self.site.port
        if not self.site.allows_host(request.headers.get("host", ""), port):
            return await self._answer(writer, 400, "Host is not this dashboard's name")
        origin = request.headers.get("origin")
        if origin is not None and not self.site.allows_origin(origin, port):
            return await self._answer(writer, 403, "requests from pages of other sites are not answered")
        if request.method != "GET":
            return await self._answer(writer, 405, "the event stream is read with GET")
        sock = writer.get_extra_info("socket")
        if sock is not None:  # a small kernel buffer: what a stopped viewer holds is bounded by the backlog
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.send_buffer)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                     b"X-Content-Type-Options: nosniff\r\nConnection: close\r\n"
                     + (b"Strict-Transport-Security: max-age=31536000\r\n" if self.tls else b"")
                     + b"\r\nretry: 2000\n\n")
        viewer = Viewer(writer.transport)
        self.viewers.add(viewer)
        try:
            while await reader.read(4096):  # a viewer sends nothing more; this ends when it goes
                pass
        finally:
            self.viewers.discard(viewer)

    async def _proxy(self, request: "Head", head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     peer) -> None:
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            return await self._answer(writer, 411, "send the body with a Content-Length")
        length = request.headers.get("content-length", "0")
        if not length.isdigit():
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
        reason = {400: "Bad Request", 403: "Forbidden", 405: "Method Not Allowed", 411: "Length Required",
                  413: "Payload Too Large"}[status]
        writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + body)
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout_s)


async def _close(writer: asyncio.StreamWriter) -> None:
    """Close gracefully (what was written goes out; TLS says goodbye), or, if that does not finish
    within two seconds or the dashboard is stopping, drop the connection."""
    try:
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 2.0)
    except BaseException:  # noqa: BLE001 - a reset, a timeout, or cancellation at stop: nothing to wait for
        writer.transport.abort()


@dataclass
class Head:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; a repeated header keeps its last value


def parse_head(head: bytes) -> Head | None:
    """The request line and headers, or None if they are not HTTP/1.x."""
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, path, version = lines[0].split(" ")
    except ValueError:
        return None
    if not version.startswith("HTTP/1.") or not path.startswith("/"):
        return None
    headers = {}
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                return None
            headers[name.lower()] = value.strip()
    return Head(method, path, headers)

