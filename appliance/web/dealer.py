"""The dealer's touch screen: the rail's three buttons, the wagers, and the card picker.

These requests feed the dealer's loop exactly as the GPIO buttons do; none of them can change
a settled round or the history (that takes a supervisor's PIN). Each needs the screen's CSRF
token, handed out to the page itself (a page of another site cannot read it).
"""

from __future__ import annotations

import functools
import secrets

from flask import Blueprint, jsonify, request, session

from ..table.dealer import DealerInputError, DealerLoop

WHO = "dealer (screen)"


def dealer_routes(loop: DealerLoop) -> Blueprint:
    bp = Blueprint("dealer", __name__)

    def screen_only(view):
        @functools.wraps(view)
        def guarded():
            token = request.headers.get("X-CSRF-Token", "").encode()
            if not token or not secrets.compare_digest(token, session.get("dealer_csrf", "").encode()):
                return jsonify({"error": "missing or wrong CSRF token: reload the page"}), 403
            body = request.get_json(silent=True)
            if not isinstance(body, dict):
                return jsonify({"error": "expected a JSON object"}), 400
            try:
                view(body)
            except (DealerInputError, ValueError) as err:
                return jsonify({"error": str(err)}), 409
            return jsonify({"ok": True, "dealer": loop.prompt()})
        return guarded

    @bp.get("/api/dealer")
    def prompt():
        """What the dealer is asked to do now, and the screen's CSRF token."""
        session.setdefault("dealer_csrf", secrets.token_urlsafe(32))
        return jsonify({**loop.prompt(), "csrf": session["dealer_csrf"]})

    @bp.post("/api/dealer/press")
    @screen_only
    def press(body):
        refused = loop.press(str(body.get("button", "")), WHO, _version(body))
        if refused:
            raise DealerInputError(refused)

    @bp.post("/api/dealer/bets")
    @screen_only
    def bets(body):
        if not isinstance(body.get("bets"), list):
            raise DealerInputError("bets: expected a list of {seat, wager}")
        loop.set_bets(body["bets"], body.get("banker", "dealer"), body.get("banker_wager"), WHO)

    @bp.post("/api/dealer/card")
    @screen_only
    def card(body):
        position = body.get("position")
        if not isinstance(position, int):
            raise DealerInputError(f"position: {position!r} is not a card position")
        loop.name_card(str(body.get("zone", "")), position, str(body.get("card", "")), WHO, _version(body))

    @bp.post("/api/dealer/hand")
    @screen_only
    def hand(body):
        if not isinstance(body.get("cards"), list):
            raise DealerInputError("cards: expected a list of card codes")
        loop.enter_hand(str(body.get("zone", "")), body["cards"], WHO)

    return bp


def _version(body: dict) -> int | None:
    """The version of the reads the screen showed when the dealer acted."""
    version = body.get("version")
    if version is not None and not isinstance(version, int):
        raise DealerInputError(f"version: {version!r} is not a read version")
    return version
