"""The dashboard's front under load and abuse: open event streams cost no request thread, a viewer
that stops reading is dropped without slowing the table, idle connections are closed, a client
holding streams by the hundred is capped while the state, the watchdog's probe and the dealer's
screens are answered, and a client cannot pass itself off as the appliance's own screen.

Strangers connect from loopback addresses other than 127.0.0.1 (Linux answers all of 127.0.0.0/8
on loopback): to the front they are other hosts, and 127.0.0.1 is the appliance's own screen."""

import http.client
import json
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from dealer_table import Dealer
from hypothesis import given, settings
from hypothesis import strategies as st
from served import dashboard_serving

from appliance.audit.log import AuditLog, records
from appliance.config import load_house, read_toml
from appliance.heartbeats import Heartbeats, Probe, http_probe
from appliance.table.live import LiveTable
from appliance.table.round import Events
from appliance.table.table import Table
from appliance.web.app import create_app
from appliance.web.front import BadHead, FrontLimits, parse_head
from appliance.web.serving import serve_dashboard

RULES = load_house("general")


def open_stream(port, source="127.0.0.1"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.status == 200 and response.fp.readline() == b"retry: 2000\n"
    response.fp.readline()
    return connection, response


def next_event(response):
    while True:
        line = response.fp.readline()
        if line.startswith(b"event: ") and line != b"event: heartbeat\n":
            return line[7:].strip().decode()


def wait_for(condition, timeout=5.0):
    """True once ``condition()`` holds (the front's process reports its counts within 50 ms)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def held(live, n):
    live({"seq": n, "event": Events.TABLE_HELD, "data": {"round": None, "reason": f"test {n}"}})


def test_fifty_open_streams_do_not_stop_the_state_from_answering():
    live = LiveTable()
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live) as base:
        port = int(base.rsplit(":", 1)[1])
        streams = [open_stream(port, f"127.0.1.{n}") for n in range(1, 51)]  # fifty devices
        for _ in range(20):  # answered (its latency under load is bench/dashboard_load.py's goal)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/state")
            assert connection.getresponse().status == 200
            connection.close()
        held(live, 1)
        assert {next_event(response) for _, response in streams} == {Events.TABLE_HELD}
        for connection, _ in streams:
            connection.close()


def test_heartbeat_events_come_on_a_stream_with_nothing_else_to_say():
    """Every ``heartbeat_s``, a second by default (the dealer's screen says the appliance is lost after
    two seconds without one); the stream's own timeout only stops a hang."""
    live = LiveTable()
    assert FrontLimits().heartbeat_s <= 1.0
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live) as base:
        connection, response = open_stream(int(base.rsplit(":", 1)[1]))
        heard = [response.fp.readline(), response.fp.readline(), response.fp.readline()]
        assert heard == [b"event: heartbeat\n", b"data: {}\n", b"\n"]
        assert response.fp.readline() == b"event: heartbeat\n"  # and again
        connection.close()


def test_a_viewer_that_stops_reading_is_dropped_and_the_table_never_waits():
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, site=site), live)
    slow = reader = None
    try:
        slow = socket.create_connection(("127.0.0.1", dashboard.site.port))
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % dashboard.site.port)
        reader, response = open_stream(dashboard.site.port)
        received = []

        def listen():
            while not received or received[-1] != "Last":
                received.append(next_event(response))

        listening = threading.Thread(target=listen)
        listening.start()
        time.sleep(0.3)
        for n in range(3000):  # the slow viewer reads nothing: its buffers and queue fill up
            # the table's side only hands events over, whoever is slow: never a wait, never a full queue
            dashboard.front.put_nowait({"seq": n, "event": "Flood", "round": "x" * 500})
            if n % 16 == 15:
                time.sleep(0.003)
        dashboard.front.put_nowait({"seq": None, "event": "Last", "round": None})
        listening.join(10)
        assert wait_for(lambda: (dashboard.front.dropped, dashboard.front.viewers) == (1, 1)), (dashboard.front.dropped, dashboard.front.viewers, len(received))
        assert received == ["Flood"] * 3000 + ["Last"]  # a viewer that keeps up keeps its stream
    finally:
        for sock in (slow, reader):
            if sock is not None:
                sock.close()
        dashboard.stop()


