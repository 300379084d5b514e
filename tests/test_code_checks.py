"""The source tree passes its linter and its type checker, as configured in pyproject.toml (issue 39).

The tests run against the installed package, so the tree checked is the one this file sits in;
an installed copy of the tests without its source beside it skips."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
source_tree = pytest.mark.skipif(not (ROOT / "appliance").is_dir(),
                                 reason=f"no source tree at {ROOT}: the checks read appliance/ beside tests/")


def run(*command: str) -> subprocess.CompletedProcess:
    """A checker run from the repository root, so it reads the root's pyproject.toml."""
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)


@source_tree
def test_ruff_finds_nothing():
    done = run("ruff", "check", "--no-cache", "appliance", "tests", "bench")
    assert done.returncode == 0, f"ruff check failed:\n{done.stdout}{done.stderr}"


@source_tree
@pytest.mark.slow  # about 15 seconds: checked afresh, and no cache written into the tree
def test_mypy_finds_nothing_in_the_packages_it_checks():
    """The files pyproject.toml's [tool.mypy] lists: one list, so a package brought clean is held clean."""
    done = run("mypy", "--no-incremental", "--cache-dir", "/dev/null")
    assert done.returncode == 0, f"mypy failed:\n{done.stdout}{done.stderr}"
