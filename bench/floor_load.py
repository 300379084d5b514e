"""The floor under load: simulated tables playing and shipping to one floor service and one PostgreSQL
on this machine, as fast as the simulation goes and at a real pace (one round a minute) sped up.

Prints, for each run: records per second ingested, the ingest lag (written at the table to committed
in PostgreSQL) median and p99, each ingest request's time (sent to answered, as the shippers saw it:
those carrying records, and the hellos) median and p99, the pit view's refresh time (its three JSON calls), the database's
size per 1,000 rounds, and records lost (must be 0); and the ratio of the floor's ingest rate to the
rate the tables wrote at in the same run (1.0: the floor kept up); and the CPU seconds the floor's
own processes used (the service, and its door) with their milliseconds per record: a figure that the
machine's other work moves less than the lag.

A third run writes every table's log while the floor is unreachable, then ships all the backlogs
at once: the floor's ingest capacity in records per second.

The paced run is played under attack too (unless --no-hostile): 110 slow clients from four strangers'
addresses, each trickling a request head a byte a second and opening again when the floor closes it,
and a 1 GB body in flight all along (announced with its Content-Length, then sent chunked, again
0.2 s after each refusal). Its line adds what they got: the slow connections the floor closed and refused, and the 1 GB
uploads answered (413) with the bytes the floor let through before it cut them off.

Run: python bench/floor_load.py [--tables 60] [--speedup 10] [--paced-seconds 90] [--fast-rounds 5]
     [--backlog-rounds 20] [--viewers 4] [--no-hostile] [--only paced|fast|backlog]
     [--db DSN]   (default: a PostgreSQL server of its own in a temporary folder, as the tests start)
"""

from __future__ import annotations

import argparse
# Imported before any worker's threads start: 15 shippers resolving the floor's name at once raced on
# importing the idna codec, and about one in five died of "LookupError: unknown encoding: idna".
import encodings.idna  # noqa: F401
import http.cookiejar
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psycopg

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.floor.enroll import Credentials, enroll, table_key
from appliance.floor.migrate import migrate
from appliance.floor.shipper import Shipper
from appliance.floor.users import add_user
from appliance.table.simulation import play_rounds

STEPS_PER_ROUND = 9  # the simulated dealer's moves in a round (pace() runs between them)
VIEWER, VIEWER_PASSWORD = "bench-pit", "the bench's pit password"
SLOW_CLIENTS = 110
STRANGERS = [f"127.0.0.{n}" for n in range(2, 6)]  # loopback addresses that are not the floor's own
GIGABYTE = 10 ** 9


