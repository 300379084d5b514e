"""TLS for the floor network: `appliance tls selfsigned` makes a pair and shows its fingerprint; the
dashboard served over TLS (Python's ssl) sends HSTS and Secure cookies, the event stream included;
plain HTTP off loopback is refused before anything starts."""

import hashlib
import http.client
import json
import shutil
import ssl
import subprocess
import sys

from settled_table import PIN, RULES, SUPERVISOR, settled_table

from appliance.table.live import LiveTable
from appliance.table.round import Events
from appliance.web.app import create_app
from appliance.web.front import TlsFiles
from appliance.web.serving import serve_dashboard


def selfsigned(config, *names):
    return subprocess.run([sys.executable, "-m", "appliance", "tls", "selfsigned", "--config", str(config),
                           *[a for n in names for a in ("--name", n)]], capture_output=True, text=True)


def test_a_self_signed_pair_and_its_fingerprint(tmp_path):
    made = selfsigned(tmp_path, "table7.floor", "10.20.0.17")
    assert made.returncode == 0, made.stderr
    out = json.loads(made.stdout)
    der = ssl.PEM_cert_to_DER_cert((tmp_path / "tls" / "dashboard.crt").read_text())
    assert out["sha256"] == ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())
    assert out["sha256"] in made.stderr
    assert (tmp_path / "tls" / "dashboard.key").stat().st_mode & 0o777 == 0o600
    again = selfsigned(tmp_path, "table7.floor")
    assert again.returncode == 2 and "--force" in again.stderr


def test_served_over_tls_with_hsts_secure_cookies_and_the_stream(tmp_path):
    assert selfsigned(tmp_path, "localhost").returncode == 0
    cert, key = tmp_path / "tls" / "dashboard.crt", tmp_path / "tls" / "dashboard.key"
    live = LiveTable()
    table, _ = settled_table(tmp_path / "log", b"t" * 64, [live])
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, table, site=site), live,
                                tls=TlsFiles(cert, key))
    client = ssl.create_default_context(cafile=str(cert))
    try:
        assert dashboard.url.startswith("https://")

        def connect():
            return http.client.HTTPSConnection("127.0.0.1", dashboard.site.port, context=client, timeout=10)

        connection = connect()
        connection.request("POST", "/login", body=json.dumps({"supervisor": SUPERVISOR, "pin": PIN}),
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Strict-Transport-Security").startswith("max-age=")
        assert "Secure" in response.getheader("Set-Cookie") and "HttpOnly" in response.getheader("Set-Cookie")
        response.read()
        connection.close()
        stream = connect()
        stream.request("GET", "/events")
        events = stream.getresponse()
        assert events.status == 200 and events.getheader("Strict-Transport-Security")
        live({"seq": 9, "event": Events.TABLE_HELD, "data": {"round": None, "reason": "tls"}})
        while (line := events.fp.readline()) != b"event: TableHeld\n":
            assert line, "the stream ended"
        stream.close()
        plain = http.client.HTTPConnection("127.0.0.1", dashboard.site.port, timeout=5)  # no TLS: no answer
        try:
            plain.request("GET", "/api/state")
            assert plain.getresponse().status != 200
        except (ConnectionError, http.client.HTTPException):
            pass
        finally:
            plain.close()
    finally:
        dashboard.stop()


def test_plain_http_off_loopback_is_refused_before_anything_starts(tmp_path):
    appliance = shutil.which("appliance") or sys.executable
    args = [] if appliance != sys.executable else ["-m", "appliance"]
    run = subprocess.run([appliance, *args, "run", "--simulate", "--host", "0.0.0.0", "--port", "0",
                          "--data", str(tmp_path / "data")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--insecure-http" in run.stderr
    assert not (tmp_path / "data" / "audit").exists()
