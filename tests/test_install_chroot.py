"""systemd/install.sh run for real in a fresh Debian 12 (debootstrap --variant=minbase, the mirror apt is
configured with, pip from PyPI), then the installed appliance and the service's own command tried in it.

What needs a Pi (Picamera2 and Chromium from Raspberry Pi OS, RPi.GPIO or rpi-lgpio, raspi-config's
autologin) is not in Debian: tests/test_install.py checks those steps in the dry run. No systemd runs in
a chroot, so the service's ExecStart is run by hand as systemd would run it: as its user and groups, in
its working directory, with its environment (the unit's Environment= and EnvironmentFile=, and the
directories' variables), the state directory made as StateDirectory= makes it.

It takes a few minutes and the network: it runs as root where CI is set (.ci/run) or PAIGOW_INSTALL_TEST=1.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debian_chroot import DebianChroot, NoChroot

pytestmark = pytest.mark.chroot

REPO = Path(__file__).resolve().parent.parent
SRC = "/root/paigow-appliance"  # where the technician put the repository
UNIT = "/etc/systemd/system/paigow-appliance.service"
CONF = "/etc/paigow-appliance"
STATE = "/var/lib/paigow-appliance"
VENV_PY = "/opt/paigow-appliance/venv/bin/python"
NEWCOMER = "python3 -m venv .venv && . .venv/bin/activate && pip install . && appliance run --simulate --render"


def copy_repository(to: Path) -> None:
    """The repository's files as a clone has them (no venv, no build folders of this machine)."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout
    to.mkdir(parents=True)
    subprocess.run(f"tar -c --null -T - | tar -x -C {shlex.quote(str(to))}", shell=True, input=files, cwd=REPO,
                   check=True)


@pytest.fixture(scope="module")
def debian(tmp_path_factory):
    if not (os.environ.get("CI") or os.environ.get("PAIGOW_INSTALL_TEST")):
        pytest.skip("the install in a Debian chroot runs where CI or PAIGOW_INSTALL_TEST=1 is set (a few minutes)")
    try:
        if os.geteuid() != 0:
            raise NoChroot("debootstrap and chroot need root")
        tree = DebianChroot(tmp_path_factory.mktemp("install") / "debian")
    except NoChroot as why:
        if os.environ.get("CI"):  # .ci/run installs what it needs: missing there is a failure
            pytest.fail(str(why), pytrace=False)
        pytest.skip(str(why))
    try:
        # As on Raspberry Pi OS: systemd, and the OS's numpy 1.24 (python3-picamera2 brings it), which the
        # venv sees through --system-site-packages; and python3-venv, the README's one apt step for a newcomer.
        tree.bootstrap(("systemd", "python3-numpy", "python3-venv"))
        copy_repository(tree.root / SRC.lstrip("/"))
        yield tree
    finally:
        tree.remove()


@pytest.fixture(scope="module")
def installed(debian):
    out = debian.run("bash", f"{SRC}/systemd/install.sh", "--house", "general", timeout=900)
    return debian, out


def house_set(debian: DebianChroot) -> str:
    return re.search(r"^HOUSE=(.*)$", (debian.root / CONF.lstrip("/") / "table.env").read_text(), re.M).group(1)


def test_the_readme_newcomer_commands_work_on_debian_as_written(debian):
    """An ordinary user, the README's command line word for word: the simulated table answers."""
    assert f"\n    {NEWCOMER}\n" in (REPO / "README.md").read_text()
    # pip needs the network, so this one runs in this machine's network, on the README's port.
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8080)) == 0:
            (pytest.fail if os.environ.get("CI") else pytest.skip)("port 8080 is in use on this machine")
    debian.sh(f"useradd -m newcomer && cp -r {SRC} /home/newcomer/ && chown -R newcomer: /home/newcomer")
    log = debian.root / "home/newcomer/said"
    with log.open("w") as said:
        newcomer = subprocess.Popen(debian.command(
            "setpriv", "--reuid", "newcomer", "--regid", "newcomer", "--init-groups", "env", "HOME=/home/newcomer",
            "sh", "-c", f"cd ~/paigow-appliance && {NEWCOMER}"), stdout=said, stderr=said,
            start_new_session=True)
    try:
        state = get_when_up(newcomer, "http://127.0.0.1:8080/api/state", 600, log)  # pip install first
        assert json.loads(state)["phase"]
    finally:
        stop(newcomer)


