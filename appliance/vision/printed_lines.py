"""A design's printed frame lines near its index, learned from its faces, and the runs of ink a
corner's reader cuts off its symbols as such lines.

A frame line (a border round the card, a court picture's frame) is a long straight run of ink
thinner than a symbol's stroke (``card_faces.line_runs``), and a symbol touching one is cut off it.
But a narrow font's stroke is such a run too: a J's stem, a 1's, a T's. What tells them apart is
where they lie: a frame line is printed in the same place on the faces of many ranks, a stroke only
on the four cards of its rank, wherever its font puts it. A deck learns its lines as the runs that
lie in one place on the faces of at least LINE_RANKS ranks, and a corner it reads has only the runs
lying near them cut as lines.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from .card_faces import CANON_PX_PER_MM, LINE_MM, components, dark_ink, frame_lines, line_runs

#: A line lies in one place on every face printing it: the faces are flattened to within a few tenths of
#: a millimetre, and a line printed a little off from card to card (cut from the sheet off one another)
#: is the same line. Strokes of different ranks' symbols rarely line up to this closeness.
SAME_PLACE_MM = 0.4
#: Courts frame their pictures alike (J, Q and K): a line printed on three ranks' faces is the design's.
#: Two ranks' strokes in one place are chance (a 1 and a J's stem in a font whose letters are narrow).
LINE_RANKS = 3
#: A corner cut from a card in a frame lies off the learned corner by up to ``index.REGISTER_MM`` (cards
#: cut from the sheet off one another, an outline found a little off the card's edge) and the run's
#: middle a little further where blur widens it on one side: a run this near a learned line is it.
NEAR_LINE_MM = 2.0
#: Where a learned line lies, a run of it this long is taken for it: its place tells it from a stroke,
#: not its length, and a border line broken round the index leaves stubs 3 mm long that blur joins to a
#: symbol near them (a 6's hook joined so, with the stub, matched the 5, whose top bar is a line).
STUB_MM = 2.0
#: Lines printed side by side this near (a double border, 0.5 to 1 mm apart) are one band of ink once the
#: camera's blur joins them; a band is as thick as its lines lie apart, and a line's thickness more.
BAND_MM = 1.2
#: A line printed on the faces of this many ranks or more is the card's border, on every card (a border
#: broken round the index misses a few ranks' faces, where a wide 10 or a Q's tail joins it). Only a
#: border is looked for as short stubs and as bands: a court's frame is printed on three ranks, and on
#: the other ten a stroke lies where it would be (a 10's 0 beside where the courts' frame runs, in a bold
#: font as thick as the frame's two lines blurred into one, was cut as the frame).
BORDER_RANKS = 7


class PrintedLine(NamedTuple):
    """A learned frame line, in mm on an upright face: ``down`` the face (at a distance ``at`` from its
    left edge) or across it (from its top), from ``start`` to ``end`` along it, printed on the faces of
    ``ranks`` ranks."""

    down: bool
    at: float
    start: float
    end: float
    ranks: int = 1

    @property
    def border(self) -> bool:
        """Printed on every card (BORDER_RANKS)."""
        return self.ranks >= BORDER_RANKS

    def to_json(self) -> list:
        return ["down" if self.down else "across", round(self.at, 2), round(self.start, 2), round(self.end, 2), self.ranks]

    @classmethod
    def of_json(cls, data) -> PrintedLine:
        if not isinstance(data, list) or len(data) != 5 or data[0] not in ("down", "across") \
                or not isinstance(data[4], int) or not 1 <= data[4] <= 13:
            raise ValueError(f"a printed line is {data!r}, not [down or across, at, start, end, ranks printing it]")
        return cls(data[0] == "down", *(float(v) for v in data[1:4]), data[4])


def _runs_mm(ink: np.ndarray, origin: tuple[float, float], long_mm: float = LINE_MM[0],
             thick_mm: float = LINE_MM[1]) -> list[tuple[PrintedLine, tuple[np.ndarray, int]]]:
    """Each run of ``line_runs`` (``long_mm`` long or more, thinner than ``thick_mm``) in an ink mask
    cut at ``origin`` (mm), as a line, with its pixels (the labels of its direction's runs, and its own)."""
    m = CANON_PX_PER_MM
    found = []
    for down, runs in zip((True, False), line_runs(ink, long_mm, thick_mm, edge_cut=True)):
        if not cv2.countNonZero(runs):
            continue
        count, labels, stats, _ = components(runs)
        for label in range(1, count):
            x, y, w, h = (int(v) for v in stats[label, :4])
            line = (PrintedLine(True, origin[0] + (x + w / 2) / m, origin[1] + y / m, origin[1] + (y + h) / m) if down
                    else PrintedLine(False, origin[1] + (y + h / 2) / m, origin[0] + x / m, origin[0] + (x + w) / m))
            found.append((line, (labels, label)))
    return found


def learned_lines(corners: list[tuple[str, np.ndarray]], origin: tuple[float, float],
                  symbols: tuple[tuple[float, float, float, float], ...]) -> tuple[PrintedLine, ...]:
    """The frame lines of a design from its faces' index corners (upright, at CANON_PX_PER_MM, cut at
    ``origin`` mm on the face), each with its card's rank: runs lying within SAME_PLACE_MM of one
    another on the corners of LINE_RANKS ranks or more, each such place one line reaching as far as
    its runs do. A run lying wholly within one of the ``symbols``' reach (x0, y0, x1, y1 mm: the rank's
    and the suit's) is a stroke: a narrow font's stems line up at its index's edge (a J's, a 4's and a
    K's, within 0.2 mm), where a frame line runs on past the symbols."""
    runs = []
    for rank, corner in corners:
        found = dark_ink(corner)
        if found is not None:
            runs += [(line, rank) for line, _ in _runs_mm(found[1], origin) if not any(_within(line, box) for box in symbols)]
    lines = []
    for down in (True, False):
        placed = sorted((line, rank) for line, rank in runs if line.down == down)
        shared = [(line, rank) for line, rank in placed
                  if len({other_rank for other, other_rank in placed if abs(other.at - line.at) <= SAME_PLACE_MM}) >= LINE_RANKS]
        lines += _joined(shared)
    return tuple(lines)


def _within(line: PrintedLine, box: tuple[float, float, float, float]) -> bool:
    """Whether a run lies wholly within ``box`` (x0, y0, x1, y1 mm)."""
    x0, y0, x1, y1 = box
    (low, high), (start, end) = ((x0, x1), (y0, y1)) if line.down else ((y0, y1), (x0, x1))
    return low <= line.at <= high and start <= line.start and line.end <= end


def _joined(runs: list[tuple[PrintedLine, str]]) -> list[PrintedLine]:
    """Runs of one direction (each with its face's rank), sorted by place, joined where each lies within
    SAME_PLACE_MM of the last: one line at their median place, reaching as far as they do."""
    groups: list[list[tuple[PrintedLine, str]]] = []
    for line, rank in runs:
        if groups and line.at - groups[-1][-1][0].at <= SAME_PLACE_MM:
            groups[-1].append((line, rank))
        else:
            groups.append([(line, rank)])
    return [PrintedLine(group[0][0].down, float(np.median([line.at for line, _ in group])),
                        min(line.start for line, _ in group), max(line.end for line, _ in group),
                        len({rank for _, rank in group})) for group in groups]


class Band(NamedTuple):
    """Learned lines of one direction printed side by side (a double border), which blur joins into
    one band of ink: where they lie across (``low`` to ``high``) and along (``start`` to ``end``), and
    whether they are the card's border."""

    down: bool
    low: float
    high: float
    start: float
    end: float
    border: bool

    def off(self, run: PrintedLine) -> float:
        """How far across a run lies from the band (0 within it)."""
        return max(self.low - run.at, run.at - self.high, 0.0)

    def along(self, run: PrintedLine) -> bool:
        """Whether most of a run lies along the band's length, give or take NEAR_LINE_MM: a symbol's
        stroke beside the end of a line (a 5's top bar level with a border's stub) runs on past it."""
        inside = min(run.end, self.end + NEAR_LINE_MM) - max(run.start, self.start - NEAR_LINE_MM)
        return inside >= (run.end - run.start) / 2

    @property
    def thick_mm(self) -> float:
        """How thick the band's ink may be seen: lines printed apart, each as thin as a line, join under
        blur that widens each, as thick as their spread and two lines (a double border 0.9 mm apart
        measured 1.6 mm); a line alone, LINE_MM."""
        return round(self.high - self.low + LINE_MM[1] * (2 if self.high > self.low else 1), 1)


def bands(lines: tuple[PrintedLine, ...]) -> list[Band]:
    """The learned ``lines`` as bands: lines of a direction within BAND_MM of one another across and
    overlapping along joined into one (a border's, where one of them is: a double border's outer
    line, broken round the index, is seen whole on fewer faces)."""
    found: list[Band] = []
    for line in sorted(lines):
        last = found[-1] if found else None
        if last is not None and last.down == line.down \
                and line.at - last.high <= BAND_MM and line.start <= last.end and line.end >= last.start:
            found[-1] = last._replace(high=line.at, start=min(last.start, line.start), end=max(last.end, line.end),
                                      border=last.border or line.border)
        else:
            found.append(Band(line.down, line.at, line.at, line.start, line.end, line.border))
    return found


def lines_cut(ink: np.ndarray, origin: tuple[float, float], lines: tuple[PrintedLine, ...] | None,
              symbols: tuple[tuple[float, float, float, float], ...] = ()) -> np.ndarray:
    """The runs of an index corner's ink mask (cut at ``origin`` mm on the face) that are the deck's
    printed frame lines. For each band of its learned ``lines``: the runs in its direction, no thicker
    than the band seen blurred (``Band.thick_mm``), as long as a line (LINE_MM) or, for a border, as
    a stub (STUB_MM), lying along it and nearest it across (within NEAR_LINE_MM, and any within
    SAME_PLACE_MM of those: a line broken where a symbol touches it). A symbol's stroke beside a line
    lies further from it than the line's own run, however far the corner lies off: a 6's long left
    side 2 mm from a border line, cut as one, left a 5. A line printed on a few ranks' faces (a
    court's frame) is not where it is looked for on the others: a run lying wholly within one of the
    ``symbols``' reach (x0, y0, x1, y1 mm) is a stroke there (a 10's 0 in a bold font, as thick as the
    frame's two lines blurred into one, lay where they do). With the runs, what is left where two
    bands cross (``_crossings``). A deck learned before lines were (``lines`` None) takes
    every run LINE_MM long or more for one."""
    if lines is None:
        return frame_lines(ink)
    cut = np.zeros_like(ink)
    runs: dict[tuple[float, float], list] = {}
    thickest = 0.0
    for band in bands(lines):
        shape = (STUB_MM if band.border else LINE_MM[0], band.thick_mm)
        if shape not in runs:
            runs[shape] = _runs_mm(ink, origin, *shape)
        near = [(band.off(run), pixels) for run, pixels in runs[shape] if run.down == band.down and band.along(run)
                and (band.border or not any(_within(run, box) for box in symbols))]
        nearest = min((off for off, _ in near), default=NEAR_LINE_MM + 1)
        for off, (labels, label) in near:
            if off <= min(nearest + SAME_PLACE_MM, NEAR_LINE_MM):
                cut[labels == label] = 255
                thickest = max(thickest, band.thick_mm)
    return cut | _crossings(ink, cut, thickest)


def _crossings(ink: np.ndarray, cut: np.ndarray, thick_mm: float) -> np.ndarray:
    """The ink a cut leaves of its lines: pieces touching the ``cut`` no wider and no taller than the
    thickest band cut (``thick_mm``), such as the square where a band down the corner crossed one
    across it (a court's frame meeting the border left a square 1.4 mm wide beside a J's top, taken
    into the J, which then matched the aces) or a line's frayed end. A symbol's stroke touching a
    line is longer than a line is thick."""
    left = ink & ~cut
    if not cv2.countNonZero(cut) or not cv2.countNonZero(left):
        return np.zeros_like(ink)
    _, labels, stats, _ = components(left)
    most = thick_mm * CANON_PX_PER_MM + 1
    touching = np.unique(labels[cv2.dilate(cut, np.ones((3, 3), np.uint8)) > 0])
    small = [label for label in touching if label
             and stats[label, cv2.CC_STAT_WIDTH] <= most and stats[label, cv2.CC_STAT_HEIGHT] <= most]
    return np.where(np.isin(labels, small), 255, 0).astype(np.uint8) if small else np.zeros_like(ink)
