"""The dealer's controls belong to the dealer's screen: other devices are refused until paired, pages
of other sites and other names (DNS rebinding) are refused, and a hand typed over a steady camera
read takes a supervisor's PIN and is logged as an override."""

import http.client
import json

import pytest
from dealer_table import BANKER, Dealer
from served import dashboard_serving

from appliance.audit.log import records
from appliance.table.round import Events
from appliance.web.app import create_app
from appliance.web.site_guard import Site

SUPERVISOR, PIN = "1042", "4821"


@pytest.fixture()
def dealer(tmp_path):
    d = Dealer(tmp_path / "log")
    d.app = create_app(d.live, d.table.rules, d.table, secret_key=b"s" * 32, dealer=d.loop)
    d.folder = tmp_path / "log"
    return d


def at(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def screen_post(client):
    token = client.get("/api/dealer").get_json()["csrf"]
    return lambda path, body, **headers: client.post(path, json=body, headers={"X-CSRF-Token": token, **headers})


def raw(base, method, path, headers, body=None):
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("Set-Cookie"), response.read()
    finally:
        connection.close()


def test_a_rebinding_page_naming_another_host_is_refused(dealer):
    make = lambda site: create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop, site=site)  # noqa: E731
    with dashboard_serving(make, dealer.live) as base:
        port = base.rsplit(":", 1)[1]
        status, _, body = raw(base, "GET", "/api/dealer", {"Host": f"evil.example:{port}"})
        assert status == 400 and "not this dashboard's name" in json.loads(body)["error"]
        for host in (f"localhost:{int(port) + 1}", "127.0.0.1", f"127.0.0.1.evil.example:{port}"):
            assert raw(base, "GET", "/api/state", {"Host": host})[0] == 400, host
        assert raw(base, "GET", "/api/state", {"Host": f"localhost:{port}"})[0] == 200
        assert raw(base, "GET", "/api/state", {"Host": f"[::1]:{port}"})[0] == 200
        # The screen's own token, then a press sent from a page of another origin: refused, table not held.
        status, cookie, body = raw(base, "GET", "/api/dealer", {"Host": f"127.0.0.1:{port}"})
        token = json.loads(body)["csrf"]
        press = json.dumps({"button": "supervisor"})
        for origin in ("http://evil.example", f"http://localhost:{int(port) + 1}", "null", f"https://127.0.0.1:{port}"):
            status, _, _ = raw(base, "POST", "/api/dealer/press", {
                "Host": f"127.0.0.1:{port}", "Origin": origin, "Cookie": cookie.split(";")[0],
                "X-CSRF-Token": token, "Content-Type": "application/json"}, press)
            assert status == 403, origin
        assert dealer.table.held is None
        status, _, _ = raw(base, "POST", "/api/dealer/press", {
            "Host": f"127.0.0.1:{port}", "Origin": f"http://127.0.0.1:{port}", "Cookie": cookie.split(";")[0],
            "X-CSRF-Token": token, "Content-Type": "application/json"}, press)
        assert status == 200 and dealer.table.held is not None


def test_configured_names_are_answered():
    site = Site("0.0.0.0", 8443, names=("table7.floor", "10.1.2.3"), tls=True)
    assert all(site.allows_host(h, 8443) for h in ("table7.floor:8443", "10.1.2.3:8443", "localhost:8443"))
    assert not site.allows_host("0.0.0.0:8443", 8443) and not site.allows_host("table7.floor", 8443)
    assert Site("10.1.2.3", 443, tls=True).allows_host("10.1.2.3", 443)
    assert Site("::", 8080, names=("fd00::7",)).allows_origin("http://[fd00::7]:8080", 8080)


def test_another_device_gets_no_dealer_controls_until_paired(dealer):
    tablet = at(dealer.app, "10.0.0.23")
    refused = tablet.get("/api/dealer")
    assert refused.status_code == 403 and refused.get_json()["pair"] == "/pair"
    assert tablet.post("/api/dealer/press", json={"button": "supervisor"}).status_code == 403
    assert dealer.table.held is None
    assert tablet.get("/api/state").status_code == 200  # the table view is for everyone