def table_worker(folder: str, url: str, tables: list[str], rounds: int, round_every: float, out) -> None:
    """Some of the tables, each a thread that plays and a thread that ships (as run --floor does)."""
    def one(table: str) -> None:
        credentials = Credentials.read(Path(folder) / f"{table}.credentials")
        audit_dir = Path(folder) / table
        audit = AuditLog(audit_dir, table_key(Path(folder) / f"{table}.key", credentials, audit_dir))
        shipper = Shipper(audit_dir, url, credentials)
        times = timed_ingest(shipper)
        thread, stop = shipper.start()
        pause = round_every / STEPS_PER_ROUND
        play_rounds(load_house("general"), audit, rounds, seed=hash(table) % 1000,
                    pace=(lambda: time.sleep(pause)) if pause else (lambda: None))
        deadline = time.monotonic() + 120
        while shipper.log.read_to < audit.seq and time.monotonic() < deadline:
            time.sleep(0.2)
        stop.set()
        thread.join()
        out.put((table, audit.seq, times))

    threads = [threading.Thread(target=one, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def timed_ingest(shipper: Shipper) -> dict[str, list[float]]:
    """Seconds each of the shipper's ingest requests took, from sent to answered: those carrying records,
    and the hellos (an empty batch: where the floor's head is) apart."""
    times = {"records": [], "hello": []}
    call = shipper.client.call

    def timed(method: str, path: str, body: bytes | None = None, *args):
        start = time.perf_counter()
        try:
            return call(method, path, body, *args)
        finally:
            if path == "/api/floor/ingest":
                times["hello" if b'"records": []' in body else "records"].append(time.perf_counter() - start)

    shipper.client.call = timed
    return times


def percentile_ms(times: list[float], fraction: float) -> float | None:
    """The ``fraction`` percentile of ``times`` (seconds) in milliseconds, nearest rank."""
    if not times:
        return None
    ordered = sorted(times)
    return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000, 1)


def write_worker(folder: str, rounds: int, tables: list[str]) -> None:
    """Logs written while the floor is unreachable (the backlog of a floor outage)."""
    for table in tables:
        credentials = Credentials.read(Path(folder) / f"{table}.credentials")
        audit_dir = Path(folder) / table
        audit = AuditLog(audit_dir, table_key(Path(folder) / f"{table}.key", credentials, audit_dir))
        play_rounds(load_house("general"), audit, rounds, seed=hash(table) % 1000)


def ship_worker(folder: str, url: str, tables: list[str]) -> None:
    """Every table of the group ships its whole backlog at once, each from its own thread."""
    def one(table: str) -> None:
        with Shipper(Path(folder) / table, url, Credentials.read(Path(folder) / f"{table}.credentials")) as shipper:
            shipper.ship_pending()

    threads = [threading.Thread(target=one, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def in_processes(target, groups: list[list[str]], *args) -> float:
    """Seconds for ``target(*args, group)`` to finish in one process per group."""
    start = time.perf_counter()
    procs = [multiprocessing.Process(target=target, args=(*args, group)) for group in groups]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    return time.perf_counter() - start


def backlog(dsn: str, url: str, tables: list[str], rounds: int, workers: int) -> dict:
    """The floor's ingest capacity: every table's backlog shipped at once after an outage, against the rate
    the same tables wrote it at in this run."""
    folder = tempfile.mkdtemp(prefix="floor-bench-backlog-")
    for table in tables:
        enroll(dsn, table, Path(folder) / f"{table}.credentials")
    groups = [tables[i::workers] for i in range(workers)]
    wrote = in_processes(write_worker, groups, folder, rounds)
    shipped = in_processes(ship_worker, groups, folder, url)
    with psycopg.connect(dsn) as conn:
        records = conn.execute("SELECT count(*) FROM floor_records WHERE table_id = ANY(%s)", (tables,)).fetchone()[0]
    written = sum(len(p.read_bytes().splitlines()) for t in tables for p in (Path(folder) / t).glob("*.jsonl"))
    return {"run": "backlog-after-outage", "tables": len(tables), "records": records,
            "records_per_s_written_by_the_tables": round(written / wrote, 1),
            "records_per_s_ingested": round(records / shipped, 1),
            "ingest_over_write_ratio": round(wrote / shipped, 2), "records_lost": written - records}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pit_refresh(url: str, stop: threading.Event, times: list[float]) -> None:
    """A pit supervisor's screen: logged in, its three JSON calls every second."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login = json.dumps({"user": VIEWER, "password": VIEWER_PASSWORD}).encode()
    opener.open(urllib.request.Request(url + "/login", login, {"Content-Type": "application/json"}), timeout=30).read()
    while not stop.wait(1.0):
        start = time.perf_counter()
        for path in ("/api/floor/tables", "/api/floor/alerts", "/api/floor/stats?by=table"):
            with opener.open(url + path, timeout=30) as response:
                response.read()
        times.append(time.perf_counter() - start)


def slow_clients(port: int, stop: threading.Event, counts: dict) -> None:
    """``SLOW_CLIENTS`` connections trickling a request head, a byte a second each, opened again when the
    floor closes one (or refused: counted)."""
    head = b"GET /api/floor/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 10_000
    held: dict[socket.socket, int] = {}

    def open_one(n: int) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(STRANGERS[n % 4], 0))
            sock.setblocking(False)
            held[sock] = 0
            counts["opened"] += 1
        except OSError:
            counts["refused"] += 1

    for n in range(SLOW_CLIENTS):
        open_one(n)
    while not stop.wait(1.0):
        for sock in list(held):
            try:
                sock.send(head[held[sock]:held[sock] + 1])
                held[sock] += 1
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    raise ConnectionError
            except BlockingIOError:
                pass  # nothing to read: still open
            except OSError:
                counts["closed_by_the_floor"] += 1
                del held[sock]
                sock.close()
        for n in range(SLOW_CLIENTS - len(held)):
            open_one(n)
    for sock in held:
        sock.close()


def gigabyte_uploads(port: int, stop: threading.Event, counts: dict) -> None:
    """A 1 GB body in flight all along: announced (Content-Length), then chunked, again and again; the
    bytes the floor takes before it answers are counted."""
    chunk = b"%x\r\n" % (1 << 20) + bytes(1 << 20) + b"\r\n"
    announced = True
    while not stop.is_set():
        framing = f"Content-Length: {GIGABYTE}" if announced else "Transfer-Encoding: chunked"
        sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(STRANGERS[0], 0))
        sent = 0
        try:
            sock.sendall(f"PUT /api/floor/images/{'0' * 64} HTTP/1.1\r\nHost: 127.0.0.1\r\n{framing}\r\n\r\n".encode())
            while sent < GIGABYTE and not stop.is_set():
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the floor has answered and stopped taking it
        try:
            status = sock.recv(64).split(b" ")[1].decode()
        except (OSError, IndexError):
            status = "none"
        sock.close()
        counts["answers"][status] = counts["answers"].get(status, 0) + 1
        counts["most_bytes_sent"] = max(counts["most_bytes_sent"], sent)
        announced = not announced
        stop.wait(0.2)  # one upload in flight at a time, started again at once: not a flood of them


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU seconds a process has used so far (0 for none, or one that is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def run(dsn: str, url: str, name: str, tables: list[str], rounds: int, round_every: float, workers: int,
        viewers: int = 1, hostile: bool = False, floor_pids: dict[str, int] | None = None) -> dict:
    folder = tempfile.mkdtemp(prefix=f"floor-bench-{name}-")
    for table in tables:
        enroll(dsn, table, Path(folder) / f"{table}.credentials")
    with psycopg.connect(dsn) as conn:
        before_size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    out = multiprocessing.Queue()
    groups = [tables[i::workers] for i in range(workers)]
    stop, pit_times = threading.Event(), []
    port = int(url.rsplit(":", 1)[1])
    slow = {"opened": 0, "refused": 0, "closed_by_the_floor": 0}
    uploads = {"answers": {}, "most_bytes_sent": 0}
    watchers = [threading.Thread(target=pit_refresh, args=(url, stop, pit_times)) for _ in range(viewers)]
    if hostile:
        watchers += [threading.Thread(target=slow_clients, args=(port, stop, slow)),
                     threading.Thread(target=gigabyte_uploads, args=(port, stop, uploads))]
    for watcher in watchers:
        watcher.start()
    floor_pids = floor_pids or {}
    cpu_before = {part: cpu_seconds(pid) for part, pid in floor_pids.items()}
    start = time.perf_counter()
    procs = [multiprocessing.Process(target=table_worker, args=(folder, url, g, rounds, round_every, out))
             for g in groups]
    for proc in procs:
        proc.start()
    done = [out.get() for _ in tables]
    written = {table: seq for table, seq, _ in done}
    ingest_times = {kind: [t for _, _, times in done for t in times[kind]] for kind in ("records", "hello")}
    for proc in procs:
        proc.join()
    seconds = time.perf_counter() - start
    cpu = {part: round(cpu_seconds(pid) - cpu_before[part], 1) for part, pid in floor_pids.items()}
    stop.set()
    for watcher in watchers:
        watcher.join()
    with psycopg.connect(dsn) as conn:
        conn.execute("CHECKPOINT")
        after_size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        held = dict(conn.execute("SELECT table_id, count(*) FROM floor_records WHERE table_id = ANY(%s) "
                                 "GROUP BY table_id", (tables,)).fetchall())
        lag = conn.execute("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY received_at - ts), "
                           "percentile_cont(0.99) WITHIN GROUP (ORDER BY received_at - ts), "
                           "min(ts), max(received_at) FROM floor_records WHERE table_id = ANY(%s)",
                           (tables,)).fetchone()
        settled = conn.execute("SELECT count(*) FROM floor_records WHERE table_id = ANY(%s) "
                               "AND event = 'RoundSettled'", (tables,)).fetchone()[0]
    records = sum(written.values())
    span = (lag[3] - lag[2]).total_seconds()
    return {
        "run": name, "tables": len(tables), "rounds": settled, "records": records, "seconds": round(seconds, 1),
        "records_per_s_written": round(records / span, 1), "records_per_s_ingested": round(sum(held.values()) / span, 1),
        "ingest_keeps_up_ratio": round(sum(held.values()) / records, 4),
        "lag_median_s": round(lag[0].total_seconds(), 3), "lag_p99_s": round(lag[1].total_seconds(), 3),
        # each ingest request carrying records, sent to answered, as the tables' shippers saw it; and the hellos
        "ingest_requests": len(ingest_times["records"]), "ingest_p50_ms": percentile_ms(ingest_times["records"], 0.5),
        "ingest_p99_ms": percentile_ms(ingest_times["records"], 0.99),
        "hello_p50_ms": percentile_ms(ingest_times["hello"], 0.5),
        "hello_p99_ms": percentile_ms(ingest_times["hello"], 0.99),
        "pit_refresh_median_ms": round(statistics.median(pit_times) * 1000, 1) if pit_times else None,
        "pit_refresh_max_ms": round(max(pit_times) * 1000, 1) if pit_times else None,
        "db_bytes_per_1000_rounds": round((after_size - before_size) / settled * 1000) if settled else None,
        "records_lost": sum(max(0, written[t] - held.get(t, 0)) for t in tables),
        "pit_viewers": viewers,
        # the floor's own processes (the service; its door, when that is a process of its own): CPU seconds
        # over the run, and milliseconds per record ingested
        "floor_cpu_s": cpu, "floor_cpu_ms_per_record": round(sum(cpu.values()) * 1000 / records, 2) if records else None,
        **({"slow_clients": slow, "gigabyte_uploads": uploads} if hostile else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--speedup", type=float, default=10.0, help="real pace (a round a minute) times this")
    parser.add_argument("--paced-seconds", type=float, default=90.0)
    parser.add_argument("--fast-rounds", type=int, default=5, help="rounds per table in the as-fast-as-possible run")
    parser.add_argument("--backlog-rounds", type=int, default=20, help="rounds per table written during an outage")
    parser.add_argument("--workers", type=int, default=4, help="processes the tables are spread over")
    parser.add_argument("--viewers", type=int, default=4, help="pit screens refreshing every second")
    parser.add_argument("--no-hostile", action="store_true", help="the paced run without slow clients and 1 GB body")
    parser.add_argument("--only", choices=("paced", "fast", "backlog"), help="this run alone")
    parser.add_argument("--db", help="a floor database (default: a PostgreSQL server of its own)")
    args = parser.parse_args()
    server = None
    if args.db:
        dsn = args.db
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from postgres_server import PostgresServer

        server = PostgresServer()
        dsn = server.create_database("floor_bench")
    migrate(dsn)
    add_user(dsn, VIEWER, "pit", VIEWER_PASSWORD, replace=True)
    port = free_port()
    floor = subprocess.Popen([sys.executable, "-m", "appliance", "floor", "serve", "--db", dsn, "--port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    serving = json.loads(floor.stdout.readline())
    floor_pids = {"floor": floor.pid, **({"door": serving["door_pid"]} if "door_pid" in serving else {})}
    url = f"http://127.0.0.1:{port}"
    try:
        round_every = 60.0 / args.speedup
        if args.only in (None, "paced"):
            paced = run(dsn, url, f"paced-x{args.speedup:g}" + ("" if args.no_hostile else "-under-attack"),
                        [f"P{i}" for i in range(1, args.tables + 1)], max(1, int(args.paced_seconds / round_every)),
                        round_every, args.workers, args.viewers, hostile=not args.no_hostile, floor_pids=floor_pids)
            print(json.dumps(paced), flush=True)
        if args.only in (None, "fast"):
            fast = run(dsn, url, "as-fast-as-simulated", [f"F{i}" for i in range(1, args.tables + 1)],
                       args.fast_rounds, 0.0, args.workers, args.viewers, floor_pids=floor_pids)
            print(json.dumps(fast), flush=True)
        if args.only in (None, "backlog"):
            print(json.dumps(backlog(dsn, url, [f"B{i}" for i in range(1, args.tables + 1)], args.backlog_rounds,
                                     args.workers)), flush=True)
    finally:
        floor.terminate()
        floor.wait(10)
        floor.stdout.close()
        if server:
            server.close()


if __name__ == "__main__":
    main()