def test_a_connection_that_sends_no_request_is_closed():
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, site=site), live,
                                limits=FrontLimits(head_timeout_s=0.5))
    try:
        idle = socket.create_connection(("127.0.0.1", dashboard.site.port))
        idle.settimeout(5)
        idle.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        assert idle.recv(100) == b""  # closed by the front (the socket's 5 s would raise a timeout instead)
        idle.close()
    finally:
        dashboard.stop()


def test_a_client_that_sends_on_after_its_refusal_reads_it_and_is_then_cut_off():
    """A refused upload still reads its 413 (what it sends meanwhile is taken and thrown away, so
    its connection is not reset under the answer), and one that never stops sending is cut off
    once the linger is over."""
    live = LiveTable()
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live,
                           limits=FrontLimits(linger_s=1.0)) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"POST /login HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 99999999\r\n\r\n" % port)
            began, sent = time.monotonic(), 0
            with pytest.raises((BrokenPipeError, ConnectionResetError)):
                while time.monotonic() - began < 10:
                    sent += sock.send(b"x" * 65536)
            cut_after = time.monotonic() - began
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 413") and b"at most 65536" in answer
        assert sent > 10 * 1024 * 1024 and cut_after >= 1.0  # not before the linger; cut off within the 10 s above


def test_connections_past_the_limit_are_closed_at_once_and_the_rest_still_served():
    """Past the cap on connections (3 here) and past one address's (2 here) a stranger's connection is
    closed unanswered at once; the appliance's own address is answered meanwhile, from the room kept
    for it (the watchdog's probe asks there)."""
    live = LiveTable()
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live,
                           limits=FrontLimits(connections=3, connections_per_address=2, head_timeout_s=10.0)) as base:
        port = int(base.rsplit(":", 1)[1])
        state = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
                for source in ("127.0.0.2", "127.0.0.2", "127.0.0.3")]
        try:
            for source in ("127.0.0.2", "127.0.0.4"):  # past its address's cap; past the cap in all
                assert dropped(port, source, state)
            assert answer_to(port, state).startswith(b"HTTP/1.1 200")  # the appliance's own address
        finally:
            for sock in idle:
                sock.close()
        time.sleep(0.2)
        assert answer_to(port, state, source="127.0.0.4").startswith(b"HTTP/1.1 200")


def dropped(port, source, request, within_s=15.0) -> bool:
    """A connection from ``source`` is closed unanswered (reset, not kept for the head timeout), once
    the front has taken the connections made before it: it takes them as it gets to them, which on a
    busy machine is not at once (an earlier one answered meanwhile: asked again)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as late:
            late.sendall(request)
            try:
                late.recv(100)
            except ConnectionResetError:
                return True
            except TimeoutError:
                pass
        time.sleep(0.2)
    return False


def ask_for_stream(port, source, cookie=None):
    """Ask for an event stream from ``source``: (the socket, held open, or None), the status (None when the
    connection was closed unanswered), and a refusal's reason."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n"
                 % (port, f"Cookie: screen={cookie}\r\n".encode() if cookie else b""))
    answer = b""
    try:
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
        if answer.startswith(b"HTTP/1.1 200"):
            return sock, 200, None
        while chunk := sock.recv(4096):  # a refusal is closed at once, once answered
            answer += chunk
    except ConnectionResetError:
        pass
    sock.close()
    if not answer:
        return None, None, None
    return None, int(answer.split(b" ", 2)[1]), json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]


