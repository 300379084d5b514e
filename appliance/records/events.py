"""The event names: one class of constants, the registry every record's ``event`` is one of."""

from __future__ import annotations


class Events:
    """Event names, the same in the audit log, the live dashboard stream and the watchdog: every name
    a record can carry is here, once (tests/test_event_names.py checks the names the package's Python,
    SQL, HTML and JS spell out against it)."""

    APPLIANCE_STARTED = "ApplianceStarted"
    ROUND_OPENED = "RoundOpened"
    START_SEAT = "StartSeat"
    BANKER_CARDS = "BankerCards"
    BANKER_SET = "BankerSet"  # the house dealer's setting as the camera read it: the house way's, or let stand
    BANKER_SET_HELD = "BankerSetHeld"  # the house dealer's setting is not the house way: the round waits for a reset
    SEAT_CARDS = "SeatCards"
    READ_CONFIRMED = "ReadConfirmed"
    TABLE_FLAGGED = "TableFlagged"
    READ_CORRECTED = "ReadCorrected"
    DEVICE_HEALTH = "DeviceHealthWarning"
    DEVICE_STATUS = "DeviceStatus"  # a device came online, went offline, or reported a fault
    DEVICE_REJECTED = "DeviceRejected"  # a line from a device that failed validation
    SUPERVISOR_REFUSED = "SupervisorRefused"
    SUPERVISOR_CALLED = "SupervisorCalled"
    SUPERVISOR_LOGGED_IN = "SupervisorLoggedIn"
    AUDIT_EXPORTED = "AuditExported"  # a supervisor downloaded the export (range, rows, digest)
    TABLE_HELD = "TableHeld"  # the table waits for a supervisor
    BANK_REFUSED = "BankRefused"  # a player the rotation rules did not allow to bank
    # The bank offered seat by seat from the rail, between rounds (table/bank_walk.py):
    BANK_OFFERED = "BankOffered"  # a seat is asked (the seats in play the rules refuse, each with its rule)
    BANK_PASSED = "BankPassed"  # the seat asked passed the bank on
    BANK_TAKEN = "BankTaken"  # a seat took the bank, or the house kept it when every seat passed
    BANK_OFFER_ENDED = "BankOfferEnded"  # the offer ended with no new banker (no house bank; the screen chose)
    TABLE_RELEASED = "TableReleased"
    DEVICE_VALUE = "DeviceValue"  # a start value no round was waiting for (logged, not used)
    ROUND_SETTLED = "RoundSettled"
    ROUND_VOIDED = "RoundVoided"
    CAMERA_OVERRIDDEN = "CameraOverridden"  # a zone the camera read steadily, entered by hand with a supervisor's PIN
    SCREEN_PAIRING_CODE = "ScreenPairingCode"  # a one-time code to pair another screen was issued (not the code)
    SCREEN_PAIRED = "ScreenPaired"  # another device may drive the dealer's controls
    SCREEN_REVOKED = "ScreenRevoked"
    SETUP_BEGUN = "SetupBegun"  # the technician's setup holds the table (camera, deck, devices, house)
    SETUP_ENDED = "SetupEnded"  # what the setup checked, and the table released
    DECK_TAUGHT = "DeckTaught"  # a deck taught card by card from the camera is now the reader's
    LAMP_TESTED = "LampTested"  # a lamp lit or darkened by the technician's test
    HOUSE_CHOSEN = "HouseChosen"  # the house the table deals by from its next start
    # Written by the audit log itself (appliance/audit/log.py):
    AUDIT_RECOVERED = "AuditRecovered"  # a partial record cut at start-up
    AUDIT_GAP = "AuditGap"  # the log does not reach its head: records lost from the end (or the head itself)
    AUDIT_ACKNOWLEDGED = "AuditAcknowledged"  # a supervisor saw a start-up finding (with the PIN)
    CLOCK_STEPPED = "ClockStepped"  # the wall clock stepped back, or forward past the appliance's own timer
    CLOCK_CONFIRMED = "ClockConfirmed"  # a supervisor confirmed the gaming day after a step forward (with the PIN)
    RECORDING_RESUMED = "RecordingResumed"
    SHIFT_SEALED = "ShiftSealed"
    INDEX_REBUILT = "IndexRebuilt"  # the history index was damaged or edited: set aside and rebuilt from the log


#: The records of a round's steps, each booked to the gaming day of its time: none is written while a step
#: of the clock forward waits for a supervisor to confirm the day (appliance/audit/clock.py).
ROUND_STEPS = frozenset({Events.ROUND_OPENED, Events.START_SEAT, Events.BANKER_CARDS, Events.BANKER_SET,
                         Events.BANKER_SET_HELD, Events.SEAT_CARDS, Events.READ_CONFIRMED, Events.READ_CORRECTED,
                         Events.TABLE_FLAGGED, Events.CAMERA_OVERRIDDEN, Events.ROUND_SETTLED, Events.ROUND_VOIDED})


def event_names() -> frozenset[str]:
    """Every event name a record can carry.

    >>> {"RoundOpened", "DeviceHealthWarning", "ShiftSealed"} <= event_names()
    True
    """
    return frozenset(v for k, v in vars(Events).items() if k.isupper() and isinstance(v, str))
