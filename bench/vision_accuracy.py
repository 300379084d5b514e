"""The card reader on rendered full tables: accuracy, time per frame and per zone, peak memory.

Frames of seven hands of seven are rendered with every degradation (cards at any rotation,
a camera tilted up to 30 degrees that still sees every card at least 120 px wide, uneven
light, glare, noise, blur, JPEG) at 4608x2592 by a separate process, into a folder (kept, so a
second run reads the same frames without rendering them again). This process then learns the
design with the real `deck learn` path from its face images and reads every frame on one core,
so its peak memory is the reader's alone. Prints cards read correctly, unreadable, and confident
misreads (a wrong card with a code: must be zero); the reading time per frame and per zone
against one cv2.warpPerspective of the full frame measured in the same run; calibration
(finding the markers) timed apart, since the markers do not move and a running appliance need
not find them in every frame; and the narrowest and median card width rendered. Times are
given as wall-clock and as this process's CPU time: on a shared machine the second is the
work done on the one core.
With --deck DESIGN the deck is learned from another design's faces (a deck not the one in play):
then every card named is a misread unless the designs print it alike, and the frames whose
reader reported the mismatch are counted.
A --design that names a real deck (deck-a, deck-b: a folder of --real-cards, by default
../shared/real-cards beside the repository, read from there) lays real photographed cards into
the frames instead of drawn faces: the deck is learned from its faces/ photos (one per card), and
each card is shown from another labelled photo of it (scenes/) where there is one, else from its
teaching photo found and flattened afresh (turned and scaled first); the frame then tilts, lights,
blurs, noises and compresses it as any card. Cards the deck could not learn are not dealt. The
counts of cards shown from another photo and from the same photo are printed, and the figures
for each.
Run: python bench/vision_accuracy.py [--frames 500] [--seed 500] [--design casino|deck-a|...] [--spread] [--deck modern]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: set before numpy starts its threads

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from appliance.config import shipped_config_dir
from appliance.vision.calibrate import Calibrator, calibrate
from appliance.vision.deck import learn
from appliance.vision.layout import load_layout
from appliance.vision.deck_match import DECK_MISMATCH
from appliance.vision.reader import read_frame, read_zone
from appliance.vision.render import DESIGNS

REAL_CARDS = Path(__file__).resolve().parents[1].parent / "shared" / "real-cards"


def render(folder: Path, design: str, seeds: range, spread: bool, real_cards: Path) -> None:
    """Runs in its own process: the faces of the design (of a real deck: its photographed cards,
    for the cards the deck learned in ``folder/deck``), then each frame and its truth."""
    import random

    from appliance.game.cards import CARDS
    from appliance.vision.render import Scene, card_face, card_width_px, deal_table, render_table

    layout = load_layout(shipped_config_dir() / "layout.toml")
    if design in DESIGNS:
        faces, cards = DESIGNS[design], None
        (folder / "faces").mkdir(parents=True, exist_ok=True)
        for c in CARDS:
            cv2.imwrite(str(folder / "faces" / f"{c}.png"), card_face(str(c), faces))
    elif not all((folder / f"{seed}.json").exists() for seed in seeds) or not (folder / "card_images.json").exists():
        from appliance.vision.deck import Deck
        from appliance.vision.photo_faces import load_photo_deck

        faces = load_photo_deck(real_cards, design, Deck.load(folder / "deck"))
        cards = faces.codes
        (folder / "card_images.json").write_text(json.dumps({"sources": faces.sources(), "skipped": faces.skipped}))
    for seed in seeds:
        if (folder / f"{seed}.json").exists():
            continue
        rng = random.Random(seed)
        scene = Scene.random(rng, layout, rotation="any", spread=spread)
        rendered = render_table(layout, deal_table(rng, cards=cards), faces, scene, seed=seed)
        cv2.imwrite(str(folder / f"{seed}.png"), rendered.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        widths = [card_width_px(q) for quads in rendered.quads.values() for q in quads]
        (folder / f"{seed}.json").write_text(json.dumps({
            "truth": rendered.truth, "sources": rendered.sources, "widths": widths, "tilt_deg": scene.tilt_deg}))


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise OSError("no VmHWM in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=500)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--design", default="casino",
                        help="a drawn design (casino: not used while tuning the reader) or a real deck of --real-cards")
    parser.add_argument("--spread", action="store_true", help="hands spread with overlap, each index corner in view")
    parser.add_argument("--deck", default=None, help="learn the deck from this design's (or real deck's) faces instead")
    parser.add_argument("--dir", type=Path, default=None, help="where the rendered frames are kept")
    parser.add_argument("--real-cards", type=Path, default=REAL_CARDS, help="the folder of the real decks")
    parser.add_argument("--render-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    real = args.design not in DESIGNS
    for flag, name in (("--design", args.design), ("--deck", args.deck)):
        if name and name not in DESIGNS and not (args.real_cards / name / "faces").is_dir():
            parser.error(f"{flag} {name}: neither a drawn design ({', '.join(DESIGNS)}) "
                         f"nor a real deck ({args.real_cards / name / 'faces'} is not there)")
    seeds = range(args.seed, args.seed + args.frames)
    folder = args.dir or Path("/tmp/vision-bench") / f"{args.design}-{'spread' if args.spread else 'apart'}"
    if args.render_only:
        render(folder, args.design, seeds, args.spread, args.real_cards)
        return
    cv2.setNumThreads(1)
    layout = load_layout(shipped_config_dir() / "layout.toml")
    start = time.perf_counter()
    if real:  # learned first: the frames deal only the cards the deck learned
        deck = learn(args.real_cards / args.design / "faces", folder / "deck")
        deck.save(folder / "deck")
    learn_s = time.perf_counter() - start
    start = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--render-only", "--frames", str(args.frames), "--seed", str(args.seed),
                    "--design", args.design, "--dir", str(folder), "--real-cards", str(args.real_cards)]
                   + (["--spread"] if args.spread else []), check=True)
    render_s = time.perf_counter() - start
    start = time.perf_counter()
    if args.deck in DESIGNS:
        subprocess.run([sys.executable, __file__, "--render-only", "--frames", "0", "--design", args.deck,
                        "--dir", str(folder.parent / f"{args.deck}-faces")], check=True)
        deck = learn(folder.parent / f"{args.deck}-faces" / "faces")
    elif args.deck:  # a real deck, learned from its face photos
        deck = learn(args.real_cards / args.deck / "faces")
    elif not real:
        deck = learn(folder / "faces")
    learn_s += time.perf_counter() - start
    counts: Counter = Counter()
    by_source: dict[str, Counter] = {}  # the image a card was shown from -> its counts
    misreads, unreadable, unreadable_cards = [], Counter(), Counter()
    times: dict[str, list[float]] = {}  # what -> (wall ms, CPU ms) per call
    widths, tilts = [], []

    def timed(what, call, *args):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call(*args)
        times.setdefault(what, []).append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
        return result

    start = time.perf_counter()
    for seed in seeds:
        frame = cv2.imread(str(folder / f"{seed}.png"), cv2.IMREAD_COLOR)
        meta = json.loads((folder / f"{seed}.json").read_text())
        widths += meta["widths"]
        tilts.append(meta["tilt_deg"])
        timed("baseline_full_frame_warp", cv2.warpPerspective, frame, np.eye(3), (frame.shape[1], frame.shape[0]))
        calibration = timed("calibrate", calibrate, frame, layout)
        # a running appliance's camera does not move: the next frame's markers are looked for near the last fit
        running = Calibrator(layout)
        running.update(frame)
        timed("calibrate_running", running.update, frame)
        result = timed("read_frame", read_frame, frame, layout, deck, calibration)
        counts["frames_deck_mismatch"] += DECK_MISMATCH in result.warnings
        for zone in meta["truth"]:  # a zone read alone, as the dealer loop reads the zone in play
            kind = "banker (7 cards)" if zone == "banker" else "back (5)" if zone.endswith("back") else "front (2)"
            timed(f"read_zone {kind}", read_zone, frame, layout.zone(zone), deck, calibration)
        for zone, truth in meta["truth"].items():
            got = result.zones.get(zone, [])
            sources = meta.get("sources", {}).get(zone, ["drawn"] * len(truth))
            counts["cards"] += len(truth)
            for source in sources:
                by_source.setdefault(source, Counter())["cards"] += 1
            if len(got) != len(truth):
                counts["not_found" if len(got) < len(truth) else "extra"] += abs(len(truth) - len(got))
                # the pairing of reads with cards is unknown, but a card named that is not in the zone is wrong
                counts["misread_not_in_zone"] += sum(r.card is not None and r.card not in truth for r in got)
                misreads.append({"frame": seed, "zone": zone, "truth": truth,
                                 "read": [r.card or r.reason for r in got]})
                continue
            for read, card, source in zip(got, truth, sources):
                outcome = "unreadable" if read.card is None else "correct" if read.card == card else "misread"
                counts[outcome] += 1
                by_source[source][outcome] += 1
                if outcome == "unreadable":
                    unreadable[read.reason.split("(")[0].strip()] += 1
                    unreadable_cards[card] += 1
                elif outcome == "misread":
                    misreads.append({"frame": seed, "zone": zone, "card": card, "read": read.card, "source": source})
    read_s = time.perf_counter() - start
    times["read_zone"] = [t for what, values in times.items() if what.startswith("read_zone ") for t in values]

    def ms(what):
        wall, cpu = np.array(times[what]).T
        return {"wall": {"median": round(float(np.median(wall)), 1), "p95": round(float(np.percentile(wall, 95)), 1),
                         "max": round(float(wall.max()), 1)},
                "cpu": {"median": round(float(np.median(cpu)), 1), "p95": round(float(np.percentile(cpu, 95)), 1),
                        "max": round(float(cpu.max()), 1)}}

    images = {}
    if real:
        images = json.loads((folder / "card_images.json").read_text())
        images["note"] = (f"{images['sources'].get('same photo', 0)} of the deck's cards are shown from the photo the "
                          "deck was taught from (found and flattened afresh, then seen by the frame's camera), "
                          f"{images['sources'].get('other photo', 0)} from other photos of them")
    print(json.dumps({
        "frames": args.frames, "seeds": f"{seeds.start}-{seeds.stop - 1}", "design": args.design,
        "deck": args.deck or args.design,
        "cards": "spread with overlap" if args.spread else "apart", **counts,
        "correct_rate": round(counts["correct"] / counts["cards"], 5),
        **({"card_images": images} if real else {}),
        "by_source": {source: {**c, "correct_rate": round(c["correct"] / c["cards"], 5)} for source, c in by_source.items()},
        "card_width_px": {"min": round(min(widths), 1), "median": round(float(np.median(widths)), 1)},
        "tilt_deg": {"median": round(float(np.median(tilts)), 1), "max": round(max(tilts), 1),
                     "over_25": sum(t > 25 for t in tilts)},
        "opencv_threads": cv2.getNumThreads(),
        "ms": {what: ms(what) for what in sorted(times)},
        "frame_vs_warp_ratio_cpu": round(float(np.median(np.array(times["read_frame"])[:, 1])
                                               / np.median(np.array(times["baseline_full_frame_warp"])[:, 1])), 2),
        "reader_peak_rss_mb": round(peak_rss_mb()),
        "learn_s": round(learn_s), "render_s": round(render_s), "read_s": round(read_s),
        "unreadable_reasons": dict(unreadable.most_common(8)), "unreadable_cards": dict(unreadable_cards.most_common(12)),
        "misreads": misreads[:20],
    }, indent=1))


if __name__ == "__main__":
    main()