def test_install_runs_to_the_end_and_an_upgrade_keeps_what_the_technician_set(installed):
    debian, first = installed
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    steps = [line for line in first.stdout.splitlines() if line.startswith("+ ")]
    assert steps[0] == "+ apt-get update"
    assert "Installed. Before starting the service:" in first.stdout
    assert re.search(r"^numpy 2\.\S+ OpenCV \S+ from /opt/paigow-appliance/venv/", first.stdout, re.M), first.stdout
    assert house_set(debian) == "general"
    conf = debian.root / CONF.lstrip("/")
    key = (conf / "audit.key").read_bytes()
    (conf / "layout.toml").write_text((conf / "layout.toml").read_text() + "# measured at table 12\n")
    release = debian.root / SRC.lstrip("/") / "config"  # the next release corrects a house and the layout
    for name in ("houses/general.toml", "layout.toml"):
        (release / name).write_text((release / name).read_text() + "# corrected in the next release\n")
    upgrade = debian.run("bash", f"{SRC}/systemd/install.sh", timeout=600)  # that release, nothing asked
    assert f"# house: general (kept from {CONF}/table.env; --house NAME changes it)" in upgrade.stdout
    assert f"# kept {CONF}/layout.toml: changed here, and this release's differs (compare: diff " \
           f"{CONF}/layout.toml {SRC}/config/layout.toml)" in upgrade.stdout
    assert (conf / "layout.toml").read_text().endswith("# measured at table 12\n")
    assert (conf / "houses/general.toml").read_text().endswith("# corrected in the next release\n")  # untouched here
    again = debian.run("bash", f"{SRC}/systemd/install.sh", "--house", "capitol", timeout=600)
    assert f"+ write {CONF}/table.env: HOUSE=capitol (was general)" in again.stdout and house_set(debian) == "capitol"
    assert (conf / "audit.key").read_bytes() == key and "keygen" not in upgrade.stdout + again.stdout


def test_appliance_is_on_path_and_works_from_any_directory(installed):
    debian, _ = installed
    for user in ("root", "nobody"):
        out = debian.run("setpriv", "--reuid", user, "--regid", "nogroup" if user == "nobody" else "root",
                         "--clear-groups", "sh", "-c", "cd / && appliance houseway As Kd 9c 9s 5h 5d 2c && "
                         "cd /tmp && appliance evaluate As Ks")
        first, second = (json.loads(line) for line in out.stdout.splitlines())
        assert first["front"] == ["As", "Kd"] and "value" in second


def test_the_venv_keeps_its_own_numpy_and_opencv_over_the_os_numpy(installed):
    debian, _ = installed
    found = debian.run(VENV_PY, "-c", "import json, numpy, cv2; print(json.dumps([numpy.__version__, numpy.__file__, "
                       "cv2.__file__]))")
    version, numpy_at, cv2_at = json.loads(found.stdout)
    assert version.startswith("2.") and numpy_at.startswith("/opt/paigow-appliance/venv/")
    assert cv2_at.startswith("/opt/paigow-appliance/venv/")
    os_numpy = debian.run("python3", "-c", "import numpy; print(numpy.__version__, numpy.__file__)").stdout.split()
    assert os_numpy[0].startswith("1.24") and os_numpy[1].startswith("/usr/lib/python3/dist-packages/")


