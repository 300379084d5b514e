"""What the round loop sees of the layout: one seam, a camera-backed eye and a simulated one.

``look(zones)`` returns, for one moment, each zone's cards left to right as the reader gives
them (:class:`SeenCard`) and a way to get the zone image the audit log keeps,
or ``None`` when there is no frame to look at. The loop does not know which eye it has.
When the cards on the table do not look like the taught deck, the camera's eye names none of
them and gives each the reason ``DECK_MISMATCH``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SeenCard:
    """One card in a zone as the table takes it from its eye: named, with the reader's confidence, or
    not named, and why (unreadable, or named by a person). The reader's own evidence (its deck match,
    where the card lies) stays behind the eye: the round needs none of it, and a simulated eye or a
    dealer's entry has none to give.

    >>> SeenCard("As", 0.98765).to_json(), SeenCard(None, reason="unreadable").to_json()
    ({'card': 'As', 'confidence': 0.988}, {'card': None, 'reason': 'unreadable'})
    """

    card: str | None
    confidence: float = 0.0
    reason: str | None = None  # why not named; for a card named, how it was told where its index alone did not

    def to_json(self) -> dict:
        """As the audit log records a read and the dealer's screen shows it."""
        if self.card is None:
            return {"card": None, "reason": self.reason}
        told = {"reason": self.reason} if self.reason else {}
        return {"card": self.card, "confidence": round(self.confidence, 3)} | told


Look = dict[str, tuple[list[SeenCard], Callable[[], bytes | None]]]


class Eye(Protocol):
    def look(self, zones: list[str]) -> Look | None: ...


class TableTop:
    """The simulated layout read by a perfect eye: what the simulated dealer laid is what is seen
    (a card laid as ``None`` is one the camera cannot read: a glare spot, a bent corner)."""

    def __init__(self) -> None:
        self.laid: dict[str, list[str | None]] = {}

    def lay(self, zones: dict[str, list[str | None]]) -> None:
        self.laid = {zone: list(cards) for zone, cards in zones.items()}

    def look(self, zones: list[str]) -> Look:
        return {zone: ([SeenCard(c, 1.0) if c else SeenCard(None, reason="unreadable")
                        for c in self.laid.get(zone, [])], lambda: None) for zone in zones}


class CameraEye:
    """Frames from a camera, calibrated against the layout's markers, read by the template reader.

    ``on_status(status, detail)`` hears of calibration trouble (markers covered for too long,
    a tilted camera) and of its end, once per change.

    Whether the cards are of the taught deck is judged on the latest read of every zone looked at
    (each card on the table counted once): the banker's seven alone are too few cards to tell,
    together with the seats last read they are not."""

    def __init__(self, camera, layout, deck, calibrator, on_status: Callable[[str, str], None] = lambda s, d: None):
        self.camera, self.layout, self.deck, self.calibrator = camera, layout, deck, calibrator
        self._on_status = on_status
        self._status = "unknown"
        self._matches: dict[str, list[float | None]] = {}  # zone -> its latest read's match scores

    def _set(self, status: str, detail: str) -> None:
        if status != self._status:
            self._status = status
            self._on_status(status, detail)

    def look(self, zones: list[str]) -> Look | None:
        import cv2

        from ..vision.calibrate import CalibrationError
        from ..vision.deck_match import DeckMatch
        from ..vision.reader import read_zone, zone_image

        frame = self.camera.read()
        if frame is None:
            return None
        try:
            calibration = self.calibrator.update(frame)
        except CalibrationError as err:
            self._set("fault", f"calibration: {err}")
            return None
        self._set("online", "markers found" if not calibration.stale else "markers covered: last good calibration")
        reads = {name: read_zone(frame, self.layout.zone(name), self.deck, calibration) for name in zones}
        self._matches.update({name: [r.match for r in cards] for name, cards in reads.items()})
        match = DeckMatch.of((score for scores in self._matches.values() for score in scores), self.deck.poor_match)
        looked: Look = {}
        for name, cards in reads.items():

            def image(zone=self.layout.zone(name)) -> bytes:  # noqa: B008  (binds this zone, read after the loop)
                ok, png = cv2.imencode(".png", zone_image(frame, zone, calibration)[0])
                return png.tobytes()

            looked[name] = ([SeenCard(r.card, r.confidence, r.reason) for r in map(match.vouch, cards)], image)
        return looked
