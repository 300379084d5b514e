"""The table side: ship the audit log's records to the floor, in order, store-and-forward.

The log on the table's disk is the store: the shipper keeps nothing of its own. It asks the
floor where its anchored head is, sends what follows in batches, and moves on only on the
floor's acknowledgement, so either side may be killed at any moment and shipping resumes
where the floor's last commit left it. The table never waits: the shipper runs in its own
thread and a floor that is down only makes it retry, less often, until it returns.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .enroll import Credentials
from .table_log import TableLog

log = logging.getLogger(__name__)


class FloorUnreachable(OSError):
    """The floor did not answer, or answered that it cannot take records now."""


class FloorRefused(ValueError):
    """The floor refused a record, or this table's credentials (its answer says why)."""


@dataclass(frozen=True)
class Shipped:
    head_seq: int  # the floor's anchored head after this pass
    sent: int
    pending: int  # records of the local log the floor does not hold yet

    def to_json(self) -> dict:
        return {"head_seq": self.head_seq, "sent": self.sent, "pending": self.pending}


class FloorClient:
    """One kept-alive HTTP connection to the floor service."""

    def __init__(self, url: str, credentials: Credentials, timeout: float = 10.0):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--floor: {url!r} is not an http:// or https:// URL")
        self.parts, self.timeout, self.credentials = parts, timeout, credentials
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            kind = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
            self._conn = kind(self.parts.hostname, self.parts.port, timeout=self.timeout)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def call(self, method: str, path: str, body: bytes | None = None, kind: str = "application/json") -> dict:
        headers = {"X-Floor-Table": self.credentials.table, "Authorization": f"Bearer {self.credentials.token}",
                   "Content-Type": kind}
        try:
            conn = self._connection()
            conn.request(method, self.parts.path.rstrip("/") + path, body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as err:
            self.close()
            raise FloorUnreachable(f"floor {self.parts.netloc}: {err or type(err).__name__}") from None
        try:
            answer = json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            answer = {"error": payload[:200].decode("utf-8", "replace")}
        if response.status in (401, 403, 400):
            raise FloorRefused(f"floor {self.parts.netloc}: {answer.get('error', response.status)}")
        if response.status != 200:
            self.close()
            raise FloorUnreachable(f"floor {self.parts.netloc}: {response.status} {answer.get('error', '')}".strip())
        return answer


class Shipper:
    def __init__(self, audit_dir: str | Path, url: str, credentials: Credentials, batch: int = 500,
                 timeout: float = 10.0):
        self.audit_dir = Path(audit_dir)
        self.log = TableLog(self.audit_dir)
        self.client = FloorClient(url, credentials, timeout)
        self.batch = batch
        # Whether the table's log is recording (set where the shipper runs beside the log's writer; unknown else).
        self.recording: Callable[[], bool] | None = None

    def __enter__(self) -> Shipper:
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()

    def _send(self, records: list) -> dict:
        body = {"table_head": self.log.head().to_json(), "recording": self.recording() if self.recording else None,
                "records": [r.to_json() for r in records]}
        return self.client.call("POST", "/api/floor/ingest", json.dumps(body).encode("utf-8"))

    def ship_pending(self) -> Shipped:
        """Send everything the floor does not hold (and the images it asks for); raise if it cannot be done."""
        answer = self._send([])  # says hello, and learns the floor's head
        if answer["table_head"] == "shorter":
            raise FloorRefused(f"the floor holds {answer['head_seq']} records of this table and this log fewer: "
                               "it was rolled back")
        # A log that differs from what the floor holds is sent from its start: the first different record is
        # refused and kept aside there as evidence.
        head = 0 if answer["table_head"] == "differs" else answer["head_seq"]
        sent = 0
        while True:
            records = self.log.after(head, self.batch)
            if not records:
                break
            answer = self._send(records)
            sent += answer["accepted"]
            if answer["refused"]:
                raise FloorRefused(f"the floor refused record {answer['refused']['seq']}: {answer['refused']['problem']}")
            if answer["head_seq"] >= records[-1].seq:
                head = records[-1].seq  # all taken, or (a log sent again from its start) all the same as held
            else:
                head = answer["head_seq"]  # another shipper of this table moved it, or the floor took part
        self._ship_images(answer.get("images_wanted", []))
        return Shipped(head, sent, max(0, self.log.head().seq - head))

    def _ship_images(self, wanted: list[str]) -> None:
        for digest in wanted:
            path = self.audit_dir / "images" / digest[:2] / f"{digest}.png"
            if path.is_file() and hashlib.sha256(data := path.read_bytes()).hexdigest() == digest:
                self.client.call("PUT", f"/api/floor/images/{digest}", data, "image/png")

    def run(self, stop: threading.Event, every: float = 0.5, hello_every: float = 5.0, most: float = 5.0) -> None:
        """Ship until ``stop`` is set: at once when records are waiting, a hello every few seconds
        otherwise, and after a failure at growing intervals up to ``most`` seconds."""
        wait, last_hello = every, 0.0
        while not stop.is_set():
            try:
                if self.log.head().seq > self.log.read_to or time.monotonic() - last_hello >= hello_every:
                    self.ship_pending()
                    last_hello = time.monotonic()
                wait = every
            except (FloorUnreachable, FloorRefused) as err:
                log.warning("floor shipping: %s (retrying in %.0f s)", err, wait)
                wait = min(most, wait * 2)
            stop.wait(wait)
        self.client.close()

    def start(self) -> tuple[threading.Thread, threading.Event]:
        stop = threading.Event()
        thread = threading.Thread(target=self.run, args=(stop,), name="floor-shipper", daemon=True)
        thread.start()
        return thread, stop


def ship_until_done(shipper: Shipper, wait: float) -> Shipped:
    """``appliance floor ship``: retry an unreachable floor for up to ``wait`` seconds; a refusal ends at once.
    The last try is at the end of the wait, not one back-off (up to 5 s) before it."""
    deadline = time.monotonic() + wait
    delay = 0.2
    while True:
        try:
            return shipper.ship_pending()
        except FloorUnreachable:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(delay, left))
            delay = min(5.0, delay * 2)
