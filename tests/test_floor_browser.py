"""The pit view in a real headless Chromium following a simulated floor live: a pit supervisor logs in,
tables appear and play, a refused record shows as an alert; surveillance opens a table's recall on a
click."""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.floor.enroll import table_key
from appliance.floor.shipper import Shipper
from appliance.table.simulation import play_rounds
from floor_helpers import PASSWORD, enrolled, floor_service, migrated, users

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed here", allow_module_level=True)


def log_in(page, url: str, role: str) -> None:
    """The floor's login page, as its user types (the user is named after the role)."""
    page.goto(url + "/")
    page.wait_for_url(url + "/login")
    page.fill("#user", role)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(url + "/")


def test_the_pit_view_follows_a_simulated_floor_live(floor_dsn, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    users(migrated(floor_dsn))
    tables = {}
    for table in ("T1", "T2"):
        credentials = enrolled(floor_dsn, table, tmp_path)
        audit_dir = tmp_path / table
        tables[table] = (credentials, audit_dir, AuditLog(audit_dir, table_key(tmp_path / f"{table}.key", credentials, audit_dir)))
    with floor_service(floor_dsn) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless", "--disable-gpu"])
        page = browser.new_page()
        log_in(page, url, "pit")
        expect(page.locator("#who")).to_have_text("pit (pit)")
        expect(page.locator("#summary")).to_have_text("2 tables: 0 online, 0 held, 2 offline, 0 recording stopped, 0 refused")
        shippers, players = [], []
        for number, (credentials, audit_dir, audit) in enumerate(tables.values(), 1):
            shipper = Shipper(audit_dir, url, credentials)
            shippers.append((shipper, *shipper.start()))
            players.append(threading.Thread(target=play_rounds, args=(load_house("general"), audit, 6),
                                            kwargs={"seed": number, "pace": lambda: time.sleep(0.05)}))
            players[-1].start()
        try:
            t1 = page.locator('.table[data-table="T1"]')
            expect(t1).to_have_class("table online", timeout=15_000)
            expect(page.locator("#summary")).to_have_text("2 tables: 2 online, 0 held, 0 offline, 0 recording stopped, 0 refused")
            expect(t1).to_contain_text("last: ", timeout=15_000)  # a round settled, on the page without a reload
            for player in players:
                player.join()
            expect(page.locator("#stats tr")).to_have_count(3, timeout=10_000)  # the header, T1 and T2
            expect(page.locator("#stats")).to_contain_text("T2")
            expect(page.locator("#recall-section")).to_be_hidden()  # the cards and bets: surveillance's
            watcher = browser.new_context().new_page()
            log_in(watcher, url, "surveillance")
            expect(watcher.locator("#figures")).to_be_hidden()
            watcher.locator('.table[data-table="T1"]').click()
            expect(watcher.locator("#recall .round")).to_have_count(6, timeout=10_000)
            page.locator('.tabs button[data-by="shift"]').click()
            expect(page.locator("#stats th").first).to_have_text("shift")
            # T1 ships a forged record: refused, and the alert is on the page. Its shipper is stopped
            # while the record is forged, so that it cannot ship the honest record first.
            credentials, audit_dir, audit = tables["T1"]
            shipper, thread, stop = shippers[0]
            stop.set()
            thread.join(10)
            audit.append("RoundOpened", {"round": "x"})
            path = sorted(audit_dir.glob("*.jsonl"))[-1]
            path.write_bytes(path.read_bytes().replace(b'"round":"x"', b'"round":"y"'))
            shipper = Shipper(audit_dir, url, credentials)
            shippers.append((shipper, *shipper.start()))
            expect(page.locator("#alerts .alert")).to_contain_text("T1: table T1: record", timeout=20_000)
        finally:
            for shipper, thread, stop in shippers:
                stop.set()
                thread.join(10)
                shipper.client.close()
            browser.close()
