"""The floor's door, as a stranger on the floor network tries it: the pit needs a login and each role
sees its part; wrong passwords are slowed; a foreign Host or Origin is refused; a body over the limit
is refused before it is read, and so is a table's request with a wrong token; slow clients do not stop
the pit or the tables' ingest; off loopback the floor is served over TLS or not at all; logins are
recorded; the door's process and the floor's stop together."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import psycopg
import pytest

from appliance.floor.door import DoorLimits
from appliance.floor.server import BODY_LIMIT
from appliance.floor.shipper import Shipper
from appliance.web.certificate import make_self_signed
from appliance.web.front import TlsFiles
from floor_helpers import PASSWORD, enrolled, floor_service, logged_in, migrated, seen, table_log, user, users
from started_run import StartedRun


@pytest.fixture(scope="module")
def floor(postgres, tmp_path_factory):
    dsn = users(migrated(postgres.create_database("floor_door")))
    folder = tmp_path_factory.mktemp("door")
    with floor_service(dsn, limits=DoorLimits(BODY_LIMIT, head_timeout_s=2)) as url:
        yield dsn, url, folder


def status(url: str, opener=None, **request) -> int:
    try:
        with (opener or urllib.request.build_opener()).open(urllib.request.Request(url, **request), timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def raw(url: str, head: str, body: bytes = b"", source: str = "127.0.0.1") -> socket.socket:
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10, source_address=(source, 0))
    sock.sendall(head.replace("\n", "\r\n").encode() + body)
    return sock


def answer_status(sock: socket.socket) -> int:
    line = sock.makefile("rb").readline()
    return int(line.split()[1])


def test_the_pit_needs_a_login_and_each_role_sees_its_part(floor):
    _, url, _ = floor
    assert status(f"{url}/api/floor/tables") == 401
    assert status(f"{url}/api/floor/tables/T1/recall") == 401
    assert status(f"{url}/api/floor/report/2026-01-01.csv") == 401
    no_redirects = urllib.request.build_opener(type("Keep", (urllib.request.HTTPRedirectHandler,),
                                                    {"redirect_request": lambda *a: None}))
    assert status(f"{url}/", no_redirects) == 303  # to the login page
    sees = {role: logged_in(url, role) for role in ("pit", "surveillance", "accounting")}
    paths = {"tables": "/api/floor/tables", "alerts": "/api/floor/alerts", "figures": "/api/floor/stats",
             "recall": "/api/floor/tables/T1/recall", "report": "/api/floor/report/2026-01-01.csv"}
    seen_by = {role: {part for part, path in paths.items() if status(url + path, opener) == 200}
               for role, opener in sees.items()}
    assert seen_by == {"pit": {"tables", "alerts", "figures"}, "surveillance": {"tables", "alerts", "recall"},
                       "accounting": {"figures", "report"}}
    pit = sees["pit"]
    assert status(f"{url}/logout", pit, method="POST") == 403  # no CSRF token: another site cannot log one out
    assert status(f"{url}/logout", pit, method="POST", headers={"X-CSRF-Token": pit.csrf}) == 200
    assert status(f"{url}/api/floor/tables", pit) == 401  # the saved cookie opens nothing now


def test_the_session_cookie_is_httponly_and_samesite_strict(floor):
    _, url, _ = floor
    request = urllib.request.Request(f"{url}/login", json.dumps({"user": "pit", "password": PASSWORD}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        cookie = answer.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie  # plain HTTP on loopback


def test_wrong_passwords_lock_the_user_at_that_address(floor):
    dsn, url, _ = floor
    users_name = user(dsn, "pit", "lockme")
    for _ in range(5):
        with pytest.raises(urllib.error.HTTPError) as err:
            logged_in(url, users_name, "not the password")
        assert err.value.code == 401
    with pytest.raises(urllib.error.HTTPError) as err:
        logged_in(url, users_name)  # the right password, too late
    assert err.value.code == 401 and "locked" in json.loads(err.value.read())["error"]
    logged_in(url, "pit")  # another user at the same address is not locked


def test_floor_user_add_takes_the_password_from_stdin_and_stores_only_a_slow_hash(floor):
    dsn, url, _ = floor

    def add(*args: str, password: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "appliance", "floor", "user", "add", *args, "--db", dsn],
                              input=password + "\n", capture_output=True, text=True, timeout=60)

    done = add("ann", "--role", "surveillance", password="ann's long password")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"user": "ann", "role": "surveillance"}
    with psycopg.connect(dsn) as conn:
        stored = conn.execute("SELECT password_hash FROM floor_users WHERE name = 'ann'").fetchone()[0]
    assert stored.startswith("scrypt$") and "ann's" not in stored
    assert status(f"{url}/api/floor/tables/T1/recall", logged_in(url, "ann", "ann's long password")) == 200
    short = add("bob", "--role", "pit", password="short")
    assert short.returncode == 2 and short.stderr.count("\n") == 1 and "10 to 256 characters" in short.stderr
    again = add("ann", "--role", "pit", password="another long password")
    assert again.returncode == 2 and "exists already" in again.stderr


def test_a_foreign_host_or_origin_is_refused(floor):
    _, url, _ = floor
    port = urllib.parse.urlsplit(url).port
    login = json.dumps({"user": "pit", "password": PASSWORD}).encode()
    assert status(f"{url}/login", headers={"Host": f"evil.example:{port}"}) == 400  # DNS rebinding
    assert status(f"{url}/login", data=login, headers={"Content-Type": "application/json",
                                                        "Origin": "http://evil.example"}) == 403
    assert status(f"{url}/login", data=login, headers={"Content-Type": "application/json",
                                                        "Origin": f"http://127.0.0.1:{port}"}) == 200


def test_a_body_over_the_limit_is_refused_before_it_is_read(floor):
    _, url, _ = floor
    started = time.monotonic()
    sock = raw(url, "POST /api/floor/ingest HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
                    f"Content-Length: {10**9}\n\n")  # 1 GB announced (under waitress's own 1 GiB), none sent
    with sock:
        assert answer_status(sock) == 413 and time.monotonic() - started < 2


def test_a_chunked_body_is_refused_before_it_is_read(floor):
    _, url, _ = floor
    sock = raw(url, "PUT /api/floor/images/00 HTTP/1.1\nHost: 127.0.0.1\nTransfer-Encoding: chunked\n\n")
    chunk = b"%x\r\n" % (1 << 20) + bytes(1 << 20) + b"\r\n"
    sent = 0
    with sock:
        try:
            while sent < 4 * BODY_LIMIT:  # the old floor spooled all of it (up to 1 GB) before answering
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the floor stopped taking it
        assert answer_status(sock) == 411  # no Content-Length, no body: the shipper and browsers send one
    assert sent < BODY_LIMIT


def test_110_slow_clients_do_not_stop_the_pit_or_the_tables_ingest(floor):
    dsn, url, folder = floor
    port = urllib.parse.urlsplit(url).port
    credentials = enrolled(dsn, "SLOW1", folder)
    audit_dir = table_log(folder, credentials, rounds=2)
    slow = []
    try:
        for n in range(110):  # strangers on four addresses, each sending half a request head and waiting
            sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(f"127.0.0.{2 + n % 4}", 0))
            sock.sendall(b"GET /api/floor/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)
        started = time.monotonic()
        assert json.loads(seen(f"{url}/api/floor/tables")) is not None
        with Shipper(audit_dir, url, credentials) as shipper:
            assert shipper.ship_pending().pending == 0
        assert time.monotonic() - started < 3
        time.sleep(2.5)  # past the head timeout: the door has closed them
        assert all(s.recv(1) == b"" for s in slow)
    finally:
        for sock in slow:
            sock.close()


def test_off_loopback_plain_http_is_refused_in_one_line(floor):
    dsn, _, _ = floor
    done = subprocess.run([sys.executable, "-m", "appliance", "floor", "serve", "--db", dsn, "--host", "0.0.0.0",
                           "--port", "0"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--tls-cert" in done.stderr and "--tls-proxy" in done.stderr


def test_over_tls_the_floor_answers_https_and_the_cookie_is_secure(floor, tmp_path):
    dsn, _, _ = floor
    made = make_self_signed(tmp_path, ["floor.test"])
    with floor_service(dsn, tls=TlsFiles(made.cert, made.key)) as url:
        assert url.startswith("https://")
        context = ssl.create_default_context(cafile=str(made.cert))
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, context=context, timeout=10)
        conn.request("POST", "/login", json.dumps({"user": "pit", "password": PASSWORD}),
                     {"Content-Type": "application/json"})
        answer = conn.getresponse()
        assert answer.status == 200 and "Secure" in answer.headers["Set-Cookie"]
        assert answer.headers["Strict-Transport-Security"]
        conn.close()


def login_from(url: str, address: str, name: str, password: str) -> tuple[int, dict, str | None]:
    """POST /login from ``address``: the status, the answer and the session cookie."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10, source_address=(address, 0))
    conn.request("POST", "/login", json.dumps({"user": name, "password": password}), {"Content-Type": "application/json"})
    answer = conn.getresponse()
    body, cookie = json.loads(answer.read()), answer.headers.get("Set-Cookie")
    conn.close()
    return answer.status, body, cookie and cookie.split(";")[0]