def test_pairing_with_a_one_time_code_shown_on_the_appliance_screen(dealer):
    own, tablet = at(dealer.app, "127.0.0.1"), at(dealer.app, "10.0.0.23")
    assert tablet.post("/api/pair", json={"code": "00000000", "name": "side"}).status_code == 403  # no code open
    code = screen_post(own)("/api/dealer/pairing-code", {}).get_json()["code"]
    assert tablet.post("/api/pair", json={"code": "12345678" if code != "12345678" else "87654321",
                                          "name": "side"}).status_code == 403
    paired = tablet.post("/api/pair", json={"code": code, "name": "side screen"})
    assert paired.status_code == 200 and "HttpOnly" in paired.headers["Set-Cookie"]
    assert at(dealer.app, "10.0.0.99").post("/api/pair", json={"code": code, "name": "x"}).status_code == 403  # used
    post = screen_post(tablet)
    assert post("/api/dealer/bets", {"bets": [{"seat": 2, "wager": "25"}]}).status_code == 200
    assert post("/api/dealer/pairing-code", {}).status_code == 409  # codes come from the appliance's own screen
    post("/api/dealer/press", {"button": "next"})
    opened = next(r for r in records(dealer.folder) if r["event"] == Events.ROUND_OPENED)
    screen_id = paired.get_json()["paired"]["id"]
    assert opened["who"] == f"dealer (screen side screen, {screen_id})"
    logged = [r for r in records(dealer.folder) if r["event"] in (Events.SCREEN_PAIRING_CODE, Events.SCREEN_PAIRED)]
    assert [r["event"] for r in logged] == [Events.SCREEN_PAIRING_CODE, Events.SCREEN_PAIRED]
    assert code not in json.dumps(logged) and logged[1]["data"]["address"] == "10.0.0.23"
    # a supervisor revokes it: the tablet is refused again
    boss = at(dealer.app, "10.0.0.5")
    token = boss.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    assert [s["name"] for s in boss.get("/api/screens").get_json()] == ["side screen"]
    revoked = boss.post(f"/api/screens/{screen_id}/revoke", json={"pin": PIN, "reason": "tablet lost"},
                        headers={"X-CSRF-Token": token})
    assert revoked.status_code == 200
    assert tablet.get("/api/dealer").status_code == 403
    assert records(dealer.folder)[-1]["event"] == Events.SCREEN_REVOKED
    assert records(dealer.folder)[-1]["who"] == f"supervisor {SUPERVISOR}"


def test_a_pairing_code_from_a_supervisor_needs_the_pin_and_locks_the_guessing_address(dealer):
    boss = at(dealer.app, "10.0.0.5")
    token = boss.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    assert boss.post("/api/screens/code", json={"pin": "000000"}, headers={"X-CSRF-Token": token}).status_code == 403
    code = boss.post("/api/screens/code", json={"pin": PIN}, headers={"X-CSRF-Token": token}).get_json()["code"]
    tablet = at(dealer.app, "10.0.0.23")
    wrong = "11111111" if code != "11111111" else "22222222"
    answers = [tablet.post("/api/pair", json={"code": wrong, "name": "t"}).get_json()["error"] for _ in range(5)]
    assert "too many wrong pairing codes from this address" in answers[-1]
    assert tablet.post("/api/pair", json={"code": code, "name": "t"}).status_code == 403  # locked, even the right one
    assert at(dealer.app, "10.0.0.24").post("/api/pair", json={"code": code, "name": "t"}).status_code == 200


