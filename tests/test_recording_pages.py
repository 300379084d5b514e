"""Recording stopped and the shift seal, on the dealer's screen and the supervisor's page, in a real
headless Chromium against the dashboard on loopback."""

import pytest

from appliance.audit.log import AuditLog, records
from appliance.table.recording import RecordingProbe
from audit_disk import FillingDisk
from dealer_table import BANKER, KEY, Dealer
from headless import CHROMIUM

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
FULL = "The audit disk is full: nothing can be recorded"


def test_both_pages_say_recording_stopped_and_the_supervisor_seals_the_shift(tmp_path):
    from playwright.sync_api import sync_playwright

    from appliance.web.app import create_app
    from appliance.web.serving import serve_dashboard

    disk = FillingDisk()
    d = Dealer(tmp_path / "log", audit=AuditLog(tmp_path / "log", KEY, write=disk.write))
    dashboard = serve_dashboard(lambda site: create_app(d.live, d.table.rules, d.table, audit=d.audit, dealer=d.loop,
                                                        site=site), d.live)
    base = dashboard.url
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS])
            table = browser.new_page(viewport={"width": 800, "height": 480})
            table.goto(base + "/")
            table.wait_for_selector("#dealer[data-step=idle]")
            supervisor = browser.new_page()
            supervisor.goto(base + "/supervisor")
            d.open_round()
            d.look({"banker": BANKER})
            disk.budget = 0  # another writer filled the disk
            d.loop.press("confirm")
            table.wait_for_selector(f"#recording:has-text('{FULL}')")
            table.wait_for_selector(f"#held:has-text('{FULL}')")
            supervisor.wait_for_selector(f"#recording-banner:has-text('{FULL}')")
            assert d.lamps["attention"] is True
            disk.budget = None
            RecordingProbe(d.table.resume_recording, lambda: d.audit.stopped is not None, d.loop.announce).check()
            table.wait_for_selector("#recording", state="hidden")
            supervisor.wait_for_selector("#recording-banner", state="hidden")
            supervisor.fill("#login [name=supervisor]", "1042")
            supervisor.fill("#login [name=pin]", "4821")
            supervisor.click("#login button")
            supervisor.wait_for_selector("#close-shift")
            supervisor.fill("#close-shift [name=pin]", "4821")
            supervisor.click("#close-shift button")
            supervisor.wait_for_selector("#seal-qr svg")
            text = supervisor.inner_text("#seal-text")
            browser.close()
    finally:
        dashboard.stop()
    sealed = [r for r in records(tmp_path / "log") if r["event"] == "ShiftSealed"]
    assert len(sealed) == 1 and sealed[0]["who"] == "supervisor 1042"
    assert f'"seq":{sealed[0]["data"]["seal"]["seq"]}' in text
