"""Who may hold the front's connections and event streams: caps per address and in all, and room
past them kept for the appliance's own screen and the dealer's screens.

Why: with one cap on connections, shared by all, one client holding 2,000 event streams took every
connection the front would accept: ``/api/state`` and ``/healthz`` were closed unanswered, the
watchdog's web probe failed, and systemd restarted the appliance. Now streams are counted apart from
the other connections (requests, and heads not read yet), so they never take a request's place; a
stream past a cap is refused with words before it is anything but a request; one address cannot
fill the connections either (a client asking for streams by the thousand has as many heads in
flight), and past their cap there is room for the appliance's own address, where the watchdog's
probe and the kiosk's screen come from.

The dealer's screens are the appliance's own (on ``OWN_SCREEN``) and screens paired to it (by their
cookie's token, see :mod:`.screen_pairing`). Each is counted by itself, not with its address, so a
stranger sharing a paired screen's address does not use up its streams; and they may open streams
past the cap in all, into ``DEALER_STREAMS``, which strangers never reach.

>>> caps = StreamCaps(per_holder=2, in_all=3, dealer_room=1)
>>> stranger, other, own = Holder.of("10.0.0.7"), Holder.of("10.0.0.8"), Holder.of("127.0.0.1")
>>> [caps.admit(stranger), caps.admit(stranger)]
[None, None]
>>> caps.admit(stranger).status
429
>>> [caps.admit(other), caps.admit(other).status, caps.admit(own)]
[None, 503, None]
>>> connections = ConnectionCaps(per_address=1, in_all=2, own_room=1)
>>> [connections.admit(a) for a in ("10.0.0.7", "10.0.0.7", "10.0.0.8", "10.0.0.9", "127.0.0.1")]
[True, False, True, False, True]
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass

# A browser opens at most 6 connections to one host over HTTP/1.1 (Chromium's and Firefox's limit), and
# the front answers a request in milliseconds, one per connection: 32 at once from one address is a
# few browsers behind it (an office's NAT) with room. More is a client filling the front.
CONNECTIONS_PER_ADDRESS = 32
# Requests are answered in milliseconds and heads not sent within 10 s are closed: 1,000 at once is
# far more than the floor's screens make (300 viewers polling every half second: a few dozen).
CONNECTIONS_IN_ALL = 1000
# Past the cap on connections, for the appliance's own address only: the watchdog's probe (one at a
# time), the kiosk's page (6 at a time) and the command line's requests.
OWN_CONNECTIONS = 64
# A browser opens at most 6 connections to one host over HTTP/1.1 (Chromium's and Firefox's limit),
# its event streams among them: 16 is two or three browsers behind one address (an office's NAT)
# with every page of the dashboard open. More from one address is not people watching.
STREAMS_PER_ADDRESS = 16
# Three times the floor's worth of viewers the load bench holds (300, every event within 1 s). A
# viewer that stops reading holds its backlog and kernel buffer (80 KiB) until it is dropped: 1,000
# of them are 80 MB at worst, which a Pi with 1 GB can spare.
STREAMS_IN_ALL = 1000
# Past the cap in all, for the dealer's screens only: the appliance's own and a few paired screens,
# each a browser (6 connections at most), with room for a reconnection while the old stream closes.
DEALER_STREAMS = 64
# The appliance's own address: the kiosk opens the dashboard on loopback (systemd/paigow-kiosk), and
# the watchdog's probe asks there. Only these two: another loopback address is a local program that chose
# to look like another host (the tests and benches do, to be strangers).
OWN_SCREEN = frozenset({"127.0.0.1", "::1"})
# An IPv6 host is given a /64 of its own (SLAAC) and may use any address in it: counted as one.
IPV6_HOST_PREFIX = 64


@dataclass(frozen=True)
class Holder:
    """Whose a stream is: an address's or a paired screen's; ``dealer`` for the dealer's screens."""

    key: str
    dealer: bool = False

    @classmethod
    def of(cls, address: str, paired_screen: str | None = None) -> Holder:
        """The holder of a stream from ``address``; ``paired_screen``: the digest of a paired screen's
        token, when the request carries one that is paired.

        >>> Holder.of("2001:db8::1") == Holder.of("2001:db8::ffff")
        True
        >>> Holder.of("::ffff:127.0.0.1")
        Holder(key='address 127.0.0.1', dealer=True)
        """
        if paired_screen is not None:
            return cls(f"screen {paired_screen}", dealer=True)
        where = counted_address(address)
        return cls(f"address {where}", dealer=where in OWN_SCREEN)


