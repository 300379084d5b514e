"""The table layout as configuration: size, ArUco markers and card zones, in millimetres.

>>> from appliance.config import shipped_config_dir
>>> layout = load_layout(shipped_config_dir() / "layout.toml")
>>> layout.zone("seat3.back").expected_cards, len(layout.markers)
(5, 5)
>>> layout.zone("banker.front").expected_cards, layout.reads_banker_setting
(2, True)

The banker's seven cards lie in ``banker`` while they are read and the house way is shown; the
house dealer then sets them into ``banker.front`` and ``banker.back``, where the camera reads the
setting for the table to compare with the house way. Both set zones or neither: without them the
dealer's setting is not read, and the round settles on the house way's setting.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..game.schema import SchemaError, Section

_ZONE_NAME = re.compile(r"^(banker|teach|(banker|seat[1-7])\.(front|back))$")
BANKER_SET_ZONES = ("banker.front", "banker.back")


class LayoutError(SchemaError):
    """A layout file that is incomplete, mistyped or geometrically impossible."""


@dataclass(frozen=True)
class Marker:
    id: int
    center: tuple[float, float]
    size: float

    @property
    def corners(self) -> list[tuple[float, float]]:
        """Top-left, top-right, bottom-right, bottom-left: the order ArUco reports them."""
        x, y, h = self.center[0], self.center[1], self.size / 2
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


@dataclass(frozen=True)
class Zone:
    name: str
    x: float
    y: float
    width: float
    height: float

    @property
    def expected_cards(self) -> int | None:
        if self.name == "banker":
            return 7
        if self.name == "teach":
            return 1
        return 2 if self.name.endswith(".front") else 5

    def overlaps(self, other: Zone) -> bool:
        return not (self.x + self.width <= other.x or other.x + other.width <= self.x
                    or self.y + self.height <= other.y or other.y + other.height <= self.y)


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    dictionary: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    source: str = ""

    def zone(self, name: str) -> Zone:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise KeyError(f"{self.source}: no zone {name!r}")

    @property
    def reads_banker_setting(self) -> bool:
        """Whether the house dealer's setting of the banker's hand is read (the layout has its two zones)."""
        return all(any(zone.name == name for zone in self.zones) for name in BANKER_SET_ZONES)

    def aruco_dictionary(self):
        import cv2

        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))


def load_layout(path: str | Path) -> Layout:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LayoutError(f"{path}: no such layout file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise LayoutError(f"{path}: {err}") from None
    return layout_from_mapping(data, str(path))


def layout_from_mapping(data: object, source: str) -> Layout:
    # OpenCV only where a layout is loaded: the round loop needs the zone names alone, and a table that
    # plays without a camera (simulate-table) starts without it
    import cv2

    top = Section(data, source, error=LayoutError)
    head = top.table("layout")
    width, height = head.number("width_mm", 100, 10_000), head.number("height_mm", 100, 10_000)
    dictionary = head.string("aruco_dictionary")
    if not dictionary.startswith("DICT_") or not hasattr(cv2.aruco, dictionary):
        raise head.error("aruco_dictionary", f"{dictionary!r} is not an OpenCV ArUco dictionary such as DICT_4X4_50")
    head.done()

    markers = []
    for t in top.tables("markers"):
        center = _pair(t, "center_mm")
        marker = Marker(t.integer("id", 0, 999), center, t.number("size_mm", 10, 500))
        t.done()
        if any(m.id == marker.id for m in markers):
            raise t.error("id", f"marker id {marker.id} appears twice")
        if not all(0 <= x <= width and 0 <= y <= height for x, y in marker.corners):
            raise t.error("center_mm", f"marker {marker.id} does not lie inside the {width:g} x {height:g} mm layout")
        markers.append(marker)
    if len(markers) < 4:
        raise top.error("markers", f"{len(markers)} markers; at least 4 are needed to fit the camera view")
    size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).bytesList.shape[0]
    for m in markers:
        if m.id >= size:
            raise top.error("markers", f"marker id {m.id} is not in {dictionary} (ids 0-{size - 1})")

    zones = []
    for t in top.tables("zones"):
        name = t.string("name")
        if not _ZONE_NAME.match(name):
            raise t.error("name", f"{name!r} is not a zone name: banker, banker.front / banker.back, teach, "
                                 "or seatN.front / seatN.back (N = 1-7)")
        rect = t.raw("rect_mm")
        if not isinstance(rect, list) or len(rect) != 4 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in rect):
            raise t.error("rect_mm", f"expected [x, y, width, height] in mm, got {rect!r}")
        zone = Zone(name, *map(float, rect))
        t.done()
        if zone.width <= 0 or zone.height <= 0 or zone.x < 0 or zone.y < 0 \
                or zone.x + zone.width > width or zone.y + zone.height > height:
            raise t.error("rect_mm", f"zone {name} lies outside the {width:g} x {height:g} mm layout")
        for other in zones:
            if other.name == name:
                raise t.error("name", f"zone {name} appears twice")
            if zone.overlaps(other):
                raise t.error("rect_mm", f"zone {name} overlaps zone {other.name}")
        zones.append(zone)
    present = [name for name in BANKER_SET_ZONES if any(zone.name == name for zone in zones)]
    if len(present) == 1:
        missing = next(name for name in BANKER_SET_ZONES if name not in present)
        raise top.error("zones", f"zone {present[0]} without zone {missing}: the dealer's setting is read from "
                        "both (give both, or neither)")
    top.done()
    return Layout(width, height, dictionary, tuple(markers), tuple(zones), source)


def _pair(t: Section, key: str) -> tuple[float, float]:
    value = t.raw(key)
    if not isinstance(value, list) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise t.error(key, f"expected [x, y] in mm, got {value!r}")
    return float(value[0]), float(value[1])
