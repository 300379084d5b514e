"""The dealer's touch screen: the rail's three buttons, the wagers, the card picker and the misdeal.

These requests feed the dealer's loop exactly as the GPIO buttons do; none of them can change
a settled round or the history (that takes a supervisor's PIN). They are answered to the
appliance's own screen (loopback) and to screens paired with a one-time code
(:mod:`.screen_pairing`), never to any other device that can reach the port. Each needs the
screen's CSRF token, handed out to the page itself (a page of another site cannot read it).
"""

from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response, g, jsonify, request

from ..table.dealer import DealerLoop
from ..table.dealer_errors import DealerInputError
from ..table.round import Events
from ..table.supervisor import PIN_LIMIT
from .access import PAIRING, answering, paired_screen, screen_action, screen_token
from .request_body import ID_LIMIT, BodyError, cards, json_object, text, whole
from .screen_pairing import SCREEN_COOKIE
from .services import services
from .site_guard import is_loopback

BETS_LIMIT = 16  # wagers in one request: more than any table has seats
PAIR_PAGE = resources.files("appliance.web").joinpath("static", "pair.html").read_text(encoding="utf-8")

bp = Blueprint("dealer", __name__)


def dealer_loop() -> DealerLoop:
    return services().dealer


def answered():
    """A press's answer: the prompt, stamped no newer than it is (stamped first, under the table's
    lock), so that the screen never lets an older state from the stream overwrite it."""
    loop = dealer_loop()
    with loop.table.lock:
        stamp = services().live.stamp()
        return jsonify({"ok": True, "dealer": loop.prompt(), **stamp})


@bp.get("/api/dealer")
def prompt():
    """What the dealer is asked to do now, the screen's CSRF token, and which screen this is."""
    screen = paired_screen()
    return jsonify({**dealer_loop().prompt(), "csrf": screen_token(), "screen": screen})


@bp.post("/api/dealer/press")
@screen_action
def press(body):
    refused = dealer_loop().press(text(body, "button", ID_LIMIT), g.screen, whole(body, "version", required=False))
    if refused:
        raise DealerInputError(refused)
    return answered()


@bp.post("/api/dealer/bets")
@screen_action
def bets(body):
    bets = body.get("bets")
    if not isinstance(bets, list) or len(bets) > BETS_LIMIT:
        raise BodyError(f"bets: expected a list of at most {BETS_LIMIT} {{seat, wager}}")
    dealer_loop().set_bets(bets, body.get("banker", "dealer"), body.get("banker_wager"), g.screen)
    return answered()


@bp.post("/api/dealer/misdeal")
@screen_action
def misdeal(body):
    """A misdeal declared by the dealer, for one of the house's reasons, of the round the screen shows; once
    the deal is complete, with a supervisor's id and PIN."""
    dealer_loop().misdeal(text(body, "reason"), g.screen, text(body, "round", ID_LIMIT),
                          supervisor=text(body, "supervisor", ID_LIMIT, required=False),
                          pin=text(body, "pin", PIN_LIMIT, required=False), address=request.remote_addr or "?")
    return answered()


@bp.post("/api/dealer/card")
@screen_action
def card(body):
    dealer_loop().name_card(text(body, "zone", ID_LIMIT), whole(body, "position"), text(body, "card", 4), g.screen,
                            whole(body, "version", required=False))
    return answered()


@bp.post("/api/dealer/hand")
@screen_action
def hand(body):
    """A zone entered by hand; over a steady camera read it carries a supervisor's id and PIN."""
    dealer_loop().enter_hand(text(body, "zone", ID_LIMIT), cards(body, "cards"), g.screen,
                             supervisor=text(body, "supervisor", ID_LIMIT, required=False),
                             pin=text(body, "pin", PIN_LIMIT, required=False), address=request.remote_addr or "?")
    return answered()


@bp.post("/api/dealer/house-way")
@screen_action
def house_way(body):
    """A player's request to have the seat's hand set by the house way, entered by the dealer (recorded as the screen's)."""
    dealer_loop().ask_house_way(whole(body, "seat"), g.screen)
    return answered()


@bp.post("/api/dealer/setting-stands")
@screen_action
def setting_stands(body):
    """A supervisor lets the house dealer's held setting stand (settled as the cards lie, logged): id, PIN, why."""
    dealer_loop().let_setting_stand(text(body, "supervisor", ID_LIMIT), text(body, "pin", PIN_LIMIT),
                                    text(body, "reason"), address=request.remote_addr or "?")
    return answered()


@bp.post("/api/dealer/pairing-code")
@screen_action
def pairing_code(body):
    """A one-time code, shown on the appliance's own screen only, to pair another screen."""
    if not is_loopback(request.remote_addr or ""):
        raise DealerInputError("a pairing code is shown on the appliance's own screen only "
                               "(or asked for by a supervisor with the PIN)")
    code = services().pairings.new_code(g.screen)
    dealer_loop().table.log(Events.SCREEN_PAIRING_CODE, {"by": g.screen}, g.screen)
    return jsonify({"code": code})


@bp.get("/pair")
def pair_view():
    return Response(PAIR_PAGE, mimetype="text/html")


@bp.post("/api/pair")
@answering(PAIRING)
def pair():
    """This device, given the one-time code, becomes a paired screen (a cookie holds its token)."""
    body = json_object()
    code, name = text(body, "code", 16), text(body, "name", ID_LIMIT)
    if not name.strip():
        raise BodyError("name: give this screen a name (e.g. \"table 7 side screen\")")
    log = dealer_loop().table.log
    token, screen = services().pairings.pair(code.strip(), name.strip(), request.remote_addr or "?",
                                             lambda screen: log(Events.SCREEN_PAIRED, screen.to_json(), screen.by))
    response = jsonify({"paired": screen.to_json()})
    response.set_cookie(SCREEN_COOKIE, token, httponly=True, samesite="Strict", secure=request.is_secure,
                        max_age=400 * 24 * 3600)
    return response
