"""Deck learning and card reading on the design zoo: decks the reader was never built beside.

For each seed a design is drawn (appliance.vision.design_zoo: its font, index size and place, suit
below or beside, ten as 10 or T, two or four indices, border, courts, joker) and its 53 faces are
written to a folder as the maker's artwork (PNG, rounded corners clear, white or black) or as
photos to teach from (on cloth, wood or felt, turned, in perspective, blurred, fringed, glared,
JPEG), or both in turn (or, as a baseline, the drawn face cut square: paper to its edges). The deck is learned from them with the real `deck learn` path, saved and loaded as the appliance loads it; then table
frames are rendered at 4608x2592 with the design's drawn faces (cards apart, then hands spread with
overlap, a camera tilted up to 30 degrees, every degradation), calibrated and read. Every card of
the 53 is dealt, learned or not: a card the deck did not learn counts where it is missed.
Prints a line of JSON per design and form as it is measured (faces learned, refused and why, or
why the deck was not learned at all; cards read correctly of those dealt, unreadable, wrong, and
the cause of every failure; seconds to learn and to read), then a table of them all.
With --cache DIR, each deck learned and each design's frames rendered are kept there and taken
again by a later run: a deck under the hash of the code that draws and learns it (design_zoo,
appliance.vision.deck and every module they import), frames under the hash of the code that draws
them (render, design_zoo and what they import: learning too, as render can learn a deck),
so a change to the reader alone is measured on the same decks and frames in a few minutes, and a
change to learning or drawing is learned or drawn afresh. --jobs N measures N designs at a time.
Run: python bench/deck_zoo.py --seeds 1000-1039 [--form artwork|photo|both|face] [--frames 2] [--cache DIR] [--jobs 2]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # set before numpy starts its threads

import argparse
import ast
import hashlib
import json
import pickle
import random
import tempfile
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import cv2

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.deck import Deck, DeckError, learn
from appliance.vision.design_zoo import ZooDesign
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame
from appliance.vision.render import Scene, deal_table, render_table


def seed_list(text: str) -> list[int]:
    """``1000-1039``, ``7`` or ``3,9,1000-1004``."""
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds += range(int(lo), int(hi or lo) + 1)
    return seeds


def describe(design: ZooDesign) -> dict:
    x0, y0, x1, y1 = design.index_box_mm
    return {"font": Path(design.font).stem, "rank_mm": round(design.rank_mm, 1),
            "index_mm": [round(v, 1) for v in (x0, y0, x1, y1)], "suit": "beside" if design.suit_beside else "below",
            "ten": design.ten, "indices": 4 if design.four_index else 2, "border": design.border,
            "court_gap_mm": round(design.court_gap_mm, 1), "joker": design.joker_style + (" colour" if design.joker_colour else "")}


def write_faces(design: ZooDesign, form: str, folder: Path) -> None:
    for i, card in enumerate(CARDS):
        if form == "face":  # the card itself, paper to its edges, as the drawn designs of render.py are taught
            image = design.face(str(card), px_per_mm=12)
        elif form == "artwork":
            image = design.artwork(str(card))
        else:
            image = design.photo(str(card), random.Random(design.seed * 100 + i))
        cv2.imwrite(str(folder / f"{card}.png"), image)


VISION = Path(learn.__code__.co_filename).parent  # appliance/vision


def code_hash(*modules: str) -> str:
    """A hash of the source of ``modules`` (of appliance.vision) and every module of the package they
    import, found by reading their imports: what a cached deck or frame was made by."""
    seen, todo = set(), list(modules)
    while todo:
        name = todo.pop()
        if name in seen or not (VISION / f"{name}.py").exists():
            continue
        seen.add(name)
        tree = ast.parse((VISION / f"{name}.py").read_text())
        todo += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module]
    digest = hashlib.sha256()
    for name in sorted(seen):
        digest.update((VISION / f"{name}.py").read_bytes())
    return digest.hexdigest()[:12]


def cached(path: Path | None, make):
    """What ``make()`` gives, kept at ``path`` (pickled) for the next run; made afresh without a path."""
    if path is None:
        return make()
    if path.exists():
        return pickle.loads(path.read_bytes())
    made = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".part").write_bytes(pickle.dumps(made))
    path.with_suffix(".part").replace(path)  # (a run stopped half-way leaves no half a file)
    return made


def learn_faces(design: ZooDesign, form: str) -> tuple[object | None, dict]:
    """The deck learned from the design's faces in ``form``, and what learning did: faces learned,
    each refused with why, or why no deck was learned at all."""
    with tempfile.TemporaryDirectory() as folder:
        write_faces(design, form, Path(folder))
        start = time.perf_counter()
        try:
            deck = learn(folder)
        except DeckError as err:
            return None, {"learned": 0, "learn_error": str(err).replace(folder, "<faces>"),
                          "learn_s": round(time.perf_counter() - start, 1)}
    refused = dict(sorted(deck.refused.items()))
    return deck, {"learned": len(CARDS) - len(refused), "refused": refused, "learn_s": round(time.perf_counter() - start, 1)}


def render_frames(design: ZooDesign, layout, frames: int) -> list:
    """``frames`` frames with the cards apart and as many with the hands spread, from the design's seed."""
    out = []
    for k in range(2 * frames):
        seed = design.seed * 1000 + k
        rng = random.Random(seed)
        scene = Scene.random(rng, layout, rotation="any", spread=k >= frames)
        out.append((seed, scene.spread, render_table(layout, deal_table(rng), design, scene, seed=seed)))
    return out


