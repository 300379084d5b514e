"""Paired screens survive a real restart of the appliance (`appliance run`, as the service runs it),
and so does a revocation. Every request goes to loopback, where the appliance's own screen needs no
pairing: which screen asks is what ``/api/dealer`` says (a paired screen's cookie names it)."""

import http.client
import json
import re
import shutil
import sys

import pytest

from appliance.audit.log import records
from appliance.table.round import Events
from started_run import StartedRun


class Appliance:
    """``appliance run --simulate`` on a free loopback port, over the data folder ``data``."""

    def __init__(self, data):
        appliance = shutil.which("appliance")
        command = [appliance] if appliance else [sys.executable, "-m", "appliance"]
        self.run = StartedRun([*command, "run", "--simulate", "--data", str(data), "--pace", "0.2"])
        self.port = self.run.port
        self.pin = re.search(r"supervisor id demo, PIN (\d+)", self.run.said()).group(1)
        self.cookies: dict[str, str] = {}

    def ask(self, method, path, body=None, csrf=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if csrf:
            headers["X-CSRF-Token"] = csrf
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = connection.getresponse()
            for cookie in response.msg.get_all("Set-Cookie") or []:
                name, _, value = cookie.split(";")[0].partition("=")
                self.cookies[name] = value
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def login(self) -> str:
        status, answer = self.ask("POST", "/login", {"supervisor": "demo", "pin": self.pin})
        assert status == 200, answer
        return answer["csrf"]

    def stop(self):
        assert self.run.stop() == 0, self.run.said()[-2000:]


@pytest.mark.slow
def test_a_paired_screen_and_its_revocation_survive_a_restart(tmp_path):
    data = tmp_path / "data"
    first = Appliance(data)
    try:
        status, prompt = first.ask("GET", "/api/dealer")
        assert status == 200 and prompt["screen"] == "dealer (screen)"
        status, answer = first.ask("POST", "/api/dealer/pairing-code", {}, csrf=prompt["csrf"])
        assert status == 200, answer
        status, answer = first.ask("POST", "/api/pair", {"code": answer["code"], "name": "side screen"})
        assert status == 200, answer
        screen = f"dealer (screen side screen, {answer['paired']['id']})"
        assert first.ask("GET", "/api/dealer")[1]["screen"] == screen
    finally:
        first.stop()
    token = first.cookies["screen"]
    kept = data / "paired-screens.json"
    assert kept.stat().st_mode & 0o777 == 0o640 and token not in kept.read_text()

    second = Appliance(data)
    try:
        second.cookies["screen"] = token  # the same device, after the restart
        assert second.ask("GET", "/api/dealer")[1]["screen"] == screen
        csrf = second.login()
        listed = second.ask("GET", "/api/screens")[1]
        assert [s["name"] for s in listed] == ["side screen"]
        status, answer = second.ask("POST", f"/api/screens/{listed[0]['id']}/revoke",
                                    {"pin": second.pin, "reason": "tablet lost"}, csrf=csrf)
        assert status == 200, answer
        assert second.ask("GET", "/api/dealer")[1]["screen"] == "dealer (screen)"  # the cookie opens nothing
    finally:
        second.stop()

    third = Appliance(data)
    try:
        third.cookies["screen"] = token
        assert third.ask("GET", "/api/dealer")[1]["screen"] == "dealer (screen)"
        third.login()
        assert third.ask("GET", "/api/screens")[1] == []
    finally:
        third.stop()
    logged = [r["event"] for r in records(data / "audit") if r["event"].startswith("Screen")]
    assert logged == [Events.SCREEN_PAIRING_CODE, Events.SCREEN_PAIRED, Events.SCREEN_REVOKED]