def test_logins_failures_lockouts_and_logouts_are_recorded_with_who_where_and_when(floor):
    dsn, url, _ = floor
    name = user(dsn, "pit", "audited")
    started = time.time()
    status_, answer, cookie = login_from(url, "127.0.0.9", name, PASSWORD)
    assert status_ == 200
    assert status(f"{url}/logout", method="POST", headers={"Cookie": cookie, "X-CSRF-Token": answer["csrf"]}) == 200  # from .1
    outcomes = [login_from(url, "127.0.0.9", name, "not the password")[0] for _ in range(6)]
    assert outcomes == [401] * 6
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT name, address, outcome, role, reason, extract(epoch FROM at) FROM floor_logins "
                            "WHERE name = %s ORDER BY id", (name,)).fetchall()
    assert [r[:4] for r in rows] == [(name, "127.0.0.9", "success", "pit"), (name, "127.0.0.1", "logout", "pit"),
                                     *[(name, "127.0.0.9", "failure", None)] * 4,
                                     (name, "127.0.0.9", "lockout", None), (name, "127.0.0.9", "lockout", None)]
    assert rows[2][4] == "unknown user or wrong password" and "locked for" in rows[6][4] and "locked for" in rows[7][4]
    assert all(started - 1 <= r[5] <= time.time() + 1 for r in rows)


