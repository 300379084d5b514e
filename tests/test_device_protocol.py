import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.devices.protocol import (
    MAX_LINE, DiceResult, Heartbeat, LineReader, Rejection, RngResult, SequenceCheck, checksum, frame, parse,
)


def test_the_issue_example_and_its_checksum():
    assert checksum(b"R,42,5") == 0x61
    assert frame("R,42,5") == b"R,42,5*61\r\n"
    assert parse(frame("R,42,5")[:-2]) == RngResult(42, 5)
    assert parse(frame("D,7,3,5,6")[:-2]) == DiceResult(7, (3, 5, 6))
    assert parse(frame("H,9999")[:-2]) == Heartbeat(9999)


@pytest.mark.parametrize("line, reason", [
    (b"R,42,5*62", "checksum 62 does not match 61"),
    (b"R,42,5*6", "not a framed message"),
    (b"R,42,5", "not a framed message"),
    (b"r,42,5*41", "not a framed message"),
    (b"R,42,5*61 ", "not a framed message"),
    (b"\x00\xffR,42,5*61", "not a framed message"),
    (b"R,42,-5*4C", "not a framed message"),
    (b"R,42,5.0*6B", "not a framed message"),
    (b"R,12345,5*57", "not a framed message"),
    (frame("R,42,0")[:-2], "value 0 out of range 1..7"),
    (frame("R,42,8")[:-2], "value 8 out of range 1..7"),
    (frame("D,1,3,7,2")[:-2], "die 7 out of range 1..6"),
    (frame("D,1,0,1,2")[:-2], "die 0 out of range 1..6"),
    (frame("D,1,3,4")[:-2], "unknown message 'D' with 3 fields"),
    (frame("X,1,3")[:-2], "unknown message 'X' with 2 fields"),
    (b"R" * (MAX_LINE + 1), f"line of {MAX_LINE + 1} bytes is longer than {MAX_LINE}"),
])
def test_every_bad_line_is_rejected_with_its_reason(line, reason):
    result = parse(line)
    assert isinstance(result, Rejection) and result.reason == reason


def test_lines_split_across_reads_partial_and_over_long_lines():
    r = LineReader()
    assert r.feed(b"R,1,3*1F\r\nR,2") == [b"R,1,3*1F"]
    assert r.feed(b",4*1A\r\n") == [b"R,2,4*1A"]
    long = r.feed(b"N" * 100)
    assert len(long) == 1 and len(long[0]) == MAX_LINE + 1  # reported once, as over-long
    assert r.feed(b"NNNN\r\nR,3,1*1C\r\n") == [b"R,3,1*1C"]  # the rest of the long line is dropped
    r.feed(b"R,4,")
    assert r.discard_partial() == b"R,4,"


def test_repeated_seq_and_wrap():
    seqs = SequenceCheck(memory=4)
    assert not seqs.repeated("result", 9998)
    assert not seqs.repeated("result", 9999)
    assert not seqs.repeated("result", 0)
    assert seqs.repeated("result", 9999)
    assert not seqs.repeated("H", 9999)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.binary(max_size=60) | st.sampled_from([b"\r\n", b"\n", frame("R,1,7"), frame("D,2,6,6,1")]), max_size=30))
def test_arbitrary_bytes_never_give_a_value_out_of_range(chunks):
    reader = LineReader()
    for chunk in chunks:
        for line in reader.feed(chunk):
            message = parse(line)
            if isinstance(message, RngResult):
                assert 1 <= message.value <= 7 and 0 <= message.seq <= 9999
            elif isinstance(message, DiceResult):
                assert all(1 <= d <= 6 for d in message.dice) and 0 <= message.seq <= 9999
            else:
                assert isinstance(message, (Heartbeat, Rejection))
