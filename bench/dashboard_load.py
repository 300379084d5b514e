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
- hostile: one client (one address, a process of its own) asking for --hostile-streams event streams
  and asking again, --hostile-retry-s after each refusal, for --hostile-s seconds; against as long
  without it, measured the same way in the same run: /healthz and /api/state latency from the
  appliance's own screen (each polled every 0.25 s), the dealer's screen's stream (reopened every
  5 s: the time to open it, and its longest silence), and the watchdog as `appliance run` feeds it
  (the web probe on /healthz, the devices' stale_after, the pings to a stand-in for systemd's
  socket): failed probes, whether the pings ever stopped, the longest gap between pings.

Viewers connect from addresses of their own (127.1.x.y: Linux answers all of 127.0.0.0/8 on
loopback), as devices on the floor do: the front caps streams per address. The client processes
share this machine's cores with the table: on the appliance, viewers are other devices. Goal (issue
12): every stream gets every RoundSettled within 1 s, /api/state p99 < 100 ms, the rate within 10%
of the baseline. Goal (issue 37): with the hostile client, /healthz and the dealer's screen answer
within 1 s throughout and the watchdog never misses.
Run: python bench/dashboard_load.py [--rounds 50] [--streams 300] [--pollers 20] [--repeats 3]
     [--hostile-streams 2000] [--hostile-s 25] [--hostile-only]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import random
import resource
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_devices, load_house
from appliance.heartbeats import Heartbeats, Probe, http_probe
from appliance.service import start_watchdog
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

def viewer_address(n: int) -> str:
    """Viewer ``n``'s own loopback address (a device of its own to the front's cap per address)."""
    return f"127.1.{n // 250}.{n % 250 + 1}"


async def stream(port: int, settled: list, opened: list, address: str) -> None:
    """One viewer: the rounds whose RoundSettled it read, and when. It reads what has come in one go and
    parses only RoundSettled events (300 viewers in one process must cost it little: their process
    shares this machine's cores with the table's)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20, local_addr=(address, 0))
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
    tasks = [asyncio.create_task(stream(port, settled[i], opened, viewer_address(i))) for i in range(streams)]
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
    for ours, _ in ends:
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


# --- the hostile client -----------------------------------------------------------------------------

HOSTILE_ADDRESS = "127.66.0.1"  # one client: every stream from this address
# systemd's watchdog as the stand-in sets it: a miss is no ping for this long (pinged every half of it)
WATCHDOG_S = 2.0
SCREEN_REOPEN_S = 5.0  # the dealer's screen opens its stream again this often (a reload, a lost Wi-Fi)


async def hostile_slot(port: int, retry_s: float, stop: asyncio.Event, seen: Counter, held: list) -> None:
    """One of the hostile client's streams: asked for, held while it is given, asked for again
    ``retry_s`` after a refusal or a close."""
    request = f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(HOSTILE_ADDRESS, 0))
        except OSError as err:
            seen[f"not connected: {type(err).__name__}"] += 1
            await asyncio.sleep(retry_s)
            continue
        try:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = head.split(b" ", 2)[1].decode()
            seen[status] += 1
            if status == "200":
                held[0] += 1
                held[1] = max(held[1], held[0])
                try:
                    while await reader.read(65536):
                        pass
                finally:
                    held[0] -= 1
        except (OSError, asyncio.IncompleteReadError) as err:
            seen[f"closed unanswered: {type(err).__name__}"] += 1
        finally:
            writer.transport.abort()
        await asyncio.sleep(retry_s)


async def hostile(port: int, streams: int, retry_s: float, conn) -> None:
    seen, held, stop = Counter(), [0, 0], asyncio.Event()  # held: now, most at once
    slots = [asyncio.create_task(hostile_slot(port, retry_s, stop, seen, held)) for _ in range(streams)]
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # the phase is over
    stop.set()
    for slot in slots:
        slot.cancel()
    await asyncio.gather(*slots, return_exceptions=True)
    conn.send({"answers": dict(seen), "held_at_most": held[1]})


def hostile_process(port: int, streams: int, retry_s: float, conn) -> None:
    raise_fd_limit(streams + 64)
    asyncio.run(hostile(port, streams, retry_s, conn))


def raise_fd_limit(needed: int) -> None:
    """The soft limit on open files raised to the hard one; exit, saying so, where even that is too few."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        sys.exit(f"dashboard_load: {needed} open files are needed, the hard limit is {hard} (ulimit -Hn)")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def poll_latency(port: int, path: str, stop: threading.Event, took: list, failed: list) -> None:
    """Ask for ``path`` every 0.25 s from the appliance's own screen: each answer's time, or the failure."""
    while not stop.wait(0.25):
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            (took if response.status == 200 else failed).append(
                time.perf_counter() - start if response.status == 200 else response.status)
        except OSError as err:
            failed.append(type(err).__name__)
        finally:
            connection.close()