class Answering:
    """The state and the watchdog's probe asked for from the appliance's own screen, as the dealer's
    screen and the watchdog ask: each answer's status and time, and whether the web server's heart
    (what the watchdog's pings rest on) ever went stale."""

    def __init__(self, port):
        self.port, self.asked, self.missed = port, [], False
        self.hearts = Heartbeats(stale_after=1.0)
        self.probe = Probe("web", http_probe(f"http://127.0.0.1:{port}/healthz", timeout=2.0), every=0.1)
        self.probe.on_beat = self.hearts.watch("web")
        self.probe.start()

    def ask(self):
        for path in ("/api/state", "/healthz"):
            start = time.perf_counter()
            try:
                status = http_status(self.port, path, timeout=2)
            except OSError as err:
                status = type(err).__name__
            self.asked.append((path, status, round(time.perf_counter() - start, 3)))
        self.missed = self.missed or not self.hearts.healthy()

    def keep_asking(self, seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self.ask()
            time.sleep(0.1)

    def stop(self):
        self.probe.stop()
        assert not self.missed, "the watchdog would have missed: /healthz went unanswered for over 1 s"
        assert all(status == 200 and took < 1.0 for _, status, took in self.asked), self.asked


def test_one_address_holding_hundreds_of_streams_is_capped_and_the_state_and_health_still_answer():
    """One client asks for 300 event streams (the front keeps 200 connections for requests here): it
    holds 16 and is refused the rest in words, each refusal closed at once; meanwhile the state and
    /healthz are answered within 1 s, and the watchdog's probe never goes stale."""
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, RULES, site=site), live,
                                limits=FrontLimits(connections=200))
    port, held = dashboard.site.port, []
    answering = Answering(port)
    try:
        refusals = []
        for n in range(300):
            sock, status, reason = ask_for_stream(port, "127.0.0.2")
            (held if sock else refusals).append(sock or (status, reason))
            if n % 25 == 0:
                answering.ask()
        answering.keep_asking(2.0)  # while the client holds its streams
        assert len(held) == 16
        assert refusals == [(429, "this address holds 16 event streams already, the most one may: close "
                                  "another page of the dashboard first")] * 284
        assert wait_for(lambda: (dashboard.front.viewers, dashboard.front.refused) == (16, 284))
        held.append(open_stream(port)[0])  # the appliance's own screen still gets its stream
    finally:
        for sock in held:
            sock.close()
        dashboard.stop()
    answering.stop()


def pair_a_screen(port) -> str:
    """Pair a screen through the dashboard, as the appliance's own screen and the new one do; its token."""
    cookies = {}

    def ask(method, path, body=None, csrf=""):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers={
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()), "X-CSRF-Token": csrf,
            "Content-Type": "application/json"})
        response = connection.getresponse()
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";")[0].partition("=")
            cookies[name] = value
        answer = json.loads(response.read())
        connection.close()
        assert response.status == 200, answer
        return answer

    csrf = ask("GET", "/api/dealer")["csrf"]
    code = ask("POST", "/api/dealer/pairing-code", {}, csrf=csrf)["code"]
    ask("POST", "/api/pair", {"code": code, "name": "side screen"})
    return cookies["screen"]


@pytest.mark.slow
def test_past_the_streams_cap_strangers_are_refused_and_the_dealers_screens_still_get_theirs(tmp_path):
    """Strangers fill the front's streams (40 in all here; 200 connections kept for requests): the next
    stranger is refused with a 503 in words, while the appliance's own screen and a paired screen, even
    on an address whose streams are used up, still get theirs, and the state and /healthz answer."""
    dealer = Dealer(tmp_path / "log")
    make = lambda site: create_app(dealer.live, dealer.table.rules, dealer.table, dealer=dealer.loop, site=site)  # noqa: E731
    limits = FrontLimits(connections=200, streams=40)
    dashboard = serve_dashboard(make, dealer.live, limits=limits)
    port, held = dashboard.site.port, []
    answering = Answering(port)
    try:
        token = pair_a_screen(port)
        time.sleep(limits.heartbeat_s + 0.5)  # the front learns of a pairing with the next heartbeat at the latest
        statuses = []
        for n in range(240):  # 15 strangers asking for 16 streams each
            sock, status, _ = ask_for_stream(port, f"127.0.1.{n // 16 + 1}")
            held += [sock] if sock else []
            statuses.append(status)
            if n % 25 == 0:
                answering.ask()
        assert statuses == [200] * 40 + [503] * 200
        sock, status, reason = ask_for_stream(port, "127.0.2.1")
        assert (status, reason) == (503, "the dashboard serves 40 event streams already, the most it serves: "
                                         "try again later")
        assert ask_for_stream(port, "127.0.1.1")[1] == 429  # that address holds 16 already
        for source, cookie in (("127.0.1.1", token), ("127.0.0.1", None)):  # the paired screen, the appliance's own
            sock, status, reason = ask_for_stream(port, source, cookie)
            assert status == 200, (source, status, reason)
            held.append(sock)
        answering.keep_asking(1.5)
    finally:
        for sock in held:
            sock.close()
        dashboard.stop()
    answering.stop()


