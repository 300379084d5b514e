"""The dealer's screen in a real headless Chromium (Debian's), at the four screen sizes a table has:
every seat and the banker at once, nothing covered, touch targets and contrast measured from the
rendered page; the appliance lost and found again; a round with unchanged wagers in three taps."""

import json
import shutil
import signal
import time
import urllib.request

import pytest

import headless  # noqa: F401  (first: it skips this module where Chromium is not installed)
from dealer_screen import SIZES, ServedTable

from appliance.audit.log import records
from appliance.table.round import Events
from screen_audit import audit, problems
from started_run import StartedRun, again_on_the_same_port


def reading_with_trouble(table: ServedTable) -> None:
    """The players' hands being read: one card unreadable, one front the camera cannot see."""
    hands = table.deal()
    table.d.loop.press("next")
    table.start_value()
    table.lay_banker(hands)
    assert table.d.loop.press("confirm") == ""
    first, last = table.seats[0], table.seats[-1]
    table.lay_seats(hands, unreadable=(f"seat{first}.back", 2), unseen=f"seat{last}.front")


@pytest.mark.parametrize("kind", ["house-dealer", "california"])
def test_every_seat_and_the_banker_fit_at_every_size(browser, tmp_path, kind):
    table = ServedTable(tmp_path, kind)
    figures, failures = [], []
    try:
        table.wager_everyone()
        table.play_round()
        for state in ("settled", "reading"):
            if state == "reading":
                reading_with_trouble(table)
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(table.base + "/")
                page.wait_for_selector("[data-result]" if state == "settled" else ".enter-hand")
                seats = page.eval_on_selector_all("#table > .zone", "zs => zs.map(z => z.id)")
                # six players and the house's banker; or seven seats, the Player/Dealer's tile in its seat's place
                assert seats == (["banker"] + [f"seat{n}" for n in range(1, 7)] if kind == "house-dealer" else
                                 ["seat1", "seat2", "seat3", "banker", "seat5", "seat6", "seat7"]), seats
                found = audit(page)
                card = page.eval_on_selector("#table .card", "c => [c.offsetWidth, c.offsetHeight]")
                rule = page.eval_on_selector("#rule", "r => parseFloat(getComputedStyle(r).fontSize)")
                figures.append(f"{kind} {state} {width}x{height}: card {card[0]}x{card[1]} px, rule {rule:.0f} px, "
                               f"smallest target {found['minTarget']:.0f} px, contrast >= {found['minContrast']:.2f}:1 "
                               f"(large text {found['minLargeContrast']:.2f}:1), {found['texts']} texts, "
                               f"{found['targets']} targets")
                failures += [f"{kind} {state} {width}x{height}: {p}" for p in problems(found)]
                if state == "settled":
                    assert page.locator("[data-result]").count() == len(table.seats)
                    labels = page.eval_on_selector_all("#banker .label", "ls => ls.map(l => l.textContent)")
                    assert labels == ["Front", "Back"]
                    if kind == "house-dealer":  # the house way set the banker's hand (a Player/Dealer sets his own)
                        assert rule >= 17 and page.inner_text("#rule").startswith("House way: ")
                else:
                    assert page.locator(".row.name-cards[role=button]").count() == 1
                page.close()
    finally:
        table.close()
    print("\n".join(figures))
    assert not failures, "\n".join(failures)


