"""The table view in a real headless Chromium against `appliance run --simulate` on loopback.
(The README's screenshots are made by docs/screenshots.py, never by the tests.)"""

import json
import shutil
import subprocess
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import pytest

from headless import CHROMIUM
from started_run import StartedRun

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


@pytest.fixture(scope="module")
def settled_table(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    with StartedRun([shutil.which("appliance"), "run", "--simulate", "--rounds", "1", "--keep-serving",
                     "--pace", "0.05", "--data", str(data)]) as run:
        base = run.address.rstrip("/")
        deadline = time.monotonic() + 60
        state = {}
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(base + "/api/state", timeout=2) as r:
                    state = json.loads(r.read())
                if state.get("phase") == "settled":
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert state.get("phase") == "settled", state
        yield base, state


def log_in(page, supervisor: str, pin: str) -> None:
    """Fill in and send the supervisor page's login form."""
    page.fill("#login [name=supervisor]", supervisor)
    page.fill("#login [name=pin]", pin)
    page.click("#login button")


def chromium(*args, user_data):
    out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={user_data}", *args], capture_output=True, timeout=90)
    return out.stdout.decode("utf-8", "replace")


def test_the_table_view_shows_the_settled_round(settled_table, tmp_path):
    base, state = settled_table
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", base + "/?live=0", user_data=tmp_path / "profile")
    assert f">{state['round']}<" in dom
    for seat, s in state["seats"].items():
        assert f'id="seat{seat}"' in dom
        for code in s["front"] + s["back"]:
            assert f'data-card="{code}"' in dom
        assert f'data-result="{s["result"]}"' in dom
        signed = s["net"] if s["net"].startswith("-") or Decimal(s["net"]) == 0 else f"+{s['net']}"
        assert f" {signed}</div>" in dom  # the amount paid (+) or taken (-)
    for code in state["banker"]["front"] + state["banker"]["back"]:
        assert f'data-card="{code}"' in dom
    assert state["banker"]["rule"] in dom
    assert f">{state['totals']['banker_net']}<" in dom


def test_a_supervisor_logs_in_corrects_a_read_and_the_table_view_follows(tmp_path):
    """Playwright drives Debian's chromium: log in, correct a seat's read; the audit log records it
    and the dealer's table view, open in another tab, shows the corrected cards without a reload."""

    from playwright.sync_api import sync_playwright

    from settled_table import RULES, settled_table

    from appliance.audit.log import records
    from appliance.table.live import LiveTable
    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    live = LiveTable()
    table, _ = settled_table(tmp_path / "log", b"b" * 64, [live])
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, table, site=site), live)
    base = dashboard.url
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            view = browser.new_page()
            view.goto(base + "/")
            view.wait_for_selector('#seat2 [data-card="3h"]')
            page = browser.new_page()
            page.goto(base + "/supervisor")
            log_in(page, "1042", "0000")
            page.wait_for_selector("#message.error")
            log_in(page, "1042", "4821")
            page.wait_for_selector("#actions:not([hidden])")
            page.fill("#correct [name=round]", "r1")
            page.fill("#correct [name=seat]", "2")
            page.fill("#correct [name=front]", "Ac 2d")
            page.fill("#correct [name=back]", "7c 7s 4h 4d Jc")
            page.fill("#correct [name=reason]", "3h misread: ace of clubs")
            page.fill("#correct [name=pin]", "4821")
            page.click("#correct button")
            page.wait_for_selector("#message.ok:has-text('Corrected round r1')")
            view.wait_for_selector('#seat2 [data-card="Ac"]', timeout=10_000)  # live, no reload
            browser.close()
    finally:
        dashboard.stop()
    log = records(tmp_path / "log")
    corrected = [x for x in log if x["event"] == "ReadCorrected"]
    assert corrected and corrected[0]["who"] == "supervisor 1042"
    assert corrected[0]["data"]["reason"] == "3h misread: ace of clubs"
    assert log[-1]["event"] == "RoundSettled"
    assert any(x["event"] == "SupervisorRefused" for x in log)  # the wrong PIN, logged


