"""A symbol's ink parted from what blur joined it to (``index._parted``): every piece of the
symbol's ink is judged by where it lies, and none is dropped unseen."""

import cv2
import numpy as np

from appliance.vision.index import _parted


def test_a_pale_piece_with_no_dark_core_is_kept_where_it_lies_in_the_symbols_region():
    """Two dark blots joined by a pale bridge part along it; a pale stroke beside them, broken off
    and with no dark core of its own (a club's stem seen soft), is no part the watershed floods:
    it was lost from the parted ink though it lies in the symbol's region. It is kept, and a pale
    piece outside the region is not."""
    grey = np.full((40, 80), 230, np.uint8)
    cv2.circle(grey, (15, 20), 8, 30, -1)  # the symbol, in the region
    cv2.circle(grey, (50, 20), 8, 30, -1)  # a pip joined to it, outside
    cv2.line(grey, (23, 20), (42, 20), 150, 3)  # the pale bridge blur made between them
    cv2.line(grey, (5, 33), (25, 33), 150, 2)  # a pale stroke broken off the symbol, in the region
    cv2.line(grey, (45, 33), (60, 33), 150, 2)  # a pale speck by the pip, outside
    _, labels = cv2.connectedComponents((grey < 200).astype(np.uint8), connectivity=8)
    pieces = [int(i) for i in np.unique(labels) if i]
    parts, _, kept = _parted(grey, labels, pieces, (0, 0, 32, 40))
    ink = np.isin(parts, kept)
    assert ink[20, 15] and ink[33, 15], "the symbol and its pale stroke"
    assert not ink[20, 50] and not ink[33, 52], "the pip and the speck by it"