def test_three_taps_from_next_to_settled_with_the_same_wagers(browser, tmp_path):
    """Six players, the wagers of the last round carried over, no unreadable card: NEXT, CONFIRM the
    banker, CONFIRM the players. The settled round then stays on the screen until the next NEXT."""
    table = ServedTable(tmp_path)
    try:
        table.wager_everyone()
        table.play_round()  # the last round: the wagers were entered for it
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.wait_for_selector("#dealer[data-step=idle]")
        assert page.inner_text("#wager-summary") == "Next round: " + " \u00b7 ".join(f"S{n} 25" for n in table.seats)
        taps = 0

        def tap(selector):
            nonlocal taps
            page.click(selector)
            taps += 1

        hands = table.deal()
        tap("[data-button=next]")
        page.wait_for_selector("#dealer[data-step=start]")
        # A refused press says why (not one of the three taps), and goes on saying it until the next press.
        page.click("[data-button=confirm]")
        page.wait_for_selector("#error:has-text('Refused: CONFIRM does nothing now')")
        table.start_value()  # the RNG answers by itself
        table.lay_banker(hands)
        page.wait_for_function("document.querySelectorAll('#banker .card[data-card]').length === 7")
        tap("[data-button=confirm]")
        page.wait_for_selector("#dealer[data-step=seats]")
        table.lay_seats(hands)
        page.wait_for_selector("#say:has-text('Press CONFIRM to settle')")
        tap("[data-button=confirm]")
        page.wait_for_selector("#phase:has-text('Settled')")
        assert taps == 3
        assert page.locator("[data-result]").count() == 6
        settled = page.inner_text("#round")
        page.wait_for_timeout(2500)  # nothing clears it but NEXT
        assert page.inner_text("#round") == settled and page.locator("[data-result]").count() == 6
        # Between rounds CONFIRM offers the bank (general rules: "The house usually offers the bank to each
        # seat in rotation"): from seat 1, no player having banked yet.
        page.click("[data-button=confirm]")
        page.wait_for_selector("#say:has-text('Bank to seat 1? CONFIRM takes it, NEXT passes')")
        # The wagers dialog fits the 7-inch screen with touch-sized fields, the last round's wagers in them.
        page.click("#open-wagers")
        page.wait_for_selector("#wagers[open]")
        assert page.input_value("#wagers [name=seat3]") == "25"
        found = audit(page, within="#wagers")
        assert not problems(found), problems(found)
        page.close()
    finally:
        table.close()


