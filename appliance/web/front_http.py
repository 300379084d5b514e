"""The HTTP that the dashboard's front (:mod:`.front`) and the floor's door (``appliance.floor.door``)
both speak in front of waitress: a connection admitted under the caps, its request head read in time
and checked, a body's framing and size checked before a byte of it is read, the head passed on with
who the client is, a refusal answered in one plain line, and the connection closed gracefully.

>>> body_refusal({"content-length": "2048"}, limit=1024)
(413, 'the body is 2048 bytes; at most 1024')
>>> forwarded_head(b"GET / HTTP/1.1\\r\\nHost: a\\r\\nX-Forwarded-For: 6.6.6.6\\r\\n\\r\\n", "10.0.0.7", https=False)
b'GET / HTTP/1.1\\r\\nHost: a\\r\\nX-Forwarded-For: 10.0.0.7\\r\\nX-Forwarded-Proto: http\\r\\nConnection: close\\r\\n\\r\\n'
"""

from __future__ import annotations

import asyncio
import json
import resource
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .front_caps import ConnectionCaps, counted_address
from .site_guard import security_headers

HEAD_LIMIT = 16 * 1024  # bytes of a request line and headers
# Dropped from what a client sends and set by the front alone (Transfer-Encoding is refused before).
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "transfer-encoding",
              "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded"}
STATUS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 405: "Method Not Allowed",
          411: "Length Required", 413: "Payload Too Large", 429: "Too Many Requests", 502: "Bad Gateway",
          503: "Service Unavailable"}
LINGER_BYTES = 1 << 20  # thrown away after an answer at most (the floor's door): a refused upload is not taken whole


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


def body_refusal(headers: dict[str, str], limit: int) -> tuple[int, str] | None:
    """Why a request's body is refused before a byte of it is read, or None: a body without a
    ``Content-Length`` (one framing, that the front and waitress read alike), one that is not a number,
    or one over ``limit`` bytes."""
    if "transfer-encoding" in headers:
        return 411, "send the body with a Content-Length, without Transfer-Encoding"
    length = headers.get("content-length", "0")
    if not (length.isascii() and length.isdigit()):  # str.isdigit alone takes "²" and "٥"
        return 400, "Content-Length is not a number"
    if int(length) > limit:
        return 413, f"the body is {length} bytes; at most {limit}"
    return None


def forwarded_head(head: bytes, client: str, https: bool) -> bytes:
    """The request head as waitress gets it: what a client said of hops and forwarding dropped, who the
    client is and the scheme set (only the front can: waitress trusts them from its private socket
    alone), one request per connection."""
    lines = head.decode("latin-1").removesuffix("\r\n\r\n").split("\r\n")
    kept = [line for line in lines[1:] if line and line.split(":", 1)[0].strip().lower() not in HOP_BY_HOP]
    forwarded = [lines[0], *kept, f"X-Forwarded-For: {client}", f"X-Forwarded-Proto: {'https' if https else 'http'}",
                 "Connection: close"]
    return ("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1")


def peer_address(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return peer[0] if isinstance(peer, tuple) else "?"


async def serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connections: ConnectionCaps,
                           head_timeout_s: float, linger_s: float, handle: Callable[[bytes, str], Awaitable[None]],
                           linger_bytes: float = LINGER_BYTES) -> None:
    """One connection from start to end: admitted under ``connections`` (else dropped unanswered:
    nothing read, nothing owed), its request head read within ``head_timeout_s`` and handed to
    ``handle(head, counted address)``, then closed gracefully (:func:`close_gracefully`), still counted
    while it lingers. A client
    too slow, sending too much or too little, or gone, and the server stopping, end it quietly."""
    address = counted_address(peer_address(writer))
    if not connections.admit(address):
        writer.transport.abort()
        return
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), head_timeout_s)
        await handle(head, address)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, TimeoutError, ssl.SSLError,
            asyncio.CancelledError):
        pass
    finally:
        await close_gracefully(reader, writer, linger_s, linger_bytes)
        connections.release(address)


def header_lines(content_type: str, tls: bool) -> bytes:
    """An answer's own headers: its type, the security headers Flask's answers carry, one request per connection."""
    headers = {"Content-Type": content_type, **security_headers(tls), "Connection": "close"}
    return "".join(f"{name}: {value}\r\n" for name, value in headers.items()).encode()


async def answer_refusal(writer: asyncio.StreamWriter, status: int, error: str, tls: bool, write_timeout_s: float) -> None:
    """A refusal in one plain line (``{"error": ...}``), as Flask's refusals are answered."""
    body = json.dumps({"error": error}).encode()
    writer.write(f"HTTP/1.1 {status} {STATUS[status]}\r\n".encode() + header_lines("application/json", tls)
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await asyncio.wait_for(writer.drain(), write_timeout_s)


async def close_gracefully(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, linger_s: float,
                           linger_bytes: float = LINGER_BYTES) -> None:
    """Close after the answer: say it is complete, then take and throw away what the client still sends,
    until it closes, for at most ``linger_s`` and ``linger_bytes``. A socket closed with bytes unread
    resets the connection, and the reset can wipe the answer from the client's side before it is
    read: a refused upload would see "connection reset" instead of its 411 or 413. If that does not
    finish in time or the server is stopping, drop the connection."""
    try:
        if writer.transport.is_closing():
            return writer.transport.abort()
        if writer.can_write_eof():  # TLS cannot half-close; its client reads to the Content-Length
            writer.write_eof()
        await asyncio.wait_for(_discard(reader, linger_bytes), linger_s)
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 2.0)
    except BaseException:  # noqa: BLE001 - a reset, a timeout, or cancellation at stop: nothing to wait for
        writer.transport.abort()


async def _discard(reader: asyncio.StreamReader, most: float) -> None:
    while most > 0 and (chunk := await reader.read(65536)):
        most -= len(chunk)


def room_for_descriptors(wanted: int) -> None:
    """A descriptor per connection (and per stream): raise the soft limit to ``wanted`` if need be."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