def test_a_forwarded_for_header_from_a_client_is_not_believed(tmp_path):
    live = LiveTable()
    table = Table(RULES, read_toml(RULES.source), AuditLog(tmp_path / "log", b"f" * 64), {}, listeners=[live])
    with dashboard_serving(lambda site: create_app(live, RULES, table, site=site), live) as base:
        host, port = base.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("POST", "/login", body=b'{"supervisor": "x", "pin": "1"}',
                           headers={"Content-Type": "application/json", "X-Forwarded-For": "10.9.9.9",
                                    "Forwarded": "for=10.9.9.9"})
        assert connection.getresponse().status == 401
        connection.close()
    refused = [r for r in records(tmp_path / "log") if r["event"] == Events.SUPERVISOR_REFUSED]
    assert refused[0]["data"]["address"] == "127.0.0.1"


def test_plain_http_off_loopback_is_refused_without_insecure_http():
    live = LiveTable()
    with pytest.raises(ValueError, match="HTTPS"):
        serve_dashboard(lambda site: create_app(live, RULES, site=site), live, host="0.0.0.0")


def answer_to(port, raw: bytes, source="127.0.0.1") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as sock:
        sock.sendall(raw)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("head, why", [
    (b"POST /login HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nContent-Length: {n}\r\n", "content-length is given twice"),
    (b"GET /api/state HTTP/1.1\r\nHost: evil.example\r\nHost: {host}\r\n", "host is given twice"),
    (b"POST /login HTTP/1.1\r\nHost: {host}\r\nX-A: b\nX-Forwarded-For: 10.9.9.9\r\nContent-Length: {n}\r\n", "bare CR or LF"),
    (b"GET /api/state HTTP/1.1\r\nHost: {host}\r\nX-A: a\x00b\r\n", "control character"),
    (b"GET /api/state HTTP/1.1x\r\nHost: {host}\r\n", "is not HTTP/1.0 or HTTP/1.1"),
    (b"GET http://evil.example/api/state HTTP/1.1\r\nHost: {host}\r\n", "not a path"),
    (b"POST /login HTTP/1.1\r\nHost: {host}\r\nContent-Length: \xb2\r\n", "Content-Length is not a number"),
    (b"POST /login HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: gzip\r\nContent-Length: {n}\r\n", "without Transfer-Encoding"),
])
@pytest.mark.slow
def test_a_request_the_front_and_waitress_could_read_differently_is_refused(tmp_path, head, why):
    """Request smuggling: a second request hidden in the body, past the front's checks, would reach
    waitress from the front's own socket with the X-Forwarded-For it carries (another device passing
    itself off as the appliance's own screen)."""
    live = LiveTable()
    table = Table(RULES, read_toml(RULES.source), AuditLog(tmp_path / "log", b"f" * 64), {}, listeners=[live])
    with dashboard_serving(lambda site: create_app(live, RULES, table, site=site), live) as base:
        port = int(base.rsplit(":", 1)[1])
        login = b'{"supervisor": "x", "pin": "1"}'
        hidden = (b"POST /login HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Forwarded-For: 10.9.9.9\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (port, len(login)) + login)
        raw = head.replace(b"{host}", b"127.0.0.1:%d" % port).replace(b"{n}", b"%d" % len(hidden)) + b"\r\n" + hidden
        answer = answer_to(port, raw)
        assert answer.split(b" ", 2)[1] in (b"400", b"411") and why in json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
        assert answer.count(b"\r\n\r\n") == 1  # one answer, to one request
    assert not [r for r in records(tmp_path / "log") if r["event"] == Events.SUPERVISOR_REFUSED]


@pytest.mark.slow
def test_clients_trickling_their_headers_neither_fill_the_dashboard_nor_stay():
    """150 connections (waitress's own limit was 100) each sending a byte of its head now and then:
    the state and the requests the front passes to waitress are answered meanwhile, and each trickler
    is closed once its head has taken longer than the head timeout, however often it sent a byte."""
    live = LiveTable()
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live,
                           limits=FrontLimits(head_timeout_s=3.0)) as base:
        port = int(base.rsplit(":", 1)[1])
        tricklers = [socket.create_connection(("127.0.0.1", port)) for _ in range(150)]
        began = time.monotonic()
        for trickler in tricklers:
            trickler.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port)
        for _ in range(4):
            for trickler in tricklers:
                trickler.sendall(b"x")
            for path in ("/api/state", "/healthz"):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", path)
                assert connection.getresponse().status == 200
                connection.close()
            time.sleep(0.5)
        # trickling on past the head timeout does not keep a connection: each is closed (the 20 s stop a hang)
        trickling = list(tricklers)
        while trickling and time.monotonic() - began < 20:
            for trickler in select.select(trickling, [], [], 0.5)[0]:
                assert trickler.recv(100) == b""  # closed, no answer owed
                trickling.remove(trickler)
            for trickler in trickling:
                trickler.sendall(b"x")
        assert trickling == [] and time.monotonic() - began >= 3.0  # none before the head timeout
        for trickler in tricklers:
            trickler.close()


