"""The package's layers, read from its source (ast, nothing imported): imports only point down.

The picture is the one of ARCHITECTURE.md: the game's rules at the bottom; the records (the event names
and the one fold of a round's records) above them, below both the table and the audit log; the vision,
the devices and the audit log beside one another; the table above them; the web, the floor, the
bootstrap (the running appliance put together) and the command line on top. An import inside a function counts as much as one at the top of a module: it still
ties the two modules together, only later.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

#: Where each part of the package stands: a module may import from a part below its own, or from its own
#: part (within a part, only cycles are refused). Parts on one level stand beside each other and never
#: import one another.
LEVELS = {
    "game": 0,  # pure rules: cards, hand values, house ways, settlement
    "records": 1,  # the event names and the one fold of a round's records, read by the table and the audit
    "simulate": 1,  # heads-up simulation over many hands: the game alone
    "vision": 2,  # frames -> cards
    "devices": 2,  # bytes and pin edges -> validated events
    "audit": 2,  # the append-only log, its seals, index, replay and dispute view
    "config": 3,  # the appliance's configuration files, read into the devices' and the game's settings
    "heartbeats": 3,  # the devices' workers watched
    "lockouts": 3,  # wrong guesses at a secret counted, keys locked out: the table's, the web's and the floor's gates
    "table": 4,  # one round, the only place that knows its order
    "station": 5,  # one table put together from its parts (table, devices, vision, audit, configuration)
    "arguments": 5,  # the command lines' argument checks (the appliance's and the floor's)
    "service": 5,  # systemd's notifications and watchdog
    # the technician's setup: the camera check, the deck taught card by card, the rig it reaches (table,
    # devices, vision, configuration); the dashboard only routes to it
    "setup": 5,
    "web": 6,  # the dashboard: renders the table, forwards people's actions
    # the floor service: the audit format, never the round engine; it serves through the dashboard's
    # own door pieces (its front, connection caps, sessions and site guard), so it sits above the web
    "floor": 7,
    "bootstrap": 8,  # the running appliance put together from its configuration and run's arguments
    "cli": 9,  # the command line: parses, calls the bootstrap or a command, reports
    "__main__": 10,  # python -m appliance: the command line
}

#: Imports known to break the layers or to close a cycle, each with its reason; a new one fails the test,
#: and one that is gone must leave this list too. Keys: (importing module, imported module).
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}

PACKAGE = Path(importlib.util.find_spec("appliance").submodule_search_locations[0])


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The package's modules ``name`` imports, anywhere in its body (a name imported from a package
    that is a module of its own counts as that module)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names]
        else:
            continue
        found |= {t for t in targets if t == "appliance" or t.startswith("appliance.")}
    return found - {name}


GRAPH = {name: imports_of(name) for name in MODULES}


def part(name: str) -> str | None:
    """``appliance.audit.log`` -> ``audit``; the package's own ``__init__`` has none."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_part_of_the_package_has_a_level():
    assert {part(name) for name in MODULES} - {None} == set(LEVELS)


def test_the_audit_log_imports_nothing_of_the_table():
    found = {(a, b) for a, targets in GRAPH.items() for b in targets
             if part(a) == "audit" and part(b) == "table"}
    assert found - set(KNOWN_EXCEPTIONS) == set()


def test_imports_point_down():
    up = {(a, b) for a, targets in GRAPH.items() for b in targets
          if part(a) and part(b) and part(a) != part(b) and LEVELS[part(b)] >= LEVELS[part(a)]}
    assert sorted(up - set(KNOWN_EXCEPTIONS)) == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part_ = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part_.append(member)
                    if member == node:
                        break
                if len(part_) > 1:
                    found.append(sorted(part_))
    return found


def test_no_module_imports_itself_through_others():
    graph = {a: {b for b in targets if (a, b) not in KNOWN_EXCEPTIONS} for a, targets in GRAPH.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_behind_local_imports():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_every_known_exception_is_still_there():
    assert [pair for pair in KNOWN_EXCEPTIONS if pair[1] not in GRAPH.get(pair[0], ())] == []


def test_imports_inside_functions_count():
    # the command line imports the audit log only inside its commands
    assert "appliance.audit.log" in GRAPH["appliance.cli"]


def names_imported(name: str, source: str) -> set[str]:
    """The names module ``name`` imports from the module ``source`` (relative imports resolved)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
            if module == source:
                found |= {alias.name for alias in node.names}
    return found


def test_only_the_simulation_sets_hands_by_the_unchecked_house_way():
    """``house_ways.decide`` is the simulations' fast path (no checks): the round, the hints and the
    command line set hands through the checked ``house_way_split`` (issue 39)."""
    users = {name for name in MODULES if "decide" in names_imported(name, "appliance.game.house_ways")}
    assert users == {"appliance.simulate"}
    assert "house_way_split" in names_imported("appliance.game.settlement", "appliance.game.house_ways")
