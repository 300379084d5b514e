import random

import pytest

from appliance.devices.builtin_rng import BuiltinRng
from appliance.devices.health import UniformityMonitor, chi_square_sf


@pytest.mark.parametrize("x, dof, p", [(16.812, 6, 0.01), (15.086, 5, 0.01), (12.592, 6, 0.05), (11.070, 5, 0.05), (3.841, 1, 0.05), (9.210, 2, 0.01)])
def test_chi_square_tail_matches_the_tables(x, dof, p):
    assert chi_square_sf(x, dof) == pytest.approx(p, abs=2e-4)


def test_a_fair_device_passes_and_a_biased_one_is_flagged():
    rng = random.Random(1)
    fair = UniformityMonitor(faces=7, window=7000)
    biased = UniformityMonitor(faces=7, window=7000)
    for _ in range(7000):
        fair.add(rng.randint(1, 7))
        # a tampered device: one value in twenty forced to 4
        biased.add(4 if rng.random() < 0.05 else rng.randint(1, 7))
    assert not fair.check().warning
    check = biased.check()
    assert check.warning and check.p_value < 0.01 and check.counts[4] > check.counts[3]


def test_no_warning_before_the_window_holds_enough_values():
    m = UniformityMonitor(faces=6, window=600)
    for _ in range(20):
        m.add(6)
    assert not m.check().warning  # 20 values: fewer than 5 expected per face
    with pytest.raises(ValueError, match="value 7 is not a face 1..6"):
        m.add(7)


def test_the_builtin_generator_is_uniform_enough():
    rng = BuiltinRng()
    m = UniformityMonitor(faces=7, window=14_000)
    draws = [rng.draw() for _ in range(14_000)]
    for d in draws:
        m.add(d.value)
    assert {d.value for d in draws} == set(range(1, 8))
    assert [d.seq for d in draws[:3]] == [0, 1, 2]
    assert m.check().p_value > 1e-6  # a fair generator fails this once in a million runs


def test_tracker_warns_once_per_biased_die_and_logs_every_value(caplog):
    import logging

    from appliance.devices.protocol import DiceResult
    from appliance.devices.start_source import HealthTracker

    warnings = []
    tracker = HealthTracker("dice", window=600, on_warning=warnings.append)
    rng = random.Random(4)
    with caplog.at_level(logging.INFO, logger="appliance.devices.start_source"):
        for seq in range(600):
            # the second die is loaded: it shows six a third of the time
            loaded = 6 if rng.random() < 0.33 else rng.randint(1, 6)
            tracker.observe(DiceResult(seq, (rng.randint(1, 6), loaded, rng.randint(1, 6))))
    assert [w.die for w in warnings] == [2]
    assert "dice die 2: values depart from uniform" in warnings[0].message()
    assert sum("dice dice" in r.getMessage() for r in caplog.records) == 600


def test_a_health_warning_is_an_audit_record_that_verifies(tmp_path):
    from appliance.audit.log import AuditLog, records, verify
    from appliance.devices.protocol import RngResult
    from appliance.devices.start_source import HealthTracker

    audit = AuditLog(tmp_path, b"h" * 64)
    tracker = HealthTracker("rng", window=140, on_warning=lambda w: audit.append(
        "DeviceHealthWarning", {"source": w.source, "message": w.message(), **w.check.to_json()}))
    for seq in range(140):
        tracker.observe(RngResult(seq, 7 if seq % 3 else 1 + seq % 7))  # a device stuck on 7
    warning = [r for r in records(tmp_path) if r["event"] == "DeviceHealthWarning"]
    counts = warning[0]["data"]["counts"]
    assert len(warning) == 1 and counts["7"] > 3 * max(counts[str(f)] for f in range(1, 7))
    assert verify(tmp_path, b"h" * 64).ok
