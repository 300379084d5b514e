"""The dashboard under a floor's worth of viewers, on loopback, in one run:

- rate: the table plays --rounds simulated rounds flat out (the simulated dealer through the real
  dealer loop, round engine and fsynced audit log), --repeats times with nobody watching and --repeats
  times with the load, alternately (a shared machine's load drifts: each loaded run is compared with the
  unwatched runs either side of it). Reported: rounds per second, and the table's own work per round
  (the CPU time of the thread that plays, which waits for nobody's CPU but its own), both as ratios.
- loaded: --streams open event streams (/events), read by one client process, and --pollers clients
  polling /api/state (each every --poll-interval seconds, each poll a new connection) from another
  (asyncio, both started for each loaded run): every stream's delay from each RoundSettled record being on disk (the
  table's listener stamps it) to that stream reading its event (same wall clock, same machine), events
  missed, and the /api/state latency.
- slow: one client that reads its stream at one byte a second while the table plays again: the rate
  against the baseline, how long until the front drops it and what it held (its queue is bounded).

The client process shares this machine's cores with the table: on the appliance, viewers are other
devices. Goal (issue 12): every stream gets every RoundSettled within 1 s, /api/state p99 < 100 ms, the
rate within 10% of the baseline.
Run: python bench/dashboard_load.py [--rounds 50] [--streams 300] [--pollers 20] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.table.live import LiveTable
from appliance.table.round import Events
from appliance.table.simulation import play_rounds
from appliance.web.app import create_app
from appliance.web.serving import serve_dashboard


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: list[float]) -> dict:
    return {"median": round(statistics.median(values) * 1000, 1), "p99": round(percentile(values, 0.99) * 1000, 1),
            "max": round(max(values) * 1000, 1)}


# --- the client process -----------------------------------------------------------------------------

async def stream(port: int, settled: list, opened: list) -> None:
    """One viewer: the rounds whose RoundSettled it read, and when. It reads what has come in one go and
    parses only RoundSettled events (300 viewers in one process must cost it little: their process
    shares this machine's cores with the table's)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    opened.append(1)
    pending = b""
    while chunk := await reader.read(1 << 20):
        *events, pending = (pending + chunk).split(b"\n\n")
        now = time.time()
        for event in events:
            if event.startswith(b"event: RoundSettled\n"):
                settled.append((json.loads(event.split(b"data: ", 1)[1])["round"], now))


async def poll(port: int, latencies: list, stop: asyncio.Event, interval: float) -> None:
    request = f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    await asyncio.sleep(interval * random.random())  # the pollers out of step, as real screens are
    while not stop.is_set():
        await asyncio.sleep(interval)
        start = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
        latencies.append(time.perf_counter() - start)


async def clients(port: int, streams: int, pollers: int, interval: float, conn) -> None:
    settled: list[list] = [[] for _ in range(streams)]
    opened: list = []
    latencies: list[float] = []
    stop = asyncio.Event()
    tasks = [asyncio.create_task(stream(port, settled[i], opened)) for i in range(streams)]
    while len(opened) < streams:
        await asyncio.sleep(0.05)
    pollers_tasks = [asyncio.create_task(poll(port, latencies, stop, interval)) for _ in range(pollers)]
    conn.send("open")
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # the table has played
    await asyncio.sleep(1.5)  # the last events on their way
    stop.set()
    await asyncio.gather(*pollers_tasks)
    for task in tasks:
        task.cancel()
    conn.send({"settled": settled, "latencies": latencies})


def client_process(port: int, streams: int, pollers: int, interval: float, conn) -> None:
    asyncio.run(clients(port, streams, pollers, interval, conn))


# --- the table's side -------------------------------------------------------------------------------

def play(rules, live: LiveTable, rounds: int) -> dict:
    """Rounds per second on a fresh log (the simulation reads the log it goes on from), the playing
    thread's CPU seconds per round, and when each RoundSettled record was on disk (time.time())."""
    stamps: dict[str, float] = {}

    def stamp(record: dict) -> None:
        if record["event"] == Events.ROUND_SETTLED:
            stamps[record["data"]["round"]] = time.time()

    with tempfile.TemporaryDirectory() as folder:
        audit = AuditLog(Path(folder), b"k" * 64)
        start, cpu = time.perf_counter(), time.thread_time()
        played = play_rounds(rules, audit, rounds, seed=int(time.time()), listeners=[live, stamp])["rounds"]
        return {"rate": played / (time.perf_counter() - start), "cpu": (time.thread_time() - cpu) / played,
                "stamps": stamps}


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loaded_run(rules, live: LiveTable, dashboard, args) -> tuple[dict, dict, int]:
    """One run with the viewers: the table's figures (with, per round, the CPU of the table's whole
    process, of the front's if it has its own, and of the clients), what the clients saw, how many
    viewers were open. The streams are read by one process and the pollers poll from another, as they
    are other devices: a poll's time does not include the streams' process reading a burst of events."""
    ends, pids = [], {"appliance": os.getpid()}
    for role, streams, pollers in (("viewers", args.streams, 0), ("pollers", 0, args.pollers)):
        ours, theirs = multiprocessing.Pipe()
        client = multiprocessing.get_context("spawn").Process(
            target=client_process, args=(dashboard.site.port, streams, pollers, args.poll_interval, theirs), daemon=True)
        client.start()
        ends.append((ours, client))
        pids[role] = client.pid
    for ours, _ in ends:
        assert ours.recv() == "open"
    deadline = time.monotonic() + 2  # the front reports its count within 50 ms
    while viewer_count(dashboard) < args.streams and time.monotonic() < deadline:
        time.sleep(0.01)
    viewers = viewer_count(dashboard)
    front = getattr(dashboard.front, "process", None)  # the front in a process of its own, if it is
    if front:
        pids["front"] = front.pid
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    played = play(rules, live, args.rounds)
    played["process_cpu"] = {name: (cpu_seconds(pid) - before[name]) / args.rounds for name, pid in pids.items()}
    seen = {"settled": [], "latencies": []}
    for ours, client in ends:
        ours.send("played")
    for ours, client in ends:
        report = ours.recv()
        client.join(10)
        seen["settled"] += report["settled"]
        seen["latencies"] += report["latencies"]
    return played, seen, viewers