def dealer_screen(port: int, stop: threading.Event, opens: list, silences: list, failed: list) -> None:
    """The dealer's screen (the appliance's own, on 127.0.0.1) holding its stream, opened again every
    ``SCREEN_REOPEN_S``: the time to open it, and the longest wait for its next bytes."""
    while not stop.is_set():
        start = time.perf_counter()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                head = sock.recv(4096)
                if not head.startswith(b"HTTP/1.1 200"):
                    failed.append(head[:12].decode() or "closed unanswered")
                    time.sleep(0.25)
                    continue
                opens.append(time.perf_counter() - start)
                last, until = time.perf_counter(), time.perf_counter() + SCREEN_REOPEN_S
                while time.perf_counter() < until and not stop.is_set() and sock.recv(65536):
                    now = time.perf_counter()
                    silences.append(now - last)
                    last = now
        except OSError as err:
            failed.append(type(err).__name__)
            time.sleep(0.25)


class WatchdogStandIn:
    """The watchdog as `appliance run` feeds it (the web probe on /healthz beating the web server's
    heart, the pings while every heart beats), pinging a socket of ours in systemd's place."""

    def __init__(self, port: int, folder: Path):
        self.stale_after = load_devices(None).stale_after
        self.hearts = Heartbeats(self.stale_after)
        self.checks: list[bool] = []
        check = http_probe(f"http://127.0.0.1:{port}/healthz", timeout=2.0)
        self.probe = Probe("web", lambda: self.checks.append(check()) or self.checks[-1],
                           every=min(1.0, self.stale_after / 4))
        self.probe.on_beat = self.hearts.watch("web")
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(folder / "notify"))
        self.socket.settimeout(0.2)
        os.environ.update(NOTIFY_SOCKET=str(folder / "notify"), WATCHDOG_USEC=str(int(WATCHDOG_S * 1e6)))
        self.stop = threading.Event()
        self.probe.start()
        start_watchdog(self.hearts.healthy, self.stop)

    def pings(self, seconds: float) -> list[float]:
        """When each ping came, for ``seconds``."""
        came, until = [], time.monotonic() + seconds
        while time.monotonic() < until:
            try:
                if self.socket.recv(64) == b"WATCHDOG=1":
                    came.append(time.monotonic())
            except TimeoutError:
                pass
        return came

    def close(self) -> None:
        self.stop.set()
        self.probe.stop()
        self.socket.close()


def listen_overflows() -> int:
    """Connections the kernel dropped, this machine's listening sockets' queues being full (each waits
    a second for its SYN to be sent again)."""
    names, values = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines()[:2]]
    return int(dict(zip(names, values)).get("ListenOverflows", 0))


