"""Who the dashboard answers: requests that name it (``Host``) and pages of its own origin (``Origin``).

A page of another site that a browser was led to (DNS rebinding: ``evil.example`` made to resolve to
the appliance) sends ``Host: evil.example``; a page of another site that posts here sends its own
``Origin``. Both are refused. The names allowed are the bound address, ``localhost``, ``127.0.0.1``
and ``[::1]``, each with the dashboard's port, and the names configured for the floor network.

>>> site = Site("0.0.0.0", 8443, names=("table7.floor",), tls=True)
>>> site.allows_host("table7.floor:8443", 8443), site.allows_host("evil.example:8443", 8443)
(True, False)
>>> site.allows_origin("https://localhost:8443", 8443), site.allows_origin("http://localhost:8443", 8443)
(True, False)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


class SiteError(ValueError):
    """A bind that the dashboard refuses (plain HTTP on the floor network without --insecure-http)."""


@dataclass(frozen=True)
class Site:
    host: str  # the address bound
    port: int | None = None  # None: the port each request came in on (a test's free port)
    names: tuple[str, ...] = ()  # the appliance's names and addresses on the floor network
    tls: bool = False
    insecure_http: bool = False  # plain HTTP off loopback, allowed by --insecure-http and warned about

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def hostnames(self) -> set[str]:
        bound = () if self.host in WILDCARDS else (bracketed(self.host),)
        return {n.lower() for n in (*LOOPBACK_NAMES, *bound, *(bracketed(n) for n in self.names))}

    def allows_host(self, host: str, port: int) -> bool:
        """``host`` as the ``Host`` header gives it: a known name with this port (or none, on the
        scheme's default port)."""
        host = host.lower()
        names = self.hostnames()
        if host in names:
            return port == (443 if self.tls else 80)
        name, _, given = host.rpartition(":")
        return name in names and given == str(port)

    def allows_origin(self, origin: str, port: int) -> bool:
        scheme, sep, rest = origin.partition("://")
        return bool(sep) and scheme == self.scheme and "/" not in rest and self.allows_host(rest, port)


def security_headers(tls: bool) -> dict[str, str]:
    """The headers every answer carries, whoever serves it (Flask, or the front for the stream and the
    state): no sniffing, no framing, no referrer; over TLS, browsers keep to HTTPS for a year."""
    headers = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
    if tls:
        headers["Strict-Transport-Security"] = "max-age=31536000"
    return headers


def check_bind(host: str, tls: bool, insecure_http: bool) -> None:
    """Plain HTTP is for loopback; anything else is served over TLS unless the operator says otherwise."""
    if not tls and not is_loopback(host) and not insecure_http:
        raise SiteError(f"--host {host}: off loopback the dashboard is served over HTTPS: give a certificate "
                        "(appliance tls selfsigned makes one), or --insecure-http to accept plain HTTP")


def bracketed(host: str) -> str:
    """An IPv6 address as it appears in a Host header."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
