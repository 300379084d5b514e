"""The examples in hardware/serial-protocol.md are real frames."""

import re
from pathlib import Path

from appliance.devices.protocol import Rejection, frame, parse

DOC = Path(__file__).resolve().parent.parent / "hardware" / "serial-protocol.md"


def test_every_example_frame_in_the_protocol_document_parses():
    examples = re.findall(r"^\s{4}([RDH],[0-9,]+\*[0-9A-F]{2})\\r\\n", DOC.read_text(), re.M)
    assert len(examples) == 3
    for line in examples:
        assert not isinstance(parse(line.encode()), Rejection), line
        assert frame(line.split("*")[0]) == line.encode() + b"\r\n"