def test_the_house_way_hint_page(tmp_path):

    from playwright.sync_api import sync_playwright

    from appliance.config import load_house
    from appliance.table.live import LiveTable
    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, load_house("general"), site=site), live)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            page = browser.new_page()
            page.goto(dashboard.url + "/hint")
            page.fill("[name=cards]", "As Kd 9c 9s 5h 5d 2c")
            page.click("button")
            page.wait_for_selector("#splits tbody tr.chosen")
            assert page.locator("#splits tbody tr").count() == 21
            assert page.inner_text("tr.chosen").startswith("As Kd")
            assert "holding a king or better" in page.inner_text("#rule")
            assert page.locator("tr.foul").count() >= 1
            browser.close()
    finally:
        dashboard.stop()


def test_a_supervisor_searches_the_history_opens_a_round_and_downloads_the_export(tmp_path):
    """On a 7-inch screen's 800x480: log in, find a round read by the real reader, see its zone images
    load, its reads and settlement lines, and download the export holding that round."""
    import datetime as dt

    from playwright.sync_api import sync_playwright

    from settled_table import PIN, RULES, SUPERVISOR

    from appliance.audit.history_index import Index
    from appliance.audit.log import AuditLog, records
    from appliance.config import read_toml
    from appliance.table.live import LiveTable
    from appliance.table.simulation import play_rounds
    from appliance.table.supervisor import hash_pin
    from appliance.table.table import Table
    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    audit = AuditLog(tmp_path / "log", b"e" * 64)
    live, index = LiveTable(), Index(tmp_path / "index.sqlite")
    play_rounds(RULES, audit, 1, seed=8, render=True, size=(1600, 900), listeners=[live, index.add])
    play_rounds(RULES, audit, 1, seed=8, listeners=[live, index.add])
    settled = next(r for r in records(tmp_path / "log") if r["event"] == "RoundSettled" and r["data"]["round"] == "8-1")
    table = Table(RULES, read_toml(Path(RULES.source)), audit, {SUPERVISOR: hash_pin(PIN)})
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, table, index=index, audit=audit, site=site), live)
    day = dt.datetime.fromisoformat(settled["ts"]).date()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            page = browser.new_page(viewport={"width": 800, "height": 480}, accept_downloads=True)
            page.goto(dashboard.url + "/supervisor")
            log_in(page, SUPERVISOR, PIN)
            page.wait_for_selector("#shift-totals dd")
            assert page.inner_text("#shift-totals div:first-child") == "Rounds settled\n2"
            page.fill("#search [name=round]", "8-1")
            page.click("#search button")
            page.wait_for_function("[...document.querySelectorAll('#results tbody tr')].length > 0 && "
                                   "[...document.querySelectorAll('#results .open-round')].every(b => b.dataset.round === '8-1')")
            page.click("#results .open-round >> nth=0")
            page.wait_for_selector("#dispute-body:not([hidden])")
            page.wait_for_function("document.querySelectorAll('#dispute-images img.zone').length > 0 && "
                                   "[...document.querySelectorAll('#dispute-images img.zone')].every("
                                   "i => i.complete && i.naturalWidth > 0)")
            images = page.eval_on_selector_all("#dispute-images img.zone", "imgs => imgs.map(i => i.src.split('/').pop())")
            logged = [r for r in records(tmp_path / "log") if r["data"].get("round") == "8-1"]
            assert images == [d for r in logged if r["event"] in ("BankerCards", "BankerSet", "SeatCards") for d in r["data"]["images"]]
            lines = page.eval_on_selector_all("#settlement tbody tr", "rows => rows.map(r => r.innerText)")
            seats = settled["data"]["settlement"]["seats"]
            assert len(lines) == len(seats)
            for line, seat in zip(lines, seats):
                assert line.split("\t")[:4] == [str(seat["seat"]), seat["wager"], seat["action"], seat["result"]]
                assert seat["net"] in line
            banker = next(r["data"] for r in logged if r["event"] == "BankerCards")
            assert banker["rule"] in page.inner_text("#house-way-rule")
            confident = [r for r in banker["read"] if r["card"]]
            if confident:
                assert f"{confident[0]['card']} (confidence {confident[0]['confidence']})" in page.inner_text("#dispute-banker")
            assert page.locator("#dispute-records tbody tr").count() == len(logged)
            # Usable at 800x480: the page itself never scrolls sideways (wide tables scroll in their box).
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.fill("#export-form [name=from]", (day - dt.timedelta(days=1)).isoformat())
            page.fill("#export-form [name=to]", (day + dt.timedelta(days=1)).isoformat())
            with page.expect_download() as download:
                page.click("#export-form button")
            exported = Path(download.value.path()).read_text()
            assert download.value.suggested_filename.endswith(".csv")
            assert sum(line.startswith("8-1,") for line in exported.splitlines()) == len(seats)
            page.wait_for_selector("#message.ok:has-text('Downloaded')")
            browser.close()
    finally:
        dashboard.stop()
        index.close()
    assert [r["who"] for r in records(tmp_path / "log") if r["event"] == "AuditExported"] == [f"supervisor {SUPERVISOR}"]


