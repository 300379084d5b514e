"""The shipper's reader of a table's log: records in sequence order across day files whatever their
names, a line still being written left for later, a cut log read again from its start."""

from __future__ import annotations

import json

from appliance.audit.log import line_hash
from appliance.floor.table_log import TableLog


def line(seq: int, day: str) -> bytes:
    return json.dumps({"seq": seq, "gaming_day": day, "event": "E"}, separators=(",", ":")).encode() + b"\n"


def test_records_come_in_sequence_order_across_files_whatever_their_names(tmp_path):
    # The clock stepped back a day after record 3: records 4 and 5 went into the earlier day's file.
    (tmp_path / "2026-12-02.jsonl").write_bytes(line(1, "2026-12-02") + line(2, "2026-12-02") + line(3, "2026-12-02"))
    (tmp_path / "2026-12-01.jsonl").write_bytes(line(4, "2026-12-01") + line(5, "2026-12-01"))
    log = TableLog(tmp_path)
    assert [(p.seq, p.gaming_day) for p in log.after(0, limit=4)] == [
        (1, "2026-12-02"), (2, "2026-12-02"), (3, "2026-12-02"), (4, "2026-12-01")]
    assert [p.seq for p in log.after(4)] == [5]
    assert log.head().seq == 5 and log.head().hash == line_hash(line(5, "2026-12-01").rstrip(b"\n"))
    assert [p.seq for p in log.after(2, limit=2)] == [3, 4]  # asked again from further back


def test_a_line_being_written_waits_and_a_cut_log_is_read_again(tmp_path):
    path = tmp_path / "2026-12-01.jsonl"
    path.write_bytes(line(1, "2026-12-01") + line(2, "2026-12-01")[:9])
    log = TableLog(tmp_path)
    assert [p.seq for p in log.after(0)] == [1] and log.head().seq == 1
    path.write_bytes(line(1, "2026-12-01") + line(2, "2026-12-01") + line(3, "2026-12-01"))
    assert [p.seq for p in log.after(1)] == [2, 3]
    path.write_bytes(line(1, "2026-12-01") + line(2, "2026-12-01"))  # put back shorter
    assert log.head().seq == 2 and log.after(3) == []


def test_a_line_that_is_not_a_record_is_handed_out_in_its_place(tmp_path):
    (tmp_path / "2026-12-01.jsonl").write_bytes(line(1, "2026-12-01") + b"garbage\n" + line(3, "2026-12-01"))
    assert [(p.seq, p.line) for p in TableLog(tmp_path).after(0)][:2] == [(1, line(1, "2026-12-01")[:-1]),
                                                                          (2, b"garbage")]