def pair_from(base: str, source: str, code: str) -> tuple[int, str]:
    """POST /api/pair to the served dashboard from the loopback address ``source``: the status and the error."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        connection.request("POST", "/api/pair", json.dumps({"code": code, "name": "side screen"}),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read()).get("error", "")
    finally:
        connection.close()


def own_screen_code(base: str) -> str:
    """A pairing code asked for on the appliance's own screen, through the served dashboard."""
    status, cookie, body = raw(base, "GET", "/api/dealer", {})
    status, _, body = raw(base, "POST", "/api/dealer/pairing-code", {
        "Cookie": cookie.split(";")[0], "X-CSRF-Token": json.loads(body)["csrf"], "Content-Type": "application/json"}, "{}")
    assert status == 200, body
    return json.loads(body)["code"]


def test_one_strangers_wrong_codes_never_void_the_code_for_the_real_screen(dealer):
    """A stranger's wrong codes lock the stranger's address, not the code: the real screen then pairs."""
    make = lambda site: create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop, site=site)  # noqa: E731
    with dashboard_serving(make, dealer.live) as base:
        code = own_screen_code(base)
        wrong = "11111111" if code != "11111111" else "22222222"
        answers = [pair_from(base, "127.0.0.7", wrong) for _ in range(8)]
        assert {status for status, _ in answers} == {403}
        assert answers[0][1] == "wrong pairing code"
        assert "too many wrong pairing codes from this address: try again in 30 s" in answers[-1][1]
        assert pair_from(base, "127.0.0.8", code) == (200, "")  # the real screen, on its own address


def test_wrong_codes_from_many_addresses_lock_the_code_saying_a_new_one_is_needed(dealer):
    make = lambda site: create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop, site=site)  # noqa: E731
    with dashboard_serving(make, dealer.live) as base:
        code = own_screen_code(base)
        wrong = "11111111" if code != "11111111" else "22222222"
        answers = [pair_from(base, f"127.0.1.{n}", wrong)[1] for n in range(1, 8) for _ in range(3)]
        locked = "the pairing code was locked by 20 wrong guesses: ask for a new one on the appliance's screen"
        assert all(a.startswith("wrong pairing code") for a in answers[:19])  # no address reaches 20 alone
        assert answers[19:] == [locked, locked]
        assert pair_from(base, "127.0.0.8", code) == (403, locked)  # the right code too: it is locked
        assert pair_from(base, "127.0.0.8", own_screen_code(base)) == (200, "")  # a new one pairs


def test_entering_by_hand_over_a_steady_camera_read_needs_the_pin_and_is_logged(dealer):
    post = screen_post(at(dealer.app, "127.0.0.1"))
    dealer.open_round()
    dealer.look({"banker": BANKER})
    typed = ["2s", "3s", "4s", "5s", "6s", "7s", "8d"]
    refused = post("/api/dealer/hand", {"zone": "banker", "cards": typed})
    assert refused.status_code == 409 and refused.get_json()["needs"] == "supervisor_pin"
    assert "needs a supervisor's PIN" in refused.get_json()["error"]
    assert post("/api/dealer/hand", {"zone": "banker", "cards": typed, "supervisor": SUPERVISOR,
                                     "pin": "000000"}).status_code == 403
    assert post("/api/dealer/hand", {"zone": "banker", "cards": typed, "supervisor": SUPERVISOR,
                                     "pin": PIN}).status_code == 200
    assert post("/api/dealer/press", {"button": "confirm"}).status_code == 200
    log = records(dealer.folder)
    override = next(r for r in log if r["event"] == Events.CAMERA_OVERRIDDEN)
    assert override["who"] == f"supervisor {SUPERVISOR}" and override["data"]["camera"] == BANKER
    assert override["data"]["entered"] == typed and override["data"]["zone"] == "banker"
    assert sorted(next(r for r in log if r["event"] == Events.BANKER_CARDS)["data"]["cards"]) == sorted(typed)


