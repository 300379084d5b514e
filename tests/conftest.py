"""Fixtures shared across test modules: one PostgreSQL server for the whole session, the two real decks
learned once, and a headless Chromium per module of the dealer's screen's tests."""

from __future__ import annotations

import fcntl
import itertools
import os
import shutil
from pathlib import Path

import pytest

from postgres_server import NoPostgres, PostgresServer

_databases = itertools.count(1)

#: A test that uses one of these fixtures, directly or through another fixture, gets its marker (pyproject.toml).
MARKED_BY_FIXTURE = {"browser": "browser", "postgres": "postgres", "real_decks": "real_cards"}


#: Which modules start first: the workers take a module at a time in the order collected, so the
#: longest (a Debian install, decks learned from photographs, whole tables played) go out first
#: and the many short ones fill in behind them, instead of one long module running alone at the end.
LONGEST_FIRST = ("chroot", "real_cards", "slow", "browser", "postgres")


def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
    rank: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        marked = [LONGEST_FIRST.index(m.name) for m in item.iter_markers() if m.name in LONGEST_FIRST]
        rank[module] = min([rank.get(module, len(LONGEST_FIRST)), *marked])
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])  # stable: a module's tests keep their order


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (started once; skipped, saying why, where it cannot run)."""
    try:
        server = PostgresServer()
    except NoPostgres as why:
        if os.environ.get("CI"):  # CI installs it (.ci/run): missing there is a failure, not a skip
            pytest.fail(str(why), pytrace=False)
        pytest.skip(str(why))
    yield server
    server.close()


@pytest.fixture
def floor_dsn(postgres):
    """A fresh, empty database on the session's server, for one test."""
    return postgres.create_database(f"floor_{next(_databases)}")


REAL_CARDS = Path(__file__).resolve().parents[1].parent / "shared" / "real-cards"


@pytest.fixture(scope="session")
def real_decks(tmp_path_factory, worker_id):
    """Each real deck of ../shared/real-cards learned once from its faces, saved and loaded as the
    appliance does: {name: (learned, loaded, folder)}. Learning takes tens of seconds a deck, so the
    real-photo and real-frame tests share it, and the xdist workers share it through a lock (the
    learned decks as they came from learning, pickled beside their folders)."""
    import pickle

    from appliance.vision.deck import Deck, learn

    if not (REAL_CARDS / "labels.json").is_file():
        if os.environ.get("CI"):  # CI has the shared folder beside its clone: missing there is a failure
            pytest.fail(f"{REAL_CARDS}: the real photographs are not here", pytrace=False)
        pytest.skip(f"{REAL_CARDS}: the real photographs are not here")
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    root, learned_file = shared / "real-decks", shared / "real-decks" / "learned.pickle"
    with open(shared / "real-decks.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not learned_file.is_file():
            shutil.rmtree(root, ignore_errors=True)  # what a worker stopped half-way left
            learned = {}
            for name in ("deck-a", "deck-b"):
                learned[name] = learn(REAL_CARDS / name / "faces", root / name)
                learned[name].save(root / name)
            (root / "learning.pickle").write_bytes(pickle.dumps(learned))
            (root / "learning.pickle").rename(learned_file)  # whole or absent for the next worker
    learned = pickle.loads(learned_file.read_bytes())
    return {name: (deck, Deck.load(root / name), root / name) for name, deck in learned.items()}


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module (imported here, not above: without Chromium it skips)."""
    from headless import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def synthetic_deck(tmp_path_factory, worker_id):
    """``synthetic_deck(design)``: the folder of a synthetic design's deck (appliance.vision.render.DESIGNS),
    its faces drawn and learned as `appliance deck learn` does, once for the whole run: the xdist workers
    share each deck through a lock, as a learn takes tens of seconds. The tests read it and never change it."""
    import pickle

    import cv2

    from appliance.game.cards import CARDS
    from appliance.vision.deck import learn
    from appliance.vision.render import DESIGNS, card_face

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent

    def folder(design: str) -> Path:
        root, deck = shared / f"{design}-deck", shared / f"{design}-deck" / "deck"
        with open(shared / f"{design}-deck.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not deck.is_dir():
                shutil.rmtree(root, ignore_errors=True)  # what a worker stopped half-way left
                faces, learning = root / "faces", root / "learning"
                faces.mkdir(parents=True)
                for code in CARDS:
                    cv2.imwrite(str(faces / f"{code}.png"), card_face(str(code), DESIGNS[design]))
                learned = learn(faces, learning)
                learned.save(learning)  # as cmd_deck_learn does
                (root / "learned.pickle").write_bytes(pickle.dumps(learned))  # for synthetic_learned
                learning.rename(deck)  # whole or absent for the next worker
        return deck

    return folder


@pytest.fixture(scope="session")
def synthetic_learned(synthetic_deck):
    """``synthetic_learned(design)``: the synthetic design's deck as it came from learning (not saved and
    loaded), the one ``synthetic_deck(design)`` learned: for tests of the learned deck itself."""
    import pickle

    def learned(design: str):
        return pickle.loads((synthetic_deck(design).parent / "learned.pickle").read_bytes())

    return learned