def viewer_count(dashboard) -> int:
    return dashboard.front.viewers if isinstance(dashboard.front.viewers, int) else len(dashboard.front.viewers)


def slow_reader(port: int, stop: threading.Event) -> None:
    """Reads its stream at one byte a second, from the smallest receive buffer the kernel allows."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    sock.settimeout(1.0)
    while not stop.is_set():
        try:
            if sock.recv(1) == b"":
                break
        except (TimeoutError, ConnectionError):
            pass
        time.sleep(1.0)
    sock.close()


def delivery(stamps: dict[str, float], settled: list[list]) -> tuple[list[float], int]:
    """Each stream's delay for each round, and how many (stream, round) pairs never arrived."""
    delays, missed = [], 0
    for received in settled:
        got = dict(received)
        for round_id, on_disk in stamps.items():
            if round_id in got:
                delays.append(got[round_id] - on_disk)
            else:
                missed += 1
    return delays, missed


def slow_client(rules, live: LiveTable, dashboard, args, baseline: float) -> dict:
    dropped_before = dashboard.front.dropped
    stop = threading.Event()
    reader = threading.Thread(target=slow_reader, args=(dashboard.site.port, stop), daemon=True)
    reader.start()
    time.sleep(0.5)
    began_slow, rates = time.monotonic(), []
    while dashboard.front.dropped == dropped_before and time.monotonic() - began_slow < 120:
        rates.append(play(rules, live, args.rounds)["rate"])
    dropped = dashboard.front.dropped > dropped_before
    stop.set()
    reader.join(5)
    return {
        "rounds_per_s_while_connected": round(statistics.median(rates), 1),
        "rate_vs_baseline": round(statistics.median(rates) / baseline, 3),
        "dropped": dropped,
        "dropped_after_s": round(time.monotonic() - began_slow, 1) if dropped else None,
        "rounds_played_until_dropped": args.rounds * len(rates),
        # what it may hold on the appliance: this, one batch of events, and its kernel send buffer
        "backlog_bytes": dashboard.front.limits.backlog,
        "kernel_send_buffer_bytes": dashboard.front.limits.send_buffer,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="loaded runs, each between two unwatched ones")
    parser.add_argument("--poll-interval", type=float, default=0.5, help="seconds between one poller's requests")
    args = parser.parse_args()
    began = time.perf_counter()
    rules = load_house("general")
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, rules, site=site), live, threads=16)
    out: dict = {"rounds": args.rounds, "streams": args.streams, "pollers": args.pollers, "repeats": args.repeats,
                 "poll_interval_s": args.poll_interval, "load_average_at_start": os.getloadavg()[0]}
    play(rules, live, 5)  # warm up (imports, caches)
    unwatched = [play(rules, live, args.rounds)]
    loaded, delays, latencies, missed, expected, viewers = [], [], [], 0, 0, []
    for _ in range(args.repeats):
        played, seen, open_viewers = loaded_run(rules, live, dashboard, args)
        unwatched.append(play(rules, live, args.rounds))
        loaded.append(played)
        viewers.append(open_viewers)
        run_delays, run_missed = delivery(played["stamps"], seen["settled"])
        delays += run_delays
        missed += run_missed
        expected += len(played["stamps"]) * args.streams
        latencies += seen["latencies"]
    # each loaded run against the mean of the unwatched runs just before and after it
    rate_ratios = [run["rate"] / ((unwatched[i]["rate"] + unwatched[i + 1]["rate"]) / 2) for i, run in enumerate(loaded)]
    cpu_ratios = [run["cpu"] / ((unwatched[i]["cpu"] + unwatched[i + 1]["cpu"]) / 2) for i, run in enumerate(loaded)]
    baseline = statistics.median(run["rate"] for run in unwatched)
    out.update({
        "baseline_rounds_per_s": [round(run["rate"], 1) for run in unwatched],
        "loaded_rounds_per_s": [round(run["rate"], 1) for run in loaded],
        "loaded_rate_vs_baseline": {"each": [round(r, 3) for r in rate_ratios], "median": round(statistics.median(rate_ratios), 3)},
        "table_cpu_ms_per_round": {"unwatched": [round(run["cpu"] * 1000, 2) for run in unwatched],
                                   "loaded": [round(run["cpu"] * 1000, 2) for run in loaded]},
        "table_cpu_per_round_loaded_vs_unwatched": {"each": [round(r, 3) for r in cpu_ratios],
                                                     "median": round(statistics.median(cpu_ratios), 3)},
        "loaded_cpu_ms_per_round_by_process": {name: round(statistics.median(run["process_cpu"][name] for run in loaded) * 1000, 1)
                                               for name in loaded[0]["process_cpu"]},
        "viewers_connected": viewers,
        "round_settled_events_expected": expected,
        "round_settled_events_missed": missed,
        "settled_to_stream_ms": ms(delays),
        "within_1s": missed == 0 and max(delays) <= 1.0,
        "state_polls": len(latencies),
        "state_ms": ms(latencies),
        "viewers_dropped_as_slow": dashboard.front.dropped,
    })
    out["slow_client"] = slow_client(rules, live, dashboard, args, baseline)
    dashboard.stop()
    out["run_s"] = round(time.perf_counter() - began, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