@dataclass(frozen=True)
class Refusal:
    """A stream not opened: the answer's status and why, in words for whoever reads it."""

    status: int
    reason: str


class StreamCaps:
    """The open streams, counted per holder and in all (one event loop uses it: no lock)."""

    def __init__(self, per_holder: int = STREAMS_PER_ADDRESS, in_all: int = STREAMS_IN_ALL,
                 dealer_room: int = DEALER_STREAMS):
        self.per_holder, self.in_all, self.dealer_room = per_holder, in_all, dealer_room
        self.open = 0
        self.refused = 0
        self._held: Counter[str] = Counter()

    def admit(self, holder: Holder) -> Refusal | None:
        """Count a new stream of ``holder``'s, or say why it is refused (and count nothing)."""
        refusal = self._refusal(holder)
        if refusal is not None:
            self.refused += 1
            return refusal
        self._held[holder.key] += 1
        self.open += 1
        return None

    def release(self, holder: Holder) -> None:
        """An admitted stream of ``holder``'s has ended."""
        self.open -= 1
        self._held[holder.key] -= 1
        if not self._held[holder.key]:
            del self._held[holder.key]  # addresses come and go: keep only those holding streams

    def _refusal(self, holder: Holder) -> Refusal | None:
        if self._held[holder.key] >= self.per_holder:
            who = "this screen" if holder.key.startswith("screen ") else "this address"
            return Refusal(429, f"{who} holds {self.per_holder} event streams already, the most one may: "
                                "close another page of the dashboard first")
        if self.open >= self.in_all + (self.dealer_room if holder.dealer else 0):
            return Refusal(503, f"the dashboard serves {self.in_all} event streams already, the most it "
                                "serves: try again later")
        return None


class ConnectionCaps:
    """The open connections that are not event streams, per address and in all. The appliance's own
    address is not held to the cap per address, and may go past the cap in all into ``own_room``."""

    def __init__(self, per_address: int = CONNECTIONS_PER_ADDRESS, in_all: int = CONNECTIONS_IN_ALL,
                 own_room: int = OWN_CONNECTIONS):
        self.per_address, self.in_all, self.own_room = per_address, in_all, own_room
        self.open = 0
        self._held: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address`` (as :func:`counted_address` gives it), or False."""
        own = address in OWN_SCREEN
        if not own and self._held[address] >= self.per_address:
            return False
        if self.open >= self.in_all + (self.own_room if own else 0):
            return False
        self.count(address)
        return True

    def count(self, address: str) -> None:
        """Count a connection whatever the caps (one that was counted, and is again)."""
        self._held[address] += 1
        self.open += 1

    def release(self, address: str) -> None:
        self.open -= 1
        self._held[address] -= 1
        if not self._held[address]:
            del self._held[address]


def counted_address(address: str) -> str:
    """An address as connections and streams are counted by: IPv4 as itself (from an IPv4-mapped one too), IPv6 by
    its host's /64."""
    try:
        parsed = ipaddress.ip_address(address.split("%")[0])  # without a link-local address's zone
    except ValueError:
        return address  # not an IP address (a Unix socket's peer): counted as given
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    if isinstance(parsed, ipaddress.IPv6Address) and not parsed.is_loopback:
        return str(ipaddress.ip_network(f"{parsed}/{IPV6_HOST_PREFIX}", strict=False))
    return str(parsed)