def test_the_installed_unit_verifies(installed):
    debian, _ = installed
    out = debian.run("systemd-analyze", "verify", UNIT, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "" and out.stderr.strip() == "", out.stderr


def test_the_configuration_is_the_service_groups_and_no_one_elses(installed):
    debian, _ = installed
    listing = debian.run("stat", "-c", "%n %a %U:%G", CONF, f"{CONF}/deck", f"{CONF}/devices.toml", f"{CONF}/table.env",
                         f"{CONF}/audit.key").stdout.split("\n")
    assert listing[:5] == [f"{CONF} 2750 root:paigow", f"{CONF}/deck 2750 root:paigow",
                           f"{CONF}/devices.toml 640 root:paigow", f"{CONF}/table.env 640 root:paigow",
                           f"{CONF}/audit.key 400 paigow:paigow"]
    groups = debian.run("id", "-nG", "paigow").stdout.split()
    assert {"paigow", "video", "dialout", "gpio"} <= set(groups)
    # The README's step: root adds a supervisor; the service's user reads the file, no one else does.
    debian.sh(f"echo 482113 | appliance supervisor add 1042 --config {CONF} >/dev/null")
    for name in ("devices.toml", "supervisors.toml"):
        assert debian.run("setpriv", "--reuid", "paigow", "--regid", "paigow", "--init-groups", "cat",
                          f"{CONF}/{name}").stdout
        assert debian.run("setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "cat",
                          f"{CONF}/{name}", check=False).returncode != 0
    entry = debian.root / "etc/xdg/autostart/paigow-kiosk.desktop"
    assert "Exec=/usr/local/bin/paigow-kiosk" in entry.read_text()
    assert os.access(debian.root / "usr/local/bin/paigow-kiosk", os.X_OK)


class Service:
    """The installed unit's ExecStart, run by hand as systemd would run it (no systemd runs in a chroot)."""

    def __init__(self, debian: DebianChroot):
        self.debian = debian
        text = (debian.root / UNIT.lstrip("/")).read_text()
        service = text.split("[Service]", 1)[1].split("\n[", 1)[0]
        keys: dict[str, list[str]] = {}
        for key, value in re.findall(r"^(\w+)=(.*)$", service, re.M):
            keys.setdefault(key, []).append(value)
        self.user, self.group = keys["User"][0], keys["Group"][0]
        self.cwd = keys["WorkingDirectory"][0]
        self.state = "/var/lib/" + keys["StateDirectory"][0]
        env = {"HOME": "/nonexistent", "USER": self.user, "LOGNAME": self.user, "SHELL": "/usr/sbin/nologin",
               "STATE_DIRECTORY": self.state, "LOGS_DIRECTORY": "/var/log/" + keys["LogsDirectory"][0],
               "CONFIGURATION_DIRECTORY": "/etc/" + keys["ConfigurationDirectory"][0]}
        for assignment in keys.get("Environment", []):
            env.update(item.split("=", 1) for item in shlex.split(assignment))
        for path in keys.get("EnvironmentFile", []):
            lines = (debian.root / path.lstrip("-/")).read_text().splitlines()
            env.update(line.split("=", 1) for line in lines if "=" in line and not line.lstrip().startswith("#"))
        self.env = env
        self.argv = shlex.split(re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], keys["ExecStart"][0]))
        mode = keys.get("StateDirectoryMode", ["0755"])[0]
        debian.run("install", "-d", "-m", mode, "-o", self.user, "-g", self.group, self.state)

    def command(self) -> list[str]:
        return ["setpriv", "--reuid", self.user, "--regid", self.group, "--init-groups",
                "env", "-i", "-C", self.cwd, *(f"{k}={v}" for k, v in self.env.items()), *self.argv]

    def run(self, timeout: float = 60) -> subprocess.CompletedProcess:
        return self.debian.run(*self.command(), check=False, timeout=timeout, net=True)

    def start(self, errors: Path) -> subprocess.Popen:
        with errors.open("w") as stderr:  # a file: a pipe nobody reads could fill and stall the service
            return subprocess.Popen(self.debian.command(*self.command(), net=True), stdout=subprocess.PIPE,
                                    stderr=stderr, text=True, start_new_session=True)


def test_the_service_refuses_a_production_table_on_the_shipped_simulated_source(installed):
    debian, _ = installed
    service = Service(debian)
    assert service.argv[:2] == ["/opt/paigow-appliance/venv/bin/appliance", "run"] and "--production" in service.argv
    assert service.argv[service.argv.index("--house") + 1] == house_set(debian)  # as install.sh wrote it
    assert service.cwd == service.state == STATE
    out = service.run()
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines == [f'appliance run: {CONF}/devices.toml: [start_seat] source = "simulated" on a dealing table: '
                     'set it to "rng", "dice" or "builtin" (hardware/README.md)'], out.stderr
    assert list((debian.root / STATE.lstrip("/")).iterdir()) == []  # no audit log, no demo PIN, nothing


# No GPIO in a chroot: a stand-in for the RPi.GPIO API where Raspberry Pi OS's own package (python3-rpi-lgpio)
# puts it, seen by the venv as on a Pi. It records how the pins are set up; every button reads released.
GPIO_STANDIN = """
BCM, IN, OUT, PUD_UP, LOW, HIGH = "BCM", "IN", "OUT", "PUD_UP", 0, 1


def _record(*words):
    with open("/tmp/rpi-gpio.calls", "a") as calls:
        print(*words, file=calls)


def setwarnings(flag):
    pass


def setmode(mode):
    _record("setmode", mode)


def setup(pin, direction, **how):
    _record("setup", pin, direction, *(f"{k}={v}" for k, v in sorted(how.items())))


def input(pin):
    return HIGH


def output(pin, level):
    pass


def cleanup():
    _record("cleanup")
"""


