"""The systemd unit, and the appliance's readiness and watchdog messages to systemd."""

import os
import select
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "paigow-appliance.service"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_the_unit_verifies_without_a_warning(tmp_path):
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace("/opt/paigow-appliance/venv/bin/appliance", shutil.which("appliance")))
    out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "" and out.stderr.strip() == "", out.stderr
    text = UNIT.read_text()
    assert "Type=notify" in text and "Restart=on-failure" in text and "ProtectSystem=strict" in text
    assert "NoNewPrivileges=yes" in text and "\nPrivateDevices=yes" not in text
    score = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(unit)], capture_output=True, text=True)
    assert "Overall exposure level" in score.stdout


@pytest.mark.slow
def test_run_tells_systemd_it_is_ready_and_pings_the_watchdog(tmp_path):
    path = tempfile.mktemp(prefix="notify-", dir="/tmp")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(30)
        env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"}
        with subprocess.Popen([shutil.which("appliance"), "run", "--simulate", "--port", "0", "--data", str(tmp_path),
                               "--pace", "0.05"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
            try:
                messages = []
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and messages.count("WATCHDOG=1") < 2:
                    messages.append(sock.recv(256).decode())
                journal = first_line_with(proc.stderr, b"online (valid message)", 30)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
    os.unlink(path)
    assert messages[0] == "READY=1" and messages.count("WATCHDOG=1") >= 2
    assert b"WARNING" in journal  # a device's change of state reaches the journal


def first_line_with(stream, text: bytes, seconds: float) -> bytes:
    """The first line of ``stream`` holding ``text``, waiting at most ``seconds``."""
    deadline = time.monotonic() + seconds
    pending = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.2)
        if ready:
            pending += os.read(stream.fileno(), 65536)
            for line in pending.splitlines():
                if text in line:
                    return line
    raise AssertionError(f"no line with {text!r} within {seconds} s: {pending[-2000:]!r}")
