"""A server the tests start as a subprocess (``appliance run``, ``appliance floor serve``) on the port it
binds itself: ``--port 0``, and the address it prints as its first line. A port chosen by the test and
freed before the server binds it can be taken by another process meanwhile (a CI run failed so)."""

import json
import select
import signal
import subprocess
import tempfile
import time
import urllib.parse


class StartedRun:
    """``command`` (all but ``--port``) started on ``port``, 0 for one it picks; ``printed`` is the JSON line it
    prints once it serves, ``address`` the URL under ``key`` in it. Fails, with what the server said on stderr, if it
    ends or prints no such line within ``timeout`` seconds."""

    def __init__(self, command: list[str], key: str = "dashboard", port: int = 0, timeout: float = 60):
        # stderr to a file, not a pipe: a pipe nobody reads fills and stalls the server. Closed by stop().
        self._err, self._said = tempfile.TemporaryFile("w+"), ""  # noqa: SIM115
        self.proc = subprocess.Popen([*command, "--port", str(port)], stdout=subprocess.PIPE, stderr=self._err,
                                     text=True)
        try:
            self.printed = self._printed(key, timeout)
        except BaseException:
            self.stop(signal.SIGKILL)
            raise
        self.address = self.printed[key]
        self.port = urllib.parse.urlsplit(self.address).port

    def _printed(self, key: str, timeout: float) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""  # "" too at its end, when it printed nothing
        try:
            printed = json.loads(line)
        except ValueError:
            printed = None
        if isinstance(printed, dict) and printed.get(key):
            return printed
        raise AssertionError(f"{self.proc.args} printed {line!r} first (waited up to {timeout} s), no {key!r}; "
                             f"its stderr: {self.said()[-3000:]}")

    def said(self) -> str:
        """What the server has written on stderr so far: all of it, once it is stopped."""
        if not self._err.closed:
            self._err.seek(0)
            self._said = self._err.read()
        return self._said

    def check(self) -> None:
        """Fails, with what the server said, once it has ended."""
        assert self.proc.poll() is None, f"the server ended ({self.proc.returncode}): {self.said()[-3000:]}"

    def stop(self, how: signal.Signals = signal.SIGTERM) -> int:
        """The server stopped by ``how`` (SIGTERM: as systemd stops it); its exit status."""
        self.proc.send_signal(how)
        status = self.proc.wait(timeout=20)
        self.proc.stdout.close()
        self.said()  # kept for said() after the file is gone
        self._err.close()
        return status

    def __enter__(self) -> "StartedRun":
        return self

    def __exit__(self, *_) -> None:
        self.stop()


def again_on_the_same_port(start, seconds: float = 30):
    """``start()`` (a server bound to a fixed port) tried again while its port is in use. A test that restarts
    a server on the port its first run printed (a browser's page or a table holds that address) cannot keep
    it through the restart: a process that served on it (the floor's door) may hold it a moment longer, or
    another process may take it meanwhile. Tried again as systemd restarts a service; the last error after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return start()
        except (AssertionError, OSError) as failed:  # the server's "Address already in use", or bind()'s
            if "Address already in use" not in str(failed) or time.monotonic() > deadline:
                raise
        time.sleep(0.2)
