"""Supervisor actions over HTTP: refused without a session (401) or CSRF token (403); a correction
lands in the audit log with the supervisor and the reason. The supervisor's reads (history, shift
totals, a round's dispute view, zone images, the export) need the session and say what the log says."""

import csv
import datetime as dt
import hashlib
import io
from decimal import Decimal
from pathlib import Path

import pytest
from dealer_table import BANKER, KEY, SEAT2, Dealer
from settled_table import CORRECTION as BASE_CORRECTION
from settled_table import PIN, RULES, SUPERVISOR, settled_table

from appliance.game.settlement import SeatWagers
from appliance.audit.history_index import Index
from appliance.audit.log import AuditLog, records
from appliance.audit.replay import export_csv, replay
from appliance.config import read_toml
from appliance.devices.protocol import RngResult
from appliance.table.live import LiveTable
from appliance.table.round import Events, Phase
from appliance.table.simulation import play_rounds
from appliance.table.supervisor import hash_pin
from appliance.table.table import Table
from appliance.web.app import create_app

@pytest.fixture()
def setup(tmp_path):
    live = LiveTable()
    table, _ = settled_table(tmp_path / "log", b"x" * 64, [live])
    app = create_app(live, RULES, table, secret_key=b"k" * 32)
    return app.test_client(), tmp_path / "log"


CORRECTION = {"pin": PIN, **BASE_CORRECTION}


def test_refused_without_a_session_or_a_csrf_token(setup):
    client, log = setup
    assert client.post("/api/rounds/r1/correct", json=CORRECTION).status_code == 401
    assert client.post("/login", json={"supervisor": "1042", "pin": "0000"}).status_code == 401
    token = client.post("/login", json={"supervisor": "1042", "pin": "4821"}).get_json()["csrf"]
    assert client.post("/api/rounds/r1/correct", json=CORRECTION).status_code == 403
    assert client.post("/api/rounds/r1/correct", json=CORRECTION, headers={"X-CSRF-Token": "forged"}).status_code == 403
    refused = [r for r in records(log) if r["event"] == Events.SUPERVISOR_REFUSED]
    assert len(refused) == 1 and "0000" not in str(refused[0]["data"])
    response = client.post("/api/rounds/r1/correct", json=CORRECTION, headers={"X-CSRF-Token": token})
    assert response.status_code == 200 and response.get_json()["settlement"]["seats"][0]["front"] == "loss"
    corrected = [r for r in records(log) if r["event"] == Events.READ_CORRECTED]
    assert corrected[0]["who"] == "supervisor 1042" and corrected[0]["data"]["reason"] == "3h misread: ace of clubs"


def test_a_wrong_pin_on_an_action_is_refused_and_logout_ends_the_session(setup):
    client, log = setup
    token = client.post("/login", json={"supervisor": "1042", "pin": "4821"}).get_json()["csrf"]
    bad = client.post("/api/rounds/r1/void", json={"pin": "9999", "reason": "x"}, headers={"X-CSRF-Token": token})
    assert bad.status_code == 403
    assert client.post("/logout", headers={"X-CSRF-Token": token}).status_code == 200
    late = client.post("/api/rounds/r1/void", json={"pin": "4821", "reason": "x"}, headers={"X-CSRF-Token": token})
    assert late.status_code == 401


