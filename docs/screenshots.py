"""The README's screenshots: each screen at 800x480 (the 7-inch touch display) and 1920x1080, from a
simulated table in headless Chromium (Debian's `chromium`). Run from the repository, in the venv
with the test extras (Playwright):

    python docs/screenshots.py [--out docs]

The tests never write here; this command is the only thing that changes the pictures."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the served table the screen's tests use

from dealer_screen import ServedTable  # noqa: E402

SIZES = [(800, 480), (1920, 1080)]
SUPERVISOR, PIN = "1042", "4821"  # tests/dealer_table.py


def shoot(browser, url: str, out: Path, name: str, ready: str, then=None) -> None:
    for width, height in SIZES:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        if then:
            then(page)
        page.wait_for_selector(ready)
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"{name}-{width}x{height}.png"))
        page.close()
        print(out / f"{name}-{width}x{height}.png")


def log_in_and_open(round_id: str | None):
    def act(page) -> None:
        page.fill("#login [name=supervisor]", SUPERVISOR)
        page.fill("#login [name=pin]", PIN)
        page.click("#login button")
        page.wait_for_selector("#chart-rounds canvas")
        if round_id is None:
            page.evaluate("document.getElementById('shift-charts').scrollIntoView()")
        else:
            page.click(f"#results .open-round[data-round='{round_id}'] >> nth=0")
            page.wait_for_selector("#dispute-body:not([hidden]) .hand")
            page.evaluate("document.getElementById('dispute').scrollIntoView()")
    return act


def shoot_setup(browser, folder: Path, out: Path) -> None:
    """The technician's setup: the camera's view with its markers, and the deck being taught."""
    from setup_table import setup_table

    with setup_table(folder / "setup") as served:
        page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
        page.goto(served.url + "/setup")
        page.fill("#login [name=supervisor]", SUPERVISOR)
        page.fill("#login [name=pin]", PIN)
        page.click("#login button")
        page.click("#begin button")
        page.wait_for_selector("#camera-say li", timeout=60_000)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.click("nav [data-step=camera]")
            page.wait_for_timeout(4000)  # a fresh frame at this size
            page.screenshot(path=str(out / f"setup-camera-{width}x{height}.png"))
            print(out / f"setup-camera-{width}x{height}.png")
        page.click("nav [data-step=deck]")
        for _ in range(6):
            with page.expect_response(lambda r: r.url.endswith("/api/setup/deck/capture"), timeout=120_000):
                page.click("#capture")
        page.click("#cards button[data-card='Ks']")
        page.wait_for_selector("#rank:not([hidden])")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(500)
            page.screenshot(path=str(out / f"setup-deck-{width}x{height}.png"))
            print(out / f"setup-deck-{width}x{height}.png")
        page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("screenshots: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        table = ServedTable(Path(folder), reads_setting=True)  # the shipped layout reads the dealer's setting
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        try:
            table.wager_everyone()
            for _ in range(5):
                table.play_round()
            shoot(browser, table.base + "/", out, "table", "[data-result]")
            shoot(browser, table.base + "/supervisor", out, "shift", "#chart-faults canvas", log_in_and_open(None))
            shoot(browser, table.base + "/supervisor", out, "dispute", ".hand", log_in_and_open("t-5"))
            hands = table.deal()  # a round being read: one card the camera could not read, one front unseen
            table.d.loop.press("next")
            table.start_value()
            table.lay_banker(hands)
            table.d.loop.press("confirm")
            table.lay_seats(hands, unreadable=("seat2.back", 1), unseen="seat5.front")
            shoot(browser, table.base + "/", out, "table-reading", ".enter-hand")
            front, back = table.set_otherwise()  # every hand read; the dealer's setting not the house way's
            table.d.look({"banker.front": front, "banker.back": back,
                          **{z: c for z, c in hands.items() if z.startswith("seat")}})
            table.d.loop.press("confirm")
            shoot(browser, table.base + "/", out, "table-setting-held", "#dealer[data-step=reset]")
            shoot_setup(browser, Path(folder), out)
        finally:
            browser.close()
            table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