def read_frames(deck, frames: list, layout) -> dict:
    """Cards read correctly, unreadable and wrong over the frames, and each failure's cause."""
    counts, failures = Counter(), []
    start = time.perf_counter()
    for seed, spread, rendered in frames:
        where = f"frame {seed} ({'spread' if spread else 'apart'})"
        result = read_frame(rendered.image, layout, deck, calibrate(rendered.image, layout))
        for zone, truth in rendered.truth.items():
            got = result.zones.get(zone, [])
            counts["cards"] += len(truth)
            if len(got) != len(truth):
                counts["not_found"] += max(len(truth) - len(got), 0)
                counts["wrong"] += sum(r.card is not None and r.card not in truth for r in got)
                failures.append(f"{where} {zone}: {len(got)} cards found of {len(truth)} ({' '.join(truth)}): "
                                f"read {[r.card or r.reason for r in got]}")
                continue
            for read, card in zip(got, truth):
                if read.card == card:
                    counts["read"] += 1
                elif read.card is None:
                    counts["unreadable"] += 1
                    failures.append(f"{where} {zone}: {card} {read.reason}"
                                    + ("" if card in getattr(deck, "corners", {card: 0}) else " (a card the deck did not learn)"))
                else:
                    counts["wrong"] += 1
                    failures.append(f"{where} {zone}: {card} read as {read.card}")
    return {**counts, "read_s": round(time.perf_counter() - start, 1), "failures": failures}


def table(rows: list[dict]) -> str:
    head = f"{'seed':>5} {'form':8} {'font':24} {'rank':>5} {'suit':6} {'idx':>3} {'joker':16} {'learned':>7} {'read':>9} {'wrong':>5}  first cause"
    lines = [head]
    for r in rows:
        d = r["design"]
        read = f"{r.get('read', 0)}/{r['cards']}" if "cards" in r else "-"
        cause = r.get("learn_error") or next(iter(r.get("refused", {}).items()), None) or (r.get("failures") or [""])[0]
        cause = ": ".join(cause) if isinstance(cause, tuple) else cause
        lines.append(f"{r['seed']:>5} {r['form']:8} {d['font'][:24]:24} {d['rank_mm']:>5} {d['suit']:6} {d['indices']:>3} "
                     f"{d['joker'][:16]:16} {r['learned']:>7} {read:>9} {r.get('wrong', '-'):>5}  {cause[:110]}")
    return "\n".join(lines)


def learned(design: ZooDesign, form: str, folder: Path) -> tuple[Deck | None, dict]:
    """``learn_faces``, the deck saved to ``folder`` and loaded from it as the appliance loads its deck;
    where ``folder`` holds a deck learned before (its row written last), that deck, not learned again."""
    row_file = folder / "row.json"
    if not row_file.exists():
        deck, row = learn_faces(design, form)
        if deck is not None:
            deck.save(folder / "deck")
        folder.mkdir(parents=True, exist_ok=True)
        row_file.write_text(json.dumps(row))
    row = json.loads(row_file.read_text())
    return (Deck.load(folder / "deck") if (folder / "deck" / "deck.json").exists() else None), row


def measure(seed: int, forms: tuple[str, ...], frame_count: int, cache: Path | None) -> list[dict]:
    """The rows of one design: each form's deck learned (or taken from ``cache``) and its frames read."""
    layout = load_layout(shipped_config_dir() / "layout.toml")
    design = ZooDesign.random(seed)
    frames = None  # rendered once a deck of the design is learned to read them
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        decks = cache / "decks" / code_hash("deck", "design_zoo") if cache else Path(scratch)
        drawn = cache / "frames" / code_hash("render", "design_zoo") / f"{seed}-{frame_count}.pickle" if cache else None
        for form in forms:
            deck, row = learned(design, form, decks / f"{seed}-{form}")
            row = {"seed": seed, "form": form, "design": describe(design), **row}
            if deck is not None and frame_count:
                frames = frames or cached(drawn, lambda: render_frames(design, layout, frame_count))
                row |= read_frames(deck, frames, layout)
            rows.append(row)
    return rows


def _measure(args: tuple) -> list[dict]:
    return measure(*args)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=seed_list, default=seed_list("1000-1004"), help="e.g. 1000-1039")
    parser.add_argument("--form", choices=("artwork", "photo", "both", "face"), default="artwork",
                        help="the faces the deck is learned from (both: artwork, then photos; face: the drawn face "
                             "cut square, paper to its edges, as a baseline)")
    parser.add_argument("--frames", type=int, default=2, help="frames with the cards apart, and as many spread")
    parser.add_argument("--cache", type=Path, help="keep learned decks and rendered frames here for the next run")
    parser.add_argument("--jobs", type=int, default=1, help="designs measured at a time")
    args = parser.parse_args()
    forms = ("artwork", "photo") if args.form == "both" else (args.form,)
    rows = []
    with Pool(args.jobs) as pool:
        for design_rows in pool.imap(_measure, [(seed, forms, args.frames, args.cache) for seed in args.seeds]):
            for row in design_rows:
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(table(rows))
    whole = [r for r in rows if r["learned"] == len(CARDS)]
    cards, read, wrong = (sum(r.get(k, 0) for r in rows) for k in ("cards", "read", "wrong"))
    print(f"{len(whole)} of {len(rows)} decks learned whole; {read} of {cards} cards read"
          f"{f' ({read / cards:.2%})' if cards else ''}, {wrong} wrong")


if __name__ == "__main__":
    main()
