"""The table view in a real headless Chromium against `appliance run --simulate` on loopback.

Takes the README's screenshots (docs/table-800x480.png, docs/table-1920x1080.png)."""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed here", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def settled_table(tmp_path_factory):
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    proc = subprocess.Popen([shutil.which("appliance"), "run", "--simulate", "--rounds", "1", "--pace", "0.05",
                             "--port", str(port), "--data", str(data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
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
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


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
        assert f"net {s['net']}" in dom  # the amount paid or taken
    for code in state["banker"]["front"] + state["banker"]["back"]:
        assert f'data-card="{code}"' in dom
    assert state["banker"]["rule"] in dom
    assert f">{state['totals']['banker_net']}<" in dom


@pytest.mark.parametrize("width, height", [(800, 480), (1920, 1080)])
def test_screenshots_for_the_readme(settled_table, tmp_path, width, height):
    base, _ = settled_table
    DOCS.mkdir(exist_ok=True)
    shot = DOCS / f"table-{width}x{height}.png"
    chromium("--virtual-time-budget=5000", f"--window-size={width},{height}", f"--screenshot={shot}", base + "/?live=0",
             user_data=tmp_path / "profile")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == width and int.from_bytes(data[20:24], "big") == height


def test_a_supervisor_logs_in_corrects_a_read_and_the_table_view_follows(tmp_path):
    """Playwright drives Debian's chromium: log in, correct a seat's read; the audit log records it
    and the dealer's table view, open in another tab, shows the corrected cards without a reload."""
    import threading

    import waitress.server
    from playwright.sync_api import sync_playwright

    from settled_table import RULES, settled_table

    from appliance.audit.log import records
    from appliance.table.live import LiveTable
    from appliance.web.app import create_app

    live = LiveTable()
    table, _ = settled_table(tmp_path / "log", b"b" * 64, [live])
    server = waitress.server.create_server(create_app(live, RULES, table), host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            view = browser.new_page()
            view.goto(base + "/")
            view.wait_for_selector('#seat2 [data-card="3h"]')
            page = browser.new_page()
            page.goto(base + "/supervisor")
            page.fill("#login [name=supervisor]", "1042")
            page.fill("#login [name=pin]", "0000")
            page.click("#login button")
            page.wait_for_selector("#message.error")
            page.fill("#login [name=supervisor]", "1042")
            page.fill("#login [name=pin]", "4821")
            page.click("#login button")
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
        server.close()
    log = records(tmp_path / "log")
    corrected = [x for x in log if x["event"] == "ReadCorrected"]
    assert corrected and corrected[0]["who"] == "supervisor 1042"
    assert corrected[0]["data"]["reason"] == "3h misread: ace of clubs"
    assert log[-1]["event"] == "RoundSettled"
    assert any(x["event"] == "SupervisorRefused" for x in log)  # the wrong PIN, logged


def test_the_house_way_hint_page(tmp_path):
    import threading

    import waitress.server
    from playwright.sync_api import sync_playwright

    from appliance.config import load_house
    from appliance.table.live import LiveTable
    from appliance.web.app import create_app

    server = waitress.server.create_server(create_app(LiveTable(), load_house("general")), host="127.0.0.1", port=0)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", *FLAGS[2:]])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.effective_port}/hint")
            page.fill("[name=cards]", "As Kd 9c 9s 5h 5d 2c")
            page.click("button")
            page.wait_for_selector("#splits tbody tr.chosen")
            assert page.locator("#splits tbody tr").count() == 21
            assert page.inner_text("tr.chosen").startswith("As Kd")
            assert "holding a king or better" in page.inner_text("#rule")
            assert page.locator("tr.foul").count() >= 1
            browser.close()
    finally:
        server.close()
