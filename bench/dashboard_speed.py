"""The dashboard on loopback, each latency over 200 rounds settled through the real round engine and
audit log, median and 99th percentile:

- settlement to stream: from a RoundSettled record being on disk (AuditLog.append has returned, so
  its fsync is done) to a plain Python client of the live stream (/events) receiving its event,
  rounds back to back, no browser (the bench's first figure, as before).
- with_browser: a real headless Chromium open on the table view `/`, and the time from the record
  being on disk to the browser having painted that round's results: the page's DOM shows the round
  settled (a MutationObserver sees the round id, phase "settled" and a result on every seat), then
  two animation frames pass (the usual "painted" approximation). Also the steps on the way (the
  RoundSettled event reaching the page's EventSource; the DOM showing the round settled) and, as the
  baseline in the same run, the Python stream client again.
- requests per second of GET /api/state for 20 concurrent clients (the browser closed by then).

In the browser run the rounds are paced: each one starts only when the browser has painted the one
before (or gave up on it after 5 s), so every round is a separate measurement. Both ends are stamped with the same wall
clock (time.time() here, performance.timeOrigin + performance.now() in the page); the output gives
the bounds on the offset between the two, measured before and after the run.

Needs Debian's chromium (or --chromium PATH) and Playwright (the test extras); no browser download.
Run: python bench/dashboard_speed.py [--rounds 200] [--clients 20] [--seconds 5] [--chromium PATH]
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.table.live import LiveTable
from appliance.table.simulation import play_rounds
from appliance.web.app import create_app
from appliance.web.serving import serve_dashboard

# The flags the dashboard's browser tests use (tests/test_dashboard_browser.py); Playwright adds --headless.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
PAINT_TIMEOUT_MS = 5000

# Injected before the table view's own script runs; the page itself is not changed.
PAINT_WATCH = r"""
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const bench = window.__bench = {open: false, event: {}, dom: {}, painted: {}, stale: {}, leftStale: {},
                                waiters: {}};
  // The page's EventSource, with a listener of ours registered before the page's own.
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { bench.open = true; });
      this.addEventListener("RoundSettled", e => {
        const round = JSON.parse(e.data).round;
        if (!(round in bench.event)) bench.event[round] = now();
      });
    }
  };
  // Which round the DOM shows, and whether it shows it settled: phase "settled" and a result on every seat.
  function shown() {
    const round = document.getElementById("round"), phase = document.getElementById("phase");
    if (!round || !phase) return [null, false];
    const seats = document.querySelectorAll("#table section.seat");
    const settled = phase.textContent === "settled" && seats.length > 0 &&
      Array.from(seats).every(s => s.querySelector("[data-result]"));
    return [round.textContent, settled];
  }
  new MutationObserver(() => {
    const [round, settled] = shown();
    if (round === null) return;
    if (!settled) {
      // A response fetched before the settlement, rendered after it: the DOM went back a step.
      if (round in bench.dom) { bench.stale[round] = (bench.stale[round] || 0) + 1; bench.leftStale[round] = true; }
      return;
    }
    if (round in bench.dom) { delete bench.leftStale[round]; return; }
    bench.dom[round] = now();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      bench.painted[round] = now();
      const wake = bench.waiters[round];
      if (wake) wake(true);
    }));
  }).observe(document, {subtree: true, childList: true, characterData: true});
  bench.waitPainted = (round, ms) => new Promise(resolve => {
    if (round in bench.painted) return resolve(true);
    bench.waiters[round] = resolve;
    setTimeout(() => resolve(false), ms);
  });
})();
"""


def percentile(sorted_values: list[float], p: int) -> float:
    """Nearest rank: the smallest value with at least p percent of the values at or below it."""
    return sorted_values[max(0, -(-len(sorted_values) * p // 100) - 1)]


def figures(name: str, delays: list[float]) -> dict:
    delays = sorted(delays)
    return {f"{name}_ms_median": round(statistics.median(delays), 2) if delays else None,
            f"{name}_ms_p99": round(percentile(delays, 99), 2) if delays else None}


def clock_offset(page, samples: int = 20) -> tuple[float, float]:
    """Bounds (ms) on the page's clock minus ours: each sample brackets one reading of the page's clock
    between two of ours, so the offset lies in [page - after, page - before] for every sample."""
    low, high = float("-inf"), float("inf")
    for _ in range(samples):
        before = time.time() * 1000
        theirs = page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time() * 1000
        low, high = max(low, theirs - after), min(high, theirs - before)
    return round(low, 3), round(high, 3)


class StreamClient(threading.Thread):
    """A plain Python client of /events: when each RoundSettled event arrives (perf_counter, by seq)."""

    def __init__(self, port: int, rounds: int) -> None:
        super().__init__(daemon=True)
        self.port, self.rounds = port, rounds
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", "/events")
        response = connection.getresponse()
        self.ready.set()
        while True:
            line = response.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                message = json.loads(line[6:])
                if message["event"] == "RoundSettled":
                    self.arrived[message["seq"]] = time.perf_counter()
                    if len(self.arrived) >= self.rounds:
                        connection.close()
                        return


class Stamps:
    """A round listener placed before the dashboard's: it runs right after each RoundSettled record is
    on disk (AuditLog.append has returned) and stamps it, for the stream client and for the browser."""

    def __init__(self) -> None:
        self.by_seq: dict[int, float] = {}  # perf_counter
        self.by_round: dict[str, float] = {}  # wall clock, ms
        self.settled: queue.Queue[str] = queue.Queue()

    def __call__(self, record: dict) -> None:
        if record["event"] == "RoundSettled":
            self.by_seq[record["seq"]] = time.perf_counter()
            self.by_round[record["data"]["round"]] = time.time() * 1000
            self.settled.put(record["data"]["round"])

    def stream_delays(self, client: StreamClient) -> list[float]:
        return [(client.arrived[seq] - at) * 1000 for seq, at in self.by_seq.items() if seq in client.arrived]


def stream_only(port: int, live: LiveTable, rules, audit: AuditLog, rounds: int) -> list[float]:
    """Settlement to a Python stream client, rounds back to back, no browser (the bench's first figure)."""
    client, stamps = StreamClient(port, rounds), Stamps()
    client.start()
    client.ready.wait(10)
    play_rounds(rules, audit, rounds, listeners=[stamps, live])
    client.join(30)
    return stamps.stream_delays(client)


def with_browser(port: int, live: LiveTable, rules, audit: AuditLog, rounds: int, chromium: str) -> dict:
    """The table view open in headless Chromium and a Python stream client, rounds paced by the browser's
    paint: settlement to each, in the same run."""
    from playwright.sync_api import sync_playwright  # the test extras: pip install '.[test]'

    client, stamps = StreamClient(port, rounds), Stamps()
    client.start()
    client.ready.wait(10)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.add_init_script(PAINT_WATCH)
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function("window.__bench.open", timeout=10_000)
        offset_before = clock_offset(page)
        turn = threading.Semaphore(0)

        def wait_turn() -> bool:  # play_rounds asks before each round whether to stop; it waits here instead
            if not turn.acquire(timeout=60):
                raise TimeoutError("the bench never gave the next round its turn")
            return False

        engine = threading.Thread(target=play_rounds, daemon=True, args=(rules, audit, rounds),
                                  kwargs={"listeners": [stamps, live], "stop": wait_turn})
        engine.start()
        not_painted = []
        for _ in range(rounds):
            turn.release()
            round_id = stamps.settled.get(timeout=60)
            if not page.evaluate("([round, ms]) => window.__bench.waitPainted(round, ms)", [round_id, PAINT_TIMEOUT_MS]):
                not_painted.append(round_id)
        engine.join(30)
        client.join(30)
        offset_after = clock_offset(page)
        seen = page.evaluate("({event: __bench.event, dom: __bench.dom, painted: __bench.painted, "
                             "stale: __bench.stale, leftStale: __bench.leftStale})")
        version = browser.version
        browser.close()

    def since_written(stage: str) -> list[float]:
        return [at - stamps.by_round[r] for r, at in seen[stage].items() if r in stamps.by_round]

    return {
        "browser": f"Chromium {version} (headless, Playwright)",
        "rounds": len(stamps.by_round),
        **figures("settlement_to_stream", stamps.stream_delays(client)),
        **figures("settlement_to_browser_event", since_written("event")),
        **figures("settlement_to_browser_dom", since_written("dom")),
        **figures("settlement_to_browser_paint", since_written("painted")),
        "rounds_painted": len(since_written("painted")),
        "rounds_not_painted": not_painted,
        # Renders of a round's state from before its settlement, after the settlement was shown (the
        # page fetches /api/state on every event and renders whichever response comes back last), and
        # the rounds the view was left showing so until the next round opened.
        "stale_renders": sum(seen["stale"].values()),
        "rounds_left_stale": sorted(seen["leftStale"]),
        "clock_offset_ms_bounds": {"before": offset_before, "after": offset_after},
    }


def requests_per_s(port: int, clients: int, seconds: float) -> float:
    counts = [0] * clients
    stop = time.perf_counter() + seconds

    def client(i: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.perf_counter() < stop:
            connection.request("GET", "/api/state")
            connection.getresponse().read()
            counts[i] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.chromium:
        sys.exit("dashboard_speed: chromium is not installed (apt-get install chromium), or give --chromium PATH")
    began = time.perf_counter()
    rules = load_house("general")
    live = LiveTable()
    dashboard = serve_dashboard(lambda site: create_app(live, rules, site=site), live, threads=24)
    port = dashboard.site.port
    with tempfile.TemporaryDirectory() as folder:
        # One log for both runs: the second goes on from the first's last round, so round ids never repeat.
        audit = AuditLog(Path(folder), b"k" * 64)
        delays = sorted(stream_only(port, live, rules, audit, args.rounds))
        browser = with_browser(port, live, rules, audit, args.rounds, args.chromium)
    rate = requests_per_s(port, args.clients, args.seconds)
    dashboard.stop()
    print(json.dumps({
        "rounds": len(delays),
        **figures("settlement_to_stream", delays),
        "with_browser": browser,
        "clients": args.clients,
        "state_requests_per_s": round(rate),
        "run_s": round(time.perf_counter() - began, 1),
    }, indent=1))


if __name__ == "__main__":
    main()
