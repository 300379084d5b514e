"""A real other host on a private link: a network namespace of the test's own, joined to this machine by a
veth pair, so a "second screen" connects over a network without the test touching any network but its own
(198.18.0.0/15 is the range set aside for benchmarking: never routed, never anyone's LAN)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

HOST_ADDRESS = "198.18.0.1"
OTHER_ADDRESS = "198.18.0.2"
PREFIX = 30


@dataclasses.dataclass(frozen=True)
class OtherHost:
    namespace: str
    host_address: str = HOST_ADDRESS  # this machine, as the other host reaches it
    address: str = OTHER_ADDRESS  # the other host, as this machine sees it

    def wrapper(self, executable: str, folder: Path) -> str:
        """A script that runs ``executable`` inside the other host (for Playwright's ``executable_path``:
        it drives the browser over a pipe, which crosses namespaces)."""
        script = folder / f"in-{self.namespace}"
        script.write_text(f'#!/bin/sh\nexec ip netns exec {self.namespace} {executable} "$@"\n')
        script.chmod(0o755)
        return str(script)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def _cannot(why: str):
    if os.environ.get("CI"):  # CI runs as root with iproute2 installed (.ci/run): missing there is a failure
        pytest.fail(why, pytrace=False)
    pytest.skip(why)


def _names(tag: str) -> tuple[str, str, str]:
    """The namespace, this side's link and the other side's (link names: at most 15 characters)."""
    return f"pgp-{tag}", f"pgh{tag}", f"pgo{tag}"


def _link(tag: str) -> None:
    """Make the namespace and its veth pair, addressed, up and settled.

    A browser drops a request under way with ERR_NETWORK_CHANGED when an address or a link changes
    beside it: so the links carry no IPv6 (whose link-local address would arrive a moment after the
    link is up), and the link is waited for until both ends have carrier before anyone uses it."""
    namespace, here, there = _names(tag)
    _ip("netns", "add", namespace)
    _ip("-n", namespace, "link", "set", "lo", "up")
    _ip("link", "add", here, "type", "veth", "peer", "name", there, "netns", namespace)
    _no_ipv6(here)
    _no_ipv6(there, namespace)
    _ip("addr", "add", f"{HOST_ADDRESS}/{PREFIX}", "dev", here)
    _ip("-n", namespace, "addr", "add", f"{OTHER_ADDRESS}/{PREFIX}", "dev", there)
    _ip("link", "set", here, "up")
    _ip("-n", namespace, "link", "set", there, "up")
    _await_carrier(here, there, namespace)


def _no_ipv6(link: str, namespace: str | None = None) -> None:
    switch = f"/proc/sys/net/ipv6/conf/{link}/disable_ipv6"
    inside = ["ip", "netns", "exec", namespace] if namespace else []
    subprocess.run([*inside, "sh", "-c", f"[ ! -e {switch} ] || echo 1 > {switch}"], check=True,
                   capture_output=True, text=True, timeout=30)


def _await_carrier(here: str, there: str, namespace: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        states = [subprocess.run(["ip", *prefix, "-o", "link", "show", link], capture_output=True, text=True,
                                 timeout=30).stdout for prefix, link in (([], here), (["-n", namespace], there))]
        if all("LOWER_UP" in state for state in states):
            return
        if time.monotonic() > deadline:
            raise subprocess.CalledProcessError(1, ["ip", "link", "show", here], stderr=f"no carrier: {states}")
        time.sleep(0.05)


@contextlib.contextmanager
def other_host():
    """An OtherHost for the duration; skipped, saying why, where namespaces cannot be made (not root, no
    iproute2), failed instead under CI=1. Always torn down: deleting the namespace deletes the veth pair."""
    if shutil.which("ip") is None:
        _cannot("iproute2's ip is not installed: no network namespace for a second screen")
    if os.geteuid() != 0:
        _cannot("not root: no network namespace for a second screen")
    tag = uuid.uuid4().hex[:8]
    try:
        _link(tag)
    except subprocess.CalledProcessError as failed:
        _teardown(tag)
        _cannot(f"cannot make a network namespace: {' '.join(failed.cmd)}: {failed.stderr.strip()}")
    try:
        yield OtherHost(_names(tag)[0])
    finally:
        _teardown(tag)


def _teardown(tag: str) -> None:
    namespace, here, _ = _names(tag)
    # this side's link too, in case the pair was made but not moved into the namespace
    for args in (["link", "del", here], ["netns", "del", namespace]):
        subprocess.run(["ip", *args], capture_output=True, timeout=30)