def started_appliance(data, port: int = 0) -> StartedRun:
    """``appliance run --simulate`` on ``data``, once it has opened a round."""
    run = StartedRun([shutil.which("appliance"), "run", "--simulate", "--pace", "0.2", "--data", str(data)], port=port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.check()
        try:
            with urllib.request.urlopen(f"{run.address}api/state", timeout=2) as r:
                if json.loads(r.read()).get("round"):
                    return run
        except OSError:
            pass
        time.sleep(0.2)
    run.stop(signal.SIGKILL)
    raise AssertionError(f"the appliance opened no round: {run.said()}")


# The promise is wrapped in an object: a promise returned as such would be awaited before the cut.
BANNER_JS = """() => ({shown: new Promise(resolve => {
  const banner = document.getElementById('offline'), began = performance.now();
  const seen = () => { if (!banner.hidden) { resolve(performance.now() - began); return true; } };
  if (!seen()) new MutationObserver((_, o) => { if (seen()) o.disconnect(); }).observe(banner, {attributes: true});
})})"""


def banner_after(page, cut) -> float:
    """ms from ``cut()`` until the offline banner shows."""
    waiting = page.evaluate_handle(BANNER_JS)
    cut()
    return page.evaluate("w => w.shown", waiting)


def test_a_lost_appliance_is_shown_within_two_seconds_and_the_screen_catches_up(browser, tmp_path):
    """Frozen (SIGSTOP: the connection stays open, only the heartbeat stops) and stopped (the process
    ends, then starts again): the banner shows within 2 s, and goes when the appliance answers again,
    the screen showing the round it is at by then, without a reload."""
    data = tmp_path / "data"
    run = started_appliance(data)
    page = browser.new_page(viewport={"width": 800, "height": 480})
    try:
        page.goto(run.address)
        page.wait_for_selector("#dealer[data-step]")
        frozen_ms = banner_after(page, lambda: run.proc.send_signal(signal.SIGSTOP))
        page.click("[data-button=supervisor]")
        page.wait_for_selector("#error:has-text('Refused: the appliance did not answer')", timeout=15_000)
        run.proc.send_signal(signal.SIGCONT)
        page.wait_for_selector("#offline", state="hidden", timeout=10_000)
        stopped_ms = banner_after(page, run.stop)
        shown = page.inner_text("#round")
        port = run.port  # the page's address names it: the new process serves on the port the first printed
        run = again_on_the_same_port(lambda: started_appliance(data, port))
        page.wait_for_selector("#offline", state="hidden", timeout=15_000)
        # the round the appliance is at now, not the one on the screen when it went away
        page.wait_for_function("r => document.getElementById('round').textContent !== r", arg=shown, timeout=15_000)
        print(f"offline banner: {frozen_ms:.0f} ms after a freeze, {stopped_ms:.0f} ms after a stop")
        assert frozen_ms <= 2000 and stopped_ms <= 2000
        # presses work again with the new process's session
        assert page.inner_text("#error") == ""  # the unanswered press's message went with the banner
        page.click("[data-button=supervisor]")
        page.wait_for_selector("#held:has-text('supervisor was called'), #error:not(:empty)", timeout=10_000)
        assert "supervisor was called" in page.inner_text("#held"), page.inner_text("#error")
    finally:
        page.close()
        run.proc.send_signal(signal.SIGCONT)
        run.stop()


def test_the_bank_offer_and_backline_wagers_on_the_dealers_screen(browser, tmp_path):
    """Capitol: "No player is allowed to bank for more than two consecutive hands"; "The Player/Dealer button
    rotates around clockwise"; rule 18: "A seated player cannot stop any backline wagers". After seat 4's
    second bank the screen offers the bank from seat 5 round the table, refuses seat 4 with the rule named
    (NEXT too), and a backline wager entered on the screen is settled and shown on its own line: at every
    size, nothing scrolled or covered, every target at least 44 px."""
    table = ServedTable(tmp_path, "california")
    failures = []
    try:
        table.wager_everyone()
        table.play_round()
        table.play_round()
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            page.wait_for_selector("#dealer[data-step=idle] #bank-offer:not(:empty)")
            assert page.inner_text("#bank-offer") == "Bank: S5 S6 S7 S1 S2 S3 (not S4)"
            if width == 800:
                page.click("[data-button=next]")
                page.wait_for_selector("#error:has-text('Refused: seat 4 may not bank this round: seat 4 has banked 2 "
                                       "consecutive rounds, the most allowed (banking.max_consecutive)')")
                page.wait_for_selector("#say", state="hidden")  # said once, in the refusal
            failures += [f"panel {width}x{height}: {p}" for p in problems(audit(page))]
            page.click("#open-wagers")
            page.wait_for_selector("#wagers[open]")
            options = page.eval_on_selector_all("#wagers [name=banker] option",
                                                "os => os.map(o => [o.value, o.disabled, o.textContent])")
            assert [o[0] for o in options] == ["5", "6", "7", "1", "2", "3", "4"]  # no house bank at Capitol
            assert [o[0] for o in options if o[1]] == ["4"] and "banked 2 consecutive rounds" in options[-1][2]
            assert page.input_value("#wagers [name=banker]") == "5"  # offered first
            failures += [f"wagers {width}x{height}: {p}" for p in problems(audit(page, within="#wagers"))]
            page.close()
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.click("#open-wagers")
        page.wait_for_selector("#wagers[open]")
        page.fill("#wagers [name=seat6]", "")
        page.fill("#wagers [name=seat4]", "25")
        page.fill("#wagers [name=seat1-backline]", "40 10")
        page.select_option("#wagers [name=banker]", "6")
        page.click("#wagers-save")
        page.wait_for_function("!document.getElementById('wagers').open")
        assert page.inner_text("#error") == ""
        page.click("[data-button=next]")
        page.wait_for_selector("#dealer[data-step=start]")
        page.close()
        table.banker, table.seats = 6, [1, 2, 3, 4, 5, 7]
        hands = table.deal()
        table.start_value()
        table.lay_banker(hands)
        assert table.d.loop.press("confirm") == ""
        table.lay_seats(hands)
        assert table.d.loop.press("confirm") == ""
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            page.wait_for_selector("#seat1 [data-wagers='3']")
            assert page.inner_text("#seat1 .title .wager") == "25.00 +2"
            settled = next(s for s in table.d.live.snapshot()["seats"].values() if s.get("backline"))["wagers"]
            assert page.inner_text("#seat1 .result.wagers") == " \u00b7 ".join(
                f"{by} {w['net']}" for by, w in zip(["B1", "S", "B2"], settled))  # action's order: the largest first
            failures += [f"settled {width}x{height}: {p}" for p in problems(audit(page))]
            page.close()
    finally:
        table.close()
    assert not failures, "\n".join(failures)
    log = records(tmp_path / "log")
    assert [r["data"]["seat"] for r in log if r["event"] == Events.BANK_REFUSED] == [4]
    opened = [r["data"] for r in log if r["event"] == Events.ROUND_OPENED][-1]
    assert opened["banker"] == 6 and opened["bank_passed"] == [5]


def test_the_wagers_dialog_with_every_betting_circle_fits_every_size(browser, tmp_path):
    """Fortune rule 5: "Every seat has multiple numbers of betting circles"; rule 3: the optional "fortune
    bet". Seven seats, each with its wager, Fortune bet and other circles, and the bank: nothing scrolled or
    covered, every field at least 44 px, at every size."""
    table = ServedTable(tmp_path, "fortune")
    failures = []
    try:
        table.wager_everyone()
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            page.click("#open-wagers")
            page.wait_for_selector("#wagers[open]")
            assert page.locator("#wagers input[name$=-fortune]").count() == 7
            assert page.locator("#wagers input[name$=-backline]").count() == 7
            failures += [f"{width}x{height}: {p}" for p in problems(audit(page, within="#wagers"))]
            if width == 800:  # a second circle on seat 1 with its own Fortune bet, and a third without one
                page.fill("#wagers [name=seat1-backline]", "20/5 15")
                page.click("#wagers-save")
                page.wait_for_function("!document.getElementById('wagers').open")
                assert table.d.loop.prompt()["bets"][0]["backline"] == [
                    {"wager": "20", "by": "backline 1", "fortune": "5"}, {"wager": "15", "by": "backline 2"}]
            page.close()
    finally:
        table.close()
    assert not failures, "\n".join(failures)


def test_the_bank_walked_from_the_rail_shows_on_the_dealers_screen(browser, tmp_path):
    """Capitol: "The Player/Dealer button rotates around clockwise"; "No player is allowed to bank for more
    than two consecutive hands". CONFIRM on the rail offers the bank: the screen says whose offer it is and
    which seat is not asked, with the rule, at every size (nothing scrolled or covered); the screen's own
    NEXT and CONFIRM walk it on as the rail's do."""
    table = ServedTable(tmp_path, "california")
    failures = []
    try:
        table.wager_everyone()
        table.play_round()
        table.play_round()
        assert table.d.loop.press("confirm", "dealer (button)") == ""
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(table.base + "/")
            page.wait_for_selector("#dealer[data-step=bank]")
            assert page.inner_text("#say") == "Bank to seat 5? CONFIRM takes it, NEXT passes"
            assert page.inner_text("#bank-offer") == "Bank offered to S5"
            assert page.inner_text("#rule") == ("Bank offered to seat 5 \u00b7 seat 4 not asked: seat 4 has banked 2 "
                                                "consecutive rounds, the most allowed (banking.max_consecutive)")
            wanted = page.eval_on_selector_all("#dealer .buttons .wanted", "bs => bs.map(b => b.dataset.button)")
            assert wanted == ["next", "confirm"]
            failures += [f"bank {width}x{height}: {p}" for p in problems(audit(page))]
            page.close()
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.wait_for_selector("#dealer[data-step=bank]")
        page.click("[data-button=next]")
        page.wait_for_selector("#rule:has-text('Bank offered to seat 6 \u00b7 passed: seat 5 \u00b7 seat 4 not asked')")
        page.click("[data-button=confirm]")
        page.wait_for_selector("#dealer[data-step=idle]")
        assert page.inner_text("#wager-summary").endswith("\u00b7 banker S6")
        assert page.inner_text("#error") == ""
        page.close()
    finally:
        table.close()
    assert not failures, "\n".join(failures)
    steps = [(r["event"], r["who"]) for r in records(tmp_path / "log")
             if r["event"] in (Events.BANK_OFFERED, Events.BANK_PASSED, Events.BANK_TAKEN)]
    assert steps == [(Events.BANK_OFFERED, "dealer (button)"), (Events.BANK_PASSED, "dealer (screen)"),
                     (Events.BANK_OFFERED, "dealer (screen)"), (Events.BANK_TAKEN, "dealer (screen)")]


def test_a_state_asked_for_before_a_press_never_overwrites_the_press_answer(browser, tmp_path):
    """The screen fetches the state on each event, and a press is answered on its own: a state asked for
    just before a CONFIRM can arrive after the CONFIRM's answer (as it did in CI, where the screen showed the
    old banker once the bank was taken). The screen keeps the newer of the two."""
    table = ServedTable(tmp_path, "california")
    try:
        table.wager_everyone()
        table.play_round()
        table.play_round()
        assert table.d.loop.press("confirm", "dealer (button)") == ""
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.wait_for_selector("#dealer[data-step=bank]")
        held = []  # the state as it was before the CONFIRM, its answer held back
        page.route("**/api/state", lambda route: held.append((route, route.fetch())))
        page.evaluate("stream.close(); void refresh()")  # the stream's notice of the press comes late
        while not held:
            page.wait_for_timeout(20)
        page.click("[data-button=confirm]")
        page.wait_for_selector("#dealer[data-step=idle]")
        for route, before in held:
            route.fulfill(response=before)
        page.wait_for_timeout(300)
        assert page.get_attribute("#dealer", "data-step") == "idle"
        assert page.inner_text("#wager-summary").endswith("\u00b7 banker S5")
        page.close()
    finally:
        table.close()


def test_a_misdeal_declared_on_the_dealers_screen_is_counted_in_the_shift_report(browser, tmp_path):
    """Capitol rule 29: "A misdeal will be declared if one of the following occurs: 1. Joker or Ace is boxed
    or exposed. 2. Two or more cards are boxed or exposed." While a round is dealt the dealer's screen offers
    a misdeal with the house's reasons; the round is voided with the reason chosen, logged as the dealer's,
    and the supervisor's shift report counts it as it counts the supervisor's own."""
    table = ServedTable(tmp_path, "california")
    failures = []
    try:
        table.wager_everyone()
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(table.base + "/")
        page.wait_for_selector("#dealer[data-step=idle]")
        assert page.is_hidden("#open-misdeal")
        page.click("[data-button=next]")
        page.wait_for_selector("#dealer[data-step=start]")
        table.start_value()
        table.lay_banker(table.deal())
        page.wait_for_selector("#open-misdeal:visible")
        assert page.is_hidden("#open-wagers")
        failures += [f"panel: {p}" for p in problems(audit(page))]
        page.click("#open-misdeal")
        page.wait_for_selector("#misdeal[open]")
        assert page.inner_text("#misdeal-title") == "Misdeal: round t-1 is voided. The reason:"
        assert page.eval_on_selector_all("#misdeal .reasons button", "bs => bs.map(b => b.textContent)") == [
            "joker or ace boxed or exposed", "two or more cards boxed or exposed"]
        failures += [f"dialog: {p}" for p in problems(audit(page, within="#misdeal"))]
        page.click("#misdeal .reasons button >> nth=0")
        page.wait_for_selector("#phase:has-text('Voided')")
        assert page.inner_text("#rule") == "Voided: misdeal: joker or ace boxed or exposed"
        page.wait_for_function("!document.getElementById('misdeal').open")
        assert page.inner_text("#error") == "" and page.is_visible("#open-wagers")
        page.close()
        # the next round, voided by the supervisor for the other reason, the same way
        table.d.loop.press("next")
        table.d.table.misdeal("t-2", "1042", "4821", "two or more cards boxed or exposed")
        supervisor = browser.new_context()
        login = supervisor.request.post(table.base + "/login", data={"supervisor": "1042", "pin": "4821"})
        assert login.ok
        shift = supervisor.request.get(table.base + "/api/shift").json()
        supervisor.close()
    finally:
        table.close()
    assert not failures, "\n".join(failures)
    assert shift["misdeals"] == {"joker or ace boxed or exposed": 1, "two or more cards boxed or exposed": 1}
    assert shift["rounds_voided"] == 2
    voided = [(r["who"], r["data"]["reason"]) for r in records(tmp_path / "log") if r["event"] == Events.ROUND_VOIDED]
    assert voided == [("dealer (screen)", "misdeal: joker or ace boxed or exposed"),
                      ("supervisor 1042", "misdeal: two or more cards boxed or exposed")]
