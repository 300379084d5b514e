"""The audit log: every kind of tampering is found and named; a cut-off record is recovered."""

import datetime as dt
import json

import pytest

from appliance.audit.log import AuditError, AuditLog, lines_backwards, load_key, new_key, records, verify

KEY = b"k" * 64


class Clock:
    def __init__(self):
        self.now = dt.datetime(2026, 11, 28, 20, 0, tzinfo=dt.UTC)

    def __call__(self):
        self.now += dt.timedelta(hours=1)
        return self.now


def filled(tmp_path, n=12, clock=None):
    log = AuditLog(tmp_path, KEY, clock=clock or Clock())
    for i in range(n):
        log.append("RoundSettled", {"round": i, "banker_net": f"{i}.00"}, who="dealer")
    return log


def test_a_clean_log_verifies_across_gaming_days(tmp_path):
    filled(tmp_path)
    result = verify(tmp_path, KEY)
    assert result.ok and result.records == 13 and len(result.files) >= 2
    assert [r["seq"] for r in records(tmp_path)] == list(range(1, 14))
    # the gaming day's end sealed the head: the last record of the first day
    sealed = [r for r in records(tmp_path) if r["event"] == "ShiftSealed"]
    assert len(sealed) == 1 and sealed[0]["data"]["seal"]["gaming_day"] == "2026-11-28"


def _lines(path):
    return path.read_bytes().splitlines(keepends=True)


def first_file(tmp_path):
    return sorted(tmp_path.glob("*.jsonl"))[0]


def test_one_flipped_byte_is_found(tmp_path):
    filled(tmp_path)
    path = first_file(tmp_path)
    data = bytearray(path.read_bytes())
    at = data.index(b'"banker_net":"2.00"') + len(b'"banker_net":"')
    data[at] = ord("9")
    path.write_bytes(bytes(data))
    result = verify(tmp_path, KEY)
    assert not result.ok and (result.file, result.line) == (path.name, 3)
    assert "signature does not match" in result.problem


def test_a_deleted_line_is_found(tmp_path):
    filled(tmp_path)
    path = first_file(tmp_path)
    lines = _lines(path)
    path.write_bytes(b"".join(lines[:2] + lines[3:]))
    result = verify(tmp_path, KEY)
    assert not result.ok and (result.file, result.line) == (path.name, 3) and "chain broken" in result.problem


def test_swapped_lines_are_found(tmp_path):
    filled(tmp_path)
    path = first_file(tmp_path)
    lines = _lines(path)
    lines[1], lines[2] = lines[2], lines[1]
    path.write_bytes(b"".join(lines))
    result = verify(tmp_path, KEY)
    assert not result.ok and (result.file, result.line) == (path.name, 2) and "chain broken" in result.problem


def test_a_file_cut_mid_record_is_found(tmp_path):
    filled(tmp_path)
    path = sorted(tmp_path.glob("*.jsonl"))[-1]
    data = path.read_bytes()
    path.write_bytes(data[:-25])
    result = verify(tmp_path, KEY)
    assert not result.ok and result.file == path.name and "cut short" in result.problem


def test_records_deleted_from_the_end_are_found(tmp_path):
    filled(tmp_path)
    path = sorted(tmp_path.glob("*.jsonl"))[-1]
    path.write_bytes(b"".join(_lines(path)[:-1]))
    result = verify(tmp_path, KEY)
    assert not result.ok and "records missing at the end" in result.problem


def test_another_key_does_not_verify(tmp_path):
    filled(tmp_path, 2)
    assert not verify(tmp_path, b"x" * 64).ok


def test_after_a_power_cut_the_partial_record_is_kept_aside_and_the_chain_goes_on(tmp_path):
    clock = Clock()
    filled(tmp_path, 3, clock)
    path = sorted(tmp_path.glob("*.jsonl"))[-1]
    with open(path, "ab") as handle:
        handle.write(b'{"seq":4,"ts":"2026-11-')  # the machine died while writing
    assert not verify(tmp_path, KEY).ok
    log = AuditLog(tmp_path, KEY, clock=clock)
    log.append("ApplianceStarted", {})
    result = verify(tmp_path, KEY)
    assert result.ok and result.records == 5
    events = [r["event"] for r in records(tmp_path)]
    assert events[-2:] == ["AuditRecovered", "ApplianceStarted"]
    kept = list(tmp_path.glob("*.partial-0"))
    assert kept and kept[0].read_bytes() == b'{"seq":4,"ts":"2026-11-'


def test_keys(tmp_path):
    new_key(tmp_path / "audit.key")
    assert len(load_key(tmp_path / "audit.key")) == 64
    assert oct((tmp_path / "audit.key").stat().st_mode & 0o777) == "0o600"
    with pytest.raises(AuditError, match="no audit key"):
        load_key(tmp_path / "missing.key")
    with pytest.raises(FileExistsError):
        new_key(tmp_path / "audit.key")  # never overwrite a key


def test_every_record_is_valid_json_with_who_and_when(tmp_path):
    filled(tmp_path, 3)
    for line in first_file(tmp_path).read_bytes().splitlines():
        record = json.loads(line)
        assert record["who"] == "dealer" and record["ts"].endswith("+00:00")


def test_cli_verify_names_the_bad_record(tmp_path):
    import shutil
    import subprocess

    appliance = shutil.which("appliance")
    key = tmp_path / "audit.key"
    assert subprocess.run([appliance, "audit", "keygen", str(key)], capture_output=True).returncode == 0
    logs = tmp_path / "log"
    log = AuditLog(logs, load_key(key), clock=Clock())
    for i in range(4):
        log.append("DeviceValue", {"device": "rng", "value": i + 1})
    ok = subprocess.run([appliance, "audit", "verify", str(logs), "--key-file", str(key)], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["records"] == 4
    path = sorted(logs.glob("*.jsonl"))[0]
    path.write_bytes(path.read_bytes().replace(b'"value":2', b'"value":7'))
    bad = subprocess.run([appliance, "audit", "verify", str(logs), "--key-file", str(key)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert f"{path.name} line 2: signature does not match" in bad.stderr
    again = subprocess.run([appliance, "audit", "keygen", str(key)], capture_output=True, text=True)
    assert again.returncode == 2 and "never overwritten" in again.stderr


@pytest.mark.parametrize("block", [1, 3, 7, 64, 1 << 16])
def test_lines_are_read_back_from_the_end_whole_lines_only(tmp_path, block):
    """The one reader of a log file's end (the log at start-up, its tail, the floor's head): lines of
    any length across the blocks, a line without its line end (still being written) left out, and
    only the first ``size`` bytes looked at."""
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"one\n" + b"x" * 20 + b"\n\nthree\npart")
    assert list(lines_backwards(path, block=block)) == [b"three", b"x" * 20, b"one"]
    assert list(lines_backwards(path, size=len(b"one\n") + 5, block=block)) == [b"one"]  # mid-line: cut
    path.write_bytes(b"no line end")
    assert list(lines_backwards(path, block=block)) == []