def test_a_table_request_with_an_unknown_table_or_wrong_token_is_refused_before_its_body_is_read(floor):
    dsn, url, folder = floor
    credentials = enrolled(dsn, "TOKEN1", folder)
    for table, token in (("NOSUCH", "x"), ("TOKEN1", "not its token"), ("TOKEN1", "")):
        started = time.monotonic()
        sock = raw(url, f"POST /api/floor/ingest HTTP/1.1\nHost: 127.0.0.1\nX-Floor-Table: {table}\n"
                        f"Authorization: Bearer {token}\nContent-Type: application/json\nContent-Length: {BODY_LIMIT}\n\n")
        with sock:  # a body within the limit announced, none sent: the old floor waited for it all
            assert answer_status(sock) == 401 and time.monotonic() - started < 2
    with Shipper(table_log(folder, credentials, rounds=1), url, credentials) as shipper:  # its own token ships
        assert shipper.ship_pending().pending == 0


def started_floor(dsn: str) -> StartedRun:
    return StartedRun([sys.executable, "-m", "appliance", "floor", "serve", "--db", dsn], "floor")


def gone(pid: int) -> bool:
    try:  # a process whose parent was killed may wait as a zombie for a reaper: gone all the same
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(done, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    return done()


def test_the_door_killed_stops_the_floor_service_with_exit_status_1_for_systemd_to_restart(floor):
    dsn, _, _ = floor
    service = started_floor(dsn)
    assert status(f"{service.address}api/floor/day") == 200
    door = service.printed["door_pid"]
    os.kill(door, signal.SIGKILL)
    service.proc.wait(timeout=15)  # it ends by itself
    assert service.stop() == 1
    assert service.said().strip().endswith("the floor stopped") and f"door (pid {door})" in service.said()


def test_the_floor_stopped_or_killed_ends_its_door(floor):
    dsn, _, _ = floor
    service = started_floor(dsn)
    exit_status = service.stop(signal.SIGTERM)  # systemd's stop: both go, the floor saying nothing failed
    assert exit_status == 0 and wait_until(lambda: gone(service.printed["door_pid"]))
    service = started_floor(dsn)
    service.stop(signal.SIGKILL)
    assert wait_until(lambda: gone(service.printed["door_pid"]))  # its feed ended
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", service.port), timeout=2)
