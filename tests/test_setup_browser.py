"""The setup screen in a real headless Chromium, as a technician uses it at the official 7-inch display
(800x480) and on a tablet: every step fits without scrolling, nothing covered, every target at least
44 px, text contrast at least 4.5:1; the deck taught card by card from the (simulated) camera, a card
laid by mistake refused with its reason and picture, taught again, and the taught deck then reads a
card; the setup finished with the PIN releases the table."""

import pytest

import headless
from headless import CHROMIUM
from screen_audit import audit, problems
from setup_table import setup_table

from appliance.audit.log import records
from appliance.table.round import Events

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

ARGS = [*headless.ARGS, "--hide-scrollbars"]
SIZES = [(800, 480), (1280, 800), (800, 1280)]  # the 7-inch display; a tablet, landscape and portrait
STEPS = ["camera", "deck", "device", "panel", "house", "finish"]


def mislaying_once(wrong: str, instead: str):
    """The technician's hand, which lays ``instead`` the first time ``wrong`` is asked for."""
    def hand(lay):
        mislaid = []

        def laid(hands):
            if hands.get("teach") == [wrong] and not mislaid:
                mislaid.append(wrong)
                return lay({"teach": [instead]})
            return lay(hands)
        return laid
    return hand


def assert_fits(page, where: str) -> None:
    found = audit(page)
    assert problems(found) == [], where
    assert found["minTarget"] >= 44 and found["minContrast"] >= 4.5, (where, found)


def test_a_technician_sets_up_the_table_on_the_screen(tmp_path):
    from playwright.sync_api import sync_playwright

    with setup_table(tmp_path, lay=mislaying_once("5s", "3s")) as served, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(served.url + "/setup")
        assert_fits(page, "the login")
        page.fill("#login [name=supervisor]", "1042")
        page.fill("#login [name=pin]", "4821")
        page.click("#login button")
        page.click("#begin button")
        page.wait_for_selector("#camera-say li:has-text('5 of 5 markers found')", timeout=60_000)
        assert page.inner_text("#camera-found") == "0, 1, 2, 3, 4"
        assert float(page.inner_text("#camera-error").split()[0]) < 1.0

        page.click("nav [data-step=deck]")
        page.wait_for_selector("#cards button[data-card='As'][aria-pressed=true]")
        for n in range(53):
            card = page.get_attribute("#cards button[aria-pressed=true]", "data-card")
            with page.expect_response(lambda r: r.url.endswith("/api/setup/deck/capture"), timeout=120_000) as answer:
                page.click("#capture")
            assert answer.value.status == 200, answer.value.json()
            if n < 52:  # the page moves on to the next card of the box
                page.wait_for_selector(f"#cards button[data-card='{card}'].checked")
                page.wait_for_function(f"document.querySelector('#cards [aria-pressed=true]').dataset.card !== '{card}'")
            if n == 0:  # the first card's templates at once, under the index place of the deck in use
                assert page.get_attribute("#cards button[aria-pressed=true]", "data-card") == "Ks"
                page.click("#cards button[data-card='As']")
                page.wait_for_function("document.getElementById('rank').naturalWidth > 0 && "
                                       "document.getElementById('suit').naturalWidth > 0")
                assert "rank and suit cut cleanly" in page.inner_text("#card-say")
                assert_fits(page, "the deck step")
                page.click("#cards button[data-card='Ks']")
        page.wait_for_selector("#message:has-text('The deck is learned; 1 card(s) refused')", timeout=180_000)
        assert page.get_attribute("#cards button[data-card='5s']", "class") == "refused"
        assert page.get_attribute("#cards button[aria-pressed=true]", "data-card") == "5s"  # the next to capture
        say = page.inner_text("#card-say")
        assert "Refused when the deck was learned: it looks like another card, 3s: its rank matches the threes" in say and "five of spades" in say
        page.wait_for_function("document.getElementById('refused').naturalWidth > 0")  # what was refused, shown
        assert page.is_disabled("#capture") is False
        page.click("#capture")  # the five of spades this time
        page.wait_for_selector("#message:has-text('The deck is learned: every card came out clean')", timeout=180_000)
        # the overhead camera sees a card coarser than a deck is taught well from, and the page says so
        message = page.inner_text("#message")
        assert "under the 3.0 px/mm a deck is taught well from" in message and "appliance deck learn --faces" in message
        assert page.get_attribute("#cards button[data-card='5s']", "class") == "learned"
        assert_fits(page, "the deck learned")
        page.click("#use-deck")
        page.wait_for_selector("#message:has-text('The reader now reads with this deck')")
        page.click("#cards button[data-card='9d']")
        page.click("#try-deck")
        page.wait_for_selector("#message:has-text('read as the nine of diamonds')", timeout=60_000)

        page.click("nav [data-step=device]")
        page.click("#roll button")
        page.wait_for_selector("#device-values tr", timeout=20_000)
        assert "answers" in page.inner_text("#device-say")
        page.click("nav [data-step=panel]")
        pins, panel = served.station.panel.pins, served.station.panel
        pins.drive(panel.layout.buttons["next"], False)
        page.wait_for_selector("[data-button=next] .down")
        pins.drive(panel.layout.buttons["next"], True)
        page.wait_for_selector("[data-button=next]:has-text('pressed 1 time')")
        page.click("[data-lamp=ready] button:has-text('Light')")
        page.wait_for_selector("[data-lamp=ready] .lit")
        assert pins.levels[panel.layout.lamps["ready"]] is True
        page.click("nav [data-step=house]")
        page.click("[data-house=capitol]")
        page.wait_for_selector("#house-say:has-text('Capitol Casino is chosen')")

        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            for step in STEPS:
                page.click(f"nav [data-step={step}]")
                page.wait_for_timeout(300)
                assert_fits(page, f"the {step} step at {width}x{height}")
        page.click("nav [data-step=finish]")
        page.fill("#finish [name=pin]", "4821")
        page.click("#finish button")
        page.wait_for_selector("#message:has-text('The setup is finished and the table released')")
        browser.close()
        assert served.station.table.held is None
    log = records(tmp_path / "log")
    taught = [r for r in log if r["event"] == Events.DECK_TAUGHT]
    assert len(taught) == 1 and taught[0]["who"] == "supervisor 1042" and taught[0]["data"]["refused"] == []
    assert taught[0]["data"]["faces_learned"] == 53
    ended = next(r for r in log if r["event"] == Events.SETUP_ENDED)
    assert ended["data"]["checks"]["house"] == "capitol" and ended["data"]["checks"]["lamps"]["ready"] == [True]
    assert [r["event"] for r in log if r["event"] in (Events.SETUP_BEGUN, Events.TABLE_HELD, Events.TABLE_RELEASED,
                                                      Events.SETUP_ENDED)] \
        == [Events.SETUP_BEGUN, Events.TABLE_HELD, Events.TABLE_RELEASED, Events.SETUP_ENDED]
