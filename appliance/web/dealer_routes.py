"""The dealer's touch screen: the rail's three buttons, the wagers, the card picker and the misdeal.

These requests feed the dealer's loop exactly as the GPIO buttons do; none of them can change
a settled round or the history (that takes a supervisor's PIN). They are answered to the
appliance's own screen (loopback) and to screens paired with a one-time code
(:mod:`.screen_pairing`), never to any other device that can reach the port. Each needs the
screen's CSRF token, handed out to the page itself (a page of another site cannot read it).
"""

from __future__ import annotations

import functools
import secrets

from flask import Blueprint, Response, g, jsonify, request, session

from ..table.dealer import DealerInputError, DealerLoop, SupervisorPinNeeded
from ..table.live import LiveTable
from ..table.round import Events
from ..table.supervisor import PinError
from .request_body import ID_LIMIT, BodyError, cards, json_object, text, whole
from .screen_pairing import SCREEN_COOKIE, PairingError, ScreenPairings
from .site_guard import is_loopback

WHO = "dealer (screen)"
BETS_LIMIT = 16  # wagers in one request: more than any table has seats


def dealer_routes(loop: DealerLoop, live: LiveTable, pairings: ScreenPairings, pair_page: str) -> Blueprint:
    bp = Blueprint("dealer", __name__)

    def answered() -> dict:
        """A press's answer: the prompt, stamped no newer than it is (stamped first, under the table's
        lock), so that the screen never lets an older state from the stream overwrite it."""
        with loop.table.lock:
            stamp = live.stamp()
            return {"ok": True, "dealer": loop.prompt(), **stamp}

    def this_screen() -> str | None:
        """Who drives the dealer's controls from here: a paired screen (named in the log), the
        appliance's own screen, or nobody."""
        screen = pairings.screen(request.cookies.get(SCREEN_COOKIE))
        if screen is not None:
            return f"dealer (screen {screen.name}, {screen.id})"
        return WHO if is_loopback(request.remote_addr or "") else None

    def not_paired():
        return jsonify({"error": "this device is not paired to the table: pair it at /pair", "pair": "/pair"}), 403

    def screen_only(view):
        @functools.wraps(view)
        def guarded():
            g.screen = this_screen()
            if g.screen is None:
                return not_paired()
            token = request.headers.get("X-CSRF-Token", "").encode()
            if not token or not secrets.compare_digest(token, session.get("dealer_csrf", "").encode()):
                return jsonify({"error": "missing or wrong CSRF token: reload the page"}), 403
            body = json_object()
            try:
                answer = view(body)
            except BodyError:
                raise  # the app answers 400 naming the field
            except PinError as err:  # the override's PIN: the screen asks for it again
                return jsonify({"error": str(err), "needs": "supervisor_pin"}), 403
            except SupervisorPinNeeded as err:
                return jsonify({"error": str(err), "needs": "supervisor_pin"}), 409
            except (DealerInputError, ValueError) as err:
                return jsonify({"error": str(err)}), 409
            return jsonify(answer or answered())
        return guarded

    @bp.get("/api/dealer")
    def prompt():
        """What the dealer is asked to do now, the screen's CSRF token, and which screen this is."""
        screen = this_screen()
        if screen is None:
            return not_paired()
        session.setdefault("dealer_csrf", secrets.token_urlsafe(32))
        return jsonify({**loop.prompt(), "csrf": session["dealer_csrf"], "screen": screen})

    @bp.post("/api/dealer/press")
    @screen_only
    def press(body):
        refused = loop.press(text(body, "button", ID_LIMIT), g.screen, whole(body, "version", required=False))
        if refused:
            raise DealerInputError(refused)

    @bp.post("/api/dealer/bets")
    @screen_only
    def bets(body):
        bets = body.get("bets")
        if not isinstance(bets, list) or len(bets) > BETS_LIMIT:
            raise BodyError(f"bets: expected a list of at most {BETS_LIMIT} {{seat, wager}}")
        loop.set_bets(bets, body.get("banker", "dealer"), body.get("banker_wager"), g.screen)

    @bp.post("/api/dealer/misdeal")
    @screen_only
    def misdeal(body):
        """A misdeal declared by the dealer, for one of the house's reasons, of the round the screen shows; once
        the deal is complete, with a supervisor's id and PIN."""
        loop.misdeal(text(body, "reason"), g.screen, text(body, "round", ID_LIMIT),
                     supervisor=text(body, "supervisor", ID_LIMIT, required=False),
                     pin=text(body, "pin", 8, required=False), address=request.remote_addr or "?")

    @bp.post("/api/dealer/card")
    @screen_only
    def card(body):
        loop.name_card(text(body, "zone", ID_LIMIT), whole(body, "position"), text(body, "card", 4), g.screen,
                       whole(body, "version", required=False))

    @bp.post("/api/dealer/hand")
    @screen_only
    def hand(body):
        """A zone entered by hand; over a steady camera read it carries a supervisor's id and PIN."""
        loop.enter_hand(text(body, "zone", ID_LIMIT), cards(body, "cards"), g.screen,
                        supervisor=text(body, "supervisor", ID_LIMIT, required=False),
                        pin=text(body, "pin", 8, required=False), address=request.remote_addr or "?")

    @bp.post("/api/dealer/house-way")
    @screen_only
    def house_way(body):
        """A player's request to have the seat's hand set by the house way, entered by the dealer (recorded as the screen's)."""
        loop.ask_house_way(whole(body, "seat"), g.screen)

    @bp.post("/api/dealer/setting-stands")
    @screen_only
    def setting_stands(body):
        """A supervisor lets the house dealer's held setting stand (settled as the cards lie, logged): id, PIN, why."""
        loop.let_setting_stand(text(body, "supervisor", ID_LIMIT), text(body, "pin", 8), text(body, "reason"),
                               address=request.remote_addr or "?")

    @bp.post("/api/dealer/pairing-code")
    @screen_only
    def pairing_code(body):
        """A one-time code, shown on the appliance's own screen only, to pair another screen."""
        if not is_loopback(request.remote_addr or ""):
            raise DealerInputError("a pairing code is shown on the appliance's own screen only "
                                   "(or asked for by a supervisor with the PIN)")
        code = pairings.new_code(g.screen)
        loop.table.log(Events.SCREEN_PAIRING_CODE, {"by": g.screen}, g.screen)
        return {"code": code}

    @bp.get("/pair")
    def pair_view():
        return Response(pair_page, mimetype="text/html")

    @bp.post("/api/pair")
    def pair():
        """This device, given the one-time code, becomes a paired screen (a cookie holds its token)."""
        body = json_object()
        code, name = text(body, "code", 16), text(body, "name", ID_LIMIT)
        if not name.strip():
            raise BodyError("name: give this screen a name (e.g. \"table 7 side screen\")")
        try:
            token, screen = pairings.pair(code.strip(), name.strip(), request.remote_addr or "?", lambda screen:
                                          loop.table.log(Events.SCREEN_PAIRED, screen.to_json(), screen.by))
        except PairingError as err:
            return jsonify({"error": str(err)}), 403
        response = jsonify({"paired": screen.to_json()})
        response.set_cookie(SCREEN_COOKIE, token, httponly=True, samesite="Strict", secure=request.is_secure,
                            max_age=400 * 24 * 3600)
        return response

    return bp
