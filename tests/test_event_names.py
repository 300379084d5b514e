"""Every event name the package spells out, in its Python, SQL, HTML and JS, is one the registry
(appliance/records/events.py) knows: a misspelt name matches no record and fails silently (the index
once counted "DeviceHealth" as a fault; the record is "DeviceHealthWarning")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import appliance
from appliance.records.events import Events, event_names

PACKAGE = Path(appliance.__file__).parent
#: An event name as the log writes one: two or more capitalised words run together.
NAME = r"[A-Z][a-z]+(?:[A-Z][a-z]+)+"
#: A name in quotes, in SQL, HTML, JS, or inside a Python string (a query): 'RoundOpened', "TableHeld".
QUOTED = re.compile(rf"""(?<![\w`])(["'])({NAME})\1""")
#: Strings of that shape that are not event names (none so far; each needs a reason here).
NOT_EVENTS: dict[str, str] = {}


def files(*suffixes: str) -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.suffix in suffixes and "vendor" not in p.parts)


def spelled_in_python(path: Path) -> set[str]:
    """A string constant that is an event name's shape, or that holds one in quotes (an SQL query)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if re.fullmatch(NAME, node.value):
                found.add(node.value)
            found |= {m[1] for m in QUOTED.findall(node.value)}
    return found


def spelled_in_text(path: Path) -> set[str]:
    return {m[1] for m in QUOTED.findall(path.read_text())}


def unknown(names: set[str]) -> set[str]:
    return names - event_names() - NOT_EVENTS.keys()


@pytest.mark.parametrize("path", files(".py"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_python_spells_only_registered_event_names(path):
    assert not unknown(spelled_in_python(path))


@pytest.mark.parametrize("path", files(".sql", ".html", ".js"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_sql_html_and_js_spell_only_registered_event_names(path):
    assert not unknown(spelled_in_text(path))


def test_the_scan_finds_names_and_would_have_caught_device_health(tmp_path):
    """The scan sees the names where they are spelled: in code, in a query inside Python, in SQL and JS."""
    old = tmp_path / "index.py"
    old.write_text('FAULT_EVENTS = ("DeviceStatus", "DeviceRejected", "DeviceHealth")\n'
                   'named = "SELECT ts FROM events WHERE event = \'ReadConfirmed\'"\n'
                   '"""A docstring naming ``AuditGap`` and a `RoundError` is prose."""\n')
    assert spelled_in_python(old) == {"DeviceStatus", "DeviceRejected", "DeviceHealth", "ReadConfirmed"}
    assert unknown(spelled_in_python(old)) == {"DeviceHealth"}
    page = tmp_path / "page.html"
    page.write_text('<script>["TableHeld", \'RoundOpened\'].forEach(n => s.addEventListener(n, f)); '
                    'x.event === "RoundSetled"; `${"BankerCards"}`</script>')
    assert spelled_in_text(page) == {"TableHeld", "RoundOpened", "RoundSetled", "BankerCards"}
    assert unknown(spelled_in_text(page)) == {"RoundSetled"}


def test_the_package_spells_event_names_in_every_kind_of_file():
    """The scan is not vacuous: each kind of file it reads does name events."""
    assert Events.DEVICE_HEALTH in set().union(*map(spelled_in_python, files(".py")))
    for suffix in (".sql", ".html"):
        assert Events.ROUND_OPENED in set().union(*map(spelled_in_text, files(suffix)))


def test_registry_names_are_unique():
    members = {k: v for k, v in vars(Events).items() if k.isupper()}
    assert len(set(members.values())) == len(members)