def test_what_the_front_answers_itself_is_guarded_as_flask_guards_and_is_flasks_state(tmp_path):
    live = LiveTable()
    held(live, 1)
    with dashboard_serving(lambda site: create_app(live, RULES, site=site), live) as base:
        port = int(base.rsplit(":", 1)[1])
        host = b"Host: 127.0.0.1:%d\r\n" % port
        for path in (b"/events", b"/api/state"):
            assert answer_to(port, b"GET %s HTTP/1.1\r\nHost: evil.example:%d\r\n\r\n" % (path, port)).startswith(
                b"HTTP/1.1 400")
            assert answer_to(port, b"GET %s HTTP/1.1\r\n%sOrigin: http://evil.example\r\n\r\n" % (path, host)).startswith(
                b"HTTP/1.1 403")
        answer = answer_to(port, b"GET /api/state HTTP/1.1\r\n" + host + b"\r\n")
        head, body = answer.split(b"\r\n\r\n", 1)
        assert b"X-Frame-Options: DENY" in head and b"X-Content-Type-Options: nosniff" in head
        assert body == create_app(live, RULES).test_client().get("/api/state").data  # one rendering of the state


def test_the_front_ends_when_the_appliance_is_killed(tmp_path):
    """A front left behind would hold the dashboard's port, and the restarted appliance could not bind it."""
    script = tmp_path / "serve.py"
    script.write_text("import sys, time\n"
                      "from appliance.config import load_house\n"
                      "from appliance.table.live import LiveTable\n"
                      "from appliance.web.app import create_app\n"
                      "from appliance.web.serving import serve_dashboard\n"
                      "live = LiveTable()\n"
                      "d = serve_dashboard(lambda site: create_app(live, load_house('general'), site=site), live)\n"
                      "print(d.site.port, d.front.process.pid, flush=True)\n"
                      "time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE)
    port, front = map(int, proc.stdout.readline().split())
    assert http_status(port, "/healthz") == 200
    proc.kill()
    proc.wait(10)
    proc.stdout.close()
    deadline = time.monotonic() + 10
    while alive(front):
        assert time.monotonic() < deadline, "the front outlived the appliance"
        time.sleep(0.05)
    with socket.create_server(("127.0.0.1", port)):  # the port is free again
        pass


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def http_status(port, path, timeout=10):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@settings(max_examples=500, deadline=None, database=None)
@given(head=st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from([b"GET /api/state HTTP/1.1", b"POST /login HTTP/1.0", b"Host: 127.0.0.1:1", b"Host: x",
                              b"Content-Length: 5", b"Content-Length: \xb2", b"X-A: b\nC: d", b"X-A: \x00",
                              b" folded", b"Name : v", b":", b"", b"GET  / HTTP/1.1", b"\xff\xfe: \xff"]),
             min_size=1, max_size=8).map(lambda lines: b"\r\n".join(lines))))
def test_any_request_head_is_read_or_refused_with_a_reason(head):
    """What the front cannot read it refuses with a 400 that says why, never with a fault."""
    try:
        parsed = parse_head(head + b"\r\n\r\n")
    except BadHead as err:
        assert str(err)
    else:
        assert parsed.path.startswith("/") and all(name == name.lower() for name in parsed.headers)
