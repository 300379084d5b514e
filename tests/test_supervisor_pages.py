"""The supervisor's pages on a tablet, in a real headless Chromium: the shift in charts drawn by the
charting library the appliance serves itself (no request leaves the appliance), and a round's dispute
report with each hand's zone image beside its reads, a placeholder where an image is missing, printable."""

import os
import shutil

import pytest

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed here", allow_module_level=True)

from screen_audit import audit  # noqa: E402
from settled_table import PIN, RULES, SUPERVISOR  # noqa: E402


@pytest.fixture
def served(tmp_path):
    from appliance.audit.history_index import Index
    from appliance.audit.log import AuditLog
    from appliance.config import read_toml
    from appliance.table.live import LiveTable
    from appliance.table.simulation import play_rounds
    from appliance.table.supervisor import hash_pin
    from appliance.table.table import Table
    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    audit_log = AuditLog(tmp_path / "log", b"s" * 64)
    live, index = LiveTable(), Index(tmp_path / "index.sqlite")
    play_rounds(RULES, audit_log, 1, seed=8, render=True, size=(1600, 900), listeners=[live, index.add])
    play_rounds(RULES, audit_log, 6, seed=9, listeners=[live, index.add])
    audit_log.append("DeviceStatus", {"device": "rng", "status": "offline", "detail": "no heartbeat for 3 s"}, "device")
    index.catch_up(tmp_path / "log")
    table = Table(RULES, read_toml(RULES.source), audit_log, {SUPERVISOR: hash_pin(PIN)})
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, table, index=index, audit=audit_log, site=site),
                                live)
    yield dashboard.url, tmp_path / "log"
    dashboard.stop()
    index.close()


def test_the_shift_in_charts_served_by_the_appliance_itself(served):
    from playwright.sync_api import sync_playwright

    base, _ = served
    elsewhere = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})  # a 10-inch tablet, landscape
        page.on("request", lambda r: None if r.url.startswith(base) else elsewhere.append(r.url))
        page.goto(base + "/supervisor")
        page.fill("#login [name=supervisor]", SUPERVISOR)
        page.fill("#login [name=pin]", PIN)
        page.click("#login button")
        page.wait_for_selector("#chart-faults canvas")
        charts = page.eval_on_selector_all(".chart", "cs => cs.map(c => [c.id, !!c.querySelector('canvas'), "
                                                      "c.querySelector('h3').textContent])")
        assert [c[0] for c in charts] == ["chart-rounds", "chart-money", "chart-bank", "chart-fouls", "chart-faults"]
        assert all(drawn for _, drawn, _ in charts), charts
        assert page.evaluate("typeof uPlot") == "function"
        # the legend of the rounds chart counts what the totals say (the last hour holds every round here)
        assert page.inner_text("#shift-totals div:first-child") == "Rounds settled\n7"
        found = audit(page)
        assert not found["small"] and not found["lowContrast"], (found["small"], found["lowContrast"])
        browser.close()
    assert elsewhere == []  # no CDN: the table has no internet


def test_the_dispute_report_shows_each_hand_beside_its_image_and_prints(served, tmp_path):
    from playwright.sync_api import sync_playwright

    base, log = served
    images = sorted((log / "images").rglob("*.png"))
    assert images
    images[0].unlink()  # an image lost from the log's folder: the report says so, no broken image
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(base + "/supervisor")
        page.fill("#login [name=supervisor]", SUPERVISOR)
        page.fill("#login [name=pin]", PIN)
        page.click("#login button")
        page.wait_for_selector("#results .open-round")
        page.click("#results .open-round[data-round='8-1'] >> nth=0")
        page.wait_for_selector("#dispute-body:not([hidden]) .hand")
        page.wait_for_selector(".no-image.missing")
        page.wait_for_function("[...document.querySelectorAll('#dispute-images img.zone')].every(i => i.complete && i.naturalWidth > 0)")
        hands = page.eval_on_selector_all(".hand", "hs => hs.map(h => [h.querySelector('h4').textContent, "
                                                   "!!h.querySelector('img.zone, .no-image'), h.innerText])")
        assert hands[0][0].startswith("Banker") and all(shown for _, shown, _ in hands)
        assert len(hands) == 1 + len([h for h in hands if h[0].startswith("Seat ")])
        assert page.locator(".no-image.missing").count() == 1
        assert "Read by the camera" in page.inner_text("#dispute-banker") or "No camera read" in page.inner_text("#dispute-banker")
        # a round played without the camera: every hand says so instead of showing an image
        page.click("#results .open-round[data-round='9-1'] >> nth=0")
        page.wait_for_selector("#dispute-round:has-text('9-1')")
        assert page.locator("#dispute-images img.zone").count() == 0
        assert page.locator(".no-image").count() == page.locator(".hand").count()
        # printed: the report alone, dark on white
        page.emulate_media(media="print")
        assert page.evaluate("getComputedStyle(document.getElementById('shift')).display") == "none"
        assert page.evaluate("getComputedStyle(document.querySelector('header')).display") == "none"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
        found = audit(page)
        assert not found["lowContrast"], found["lowContrast"]
        pdf = page.pdf(format="A4")
        assert pdf[:5] == b"%PDF-" and len(pdf) > 10_000
        browser.close()