def test_the_dealer_plays_a_round_from_the_touch_screen(tmp_path):
    """The dealer's panel in a real browser: wagers, NEXT, an unreadable card named with the picker,
    a hand the camera cannot see entered by hand, CONFIRM; the audit log says the screen did it.
    A request without the screen's CSRF token is refused."""
    import urllib.error

    from dealer_table import BANKER, SEAT2, Dealer
    from playwright.sync_api import sync_playwright

    from appliance.audit.log import records
    from appliance.devices.protocol import RngResult
    from appliance.table.round import Events
    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    d = Dealer(tmp_path / "log")
    dashboard = serve_dashboard(lambda site: create_app(d.live, d.table.rules, d.table, dealer=d.loop, site=site), d.live)
    base = dashboard.url
    request = urllib.request.Request(base + "/api/dealer/press", data=b'{"button": "next"}', method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 403
    refused.value.close()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            page = browser.new_page(viewport={"width": 800, "height": 480})
            page.goto(base + "/")
            page.wait_for_selector("#dealer[data-step=idle]")
            page.click("#open-wagers")
            page.fill("#wagers [name=seat2]", "25")
            page.click("#wagers-save")
            page.wait_for_selector("#say:has-text('Press NEXT')")
            page.click("[data-button=next]")
            page.wait_for_selector("#dealer[data-step=start]")
            d.loop.start_value("rng", RngResult(1, 3))
            d.look({"banker": [*BANKER[:3], None, *BANKER[4:]]})
            page.click("[data-zone=banker] .card.unknown[data-position='3']")
            page.click("#picker button[data-code='9s']")
            page.click("#picker-done")
            page.wait_for_selector("[data-zone=banker] [data-card='9s']")
            page.click("[data-button=confirm]")
            page.wait_for_selector("#dealer[data-step=seats]")
            d.look({"seat2.back": SEAT2["seat2.back"]})  # the front lies where the camera cannot see it
            page.click("[data-zone='seat2.front'] .enter-hand")
            page.click("#picker button[data-code='Qh']")
            page.click("#picker button[data-code='Jd']")
            page.click("#picker-done")
            page.wait_for_selector("[data-zone='seat2.front'] [data-card='Jd']")
            page.click("[data-button=confirm]")
            page.wait_for_selector("#seat2 [data-result]")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            # the dealer calls the supervisor; the supervisor's page shows why the table waits, and releases it
            page.click("[data-button=supervisor]")
            page.wait_for_selector("#held:has-text('HELD')")
            sup = browser.new_page()
            sup.goto(base + "/supervisor")
            log_in(sup, "1042", "4821")
            sup.wait_for_selector("#held-banner:has-text('the supervisor was called')")
            sup.fill("#release [name=reason]", "player's question answered")
            sup.fill("#release [name=pin]", "4821")
            sup.click("#release button")
            sup.wait_for_selector("#message.ok:has-text('released')")
            page.wait_for_selector("#say:has-text('Press NEXT')")
            assert page.inner_text("#held") == ""
            browser.close()
    finally:
        dashboard.stop()
    log = records(tmp_path / "log")
    assert log[0]["event"] == Events.ROUND_OPENED and log[0]["who"] == "dealer (screen)"
    confirmed = [(r["data"]["zone"], r["data"]["card"], r["who"]) for r in log if r["event"] == Events.READ_CONFIRMED]
    assert confirmed == [("banker", "9s", "dealer (screen)"), ("seat2.front", "Qh", "dealer (screen)"),
                         ("seat2.front", "Jd", "dealer (screen)")]
    assert [(r["event"], r["who"]) for r in log[-5:]] == [
        (Events.ROUND_SETTLED, "appliance"), (Events.SUPERVISOR_CALLED, "dealer (screen)"),
        (Events.TABLE_HELD, "dealer (screen)"), (Events.SUPERVISOR_LOGGED_IN, "supervisor 1042"),
        (Events.TABLE_RELEASED, "supervisor 1042")]
