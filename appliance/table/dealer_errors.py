"""The dealer's inputs refused: the screen shows the message, and asks for a supervisor's PIN where one is needed."""

from __future__ import annotations


class DealerInputError(ValueError):
    """A dealer's input that cannot be taken (a bad wager, a card for a zone not being read)."""


class SupervisorPinNeeded(DealerInputError):
    """A dealer's input that takes a supervisor's id and PIN with it (the screen asks for them)."""


class OverrideNeedsPin(SupervisorPinNeeded):
    """A hand typed over a zone the camera reads steadily: it takes a supervisor's PIN."""


class MisdealNeedsPin(SupervisorPinNeeded):
    """A misdeal once the deal is complete (the banker's hand opened and accepted): the supervisor's."""
