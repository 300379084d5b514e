"""Serial reader throughput: messages per second through the driver's validation, against a
plain readline() over the same bytes, in the same run. At 9600 baud a device can send at most
about 60 lines a second, so anything in the tens of thousands is ample headroom.
Run: python bench/serial_parse_speed.py [--messages N]
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import random
import time

from appliance.devices.protocol import LineReader, frame
from appliance.devices.serial_device import DeviceKind, SerialSettings, StartSeatDevice


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200_000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rng = random.Random(1)
    data = b"".join(
        frame(f"R,{i % 10000},{rng.randint(1, 7)}") if i % 10 else frame(f"H,{i % 10000}")
        for i in range(args.messages)
    )

    start = time.perf_counter()
    stream = io.BytesIO(data)
    plain = 0
    while stream.readline():
        plain += 1
    baseline = time.perf_counter() - start

    accepted = []
    device = StartSeatDevice(SerialSettings(DeviceKind.RNG, "unused"), accepted.append)
    reader = LineReader()
    start = time.perf_counter()
    for offset in range(0, len(data), 4096):  # as the port delivers it, in reads
        for line in reader.feed(data[offset:offset + 4096]):
            device.handle_line(line)
    ours = time.perf_counter() - start

    print(json.dumps({
        "messages": plain,
        "results_accepted": len(accepted),
        "readline_lines_per_s": round(plain / baseline),
        "validated_messages_per_s": round(plain / ours),
        "ratio_to_readline": round(baseline / ours, 3),
    }, indent=1))


if __name__ == "__main__":
    main()
