"""The card reader on rendered full tables: accuracy, time per frame and per zone, peak memory.

A deck design is learned with the real `deck learn` path from its face images; frames of
seven hands of seven are rendered with every degradation (tilt up to 30 degrees, uneven
light, glare, noise, blur, JPEG) at 4608x2592 and read. Prints cards read correctly,
unreadable, and confident misreads (a wrong card with a code: must be zero), the reading
time per frame and per zone, and, as the baseline measured in the same run, the time of
one cv2.warpPerspective of the full frame. Calibration (finding the markers) is timed apart:
the markers do not move, so a running appliance need not find them in every frame.
Run: python bench/vision_accuracy.py [--frames 500] [--design casino]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from appliance.config import shipped_config_dir
from appliance.game.cards import CARDS
from appliance.vision.calibrate import calibrate
from appliance.vision.deck import learn
from appliance.vision.layout import load_layout
from appliance.vision.reader import read_frame, read_zone
from appliance.vision.render import DESIGNS, Scene, card_face, deal_table, render_table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--design", default="casino", help="a design not used while tuning the reader")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    layout = load_layout(shipped_config_dir() / "layout.toml")
    with tempfile.TemporaryDirectory() as faces:
        for c in CARDS:
            cv2.imwrite(str(Path(faces) / f"{c}.png"), card_face(str(c), DESIGNS[args.design]))
        deck = learn(faces)

    counts: Counter = Counter()
    misreads, unreadable = [], Counter()
    read_ms, zone_ms, warp_ms, calibrate_ms = [], [], [], []
    for i in range(args.frames):
        seed = args.seed + i
        rng = random.Random(seed)
        rendered = render_table(layout, deal_table(rng), DESIGNS[args.design], Scene.random(rng), seed=seed)
        frame = rendered.image
        start = time.perf_counter()
        cv2.warpPerspective(frame, np.eye(3), (frame.shape[1], frame.shape[0]))
        warp_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        calibration = calibrate(frame, layout)
        calibrate_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        result = read_frame(frame, layout, deck, calibration)
        read_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        read_zone(frame, layout.zone("seat3.back"), deck, calibration)
        zone_ms.append((time.perf_counter() - start) * 1000)
        for zone, truth in rendered.truth.items():
            got = result.zones.get(zone, [])
            counts["cards"] += len(truth)
            if len(got) != len(truth):
                counts["not_found"] += abs(len(truth) - len(got))
            for read, card in zip(got, truth):
                if read.card is None:
                    counts["unreadable"] += 1
                    unreadable[read.reason.split("(")[0].strip()] += 1
                elif read.card == card:
                    counts["correct"] += 1
                else:
                    counts["misread"] += 1
                    misreads.append({"frame": seed, "zone": zone, "card": card, "read": read.card})
    print(json.dumps({
        "frames": args.frames, "design": args.design, **counts,
        "correct_rate": round(counts["correct"] / counts["cards"], 5),
        "read_ms_per_frame_median": round(float(np.median(read_ms)), 1),
        "calibrate_ms_per_frame_median": round(float(np.median(calibrate_ms)), 1),
        "read_ms_per_zone_median": round(float(np.median(zone_ms)), 1),
        "baseline_full_frame_warp_ms_median": round(float(np.median(warp_ms)), 1),
        "frame_vs_warp_ratio": round(float(np.median(read_ms) / np.median(warp_ms)), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "unreadable_reasons": dict(unreadable.most_common(8)), "misreads": misreads[:20],
    }, indent=1))


if __name__ == "__main__":
    main()
