"""The dashboard on loopback: requests per second of GET /api/state for 20 concurrent clients, and
the time from a settlement being written to the audit log (fsync-ed) to its event reaching a
client of the live stream (/events), median and 99th percentile over 200 rounds.
Run: python bench/dashboard_speed.py [--rounds 200] [--clients 20] [--seconds 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import waitress.server

from appliance.audit.log import AuditLog
from appliance.config import load_house
from appliance.table.live import LiveTable
from appliance.table.simulation import play_rounds
from appliance.web.app import create_app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    rules = load_house("general")
    live = LiveTable()
    server = waitress.server.create_server(create_app(live, rules), host="127.0.0.1", port=0, threads=24)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port

    with tempfile.TemporaryDirectory() as folder:
        written: dict[int, float] = {}
        arrived: dict[int, float] = {}
        ready = threading.Event()

        def stream() -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", "/events")
            response = connection.getresponse()
            ready.set()
            while True:
                line = response.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    message = json.loads(line[6:])
                    if message["event"] == "RoundSettled":
                        arrived[message["seq"]] = time.perf_counter()
                        if len(arrived) >= args.rounds:
                            return

        listener = threading.Thread(target=stream, daemon=True)
        listener.start()
        ready.wait(10)

        def stamp(record: dict) -> None:  # runs right after the record is on disk, before the dashboard
            if record["event"] == "RoundSettled":
                written[record["seq"]] = time.perf_counter()

        play_rounds(rules, AuditLog(Path(folder), b"k" * 64), args.rounds, listeners=[stamp, live])
        listener.join(30)
        delays = sorted((arrived[seq] - written[seq]) * 1000 for seq in written if seq in arrived)

    counts = [0] * args.clients
    stop = time.perf_counter() + args.seconds

    def client(i: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.perf_counter() < stop:
            connection.request("GET", "/api/state")
            connection.getresponse().read()
            counts[i] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    server.close()
    print(json.dumps({
        "rounds": len(delays),
        "settlement_to_stream_ms_median": round(statistics.median(delays), 2),
        "settlement_to_stream_ms_p99": round(delays[max(0, int(len(delays) * 0.99) - 1)], 2),
        "clients": args.clients,
        "state_requests_per_s": round(sum(counts) / elapsed),
    }, indent=1))


if __name__ == "__main__":
    main()
