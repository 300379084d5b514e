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
from .request_body import ID_LIMIT, BodyError, cards, json_object, text, whole

WHO = "dealer (screen)"
BETS_LIMIT = 16  # wagers in one request: more than any table has seats


def dealer_routes(loop: DealerLoop) -> Blueprint:
    bp = Blueprint("dealer", __name__)

    def screen_only(view):
        @functools.wraps(view)
        def guarded():
            token = request.headers.get("X-CSRF-Token", "").encode()
            if not token or not secrets.compare_digest(token, session.get("dealer_csrf", "").encode()):
                return jsonify({"error": "missing or wrong CSRF token: reload the page"}), 403
            body = json_object()
            try:
                view(body)
            except BodyError:
                raise  # the app answers 400 naming the field
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
        refused = loop.press(text(body, "button", ID_LIMIT), WHO, whole(body, "version", required=False))
        if refused:
            raise DealerInputError(refused)

    @bp.post("/api/dealer/bets")
    @screen_only
    def bets(body):
        bets = body.get("bets")
        if not isinstance(bets, list) or len(bets) > BETS_LIMIT:
            raise BodyError(f"bets: expected a list of at most {BETS_LIMIT} {{seat, wager}}")
        loop.set_bets(bets, body.get("banker", "dealer"), body.get("banker_wager"), WHO)

    @bp.post("/api/dealer/card")
    @screen_only
    def card(body):
        loop.name_card(text(body, "zone", ID_LIMIT), whole(body, "position"), text(body, "card", 4), WHO,
                       whole(body, "version", required=False))

    @bp.post("/api/dealer/hand")
    @screen_only
    def hand(body):
        loop.enter_hand(text(body, "zone", ID_LIMIT), cards(body, "cards"), WHO)

    return bp

