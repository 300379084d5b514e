"""Faults while tables ship: the floor service killed at random moments, a table's shipper killed, the
table itself killed, the database restarted, the network cut. Afterwards every record of every table
is in the database exactly once, in order, and verifies; nothing was lost on the tables either.

The issue's 20 kills of each kind (FLOOR_KILLS to change it; about 90 s in all here)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

from appliance.audit.log import AuditLog, canonical, sign, verify
from appliance.config import load_house
from appliance.floor.enroll import table_key
from appliance.floor.shipper import Shipper
from appliance.table.simulation import play_rounds
from floor_helpers import enrolled, floor_lines, floor_service, log_lines, migrated, table_log
from started_run import StartedRun, again_on_the_same_port

KILLS = int(os.environ.get("FLOOR_KILLS", "20"))


def started_floor(dsn: str, port: int = 0) -> StartedRun:
    return StartedRun([sys.executable, "-m", "appliance", "floor", "serve", "--db", dsn], "floor", port)


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)


def assert_exactly_once_and_verifies(dsn: str, table: str, audit_dir, key_file) -> None:
    lines = log_lines(audit_dir)
    assert verify(audit_dir, key_file.read_bytes().strip()).ok  # nothing lost or broken on the table
    assert floor_lines(dsn, table) == lines  # every record once, in order, byte for byte
    prev = "0" * 64
    for line in floor_lines(dsn, table):  # and the floor's copy verifies as a chain on its own
        record = json.loads(line)
        assert record["prev"] == prev and record["hmac"] == sign(key_file.read_bytes().strip(), record)
        assert canonical(record) == line.encode()
        prev = hashlib.sha256(line.encode()).hexdigest()


@contextmanager
def tables_shipping(dsn: str, folder, url: str, count: int, rounds: int):
    """``count`` tables playing (slowly) in threads, each with its background shipper."""
    tables = []
    for number in range(1, count + 1):
        credentials = enrolled(dsn, f"K{number}", folder)
        key_file = folder / f"K{number}.key"
        audit_dir = folder / f"K{number}-audit"
        audit = AuditLog(audit_dir, table_key(key_file, credentials, audit_dir))
        shipper = Shipper(audit_dir, url, credentials, batch=20, timeout=3)
        thread, stop = shipper.start()
        player = threading.Thread(target=play_rounds, args=(load_house("general"), audit, rounds),
                                  kwargs={"seed": number, "pace": lambda: time.sleep(0.004)})
        player.start()
        tables.append((f"K{number}", audit_dir, key_file, shipper, thread, stop, player))
    try:
        yield tables
    finally:
        for _, _, _, shipper, thread, stop, player in tables:
            player.join()
            stop.set()
            thread.join(30)
            shipper.client.close()


def drained(dsn: str, tables, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    for table, audit_dir, *_ in tables:
        while len(floor_lines(dsn, table)) < len(log_lines(audit_dir)) and time.monotonic() < deadline:
            time.sleep(0.2)


def test_the_floor_killed_at_random_moments_while_five_tables_ship(floor_dsn, tmp_path):
    migrated(floor_dsn)
    floor, rng = started_floor(floor_dsn), random.Random(15)
    url, port = floor.address.rstrip("/"), floor.port
    try:
        with tables_shipping(floor_dsn, tmp_path, url, 5, rounds=30) as tables:
            for _ in range(KILLS):
                time.sleep(rng.uniform(0.05, 0.6))
                floor.stop(signal.SIGKILL)
                time.sleep(rng.uniform(0.0, 0.3))
                # The tables ship to the port the first floor printed; the killed floor's door may hold it a moment.
                floor = again_on_the_same_port(lambda: started_floor(floor_dsn, port))
            for *_, player in tables:
                player.join()
            drained(floor_dsn, tables)
    finally:
        floor.stop(signal.SIGKILL)
    for table, audit_dir, key_file, *_ in tables:
        assert_exactly_once_and_verifies(floor_dsn, table, audit_dir, key_file)


def test_the_database_restarted_and_the_network_cut_while_tables_ship(postgres, floor_dsn, tmp_path):
    migrated(floor_dsn)
    with (floor_service(floor_dsn) as floor_url, cuttable(floor_url) as (url, cut),
          tables_shipping(floor_dsn, tmp_path, url, 3, rounds=25) as tables):
        time.sleep(0.4)
        postgres.stop("fast")  # the floor answers 503; the tables go on
        time.sleep(0.5)
        postgres.start()
        time.sleep(0.4)
        cut(1.0)  # the floor's port closed for a second: connections refused and reset
        for *_, player in tables:
            player.join()
        drained(floor_dsn, tables)
    for table, audit_dir, key_file, *_ in tables:
        assert_exactly_once_and_verifies(floor_dsn, table, audit_dir, key_file)


def test_the_shipper_killed_at_random_moments(floor_dsn, tmp_path):
    migrated(floor_dsn)
    credentials = enrolled(floor_dsn, "T1", tmp_path)
    audit_dir = table_log(tmp_path, credentials, rounds=60)
    rng = random.Random(16)
    with floor_service(floor_dsn) as url:
        ship = [sys.executable, "-m", "appliance", "floor", "ship", "--audit", str(audit_dir), "--floor", url,
                "--floor-credentials", str(tmp_path / "T1.credentials")]
        for _ in range(KILLS):
            proc = subprocess.Popen(ship, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.2, 0.8))
            if proc.poll() is None:
                kill(proc)
        done = subprocess.run(ship, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert_exactly_once_and_verifies(floor_dsn, "T1", audit_dir, tmp_path / "T1.key")


def test_the_table_killed_at_random_moments_while_it_ships(floor_dsn, tmp_path):
    migrated(floor_dsn)
    enrolled(floor_dsn, "T5", tmp_path)
    audit_dir, rng = tmp_path / "audit", random.Random(17)
    with floor_service(floor_dsn) as url:
        table = [sys.executable, "-m", "appliance", "simulate-table", "--rounds", "100000", "--audit", str(audit_dir),
                 "--key-file", str(tmp_path / "T5.key"), "--floor", url,
                 "--floor-credentials", str(tmp_path / "T5.credentials")]
        for number in range(KILLS):
            proc = subprocess.Popen([*table, "--seed", str(number)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            while started(audit_dir) <= number:  # killed while it plays and ships, not while Python starts
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 1.0))
            kill(proc)
            assert proc.stderr.read() == b"", "the table failed rather than being killed"
            proc.stderr.close()
        # The table starts again (it repairs what the last kill cut) and plays a round; then its backlog is shipped.
        again = subprocess.run([*table, "--rounds", "1", "--seed", "99"], capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        done = subprocess.run([sys.executable, "-m", "appliance", "floor", "ship", "--audit", str(audit_dir),
                               "--floor", url, "--floor-credentials", str(tmp_path / "T5.credentials")],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # A kill may cut the last record short: the next start sets it aside and says so in the log itself.
    assert_exactly_once_and_verifies(floor_dsn, "T5", audit_dir, tmp_path / "T5.key")
    assert started(audit_dir) == KILLS + 1


def started(audit_dir) -> int:
    whole = [line for path in sorted(audit_dir.glob("*.jsonl")) for line in path.read_text().split("\n")[:-1]]
    return sum('"event":"ApplianceStarted"' in line for line in whole)


@contextmanager
def cuttable(target_url: str):
    """A TCP relay in front of the floor whose port can be closed for a while (the network cut)."""
    target_port = int(target_url.rsplit(":", 1)[1])
    state = {"listener": socket.create_server(("127.0.0.1", 0)), "open": []}
    port = state["listener"].getsockname()[1]
    running = threading.Event()
    running.set()

    def pump(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def listen(listener):
        while running.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", target_port))
            state["open"] += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=(a, b), daemon=True).start()

    def close_all():
        try:  # shutdown wakes the thread blocked in accept(); close alone would leave the port listening
            state["listener"].shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        state["listener"].close()
        for s in state["open"]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        state["open"] = []

    def cut(seconds: float) -> None:
        close_all()
        time.sleep(seconds)
        # The tables ship to this port: bound again, tried again while another process holds it meanwhile.
        state["listener"] = again_on_the_same_port(lambda: socket.create_server(("127.0.0.1", port)))
        serve()

    def serve():
        threading.Thread(target=listen, args=(state["listener"],), daemon=True).start()

    serve()
    try:
        yield f"http://127.0.0.1:{port}", cut
    finally:
        running.clear()
        close_all()
