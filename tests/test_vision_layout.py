import re

import pytest

from appliance.config import shipped_config_dir
from appliance.vision.layout import LayoutError, load_layout

SHIPPED = shipped_config_dir() / "layout.toml"


def test_the_shipped_layout_is_a_seven_seat_table():
    layout = load_layout(SHIPPED)
    names = {z.name for z in layout.zones}
    assert names == {"banker", "teach"} | {f"{place}.{part}" for place in ["banker", *(f"seat{n}" for n in range(1, 8))]
                                           for part in ("front", "back")}
    assert len(layout.markers) >= 4 and layout.dictionary == "DICT_4X4_50"
    assert layout.zone("banker").expected_cards == 7 and layout.zone("seat7.front").expected_cards == 2
    # the house dealer sets the banker's hand where the camera reads the setting
    assert layout.zone("banker.front").expected_cards == 2 and layout.zone("banker.back").expected_cards == 5
    assert layout.reads_banker_setting


def _without_zone(text: str, name: str) -> str:
    head, *zones = text.split("[[zones]]")
    return "[[zones]]".join([head, *(z for z in zones if f'name = "{name}"' not in z)])


def test_the_banker_set_zones_are_optional_but_go_together(tmp_path):
    path = tmp_path / "layout.toml"
    text = _without_zone(_without_zone(SHIPPED.read_text(), "banker.front"), "banker.back")
    path.write_text(text)
    assert not load_layout(path).reads_banker_setting  # the dealer's setting is not read: the house way's is settled
    path.write_text(_without_zone(SHIPPED.read_text(), "banker.back"))
    with pytest.raises(LayoutError, match=re.escape("zones: zone banker.front without zone banker.back: the "
                                                    "dealer's setting is read from both")):
        load_layout(path)


@pytest.mark.parametrize("old, new, message", [
    ("height_mm = 1000", "height_mm = 1000\ncolour = 1", "layout.colour: unknown key"),
    ('rect_mm = [600, 75, 600, 115]', 'rect_mm = [1500, 75, 600, 115]', "zones[0].rect_mm: zone banker lies outside"),
    ('name = "teach"', 'name = "seat9.back"', "is not a zone name"),
    ("center_mm = [900, 40]", "center_mm = [900, 2000]", "marker 4 does not lie inside"),
    ('aruco_dictionary = "DICT_4X4_50"', 'aruco_dictionary = "DICT_9X9_1"', "is not an OpenCV ArUco dictionary"),
    ("rect_mm = [1300, 200, 200, 120]", "rect_mm = [1300, 200, 200, 200]", "zones[3].rect_mm: zone seat1.back overlaps zone seat1.front"),
])
def test_bad_layouts_name_the_file_and_key(tmp_path, old, new, message):
    path = tmp_path / "layout.toml"
    text = SHIPPED.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(LayoutError, match=re.escape(message)):
        load_layout(path)


def test_too_few_markers(tmp_path):
    text = SHIPPED.read_text()
    head, rest = text.split("[[markers]]", 1)
    path = tmp_path / "layout.toml"
    zones = "[[zones]]" + text.split("[[zones]]", 1)[1]
    path.write_text(head + "[[markers]]" + rest.split("[[markers]]")[0] + zones)
    with pytest.raises(LayoutError, match="1 markers; at least 4 are needed"):
        load_layout(path)


def test_missing_file():
    with pytest.raises(LayoutError, match="no such layout file"):
        load_layout("/nonexistent/layout.toml")