def test_the_dealer_view_cannot_change_money(setup):
    client, _ = setup
    for path in ("/api/state", "/api/rounds"):
        assert client.post(path).status_code == 405


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Round 7-1 read by the real reader from the synthetic camera, so its zone images are real, and
    round 7-2 taken as dealt (quicker)."""
    folder = tmp_path_factory.mktemp("rendered") / "log"
    audit = AuditLog(folder, b"r" * 64)
    index, live = Index(folder.parent / "index.sqlite"), LiveTable()
    play_rounds(RULES, audit, 1, seed=7, render=True, size=(1600, 900), listeners=[live, index.add])
    play_rounds(RULES, audit, 1, seed=7, listeners=[live, index.add])
    table = Table(RULES, read_toml(Path(RULES.source)), audit, {SUPERVISOR: hash_pin(PIN)})
    yield create_app(live, RULES, table, index=index, audit=audit, secret_key=b"s" * 32), folder
    index.close()


def logged_in(app):
    client = app.test_client()
    assert client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).status_code == 200
    return client


def round_records(folder, round_id):
    return [r for r in records(folder) if r["data"].get("round") == round_id]


READS = ("/api/history", "/api/shift", "/api/rounds/7-1/dispute", "/api/images/" + "a" * 64,
         "/api/export?from=2020-01-01&to=2099-12-31")


def test_every_supervisor_read_needs_a_live_session(rendered):
    app, folder = rendered
    client = app.test_client()
    for path in READS:
        response = client.get(path)
        assert response.status_code == 401 and response.get_json() == {"error": "log in as a supervisor first"}, path
    client = app.test_client()
    token = client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    assert [client.get(path).status_code for path in READS] == [200, 200, 200, 404, 200]
    assert any(r["event"] == "SupervisorLoggedIn" and r["who"] == f"supervisor {SUPERVISOR}" for r in records(folder))
    assert client.post("/logout", headers={"X-CSRF-Token": token}).status_code == 200
    assert [client.get(path).status_code for path in READS] == [401] * len(READS)


def test_history_searches_by_round_seat_result_and_time(rendered):
    app, folder = rendered
    client = logged_in(app)
    settled = {r["data"]["round"]: r for r in records(folder) if r["event"] == Events.ROUND_SETTLED}
    rows = client.get("/api/history").get_json()
    assert [(r["round"], r["seat"], r["result"], r["net"]) for r in rows] == [
        (rid, s["seat"], s["result"], s["net"]) for rid in ("7-2", "7-1")
        for s in sorted(settled[rid]["data"]["settlement"]["seats"], key=lambda s: s["seat"])]
    one = client.get("/api/history?round=7-1").get_json()
    assert {r["round"] for r in one} == {"7-1"} and all(r["settled_at"] == settled["7-1"]["ts"] for r in one)
    seat = one[0]["seat"]
    assert client.get(f"/api/history?round=7-1&seat={seat}&result={one[0]['result']}").get_json() == one[:1]
    at = settled["7-2"]["ts"]
    assert {r["round"] for r in client.get("/api/history", query_string={"from": at}).get_json()} == {"7-2"}
    assert {r["round"] for r in client.get("/api/history", query_string={"to": at}).get_json()} == {"7-1", "7-2"}
    earlier = (dt.datetime.fromisoformat(at) - dt.timedelta(microseconds=1)).isoformat()
    assert {r["round"] for r in client.get("/api/history", query_string={"to": earlier}).get_json()} == {"7-1"}
    for query, named in (("seat=x", "seat:"), ("seat=9", "seat:"), ("result=won", "result:"),
                         ("from=yesterday", "from:"), ("to=2026-13-01T00:00", "to:"), ("limit=0", "limit:")):
        response = client.get("/api/history?" + query)
        assert response.status_code == 400 and response.get_json()["error"].startswith(named), query


def test_shift_totals_add_up_the_logged_settlements(rendered):
    app, folder = rendered
    client = logged_in(app)
    totals = [r["data"]["settlement"]["totals"] for r in records(folder) if r["event"] == Events.ROUND_SETTLED]
    fouls = sum(s["result"] == "foul" for r in records(folder) if r["event"] == Events.ROUND_SETTLED
                for s in r["data"]["settlement"]["seats"])
    assert client.get("/api/shift").get_json() == {
        "since": None, "gaming_day": None, "rounds_settled": 2, "rounds_voided": 0, "misdeals": {}, "fouls": fouls,
        "commission": str(sum(Decimal(t["commission"]) for t in totals)),
        "collection": str(sum(Decimal(t["collection"]) for t in totals)),
        "banker_net": str(sum(Decimal(t["banker_net"]) for t in totals))}
    assert client.get("/api/shift?since=2999-01-01T06:00Z").get_json()["rounds_settled"] == 0
    day = records(folder)[-1]["gaming_day"]
    assert client.get(f"/api/shift?day={day}").get_json()["rounds_settled"] == 2
    assert client.get("/api/shift?day=1999-01-01").get_json()["rounds_settled"] == 0
    assert client.get("/api/shift?day=tuesday").status_code == 400
    response = client.get("/api/shift?since=06:00")
    assert response.status_code == 400 and response.get_json()["error"].startswith("since:")


def test_the_dispute_view_is_the_round_as_logged(rendered):
    app, folder = rendered
    client = logged_in(app)
    logged = round_records(folder, "7-1")
    view = client.get("/api/rounds/7-1/dispute").get_json()
    assert view["status"] == "settled" and view["problems"] == []
    assert view["records"] == [{k: r[k] for k in ("seq", "ts", "event", "who", "data")} | {"signed": True}
                               for r in logged]
    banker = next(r for r in logged if r["event"] == Events.BANKER_CARDS)
    assert {k: view["banker"][k] for k in ("cards", "rule", "read")} == {k: banker["data"][k] for k in ("cards", "rule", "read")}
    # the house dealer's setting as the camera read it from banker.front and banker.back
    setting = next(r for r in logged if r["event"] == Events.BANKER_SET)
    assert {k: view["banker"][k] for k in ("front", "back", "set_by", "set_read")} == {
        "front": setting["data"]["front"], "back": setting["data"]["back"], "set_by": "house-way",
        "set_read": setting["data"]["read"]}
    assert view["banker"]["images"] == banker["data"]["images"] + setting["data"]["images"]
    assert banker["who"] == "dealer (simulated)"  # who pressed CONFIRM on the reader's read
    assert view["banker"]["rule"] and view["banker"]["read_by"] == {"seq": banker["seq"], "at": banker["ts"],
                                                                    "who": banker["who"]}
    seats = [r["data"] for r in logged if r["event"] == Events.SEAT_CARDS]
    assert [{k: s[k] for k in ("seat", "front", "back", "read", "images")} for s in view["seats"]] == [
        {k: s[k] for k in ("seat", "front", "back", "read", "images")} for s in sorted(seats, key=lambda s: s["seat"])]
    reads = [read for s in [banker["data"], *seats] for read in s["read"]]
    # a card named with its confidence (and how it was told, where its index alone did not), or none with why
    assert all(("confidence" in r) == (r["card"] is not None) and (r["card"] is not None or "reason" in r) for r in reads)
    assert view["confirmations"] == [{**{k: r["data"][k] for k in ("zone", "position", "card")}, "seq": r["seq"],
                                      "at": r["ts"], "who": r["who"]}
                                     for r in logged if r["event"] == Events.READ_CONFIRMED]
    settled = next(r for r in logged if r["event"] == Events.ROUND_SETTLED)
    assert view["settlement"] == settled["data"]["settlement"] and view["settled_at"] == settled["ts"]
    assert view["images"] == [*banker["data"]["images"], *setting["data"]["images"],
                              *(d for s in view["seats"] for d in s["images"])]
    assert view["images"], "the reader kept no zone image"
    for digest in view["images"]:
        with client.get(f"/api/images/{digest}") as image:  # closes the served file
            assert image.status_code == 200 and image.mimetype == "image/png" and image.data[:4] == b"\x89PNG"
            assert hashlib.sha256(image.data).hexdigest() == digest
    missing = client.get("/api/rounds/7-99/dispute")
    assert missing.status_code == 404 and "7-99" in missing.get_json()["error"]


def test_zone_images_are_asked_for_by_their_exact_digest(rendered):
    app, _ = rendered
    client = logged_in(app)
    for bad in ("abc", "A" * 64, "g" * 64, "a" * 65):
        response = client.get(f"/api/images/{bad}")
        assert response.status_code == 400 and response.get_json()["error"].startswith("image:"), bad
    assert client.get("/api/images/" + "0" * 64).status_code == 404


def test_the_export_is_a_logged_csv_download(rendered):
    app, folder = rendered
    client = logged_in(app)
    day = dt.datetime.fromisoformat(next(r["ts"] for r in records(folder) if r["event"] == Events.ROUND_SETTLED))
    first, last = (day.date() - dt.timedelta(days=1)).isoformat(), (day.date() + dt.timedelta(days=1)).isoformat()
    response = client.get(f"/api/export?from={first}&to={last}")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="rounds-{first}-to-{last}.csv"'
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    settlement = next(r for r in round_records(folder, "7-1") if r["event"] == Events.ROUND_SETTLED)["data"]["settlement"]
    assert [(r["seat"], r["result"], r["net"]) for r in rows if r["round"] == "7-1"] == [
        (str(s["seat"]), s["result"], s["net"]) for s in settlement["seats"]]
    exported = [r for r in records(folder) if r["event"] == "AuditExported"][-1]
    assert exported["who"] == f"supervisor {SUPERVISOR}"
    assert exported["data"] == {"from": first, "to": last, "rows": len(rows),
                                "sha256": hashlib.sha256(response.data).hexdigest()}
    for query, named in (("to=2026-11-30", "from:"), ("from=2026-11-01&to=30/11/2026", "to:"),
                         ("from=2026-02-30&to=2026-03-01", "from:"), ("from=2026-11-30&to=2026-11-01", "to:")):
        response = client.get("/api/export?" + query)
        assert response.status_code == 400 and response.get_json()["error"].startswith(named), query


def test_the_dispute_view_shows_corrections_and_voids_with_who_and_why(tmp_path):
    live, index = LiveTable(), Index(tmp_path / "index.sqlite")
    table, _ = settled_table(tmp_path / "log", b"x" * 64, [live, index.add])
    client = create_app(live, RULES, table, index=index, audit=table.audit, secret_key=b"k" * 32).test_client()
    token = client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    client.post("/api/rounds/r1/correct", json=CORRECTION, headers={"X-CSRF-Token": token})
    view = client.get("/api/rounds/r1/dispute").get_json()
    correction = next(r for r in round_records(tmp_path / "log", "r1") if r["event"] == Events.READ_CORRECTED)
    assert view["corrections"] == [{"seat": 2, "front": ["Ac", "2d"], "back": ["7c", "7s", "4h", "4d", "Jc"],
                                    "reason": "3h misread: ace of clubs", "seq": correction["seq"],
                                    "at": correction["ts"], "who": "supervisor 1042"}]
    assert [r["event"] for r in view["records"]].count(Events.ROUND_SETTLED) == 2
    assert view["settlement"]["seats"][0]["front"] == "loss" and view["settled_by"] == "supervisor 1042"
    table.new_round("r2").open("dealer", [SeatWagers(3, Decimal("25"))])
    client.post("/api/rounds/r2/misdeal", json={"pin": PIN, "reason": "two or more cards boxed or exposed"},
                headers={"X-CSRF-Token": token})
    voided = client.get("/api/rounds/r2/dispute").get_json()
    assert voided["status"] == "voided" and voided["settlement"] is None
    assert {k: voided["voided"][k] for k in ("reason", "who")} == {"reason": "misdeal: two or more cards boxed or exposed",
                                                                     "who": "supervisor 1042"}
    assert client.get("/api/history?result=voided").get_json()[0]["round"] == "r2"
    # Offered on the page, and counted in the shift report by the house's reason (Capitol rule 29's words).
    assert '<option value="two or more cards boxed or exposed">' in client.get("/supervisor").get_data(as_text=True)
    assert client.get("/api/shift").get_json()["misdeals"] == {"two or more cards boxed or exposed": 1}
    refused = client.post("/api/rounds/r2/misdeal", json={"pin": PIN, "reason": "dealer sneezed"},
                          headers={"X-CSRF-Token": token})
    assert refused.status_code == 409 and "is not one of" in refused.get_json()["error"]
    index.close()


def test_without_an_index_or_a_log_the_reads_say_so(setup):
    client, _ = setup
    client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN})
    response = client.get("/api/history")
    assert response.status_code == 503 and response.get_json() == {"error": "no index on this table"}
    assert client.get("/api/rounds/r1/dispute").get_json() == {"error": "no index or audit on this table"}


def test_no_export_from_a_log_that_fails_verification(tmp_path):
    live = LiveTable()
    table, _ = settled_table(tmp_path / "log", b"x" * 64, [live])
    client = create_app(live, RULES, table, audit=table.audit, secret_key=b"k" * 32).test_client()
    client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN})
    day = next((tmp_path / "log").glob("*.jsonl"))
    day.write_bytes(day.read_bytes().replace(b'"wager":"25.00"', b'"wager":"250.00"', 1))
    response = client.get("/api/export?from=2000-01-01&to=2999-12-31")
    assert response.status_code == 409 and "signature does not match" in response.get_json()["error"]
    assert not any(r["event"] == "AuditExported" for r in records(tmp_path / "log"))


def test_a_rounds_view_shows_the_resettlement_after_a_correction(setup):
    client, _ = setup
    first = client.get("/api/rounds/r1").get_json()
    token = client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    won = {**CORRECTION, "reason": "the seat held queens and trip sevens", "front": ["Qh", "Qd"],
           "back": ["7c", "7s", "7h", "4d", "Jc"]}
    settlement = client.post("/api/rounds/r1/correct", json=won, headers={"X-CSRF-Token": token}).get_json()[
        "settlement"]
    shown = client.get("/api/rounds/r1").get_json()
    assert shown["seats"]["2"]["result"] == "win" and first["seats"]["2"]["result"] == "loss"
    assert shown["totals"] == settlement["totals"] != first["totals"]
    assert [r["round"] for r in client.get("/api/rounds").get_json()] == ["r1"]


def test_zone_images_are_served_from_a_relative_data_folder(tmp_path, monkeypatch):
    """``appliance run`` without --data keeps the log in ./data: an image must not be looked for in the package."""
    monkeypatch.chdir(tmp_path)
    audit = AuditLog(Path("data") / "audit", b"x" * 64)
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(32))
    digest = audit.store_image(png)
    table = Table(RULES, read_toml(Path(RULES.source)), audit, {SUPERVISOR: hash_pin(PIN)})
    client = logged_in(create_app(LiveTable(), RULES, table, audit=audit, secret_key=b"k" * 32))
    with client.get(f"/api/images/{digest}") as response:
        assert response.status_code == 200 and response.data == png


def call(opener, url: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    """One request to the served dashboard (a POST with a JSON body, else a GET): its status and JSON."""
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", **({"X-CSRF-Token": token} if token else {})})
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def served_in_phase(opener, base: str, phase: str) -> dict:
    """The served state once it has reached ``phase`` (the front is fed the state a moment after the record)."""
    import time

    deadline = time.monotonic() + 10
    while (state := call(opener, base + "/api/state")[1])["phase"] != phase and time.monotonic() < deadline:
        time.sleep(0.05)
    assert state["phase"] == phase, state
    return state


def test_a_supervisor_lets_the_house_dealers_held_setting_stand_from_the_supervisor_pages(tmp_path):
    """Over HTTP to the dashboard served as `appliance run` serves it: the held setting is shown to the
    supervisor's pages, and letting it stand takes the session, the CSRF token, the PIN, a reason and the
    setting shown; it is logged with who and why, and the round settles as the cards lie."""
    import http.cookiejar
    import urllib.request

    from dealer_screen import ServedTable

    table = ServedTable(tmp_path, reads_setting=True)
    try:
        base, d = table.base, table.d
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        table.wager_everyone()
        hands = table.deal()
        d.loop.press("next")
        table.start_value()
        table.lay_banker(hands)
        assert d.loop.press("confirm") == ""
        round_id = d.table.current.round_id
        stands = f"{base}/api/rounds/{round_id}/setting-stands"
        front, back = table.set_otherwise()
        body = {"front": front, "back": back, "reason": "the player accepted the setting as laid", "pin": PIN}
        assert call(opener, stands, body)[0] == 401  # no session
        token = call(opener, base + "/login", {"supervisor": SUPERVISOR, "pin": PIN})[1]["csrf"]
        status, answer = call(opener, stands, body, token)
        assert status == 409 and "no setting of the banker's hand is held" in answer["error"]
        seats = {z: c for z, c in hands.items() if z != "banker"}
        d.look({"banker.front": front, "banker.back": back, **seats})
        assert d.loop.press("confirm") == ""  # held: not the house way
        shown = served_in_phase(opener, base, "set_held")
        held = shown["banker"]["setting_held"]
        assert (held["front"], held["back"]) == (front, back) and "is not the house way" in held["differs"]
        assert call(opener, stands, body)[0] == 403  # no CSRF token
        assert call(opener, stands, {**body, "pin": "0000"}, token)[0] == 403
        status, answer = call(opener, stands, {k: v for k, v in body.items() if k != "reason"}, token)
        assert status == 400 and answer["error"].startswith("reason:")
        way = d.table.current.house_way_setting()
        status, answer = call(opener, stands, {**body, "front": way["front"], "back": way["back"]}, token)
        assert status == 409 and "not the one shown" in answer["error"]  # a setting the supervisor was not shown
        assert Events.BANKER_SET not in [r["event"] for r in records(d.audit.folder)]
        assert call(opener, stands, body, token) == (200, {"ok": True})
        stood = records(d.audit.folder)[-1]
        assert (stood["event"], stood["who"]) == (Events.BANKER_SET, f"supervisor {SUPERVISOR}")
        assert (stood["data"]["set_by"], stood["data"]["reason"]) == ("dealer", body["reason"])
        assert (stood["data"]["front"], stood["data"]["back"]) == (front, back)
        assert any(r["event"] == Events.SUPERVISOR_REFUSED for r in records(d.audit.folder))  # the wrong PIN
        state = served_in_phase(opener, base, "set")
        assert (state["banker"]["set_by"], state["dealer"]["step"]) == ("dealer", "seats")
        status, answer = call(opener, stands, body, token)
        assert status == 409 and "no setting of the banker's hand is held" in answer["error"]  # once only
        assert d.loop.press("confirm") == ""
        settled = records(d.audit.folder)[-1]["data"]["settlement"]
        assert any("settled as laid (set_by: dealer)" in note for note in settled["notes"])
        view = call(opener, f"{base}/api/rounds/{round_id}/dispute")[1]
        assert view["banker"]["set_accepted"]["who"] == f"supervisor {SUPERVISOR}"
        assert (view["banker"]["front"], view["banker"]["set_reason"]) == (front, body["reason"])
    finally:
        table.close()


class DealtTable:
    """The dealer's loop, its screen and a logged-in supervisor on one dashboard (two clients, as two
    devices), with the history index the shift page reads."""

    def __init__(self, folder: Path):
        self.dealer, self.log = Dealer(folder / "log"), folder / "log"
        self.index = Index(folder / "index.sqlite")
        self.dealer.table.listeners.append(self.index.add)
        app = create_app(self.dealer.live, RULES, self.dealer.table, secret_key=b"k" * 32, dealer=self.dealer.loop,
                         index=self.index, audit=self.dealer.audit)
        self.screen, self.supervisor = app.test_client(), app.test_client()
        self.screen_token = self.screen.get("/api/dealer").get_json()["csrf"]
        self.token = self.supervisor.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
        self.rounds = 0

    def press(self, button: str):
        return self.screen.post("/api/dealer/press", json={"button": button},
                                headers={"X-CSRF-Token": self.screen_token})

    def open_round(self) -> None:
        """Seat 2 wagers 25; NEXT and the RNG's value: the banker's hand is read next."""
        self.rounds += 1
        if self.rounds == 1:
            self.screen.post("/api/dealer/bets", json={"bets": [{"seat": 2, "wager": "25"}]},
                             headers={"X-CSRF-Token": self.screen_token})
        assert self.press("next").status_code == 200
        self.dealer.loop.start_value("rng", RngResult(self.rounds, 3))

    def confirm(self, zones: dict) -> None:
        self.dealer.look(zones)
        answer = self.press("confirm")
        assert answer.status_code == 200 and not self.dealer.loop.message and self.dealer.table.held is None

    def correct(self, round_id: str, **correction):
        return self.supervisor.post(f"/api/rounds/{round_id}/correct", json={"pin": PIN, **correction},
                                    headers={"X-CSRF-Token": self.token})

    def seen(self) -> dict:
        """What the replay, the export and the shift page say of the log."""
        every_day = export_csv(self.log, KEY, dt.date(2000, 1, 1), dt.date(2999, 12, 31))
        return {"replay": replay(self.log, KEY), "export": every_day.text,
                "shift": self.supervisor.get("/api/shift").get_json()}


@pytest.fixture()
def dealt(tmp_path):
    table = DealtTable(tmp_path)
    yield table
    table.index.close()


def test_a_refused_correction_records_nothing_and_the_table_deals_on(dealt):
    """The banker's As put in seat 2's hand: refused (409) before anything is signed. The log has no
    correction; the replay, the export and the shift page still see round t-1 settled and paid; NEXT
    and CONFIRM deal the next round."""
    dealt.open_round()
    dealt.confirm({"banker": BANKER})
    dealt.confirm(SEAT2)
    before, logged = dealt.seen(), list(records(dealt.log))
    assert before["replay"]["settled"] == 1 and before["shift"]["rounds_settled"] == 1
    refused = dealt.correct("t-1", reason="seat 2 held the As", seat=2, front=["As", "Jd"], back=SEAT2["seat2.back"])
    assert refused.status_code == 409 and "card As appears twice" in refused.get_json()["error"]
    assert list(records(dealt.log)) == logged
    assert dealt.seen() == before
    dealt.open_round()
    assert dealt.dealer.table.current.round_id == "t-2"
    dealt.confirm({"banker": BANKER})
    dealt.confirm(SEAT2)
    assert dealt.dealer.table.current.phase is Phase.SETTLED
    assert dealt.seen()["replay"] == {**before["replay"], "rounds": 2, "settled": 2}


def test_a_banker_corrected_to_six_cards_is_refused_and_the_seats_still_settle(dealt):
    """A correction while the seats are read, before any is recorded: a banker's hand of six cards would
    be signed and then refused by every settlement (CONFIRM wedged). Refused first; a right one is taken."""
    dealt.open_round()
    dealt.confirm({"banker": BANKER})
    logged = list(records(dealt.log))
    refused = dealt.correct("t-1", reason="the 2c was not his", seat="banker", cards=BANKER[:6])
    assert refused.status_code == 409 and "holds 6 cards, not seven" in refused.get_json()["error"]
    assert list(records(dealt.log)) == logged
    assert dealt.correct("t-1", reason="the 2c was the 2h", seat="banker", cards=[*BANKER[:6], "2h"]).status_code == 200
    dealt.confirm(SEAT2)
    assert dealt.dealer.table.current.phase is Phase.SETTLED
    assert dealt.seen()["replay"]["differences"] == []


@pytest.mark.parametrize("house, refused, taken, says", [
    ("capitol", {"value": 3}, {"dice": [1, 1, 1]}, "Capitol Casino: this house starts with the dice cup"),
    ("safari", {"dice": [2, 5, 6]}, {"value": 3}, "Safari Casino (Atlantic City rules): this house starts with an "
                                                  "electronic device, not dice"),
    ("general", {"value": 13}, {"dice": [2, 5, 6]}, "RNG value 13 is out of range 1-7"),
])
def test_a_supervisors_manual_start_value_is_by_the_houses_method(tmp_path, house, refused, taken, says):
    """The device is down: the supervisor enters the start value as the house's method gives it (Capitol rule
    14, "the value of the dice cup": the three dice; Safari's device: an RNG value 1-7), never a bare dice
    total. Another method is refused (409) and records nothing; the house's own starts the round."""
    from appliance.config import load_house

    rules = load_house(house)
    dealer = Dealer(tmp_path / "log", rules=rules)
    app = create_app(dealer.live, rules, dealer.table, secret_key=b"k" * 32, dealer=dealer.loop)
    client = app.test_client()
    token = client.post("/login", json={"supervisor": SUPERVISOR, "pin": PIN}).get_json()["csrf"]
    banker = 4 if house == "capitol" else "dealer"
    dealer.loop.set_bets([{"seat": 2, "wager": "25"}], banker, "100" if banker == 4 else None)
    dealer.loop.press("next")
    logged = list(records(tmp_path / "log"))
    start = "/api/rounds/t-1/start"
    answer = client.post(start, json={"pin": PIN, **refused}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 409 and says in answer.get_json()["error"]
    assert list(records(tmp_path / "log")) == logged
    answer = client.post(start, json={"pin": PIN, "dice": [1, 2]}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 400 and answer.get_json()["error"].startswith("dice: expected three dice")
    answer = client.post(start, json={"pin": PIN, **taken}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 200, answer.get_json()
    started = records(tmp_path / "log")[-1]
    assert (started["event"], started["who"], started["data"]["source"]) == (Events.START_SEAT, "supervisor 1042",
                                                                              "manual")
    assert started["data"]["dice"] == taken.get("dice") and dealer.loop.step.value == "banker"
