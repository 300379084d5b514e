"""The dealer's screen in a real headless Chromium while the house dealer's setting is held: the setting as
laid beside the house way's, in plain words, nothing covered at the 7-inch display's size and at 1080p,
and a supervisor letting it stand from the screen."""

import headless  # noqa: F401  (first: it skips this module where Chromium is not installed)
from dealer_screen import SIZES, ServedTable

from appliance.audit.log import records
from appliance.game.cards import parse_cards
from appliance.table.round import Events
from screen_audit import audit, problems


def banker_to_set(table):
    """A round dealt to where the house dealer sets the banker's hand: (the hands dealt, a setting other
    than the house way's (front, back), the house way's setting)."""
    table.wager_everyone()
    hands = table.deal()
    table.d.loop.press("next")
    table.start_value()
    table.lay_banker(hands)
    assert table.d.loop.press("confirm") == ""
    front, back = table.set_otherwise()
    return hands, front, back, table.d.table.current.house_way_setting()


def test_a_held_setting_shows_both_settings_and_a_supervisor_lets_it_stand(browser, tmp_path):
    table = ServedTable(tmp_path, reads_setting=True)
    try:
        hands, front, back, way = banker_to_set(table)
        seats = {z: c for z, c in hands.items() if z != "banker"}
        table.d.look(seats)  # the banker's hand not set yet: the house way beside two empty set zones
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.wait_for_selector("#banker .side.laid .enter-hand")
        assert page.eval_on_selector_all("#banker .side.way .card", "cs => cs.length") == 7
        assert page.inner_text("#phase") == "Banker to set"  # the cards read, the dealer's setting not yet
        assert not problems(audit(page)), problems(audit(page))
        page.close()
        table.d.look({"banker.front": front, "banker.back": back, **seats})
        assert table.d.loop.press("confirm") == ""  # held for the dealer to reset
        assert table.d.loop.step.value == "reset"
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            page.wait_for_selector("#dealer[data-step=reset]")
            shown = page.eval_on_selector_all("#banker .side.laid .card", "cs => cs.map(c => c.dataset.card)")
            house = page.eval_on_selector_all("#banker .side.way .card", "cs => cs.map(c => c.dataset.card)")
            assert shown == front + back and house == way["front"] + way["back"]
            titles = page.eval_on_selector_all("#banker .side-title", "ts => ts.map(t => t.textContent)")
            assert titles == ["As laid \u2717", "House way"]
            ev = table.rules.evaluator()
            words = page.eval_on_selector_all("#banker .setting-words", "ws => ws.map(w => w.textContent)")
            assert words == [line for f, b in [(front, back), (way["front"], way["back"])]
                             for line in (f"Front: {ev.name(ev.two(parse_cards(f)))}",
                                          f"Back: {ev.name(ev.five(parse_cards(b)))}")]
            assert page.inner_text("#say").startswith("Held: not the house way")
            assert page.inner_text("#phase") == "Banker to reset"
            found = audit(page)
            assert not problems(found), (width, height, problems(found))
            page.close()
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.click("#let-stand")
        page.wait_for_selector("#stand[open]")
        assert not problems(audit(page, within="#stand")), problems(audit(page, within="#stand"))
        page.fill("#stand [name=supervisor]", "1042")
        page.fill("#stand [name=pin]", "4821")
        page.fill("#stand [name=reason]", "the chart line is in dispute; settled as laid")
        page.click("#stand button[value=ok]")
        page.wait_for_selector("#dealer[data-step=seats]")
        page.wait_for_selector("#phase:text-is('Banker set')")  # accepted now, as it lies
        stood = next(r for r in records(table.d.audit.folder) if r["event"] == Events.BANKER_SET)
        assert stood["who"] == "supervisor 1042" and stood["data"]["set_by"] == "dealer"
        assert stood["data"]["reason"] == "the chart line is in dispute; settled as laid"
        page.click("[data-button=confirm]")
        page.wait_for_selector("#phase:has-text('Settled')")
        labels = page.eval_on_selector_all("#banker .card", "cs => cs.map(c => c.dataset.card)")
        assert labels == front + back  # settled as the cards lie
        page.close()
    finally:
        table.close()


def test_a_floor_supervisor_lets_the_held_setting_stand_from_the_supervisor_page(browser, tmp_path):
    """The supervisor's page (a 10-inch tablet) says which setting is held and what the house way sets, each
    hand's value in words; letting it stand takes a reason and the PIN, and the dealer's screen goes on."""
    table = ServedTable(tmp_path, reads_setting=True)
    try:
        hands, front, back, way = banker_to_set(table)
        round_id = table.d.table.current.round_id
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.base + "/supervisor")
        page.fill("#login [name=supervisor]", "1042")
        page.fill("#login [name=pin]", "4821")
        page.click("#login button")
        page.wait_for_selector("#actions:not([hidden])")
        assert page.is_hidden("#setting-stands")  # nothing is held yet
        table.d.look({"banker.front": front, "banker.back": back, **{z: c for z, c in hands.items() if z != "banker"}})
        assert table.d.loop.press("confirm") == ""  # held for the dealer to reset
        page.wait_for_selector("#setting-stands:not([hidden])")  # live, no reload
        ev = table.rules.evaluator()
        said = page.inner_text("#setting-held")
        assert said.startswith(f"Round {round_id} is held: the house dealer set the banker's hand front {' '.join(front)}, "
                               f"back {' '.join(back)} ({ev.name(ev.two(parse_cards(front)))} in front, "
                               f"{ev.name(ev.five(parse_cards(back)))} behind), not by the house way, which sets "
                               f"front {' '.join(way['front'])}, back {' '.join(way['back'])}"), said
        assert way["rule"] in said and said.endswith("logged with your id and reason.")
        page.locator("#setting-stands").scroll_into_view_if_needed()
        found = audit(page, within="#setting-stands")  # the supervisor's page scrolls: its sections are long
        assert not (found["covered"] or found["small"] or found["lowContrast"]), found
        page.fill("#setting-stands [name=reason]", "player and dealer agree on the setting as laid")
        page.fill("#setting-stands [name=pin]", "0000")
        page.click("#setting-stands button")
        page.wait_for_selector("#message.error")  # the wrong PIN: refused, nothing settled
        assert table.d.loop.step.value == "reset"
        page.fill("#setting-stands [name=pin]", "4821")
        page.click("#setting-stands button")
        page.wait_for_selector(f"#message.ok:has-text('Round {round_id}: the dealer\\'s setting stands')")
        page.wait_for_selector("#setting-stands", state="hidden")
        stood = [r for r in records(table.d.audit.folder) if r["event"] == Events.BANKER_SET]
        assert [(r["who"], r["data"]["set_by"], r["data"]["reason"]) for r in stood] == [
            ("supervisor 1042", "dealer", "player and dealer agree on the setting as laid")]
        assert table.d.loop.step.value == "seats"
        page.close()
    finally:
        table.close()
