"""The dealer's screen at the sizes a table's screens have (the 7-inch display, the same with a taller
window, a 7-inch tablet, a 10-inch Touch Display), six players at the table maximum, measured in a real
headless Chromium at every step of a round: before it, the start device not answering, the banker's cards
read with one unreadable, the house dealer copying the house way, a setting laid otherwise and held, the
appliance lost, the players' hands read (one asks for the house way from the screen), the table held, the
round settled and the bank offered. At each step nothing scrolls, nothing is clipped or runs into its
neighbour (money, card indices, buttons), nothing covers a text or a control; while the dealer copies the
house way its cards are the largest on the screen, at least 60 px wide on the 7-inch display.

One browser, one table, a page per size kept open on the live screen: each step is drawn by the screens
as the event stream tells them, and measured on all four."""

import os
from pathlib import Path

import pytest

import headless  # noqa: F401  (first: it skips this module where Chromium is not installed)
from dealer_screen import ServedTable
from screen_audit import audit, fit, problems

from appliance.audit.log import records
from appliance.game.cards import CARDS, format_cards
from appliance.table.round import Events

pytestmark = pytest.mark.browser

SIZES = [(800, 480), (800, 550), (1024, 600), (1280, 800)]
WAY_AT_LEAST = 60  # px, the house way's cards at 800x480
#: DEALER_SCREEN_SHOTS=folder keeps a screenshot of every step at every size there (to look at the design)
SHOTS = os.environ.get("DEALER_SCREEN_SHOTS")

BANKER = ["Th", "Tc", "Jk", "Kd", "9s", "5h", "2c"]
#: seat 1 holds the other two tens side by side, seat 2 fouls (a pair of aces in front of a pair of kings)
FIXED = {1: (["6c", "4s"], ["Td", "Ts", "9d", "9h", "3c"]), 2: (["Ah", "As"], ["Kh", "Kc", "Qs", "Jd", "8h"])}


def hands_with_tens() -> dict[str, list[str]]:
    """The round's hands by zone: the banker's seven with two tens and the joker, then six seats."""
    used = set(BANKER) | {c for f, b in FIXED.values() for c in f + b}
    rest = [c for c in format_cards(CARDS) if c not in used]
    hands = {"banker": BANKER}
    for seat in range(1, 7):
        front, back = FIXED.get(seat) or (rest[:2], rest[2:7])
        if seat not in FIXED:
            rest = rest[7:]
        hands[f"seat{seat}.front"], hands[f"seat{seat}.back"] = front, back
    return hands


def test_the_dealers_screen_fits_every_size_at_every_step_of_a_round(browser, tmp_path):
    table = ServedTable(tmp_path, reads_setting=True)
    loop = table.d.loop
    figures, failures = [], []
    pages = {}

    def step(name: str, ready: str) -> None:
        """Every page drawn as ``ready`` (a JS condition) says, then measured."""
        for (width, height), page in pages.items():
            page.wait_for_function(ready, timeout=10_000)
            page.wait_for_timeout(50)  # the tiles' cards sized to their rows (after the drawing)
            found = fit(page)
            where = f"{name} {width}x{height}"
            failures.extend(f"{where}: {p}" for p in found["problems"])
            failures.extend(f"{where}: {' '.join(p.split())}" for p in problems(audit(
                page, "dialog[open]" if page.locator("dialog[open]").count() else "body")))
            if found["way"] is not None:
                figures.append(f"{where}: house way cards {found['way']:.0f} px, seats' {found['seat'] or 0:.0f} px")
                if (width, height) == (800, 480) and found["way"] < WAY_AT_LEAST:
                    failures.append(f"{where}: the house way's cards are {found['way']:.1f} px wide")
                if found["seat"] is not None and found["seat"] >= found["way"]:
                    failures.append(f"{where}: a seat's cards are as large as the house way's")
            if SHOTS:
                page.screenshot(path=str(Path(SHOTS) / f"{name}-{width}x{height}.png"))

    try:
        table.wager_everyone("500")  # the table maximum: the longest amounts
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            pages[(width, height)] = page
        seven = pages[(800, 480)]
        step("idle", "document.querySelector('#dealer[data-step=idle]')")

        loop._request_start = lambda: False  # the start-seat device does not answer
        loop.press("next")
        step("device-not-connected", "document.getElementById('say').textContent.includes('not connected')")

        hands = hands_with_tens()
        table.start_value()
        table.lay_banker(hands, unreadable=3)
        step("banker-unreadable", "document.querySelector('#banker .row.name-cards')")
        table.lay_banker(hands)
        assert loop.press("confirm") == ""
        step("house-way-to-copy", "document.querySelectorAll('#banker .side.way .card').length === 7")

        seats = {z: list(c) for z, c in hands.items() if z.startswith("seat")}
        trouble = {**seats, "seat3.back": [None if i == 2 else c for i, c in enumerate(seats["seat3.back"])]}
        del trouble["seat6.front"]
        table.d.look(trouble)  # the players' hands laid while the dealer copies the house way
        step("players-read", "document.querySelector('#dealer[data-step=seats]') && "
                             "document.querySelector('.row.name-cards') && !$('open-house-way').hidden")

        # Seat 4's player asks for the house way: the dealer enters it on the screen, choosing the seat.
        for page in pages.values():
            page.click("#open-house-way")
        step("house-way-dialog", "document.querySelector('#house-way[open] button[data-seat=\"4\"]')")
        for page in pages.values():
            if page is not seven:
                page.click("#house-way-cancel")
        seven.click("#house-way button[data-seat='4']")
        seven.wait_for_function("!document.getElementById('house-way').open")
        assert loop.prompt()["house_way_asked"] == [4]
        step("house-way-asked", "document.querySelector('#seat4 .result.asked')")

        front, back = table.set_otherwise()
        table.d.look({"banker.front": front, "banker.back": back, **seats})
        assert loop.press("confirm") == ""
        step("setting-held", "document.querySelector('#dealer[data-step=reset]') && !$('let-stand').hidden")

        for page in pages.values():  # the appliance lost: the stream falls silent and cannot be opened again
            page.route("**/events", lambda route: route.abort())
            page.evaluate("stream.close(); heard = 0")
        step("offline", "!document.getElementById('offline').hidden")
        for page in pages.values():  # found again: the screen opens a stream at once (not after the browser's retry delay)
            page.unroute("**/events")
            page.evaluate("stream.close(); stream = null")
        for page in pages.values():
            page.wait_for_function("document.getElementById('offline').hidden", timeout=10_000)

        loop.press("supervisor", "dealer (button)")
        step("table-held", "!document.getElementById('held').hidden")
        table.d.table.release("1042", "4821", "the dealer's question answered")

        way = table.d.table.current.house_way_setting()
        table.d.look({"banker.front": way["front"], "banker.back": way["back"], **seats})
        assert loop.press("confirm") == "", loop.prompt()
        step("settled", "document.querySelectorAll('[data-result]').length === 6")
        assert seven.inner_text("#seat2 [data-result]") == "Foul -500.00"

        assert loop.press("confirm") == ""  # between rounds the bank is offered round the table
        step("bank-offered", "document.querySelector('#dealer[data-step=bank]')")
    finally:
        for page in pages.values():
            page.close()
        table.close()
    print("\n".join(figures))
    assert not failures, "\n".join(failures)
    asked = [r for r in records(tmp_path / "log") if r["event"] == Events.SEAT_CARDS and r["data"]["seat"] == 4]
    assert (asked[0]["data"]["why"], asked[0]["data"]["requested_by"]) == ("request", "dealer (screen)")
