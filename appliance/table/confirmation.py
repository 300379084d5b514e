"""What CONFIRM records of the hands read: the banker's seven cards, or the players' hands with the house
dealer's setting of the banker's hand where the layout has its set zones.

A setting other than the house way is recorded and holds the round for the dealer to reset it. Every
seat is checked before any is recorded, so a refused count or a card seen twice leaves the round as it was.
"""

from __future__ import annotations

from ..game.rules import OnePile, WrongCount
from ..vision.layout import BANKER_SET_ZONES
from .dealer_step import Step, banker_zones, set_zones, waiting
from .round import RoundStateError
from .table import Table
from .zone_reads import HAND, LaidCount, ZoneRead, ZoneReads, named, reads_of


class Confirmation:
    def __init__(self, table: Table, reads: ZoneReads, requests: dict[tuple[str, int], str], reads_setting: bool):
        """``requests``: (round, seat) -> who entered the player's request to have the hand set by the house way."""
        self.table, self.reads, self.requests, self.reads_setting = table, reads, requests, reads_setting

    def confirm(self, step: Step, who: str) -> None:
        if step is Step.BANKER:
            self.banker(who)
        elif step in (Step.SEATS, Step.RESET):
            self.seats(who)
        else:
            raise RoundStateError("CONFIRM does nothing now: there is no read to accept")

    def banker(self, who: str) -> None:
        zones = banker_zones(self.table)
        if zones == ["banker"]:
            zone = self.reads.complete("banker", HAND)
            self.table.playing.banker_cards(zone.laid(), read=zone.reads, images=self._images(zone), who=who,
                                            set_checked=self.reads_setting, named=named(("banker", zone)))
        else:
            front, back = self.reads.hand(zones[0], zones[1], "The banker")
            self.table.playing.banker_cards(front.laid() + back.laid(), read=reads_of(front, back),
                                            images=self._images(front) + self._images(back), who=who,
                                            front=front.laid(), back=back.laid(),
                                            named=named(*zip(zones, (front, back))))
        self.reads.clear()

    def seats(self, who: str) -> None:
        """The players' hands, settled; first the house dealer's setting, held where it is not the house way."""
        setting = self.reads.hand(*BANKER_SET_ZONES, "The banker's setting") if set_zones(self.table) else None
        if setting is not None and self.table.playing.setting_difference(setting[0].laid(), setting[1].laid()):
            self._accept_setting(setting, who)  # held (recorded): the dealer resets
            return
        counted = self.table.rules.wrong_count is not WrongCount.FOUL  # else a wrong count is the player's foul
        ready = {seat: self.reads.hand(f"seat{seat}.front", f"seat{seat}.back", f"Seat {seat}", counted)
                 for seat in waiting(self.table.playing.state)}
        ways = self._house_ways(ready)
        # every seat checked together before any is recorded: a card seen twice holds the whole table
        self.table.playing.hold_if_seen({f"seat {seat}": front.laid() + back.laid()
                                         for seat, (front, back) in ready.items()})
        if setting is not None:
            self._accept_setting(setting, who)
        for seat, (front, back) in ready.items():
            self.table.playing.seat_cards(seat, front.laid(), back.laid(), read=reads_of(front, back),
                                          images=self._images(front) + self._images(back), who=who,
                                          named=named((f"seat{seat}.front", front), (f"seat{seat}.back", back)),
                                          house_way=ways.get(seat))
        self.table.playing.settle()
        self.reads.clear()

    def _house_ways(self, ready: dict[int, tuple[ZoneRead, ZoneRead]]) -> dict[int, dict]:
        """The seats whose hands the house way sets, each with why; a wrong count elsewhere is recorded (a
        foul where the house says so), and refused before any seat is recorded where the house way sets it."""
        counts = {seat: LaidCount.of(front.cards(), back.cards()) for seat, (front, back) in ready.items()}
        ways = {seat: way for seat, count in counts.items()
                if (way := self._house_way_for(seat, count)) is not None}
        for seat, count in counts.items():
            if seat not in ways:
                self.table.playing.miscount(seat, count.total)
            elif count.wrong:
                raise RoundStateError(f"Seat {seat}: {count.total} cards seen: the house way sets {HAND}: "
                                      "name or enter the hand")
        return ways

    def _house_way_for(self, seat: int, count: LaidCount) -> dict | None:
        """Why the house way sets the seat's hand, or None: the player asked for it (entered by the dealer), or
        laid the seven cards in one pile (all in one of the seat's two zones, none in the other) where the
        house says so (``player_hands.one_pile``; Capitol: "it will be set as houseway")."""
        asked = self.requests.get((self.table.playing.round_id, seat))
        if asked is not None:
            return {"why": "request", "requested_by": asked}
        if self.table.rules.one_pile is OnePile.HOUSE_WAY and count.one_pile:
            return {"why": "one pile"}
        return None

    def _accept_setting(self, setting: tuple[ZoneRead, ZoneRead], who: str) -> None:
        """The house dealer's setting as read, recorded: accepted, or held for a reset."""
        front, back = setting
        self.table.playing.banker_set(front.laid(), back.laid(), read=reads_of(front, back),
                                      images=self._images(front) + self._images(back), who=who,
                                      named=named(*zip(BANKER_SET_ZONES, setting)))

    def _images(self, zone: ZoneRead) -> list[str]:
        png = zone.image()
        return [self.table.audit.store_image(png)] if png else []
