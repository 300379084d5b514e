"""Supervisor actions over HTTP: refused without a session (401) or CSRF token (403); a correction
lands in the audit log with the supervisor and the reason."""

import pytest
from settled_table import CORRECTION as BASE_CORRECTION
from settled_table import PIN, RULES, settled_table

from appliance.audit.log import records
from appliance.table.live import LiveTable
from appliance.table.round import Events
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


def test_a_wrong_pin_on_an_action_is_refused_and_the_session_expires(setup):
    client, log = setup
    token = client.post("/login", json={"supervisor": "1042", "pin": "4821"}).get_json()["csrf"]
    bad = client.post("/api/rounds/r1/void", json={"pin": "9999", "reason": "x"}, headers={"X-CSRF-Token": token})
    assert bad.status_code == 403
    with client.session_transaction() as s:
        s["expires"] = 0
    late = client.post("/api/rounds/r1/void", json={"pin": "4821", "reason": "x"}, headers={"X-CSRF-Token": token})
    assert late.status_code == 401


def test_the_dealer_view_cannot_change_money(setup):
    client, _ = setup
    for path in ("/api/state", "/api/rounds"):
        assert client.post(path).status_code == 405
