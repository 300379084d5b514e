"""Debian's Chromium for the browser tests. Importing this finds it, or skips the importing test module
where it is not installed; under CI a missing Chromium fails instead, since `.ci/run` installs it."""

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed here", allow_module_level=True)

#: the flags every browser test launches Chromium with (some add "--hide-scrollbars")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
