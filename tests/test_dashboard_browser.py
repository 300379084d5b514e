"""The table view in a real headless Chromium against `appliance run --simulate` on loopback.

Takes the README's screenshots (docs/table-800x480.png, docs/table-1920x1080.png)."""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed here", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def settled_table(tmp_path_factory):
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    proc = subprocess.Popen([shutil.which("appliance"), "run", "--simulate", "--rounds", "1", "--pace", "0.05",
                             "--port", str(port), "--data", str(data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        state = {}
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(base + "/api/state", timeout=2) as r:
                    state = json.loads(r.read())
                if state.get("phase") == "settled":
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert state.get("phase") == "settled", state
        yield base, state
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def chromium(*args, user_data):
    out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={user_data}", *args], capture_output=True, timeout=90)
    return out.stdout.decode("utf-8", "replace")


def test_the_table_view_shows_the_settled_round(settled_table, tmp_path):
    base, state = settled_table
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", base + "/?live=0", user_data=tmp_path / "profile")
    assert f">{state['round']}<" in dom
    for seat, s in state["seats"].items():
        assert f'id="seat{seat}"' in dom
        for code in s["front"] + s["back"]:
            assert f'data-card="{code}"' in dom
        assert f'data-result="{s["result"]}"' in dom
    for code in state["banker"]["front"] + state["banker"]["back"]:
        assert f'data-card="{code}"' in dom
    assert state["banker"]["rule"] in dom


@pytest.mark.parametrize("width, height", [(800, 480), (1920, 1080)])
def test_screenshots_for_the_readme(settled_table, tmp_path, width, height):
    base, _ = settled_table
    DOCS.mkdir(exist_ok=True)
    shot = DOCS / f"table-{width}x{height}.png"
    chromium("--virtual-time-budget=5000", f"--window-size={width},{height}", f"--screenshot={shot}", base + "/?live=0",
             user_data=tmp_path / "profile")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == width and int.from_bytes(data[20:24], "big") == height
