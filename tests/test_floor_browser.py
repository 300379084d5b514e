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


def test_the_recall_shows_the_settlement_that_stands_after_a_correction(floor_dsn, tmp_path):
    """A supervisor corrects seat 2's hand after the round settled (the bank won 25.00): settled again, the
    bank lost 25.00. The next round is corrected too, and the appliance stops before it settles again. The
    recall shows each round as it stands: the settlement after the correction, never the superseded one,
    and the round corrected but not settled again as open (the page took the first RoundSettled)."""
    from floor_helpers import AS_LAID, corrected_rounds, seen_json, ship
    from playwright.sync_api import expect, sync_playwright

    from appliance.audit.log import records

    credentials, audit_dir = corrected_rounds(floor_dsn, tmp_path)
    settled = [(r["data"]["round"], r["data"]["settlement"]["totals"]["banker_net"]) for r in records(audit_dir)
               if r["event"] == "RoundSettled"]
    assert settled == [("t-1", "25.00"), ("t-1", "-25.00"), ("t-2", "25.00")]
    with floor_service(floor_dsn) as url, sync_playwright() as p:
        ship(audit_dir, url, credentials)
        states = {r["round"]: r["state"] for r in seen_json(f"{url}/api/floor/tables/T1/recall")}
        assert [(s["status"], s["settlement"] and s["settlement"]["totals"]["banker_net"], s["corrections"])
                for s in states.values()] == [("open", None, 1), ("settled", "-25.00", 1)]
        assert states["t-1"]["seats"] == [{"seat": 2, **AS_LAID}]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless", "--disable-gpu"])
        try:
            watcher = browser.new_page()
            log_in(watcher, url, "surveillance")
            watcher.locator('.table[data-table="T1"]').click()
            rounds = watcher.locator("#recall .round")  # newest first
            expect(rounds).to_have_count(2, timeout=10_000)
            second, first = rounds.nth(0), rounds.nth(1)
            expect(first).to_contain_text("t-1 bank -25.00, commission 1.25 (1 correction)")
            expect(first).to_contain_text("seat 2: Ah Ad | Kh Ks Kc 4d 3c")
            expect(second).to_contain_text("t-2 open: corrected, to be settled again (1 correction)")
            expect(second).not_to_contain_text("bank 25.00")
        finally:
            browser.close()
