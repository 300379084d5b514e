"""The dealer's screens in a real headless Chromium (Playwright driving Debian's chromium): a second
screen on another host (a network namespace of the test's own) is paired with the code the appliance's
own screen shows, over HTTPS; and a hand typed over what the camera reads steadily waits for a
supervisor's PIN."""


import pytest
from dealer_table import BANKER, Dealer
import headless
from headless import CHROMIUM
from other_host import other_host

from appliance.audit.log import records
from appliance.table.round import Events
from appliance.web.app import create_app
from appliance.web.certificate import make_self_signed
from appliance.web.front import TlsFiles
from appliance.web.serving import serve_dashboard

pytestmark = pytest.mark.browser  # Chromium, launched by the tests themselves (not the browser fixture)

ARGS = [*headless.ARGS, "--hide-scrollbars"]


@pytest.fixture
def other_screen_host():
    with other_host() as host:
        yield host


def test_a_second_screen_is_paired_with_the_code_shown_on_the_appliance(tmp_path, other_screen_host):
    from playwright.sync_api import sync_playwright

    address, screen = other_screen_host.host_address, other_screen_host.address
    made = make_self_signed(tmp_path / "tls", [address])
    d = Dealer(tmp_path / "log")
    dashboard = serve_dashboard(lambda site: create_app(d.live, d.table.rules, d.table, dealer=d.loop, site=site),
                                d.live, host="0.0.0.0", names=(address,), tls=TlsFiles(made.cert, made.key))
    port = dashboard.site.port
    try:
        with sync_playwright() as p:
            appliance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            elsewhere = p.chromium.launch(executable_path=other_screen_host.wrapper(CHROMIUM, tmp_path), args=ARGS)
            own = appliance.new_context(ignore_https_errors=True).new_page()
            other = elsewhere.new_context(ignore_https_errors=True).new_page()
            other.goto(f"https://{address}:{port}/")
            other.wait_for_selector("#pair-link")  # not paired: no dealer's controls
            assert other.locator("#dealer").is_hidden()
            own.goto(f"https://127.0.0.1:{port}/pair")
            own.click("#show-code")
            own.wait_for_function("/^[0-9]{8}$/.test(document.getElementById('code').textContent)")
            code = own.inner_text("#code")
            other.click("#pair-link")
            other.fill("#pair [name=code]", "00000000" if code != "00000000" else "11111111")
            other.fill("#pair [name=name]", "side screen")
            other.click("#pair button")
            other.wait_for_selector("#message:has-text('wrong pairing code')")
            other.fill("#pair [name=code]", code)
            other.click("#pair button")
            other.wait_for_url(f"https://{address}:{port}/")
            other.wait_for_selector("#dealer[data-step=idle]")
            other.click("#open-wagers")
            other.fill("#wagers [name=seat2]", "25")
            other.click("#wagers-save")
            other.wait_for_function("!document.getElementById('wagers').open")
            assert other.inner_text("#error") == ""
            elsewhere.close()
            appliance.close()
    finally:
        dashboard.stop()
    log = records(tmp_path / "log")
    paired = [r for r in log if r["event"] == Events.SCREEN_PAIRED]
    assert len(paired) == 1 and paired[0]["data"]["name"] == "side screen"
    assert paired[0]["data"]["address"] == screen and paired[0]["data"]["by"] == "dealer (screen)"
    assert d.loop.prompt()["bets"] == [{"seat": 2, "wager": "25"}]


def test_a_dealer_override_of_a_camera_read_needs_the_supervisors_pin(tmp_path):
    from playwright.sync_api import sync_playwright

    d = Dealer(tmp_path / "log")
    dashboard = serve_dashboard(lambda site: create_app(d.live, d.table.rules, d.table, dealer=d.loop, site=site),
                                d.live)
    typed = ["2s", "3s", "4s", "5s", "6s", "7s", "8d"]
    try:
        d.open_round()
        d.look({"banker": BANKER})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 800, "height": 480})
            page.goto(dashboard.url + "/")
            page.wait_for_selector("[data-zone=banker] [data-card='As']")
            page.click("[data-zone=banker].override")
            for code in typed:
                page.click(f"#picker button[data-code='{code}']")
            page.click("#picker-done")
            page.wait_for_selector("#override[open]")
            assert "needs a supervisor's PIN" in page.inner_text("#override-why")
            page.fill("#override [name=supervisor]", "1042")
            page.fill("#override [name=pin]", "000000")
            page.click("#override button[value=ok]")
            page.wait_for_selector("#override[open] #override-why:has-text('wrong PIN')")  # asked again
            assert page.locator("[data-zone=banker] [data-card='As']").count() == 1  # the camera's read stands
            page.fill("#override [name=supervisor]", "1042")
            page.fill("#override [name=pin]", "4821")
            page.click("#override button[value=ok]")
            page.wait_for_selector("[data-zone=banker] [data-card='8d']")
            page.click("[data-button=confirm]")
            page.wait_for_selector("#dealer[data-step=seats]")
            browser.close()
    finally:
        dashboard.stop()
    log = records(tmp_path / "log")
    override = [r for r in log if r["event"] == Events.CAMERA_OVERRIDDEN]
    assert len(override) == 1 and override[0]["who"] == "supervisor 1042"
    assert override[0]["data"]["camera"] == BANKER and override[0]["data"]["entered"] == typed
    assert sorted(next(r for r in log if r["event"] == Events.BANKER_CARDS)["data"]["cards"]) == sorted(typed)