def watched_phase(dashboard, watchdog: WatchdogStandIn, seconds: float, hostile_args: tuple | None) -> dict:
    """``seconds`` of the dashboard watched, with the hostile client if ``hostile_args`` are given."""
    port = dashboard.site.port
    ends = None
    if hostile_args:
        ours, theirs = multiprocessing.Pipe()
        client = multiprocessing.get_context("spawn").Process(target=hostile_process,
                                                              args=(port, *hostile_args, theirs), daemon=True)
        client.start()
        ends = (ours, client)
    stop = threading.Event()
    took = {"/healthz": ([], []), "/api/state": ([], [])}
    screen: tuple[list, list, list] = ([], [], [])
    threads = [threading.Thread(target=poll_latency, args=(port, path, stop, *lists), daemon=True)
               for path, lists in took.items()]
    threads.append(threading.Thread(target=dealer_screen, args=(port, stop, *screen), daemon=True))
    checks_before, refused_before = len(watchdog.checks), getattr(dashboard.front, "refused", 0)  # (none before caps)
    overflows = listen_overflows()
    for thread in threads:
        thread.start()
    began = time.monotonic()
    pings = watchdog.pings(seconds)
    ended, viewers = time.monotonic(), viewer_count(dashboard)
    stop.set()
    for thread in threads:
        thread.join(10)
    out: dict = {"listen_queue_overflows": listen_overflows() - overflows}
    if ends:
        ends[0].send("over")
        out["hostile_client"] = ends[0].recv()
        ends[1].join(10)
        out["hostile_client"]["front_viewers_at_end"] = viewers
        out["hostile_client"]["front_refused"] = getattr(dashboard.front, "refused", 0) - refused_before
    gaps = [b - a for a, b in zip([began, *pings], [*pings, ended])]
    checks = watchdog.checks[checks_before:]
    for path, (answered, failed) in took.items():
        out[path] = {"asked": len(answered) + len(failed), "failed": len(failed), **(ms(answered) if answered else {}),
                     "within_1s": not failed and max(answered, default=0) < 1.0}
    opens, silences, failed = screen
    out["dealer_screen"] = {"streams_opened": len(opens), "refused_or_failed": len(failed),
                            "open_ms": ms(opens) if opens else None,
                            "longest_silence_s": round(max(silences, default=seconds), 2),
                            "within_1s": not failed and max(opens, default=9) < 1.0 and max(silences, default=9) < 1.5}
    out["watchdog"] = {"probes": len(checks), "probes_failed": checks.count(False), "pings": len(pings),
                       "longest_ping_gap_s": round(max(gaps), 2),
                       "missed": max(gaps) > WATCHDOG_S}
    return out


def hostile_client(dashboard, args) -> dict:
    """The dashboard watched for --hostile-s seconds without the hostile client, then as long with it."""
    raise_fd_limit(args.hostile_streams + 64)
    with tempfile.TemporaryDirectory() as folder:
        watchdog = WatchdogStandIn(dashboard.site.port, Path(folder))
        try:
            out = {"streams": args.hostile_streams, "seconds": args.hostile_s, "retry_s": args.hostile_retry_s,
                   "stale_after_s": watchdog.stale_after,
                   "without": watched_phase(dashboard, watchdog, args.hostile_s, None),
                   "with": watched_phase(dashboard, watchdog, args.hostile_s,
                                         (args.hostile_streams, args.hostile_retry_s))}
        finally:
            watchdog.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="loaded runs, each between two unwatched ones")
    parser.add_argument("--poll-interval", type=float, default=0.5, help="seconds between one poller's requests")
    parser.add_argument("--hostile-streams", type=int, default=2000)
    parser.add_argument("--hostile-s", type=float, default=25.0,
                        help="seconds without the hostile client, then with it (0: not run); longer than the "
                             "watchdog's stale_after (10 s) to show whether it would miss")
    parser.add_argument("--hostile-retry-s", type=float, default=1.0, help="its wait before asking again")
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile client's part")
    args = parser.parse_args()
    began = time.perf_counter()
    rules = load_house("general")
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, rules, site=site), live, threads=16)
    if args.hostile_only:
        out = {"hostile": hostile_client(dashboard, args)}
        dashboard.stop()
        out["run_s"] = round(time.perf_counter() - began, 1)
        print(json.dumps(out, indent=1))
        return
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
    if args.hostile_s > 0:
        out["hostile"] = hostile_client(dashboard, args)
    dashboard.stop()
    out["run_s"] = round(time.perf_counter() - began, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