def test_with_a_serial_dice_shaker_a_camera_and_the_rail_the_service_starts_and_the_kiosk_opens_the_dashboard(installed):
    """The technician's steps: devices.toml set (a dice shaker on a pseudo-terminal, as Capitol, the house
    installed last, starts with dice only; given the dialout group as the udev rule does; frames in a folder for the camera; the rail on RPi.GPIO, a stand-in here), the deck
    taught into the configuration folder."""
    debian, _ = installed
    rpi = debian.root / "usr/lib/python3/dist-packages/RPi"
    rpi.mkdir(parents=True)
    (rpi / "__init__.py").write_text("")
    (rpi / "GPIO.py").write_text(GPIO_STANDIN)
    debian.sh("mkdir -p /srv/faces /srv/frames && " + shlex.join([VENV_PY, "-c",
              "import cv2; from appliance.vision.render import DESIGNS, card_face\n"
              "for c in [r + s for r in '23456789TJQKA' for s in 'cdhs'] + ['Jk']:\n"
              "    cv2.imwrite(f'/srv/faces/{c}.png', card_face(c, DESIGNS['modern']))"]) +
              f" && appliance deck learn --faces /srv/faces --out {CONF}/deck >/dev/null"
              " && appliance vision render --clean --width 1600 --height 900 --out /srv/frames/f1.png >/dev/null",
              timeout=300)
    shaker = subprocess.Popen(debian.command("appliance", "devices", "simulate", "dice"), stdout=subprocess.PIPE,
                           text=True, start_new_session=True)
    service = kiosk = None
    try:
        port = json.loads(shaker.stdout.readline())["port"]
        debian.run("sh", "-c", f"chgrp dialout {port} && chmod 0660 {port}")
        devices = debian.root / CONF.lstrip("/") / "devices.toml"
        text = devices.read_text()
        for old, new in [('source = "simulated"', 'source = "dice"'), ('port = "/dev/paigow-dice"', f'port = "{port}"'),
                         ('source = "synthetic"', 'source = "folder"'), ('device = "0"', 'device = "/srv/frames"'),
                         ('backend = "simulated"', 'backend = "rpi-gpio"')]:
            assert old in text
            text = text.replace(old, new, 1)
        devices.write_text(text)
        errors = debian.root / "root/service.err"
        service = Service(debian).start(errors)
        started = json.loads(service.stdout.readline() or "null")
        assert started and started["simulate"] is False, errors.read_text()
        assert started["data"] == STATE and started["key_file"] == f"{CONF}/audit.key"
        assert started["dashboard"] == "http://127.0.0.1:8080/"
        state = json.loads(get(service.pid, "http://127.0.0.1:8080/api/state"))
        assert state["phase"]
        assert list((debian.root / STATE.lstrip("/") / "audit").glob("*.jsonl"))  # written as the service user
        calls = (debian.root / "tmp/rpi-gpio.calls").read_text().splitlines()
        assert calls == ["setmode BCM", *(f"setup {pin} IN pull_up_down=PUD_UP" for pin in (17, 27, 22)),
                         *(f"setup {pin} OUT initial=0" for pin in (23, 24))]  # devices.toml's pins
        kiosk = start_kiosk(debian, service.pid)
        opened = wait_for_file(debian.root / "root/browser.args", 30)
        assert "--kiosk" in opened.split() and "--app=http://127.0.0.1:8080/" in opened.split()
        service.send_signal(signal.SIGTERM)
        assert service.wait(timeout=30) == 0, errors.read_text()
        assert (debian.root / "tmp/rpi-gpio.calls").read_text().splitlines()[len(calls):] == ["cleanup"]  # pins freed
    finally:
        for proc in (kiosk, service, shaker):
            stop(proc)


def get(pid: int, url: str) -> str:
    """GET url from inside the network namespace of process pid (this machine's Python, that loopback)."""
    code = f"import urllib.request, sys; sys.stdout.write(urllib.request.urlopen({url!r}, timeout=5).read().decode())"
    return subprocess.run(["nsenter", "-t", str(pid), "-n", sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=30).stdout


def get_when_up(proc: subprocess.Popen, url: str, seconds: float, log: Path) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"exited {proc.returncode} before {url} answered:\n{log.read_text()[-3000:]}"
        try:
            return get(proc.pid, url)
        except subprocess.CalledProcessError:
            time.sleep(0.5)
    raise AssertionError(f"{url}: no answer within {seconds} s")


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None:
        return
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    if proc.stdout:
        proc.stdout.close()


def start_kiosk(debian: DebianChroot, pid: int) -> subprocess.Popen:
    """The installed kiosk script, in the service's network, with a stand-in browser (no display here)."""
    standin = debian.root / "root/standin"
    standin.mkdir(exist_ok=True)
    (standin / "chromium-browser").write_text('#!/bin/sh\necho "$@" > /root/browser.args\nexec sleep 60\n')
    (standin / "chromium-browser").chmod(0o755)
    return subprocess.Popen(["nsenter", "-t", str(pid), "-n", *debian.command("/usr/local/bin/paigow-kiosk",
                            env={"PATH": "/root/standin:/usr/local/bin:/usr/bin:/bin"})], start_new_session=True)


def wait_for_file(path: Path, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.2)
    raise AssertionError(f"{path}: not written within {seconds} s")
