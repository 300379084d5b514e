"""Printable marker sheets: each layout marker at true size on A4 pages, with its id and place."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from .layout import Layout

A4_MM = (210.0, 297.0)


def marker_pages(layout: Layout, dpi: int = 300) -> list[np.ndarray]:
    """White A4 pages (grey images) with the markers at true size, a 10 mm quiet zone round each."""
    px = dpi / 25.4
    page_w, page_h = round(A4_MM[0] * px), round(A4_MM[1] * px)
    dictionary = layout.aruco_dictionary()
    pages: list[np.ndarray] = []
    x = y = 15.0
    row_h = 0.0
    page = None
    for marker in layout.markers:
        cell = marker.size + 20.0  # quiet zone and label
        if page is None or x + cell > A4_MM[0] - 15:
            x, y, row_h = 15.0, y + row_h + 12.0, 0.0
        if page is None or y + cell + 10 > A4_MM[1] - 15:
            page = np.full((page_h, page_w), 255, np.uint8)
            pages.append(page)
            x, y, row_h = 15.0, 15.0, 0.0
        side = round(marker.size * px)
        x0, y0 = round((x + 10) * px), round((y + 10) * px)
        page[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
        label = f"id {marker.id}  {marker.size:g} mm  at ({marker.center[0]:g}, {marker.center[1]:g}) mm"
        cv2.putText(page, label, (round(x * px), round((y + cell + 6) * px)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.09 * px, 0, max(1, round(0.15 * px)), cv2.LINE_AA)
        x += max(cell, 70.0) + 10
        row_h = max(row_h, cell + 10)
    return pages


def png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes that carry their resolution (a pHYs chunk), so a printer prints them at true size."""
    ok, data = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise OSError("cannot encode the marker sheet as PNG")
    data = data.tobytes()
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    end_of_ihdr = 8 + 8 + 13 + 4  # signature, IHDR length and type, IHDR data, CRC
    return data[:end_of_ihdr] + chunk + data[end_of_ihdr:]


def write_marker_pages(layout: Layout, out: Path, dpi: int = 300) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, page in enumerate(marker_pages(layout, dpi), 1):
        path = out / f"markers-{n}.png"
        path.write_bytes(png_with_dpi(page, dpi))
        paths.append(path)
    return paths
