"""What the pit sees change as a table's records arrive: its round's phase, the last settlement, a
hold, device faults; and the alerts those raise and close. Event names are the audit log's; the round's
phase and settlement are the one fold's (:class:`~appliance.records.round_state.RoundState`), folded
from what the floor keeps of the table's round between batches (which round, and its phase)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records.events import Events
from ..records.fold import round_of
from ..records.round_state import Phase, RoundState
from .alerts import close_alert, raise_alert

_PHASES = {phase.value: phase for phase in Phase}  # as the floor keeps a phase: by its name


@dataclass
class Observed:
    held: bool = False
    phase: str | None = None
    current_round: str | None = None
    last_settlement: dict | None = None
    devices: dict = field(default_factory=dict)


def observe(state: Observed, record: dict, table: str, conn) -> None:
    """Fold one verified record into the table's live state, raising or closing its alerts."""
    event, data = record["event"], record["data"]
    round_id = round_of(record)
    if isinstance(round_id, str):  # (a signed record may name a list as its round: it is none)
        known = _PHASES.get(state.phase, Phase.NEW) if round_id == state.current_round else Phase.NEW
        folded = RoundState(round_id, phase=known).fold(record)
        if folded.phase is not Phase.NEW:  # else a record of a round the floor never saw open: no phase to show
            state.phase, state.current_round = folded.phase.value, round_id
        if isinstance(folded.settlement, dict):
            totals = folded.settlement.get("totals")
            state.last_settlement = {"round": round_id, "at": folded.settled.at,
                                     **(totals if isinstance(totals, dict) else {})}
    if event == Events.TABLE_HELD:
        state.held = True
        raise_alert(conn, table, "held", f"table {table} is held: {data.get('reason', 'no reason given')}")
    elif event == Events.TABLE_RELEASED:
        state.held = False
        close_alert(conn, table, "held")
    elif event == Events.DEVICE_HEALTH:
        raise_alert(conn, table, "rng-health", f"table {table}: {data.get('message', 'start-seat device health warning')}")
    elif event == Events.DEVICE_STATUS:
        device, status = str(data.get("device")), str(data.get("status"))
        state.devices = {**state.devices, device: status}
        if status == "online":
            if all(s == "online" for s in state.devices.values()):
                close_alert(conn, table, "device-fault")
        else:
            detail = f" ({data['detail']})" if data.get("detail") else ""
            raise_alert(conn, table, "device-fault", f"table {table}: {device} {status}{detail}")
    elif event == Events.RECORDING_RESUMED:
        raise_alert(conn, table, "recording-was-stopped", f"table {table} recorded nothing for {data.get('seconds')} s "
                                                          f"from {data.get('stopped_at')}: {data.get('reason')}")
    elif event == Events.CLOCK_STEPPED:
        raise_alert(conn, table, "clock-stepped", f"table {table}'s clock stepped from {data.get('from')} to "
                                                  f"{data.get('to')}")
    elif event == Events.AUDIT_RECOVERED:
        raise_alert(conn, table, "log-recovered", f"table {table}'s log was cut back after a power cut "
                                                  f"({data.get('cut_bytes')} bytes kept aside as {data.get('kept_as')})")