def test_with_the_camera_blind_the_dealer_enters_a_hand_without_a_pin(dealer):
    post = screen_post(at(dealer.app, "127.0.0.1"))
    dealer.open_round()
    dealer.look({"banker": [None] * 7})
    assert post("/api/dealer/hand", {"zone": "banker", "cards": BANKER}).status_code == 200
    assert not any(r["event"] == Events.CAMERA_OVERRIDDEN for r in records(dealer.folder))


def test_security_headers_hsts_over_tls_and_a_warning_on_every_page_over_plain_http(dealer):
    tls = create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop,
                     site=Site("0.0.0.0", 443, names=("localhost",), tls=True)).test_client()
    page = tls.get("/", base_url="https://localhost")
    assert page.headers["Strict-Transport-Security"].startswith("max-age=")
    assert page.headers["X-Frame-Options"] == "DENY" and b"insecure-http" not in page.data
    plain = create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop,
                       site=Site("0.0.0.0", 80, insecure_http=True)).test_client()
    for path in ("/", "/supervisor", "/hint", "/pair"):
        answer = plain.get(path)
        assert answer.status_code == 200 and b'id="insecure-http"' in answer.data, path
        assert "Strict-Transport-Security" not in answer.headers


def test_paired_screens_outlive_the_dashboard_and_so_do_revocations(dealer, tmp_path):
    kept = tmp_path / "data" / "paired-screens.json"

    def restarted():  # a new dashboard, its pairings read from the data folder
        return create_app(dealer.live, dealer.table.rules, dealer.table, secret_key=b"s" * 32, dealer=dealer.loop,
                          screens_file=kept)

    app = restarted()
    code = screen_post(at(app, "127.0.0.1"))("/api/dealer/pairing-code", {}).get_json()["code"]
    tablet = at(app, "10.0.0.23")
    screen_id = tablet.post("/api/pair", json={"code": code, "name": "side screen"}).get_json()["paired"]["id"]
    token = tablet.get_cookie("screen").value
    assert kept.stat().st_mode & 0o777 == 0o640 and token not in kept.read_text()
    again = at(restarted(), "10.0.0.23")
    again.set_cookie("screen", token)
    assert again.get("/api/dealer").get_json()["screen"] == f"dealer (screen side screen, {screen_id})"
    boss = at(restarted(), "10.0.0.5")
    csrf = boss.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    assert boss.post(f"/api/screens/{screen_id}/revoke", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).status_code == 200
    after = at(restarted(), "10.0.0.23")
    after.set_cookie("screen", token)
    assert after.get("/api/dealer").status_code == 403
    assert [r["event"] for r in records(dealer.folder) if r["event"].startswith("Screen")] == [
        Events.SCREEN_PAIRING_CODE, Events.SCREEN_PAIRED, Events.SCREEN_REVOKED]


def test_a_pairing_that_cannot_be_kept_does_not_stand(dealer, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "paired-screens.json").mkdir()  # where the file goes: it cannot be written
    app = create_app(dealer.live, dealer.table.rules, dealer.table, secret_key=b"s" * 32, dealer=dealer.loop,
                     screens_file=tmp_path / "data" / "paired-screens.json")
    code = screen_post(at(app, "127.0.0.1"))("/api/dealer/pairing-code", {}).get_json()["code"]
    tablet = at(app, "10.0.0.23")
    refused = tablet.post("/api/pair", json={"code": code, "name": "side screen"})
    assert refused.status_code == 503 and "nothing can be recorded" in refused.get_json()["error"]
    assert tablet.get("/api/dealer").status_code == 403 and dealer.table.held is not None


def test_an_unreadable_pairings_file_pairs_nobody(dealer, tmp_path, caplog):
    kept = tmp_path / "paired-screens.json"
    kept.write_text('{"screens": [{"token_sha256": "x"}]}')
    app = create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop, screens_file=kept)
    boss = at(app, "127.0.0.1")
    boss.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN})
    assert boss.get("/api/screens").get_json() == []
    assert "the paired screens cannot be read" in caplog.text
