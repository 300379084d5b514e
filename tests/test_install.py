"""The install on a Raspberry Pi (systemd/install.sh): its dry run for a Pi 5, a Pi 4 and a machine that is not a
Pi, which is where the Pi-only steps are checked (test_install_chroot.py runs the rest for real in a fresh
Debian), and the service's refusal to deal on a simulated source."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "systemd" / "install.sh"
UNIT = REPO / "systemd" / "paigow-appliance.service"


def dry_run(tmp_path, model: str | None, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "PAIGOW_MODEL_FILE": str(tmp_path / "model")}
    if model is not None:
        (tmp_path / "model").write_bytes(model.encode() + b"\0")  # as the device tree has it
    return subprocess.run(["bash", str(INSTALL), "--dry-run", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def steps(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def test_the_install_on_a_pi_5_updates_the_index_first_and_isolates_the_camera_stack(tmp_path):
    out = dry_run(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", "--house", "capitol")
    assert out.returncode == 0, out.stderr
    done = steps(out.stdout)
    assert done[0] == "apt-get update"
    assert "python3-picamera2" in done[1] and "chromium-browser" in done[1] and done[1].startswith("env DEBIAN_FRONTEND")
    venv = done.index("python3 -m venv --system-site-packages /opt/paigow-appliance/venv")
    pip_install = done.index("/opt/paigow-appliance/venv/bin/pip install .")
    simplejpeg = next(i for i, s in enumerate(done) if "simplejpeg" in s)
    check = next(i for i, s in enumerate(done) if "import numpy, cv2, picamera2" in s)
    assert venv < pip_install < simplejpeg < check  # the venv's own simplejpeg, then the import is checked
    assert "/opt/paigow-appliance/venv/bin/pip install rpi-lgpio" in done
    assert not any(s.endswith("install RPi.GPIO") for s in done)
    assert "ln -sfn /opt/paigow-appliance/venv/bin/appliance /usr/local/bin/appliance" in done
    assert "write /etc/paigow-appliance/table.env: HOUSE=capitol" in done
    assert "install -d -m 2750 -o root -g paigow /etc/paigow-appliance/deck" in done
    assert "install -D -m 0644 systemd/paigow-kiosk.desktop /etc/xdg/autostart/paigow-kiosk.desktop" in done
    assert "raspi-config nonint do_boot_behaviour B4" in done
    assert done.index("apt-get update") < done.index("systemctl daemon-reload")
    assert out.stdout.rstrip().endswith("Dry run: nothing was changed.")


def test_the_install_on_a_pi_4_and_off_the_pi(tmp_path):
    pi4 = steps(dry_run(tmp_path, "Raspberry Pi 4 Model B Rev 1.5").stdout)
    assert "/opt/paigow-appliance/venv/bin/pip install RPi.GPIO" in pi4 and not any("rpi-lgpio" in s for s in pi4)
    assert "write /etc/paigow-appliance/table.env: HOUSE=general" in pi4
    (tmp_path / "model").unlink()
    pc = steps(dry_run(tmp_path, None).stdout)
    assert pc[0] == "apt-get update"
    assert not any("picamera2" in s or "raspi-config" in s or "GPIO" in s or "lgpio" in s for s in pc)


def test_the_install_refuses_an_unknown_house_and_an_unknown_option(tmp_path):
    out = dry_run(tmp_path, None, "--house", "atlantis")
    assert out.returncode == 2 and "--house atlantis: no config/houses/atlantis.toml" in out.stderr
    assert "capitol" in out.stderr and out.stdout == ""
    out = dry_run(tmp_path, None, "--yes")
    assert out.returncode == 2 and "unknown option --yes" in out.stderr


def test_the_kiosk_script_and_its_autostart_entry():
    assert subprocess.run(["sh", "-n", str(REPO / "systemd" / "paigow-kiosk")]).returncode == 0
    entry = (REPO / "systemd" / "paigow-kiosk.desktop").read_text()
    assert "Exec=/usr/local/bin/paigow-kiosk" in entry and "Type=Application" in entry
    if shutil.which("desktop-file-validate"):
        out = subprocess.run(["desktop-file-validate", str(REPO / "systemd" / "paigow-kiosk.desktop")],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stdout


def test_the_unit_runs_a_production_table_with_the_configured_house_in_a_writable_working_directory():
    unit = UNIT.read_text()
    start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
    assert "--production" in start and "--simulate" not in start
    assert start[start.index("--house") + 1] == "${HOUSE}"
    assert "EnvironmentFile=/etc/paigow-appliance/table.env" in unit
    assert "StateDirectory=paigow-appliance" in unit and "WorkingDirectory=/var/lib/paigow-appliance" in unit
    assert "RestartPreventExitStatus=2" in unit  # a configuration error is not retried every 5 s


def production_config(tmp_path: Path, start: str, camera: str) -> Path:
    from appliance.config import shipped_config_dir

    config = tmp_path / "etc"
    shutil.copytree(shipped_config_dir(), config)
    text = (config / "devices.toml").read_text()
    text = text.replace('source = "simulated"', f'source = "{start}"').replace('source = "synthetic"',
                                                                              f'source = "{camera}"')
    (config / "devices.toml").write_text(text)
    return config


@pytest.mark.parametrize("start, camera, says", [
    ("simulated", "synthetic", '[start_seat] source = "simulated" on a dealing table: set it to "rng", "dice" or "builtin"'),
    ("rng", "synthetic", '[camera] source = "synthetic" on a dealing table: set it to "picamera2"'),
    ("rng", "picamera2", '[gpio] backend = "simulated" on a dealing table: set it to "rpi-gpio" (hardware/README.md)'),
])
@pytest.mark.slow
def test_a_production_table_refuses_to_start_on_a_simulated_source(tmp_path, start, camera, says):
    config = production_config(tmp_path, start, camera)
    data = tmp_path / "data"
    out = subprocess.run([shutil.which("appliance"), "run", "--production", "--config", str(config), "--data", str(data),
                          "--port", "0"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"appliance run: {config / 'devices.toml'}: {says}"), out.stderr
    assert not data.exists()  # nothing written: no audit log, no key, no demo PIN
    assert "PIN" not in out.stderr and out.stdout == ""


def test_production_and_simulate_together_are_refused(tmp_path):
    out = subprocess.run([shutil.which("appliance"), "run", "--production", "--simulate", "--data", str(tmp_path / "d")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "a dealing table is never simulated" in out.stderr


def test_ci_runs_the_readme_test_command_as_written():
    readme = (REPO / "README.md").read_text()
    command = "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest -q"
    assert f"\n    {command}\n" in readme
    assert f"\n{command}\n" in (REPO / ".ci" / "run").read_text()
    assert "\n    python3 -m venv .venv && . .venv/bin/activate && pip install . && appliance run --simulate --render\n" \
        in readme
    assert "python3 -m pip install" not in readme  # refused by Debian's Python outside a venv (PEP 668)


@pytest.mark.slow
def test_the_kiosk_waits_for_the_dashboard_then_opens_it_full_screen(tmp_path):
    """No display here: a stand-in browser on PATH records how the kiosk script starts it."""
    import http.server
    import os
    import threading
    import time

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    started = tmp_path / "started"
    (bin_dir / "chromium-browser").write_text(f'#!/bin/sh\necho "$@" >> {started}\nsleep 30\n')
    (bin_dir / "chromium-browser").chmod(0o755)
    import functools

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PAIGOW_DASHBOARD": url}
    kiosk = subprocess.Popen(["sh", str(REPO / "systemd" / "paigow-kiosk")], env=env, cwd=tmp_path,
                             start_new_session=True)
    try:
        time.sleep(3)
        assert not started.exists()  # the dashboard does not answer yet: no browser on an error page
        (tmp_path / "api").mkdir()
        (tmp_path / "api" / "state").write_text("{}")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        deadline = time.monotonic() + 15
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        args = started.read_text().split()
        assert "--kiosk" in args and f"--app={url}" in args and "--noerrdialogs" in args
    finally:
        os.killpg(kiosk.pid, 15)
        kiosk.wait(timeout=10)
        server.shutdown()
        server.server_close()
