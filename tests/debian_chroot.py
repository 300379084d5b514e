"""A fresh Debian in a folder (debootstrap, minbase) for the install test, and commands run in it.

Debian's packages come from the mirror this machine's apt is configured with; the folder is the
only cache. Every command runs in its own private mount namespace (``unshare --mount``) where
``/proc`` and ``/dev`` are mounted into the tree: the mounts end with the command, whatever
happens to it or to the test, so nothing stays mounted when the folder is removed. ``net=True``
also gives the command a network namespace of its own with only loopback, so that a dashboard on
the unit's fixed port collides with nothing on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

SUITE = "bookworm"  # Raspberry Pi OS Bookworm is Debian 12
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # systemd's and a root shell's
MOUNT = 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev"'
# This machine's tools, also where root's PATH lacks the sbin folders (debootstrap, chroot).
HOST_PATH = os.pathsep.join([os.environ.get("PATH", "/usr/bin:/bin"), "/usr/sbin", "/sbin"])


class NoChroot(RuntimeError):
    """A Debian tree cannot be made here (the reason is the message)."""


def configured_mirror() -> str:
    """The URI apt here fetches Debian's main archive from (sources.list or deb822 .sources)."""
    codename = re.search(r"^VERSION_CODENAME=(\S+)", Path("/etc/os-release").read_text(), re.M)
    suite = codename.group(1) if codename else SUITE
    apt = Path("/etc/apt")
    for path in [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*.list"))]:
        for line in path.read_text().splitlines() if path.is_file() else []:
            words = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == suite:
                return words[1]
    for path in sorted((apt / "sources.list.d").glob("*.sources")):
        for stanza in re.split(r"\n\s*\n", path.read_text()):
            fields = dict(re.findall(r"^([\w-]+):\s*(.*)$", stanza, re.M))
            if "deb" in fields.get("Types", "").split() and suite in fields.get("Suites", "").split():
                return fields["URIs"].split()[0]
    raise NoChroot(f"no apt source for Debian {suite} in /etc/apt: nowhere to fetch a Debian tree from")


def run_all_or_none(argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    """subprocess.run, but a timeout or an interrupt ends the whole process group (dpkg under debootstrap,
    the service under setpriv), so nothing goes on writing into a tree that is being removed."""
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


class DebianChroot:
    def __init__(self, root: Path) -> None:
        missing = [tool for tool in ("debootstrap", "unshare", "chroot", "ip")
                   if shutil.which(tool, path=HOST_PATH) is None]
        if missing:
            raise NoChroot(f"{', '.join(missing)} not installed (.ci/run installs debootstrap and iproute2)")
        self.root = root

    def bootstrap(self, packages: tuple[str, ...] = ()) -> None:
        include = [f"--include={','.join(packages)}"] if packages else []
        # A tree thrown away after the test: dpkg (debootstrap's too) need not wait for every file to reach the disk.
        (self.root / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True)
        (self.root / "etc/dpkg/dpkg.cfg.d/unsafe-io").write_text("force-unsafe-io\n")
        out = run_all_or_none(["env", f"PATH={HOST_PATH}", "debootstrap", "--variant=minbase", *include, SUITE,
                               str(self.root), configured_mirror()], timeout=600)
        if out.returncode != 0:
            raise AssertionError(f"debootstrap failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
        # This machine's own certificate authorities (if any), as its pip trusts them, added to the tree's
        # (now, if ca-certificates came with the packages; else when python3-pip brings it in).
        local_ca = Path("/usr/local/share/ca-certificates")
        if local_ca.is_dir():
            shutil.copytree(local_ca, self.root / "usr/local/share/ca-certificates", dirs_exist_ok=True)
            if (self.root / "usr/sbin/update-ca-certificates").exists():
                self.run("update-ca-certificates")

    def command(self, *argv: str, net: bool = False, env: dict[str, str] | None = None) -> list[str]:
        """argv run in the tree, as root, with a clean environment (nothing of this machine's leaks in)."""
        setup = MOUNT + (" && ip link set lo up" if net else "")
        variables = [f"{k}={v}" for k, v in {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", **(env or {})}.items()]
        return ["env", f"PATH={HOST_PATH}", "unshare", "--mount", "--propagation", "private",
                *(["--net"] if net else []), "sh", "-c", f'{setup} && exec chroot "$0" env -i "$@"', str(self.root),
                *variables, *argv]

    def run(self, *argv: str, timeout: float = 300, net: bool = False, env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
        out = run_all_or_none(self.command(*argv, net=net, env=env), timeout)
        if check and out.returncode != 0:
            said = f"{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
            raise AssertionError(f"{' '.join(argv)} exited {out.returncode}:\n{said}")
        return out

    def sh(self, script: str, **kwargs) -> subprocess.CompletedProcess:
        return self.run("sh", "-ec", script, **kwargs)

    def remove(self) -> None:
        mounted = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
                   if line.split()[4].startswith(str(self.root))]
        if mounted:  # never remove through a mount point (it would delete this machine's /dev)
            raise AssertionError(f"still mounted in {self.root}: {mounted}")
        shutil.rmtree(self.root, ignore_errors=True)
