"""A house's rules as data, read and validated from a parsed TOML mapping.

The files live in ``config/houses/``; :mod:`appliance.config` reads them.
Nothing here touches the file system.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .house_ways import HOUSE_WAYS, HouseWay
from .house_ways.chart import Chart, ChartError
from .house_ways.chart_check import load_chart
from .money import Rounding
from .schema import SchemaError, Section
from .values import Evaluator, JokerRule, WheelRule, evaluator


class HouseRulesError(SchemaError):
    """A house rules file that is incomplete, mistyped or contradictory."""


class UnknownHouseError(ValueError):
    """A house name with no rules file."""


class MisdealReasonError(ValueError):
    """A misdeal declared for a reason the house's rules do not list."""


class FoulPenalty(enum.Enum):
    FORFEIT = "forfeit"  # the fouled hand loses its wager
    HOUSE_WAY = "house-way"  # the hand is reset by the house way and played


class WrongCount(enum.Enum):
    """A player's hand laid with other than two cards in front and five behind (seven in all or not)."""

    FOUL = "foul"  # the player's foul, settled by fouls.player (Capitol rule 27; general rules)
    MISDEAL = "misdeal"  # not settled: the hand is named again or the round is a misdeal


class OnePile(enum.Enum):
    """A player's seven cards laid face down in one pile, not set into a front and a back."""

    HOUSE_WAY = "house-way"  # set by the house way and played (Capitol: "it will be set as houseway")
    FOUL = "foul"  # the wrong number of cards in either part (general rules: "is a foul")


class CommissionKind(enum.Enum):
    PERCENT = "percent"  # a percentage of each winning wager
    COLLECTION = "collection"  # a flat fee per wager, by tier, taken in advance
    NONE = "none"


class BankingMode(enum.Enum):
    HOUSE = "house"  # the house dealer banks every round
    PLAYER = "player"  # a Player/Dealer always banks; the house never does
    PLAYER_OPTIONAL = "player-optional"  # the bank is offered to players; the house banks when all decline


class BankerSetting(enum.Enum):
    OWN = "own"  # a player-banker sets their own hand
    HOUSE_WAY = "house-way"


class StartMethod(enum.Enum):
    RNG = "rng"
    DICE = "dice"


class Direction(enum.Enum):
    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter-clockwise"


#: Fortune bonus categories, best first (the order of the common pay table).
FORTUNE_CATEGORIES = (
    "seven-card-straight-flush",
    "royal-match",  # a royal flush with the other two cards K-Q suited
    "seven-card-straight-flush-joker",
    "five-aces",
    "five-of-a-kind",  # only with a wild joker
    "royal-flush",
    "straight-flush",
    "four-of-a-kind",
    "full-house",
    "flush",
    "three-of-a-kind",
    "straight",
)


@dataclass(frozen=True)
class CollectionTier:
    up_to: Decimal | None  # the largest wager this fee applies to; None: any larger wager
    fee: Decimal


@dataclass(frozen=True)
class Commission:
    kind: CommissionKind
    percent: Decimal = Decimal(0)
    increment: Decimal = Decimal("0.01")
    rounding: Rounding = Rounding.DOWN
    tiers: tuple[CollectionTier, ...] = ()
    #: A player-banker's commission on the round's net winnings (percent, 0 for none).
    banker_percent: Decimal = Decimal(0)


@dataclass(frozen=True)
class Banking:
    mode: BankingMode
    banker_sets: BankerSetting = BankerSetting.HOUSE_WAY
    #: The Player/Dealer wins or loses at most what they wagered (settled in action order).
    action_limited: bool = False
    offer_every: int = 1  # 2: the bank is offered every other round
    max_consecutive: int = 0  # 0: no limit
    #: A player may bank only after wagering in the previous round banked by the house.
    requires_previous_wager: bool = False
    #: No Player/Dealer on a spot that had no wager on the prior hand (Capitol rule 23).
    requires_prior_hand_wager: bool = False


@dataclass(frozen=True)
class StartSeat:
    methods: tuple[StartMethod, ...]
    count_direction: Direction
    action_direction: Direction
    player_seats: int  # 6 with a house dealer; 7 where the Player/Dealer sits in a seat


@dataclass(frozen=True)
class Limits:
    minimum: Decimal
    maximum: Decimal
    banker_maximum: Decimal | None  # None: the Player/Dealer wager has no maximum
    #: Wagers beside the seated player's may ride on a seat's hand (Capitol's backline, Fortune's circles).
    backline: bool = False


@dataclass(frozen=True)
class FortuneBonus:
    minimum: Decimal
    maximum: Decimal
    pays: dict[str, int]  # category -> odds "to 1"


@dataclass(frozen=True)
class EnvyBonus:
    minimum_fortune: Decimal  # the Fortune wager that qualifies a seat for Envy
    pays: dict[str, Decimal]  # category -> fixed amount per qualifying hand


@dataclass(frozen=True)
class HouseRules:
    key: str
    name: str
    joker: JokerRule
    wheel: WheelRule
    house_way: str
    player_foul: FoulPenalty
    banker_foul: FoulPenalty
    commission: Commission
    banking: Banking
    start: StartSeat
    limits: Limits
    fortune: FortuneBonus | None = None
    envy: EnvyBonus | None = None
    #: A pair in front with only the same pair behind is a foul (kickers do not lift the back).
    equal_pair_behind_fouls: bool = False
    #: The reasons a misdeal may be declared for (Capitol rule 29), as the dealer and supervisor pick them.
    misdeal_reasons: tuple[str, ...] = ()
    #: A player's hand of the wrong number of cards: a foul, or (silent houses) not settled.
    wrong_count: WrongCount = WrongCount.MISDEAL
    #: The document's words that make it a foul, recorded with such a hand.
    wrong_count_words: str = ""
    #: A player's hand laid in one pile of seven: set by the house way, or a foul.
    one_pile: OnePile = OnePile.FOUL
    #: A player may ask the dealer to set the hand by the house way (Capitol: "may request their hands
    #: to be set as houseway").
    house_way_on_request: bool = False
    #: The chart the house way names (``house_way = "../house_ways/x.toml"``), read into the house's mapping by
    #: the configuration loader as ``house.house_way_chart`` so the rules recorded with a round carry it.
    chart: Chart | None = None
    source: str = field(default="", compare=False)

    @property
    def way(self) -> HouseWay:
        """What sets a hand by this house's way: its chart, or the house way module's name."""
        return self.chart if self.chart is not None else self.house_way

    @property
    def house_way_name(self) -> str:
        return self.chart.name if self.chart is not None else self.house_way

    @classmethod
    def from_mapping(cls, data: Any, source: str, key: str) -> HouseRules:
        """Validate a parsed house file; errors name ``source`` and the key."""
        top = Section(data, source, error=HouseRulesError)
        house = top.table("house")
        name = house.string("name")
        house_way = house.string("house_way")
        chart_data = house.raw("house_way_chart", None)

        cards = top.table("cards")
        joker = cards.choice("joker", JokerRule)
        wheel = cards.choice("wheel", WheelRule)
        cards.done()

        fouls = top.table("fouls")
        player_foul = fouls.choice("player", FoulPenalty)
        banker_foul = fouls.choice("banker", FoulPenalty)
        equal_pair_behind_fouls = fouls.boolean("equal_pair_behind_fouls")
        wrong_count = fouls.choice("wrong_count", WrongCount)
        wrong_count_words = fouls.string("wrong_count_words", "")
        if wrong_count is WrongCount.FOUL and not wrong_count_words.strip():
            raise fouls.error("wrong_count_words", "a wrong count that fouls quotes the document's words")
        fouls.done()
        chart = _chart(house, house_way, chart_data, evaluator(joker, wheel, equal_pair_behind_fouls))
        house.done()

        # Optional, so the rules recorded with rounds logged before it replay as they were settled.
        hands = top.table("player_hands", optional=True)
        one_pile, on_request = OnePile.FOUL, False
        if hands is not None:
            one_pile = hands.choice("one_pile", OnePile)
            on_request = hands.boolean("house_way_on_request")
            hands.done()

        commission = _commission(top.table("commission"))
        banking = _banking(top.table("banking"))
        start = _start(top.table("start_seat"))
        limits = _limits(top.table("limits"))
        misdeal = top.table("misdeal")
        misdeal_reasons = _strings(misdeal, "reasons")
        misdeal.done()

        bonus = top.table("bonus", optional=True)
        fortune = envy = None
        if bonus is not None:
            fortune_t = bonus.table("fortune", optional=True)
            envy_t = bonus.table("envy", optional=True)
            if fortune_t is not None:
                fortune = FortuneBonus(
                    minimum=fortune_t.amount("minimum"),
                    maximum=fortune_t.amount("maximum"),
                    pays=_pays(fortune_t.table("pays"), lambda t, k: t.integer(k, 1, 1_000_000)),
                )
                fortune_t.done()
            if envy_t is not None:
                if fortune is None:
                    raise envy_t.error("minimum_fortune", "an Envy bonus needs a Fortune bonus in the same house")
                envy = EnvyBonus(
                    minimum_fortune=envy_t.amount("minimum_fortune"),
                    pays=_pays(envy_t.table("pays"), lambda t, k: t.amount(k)),
                )
                envy_t.done()
            bonus.done()
        for day_key in ("timezone", "gaming_day_start"):  # the gaming day: read and checked by audit/gaming_day.py
            top.raw(day_key, None)
        top.done()

        if banking.mode is BankingMode.HOUSE and banking.banker_sets is BankerSetting.OWN:
            raise HouseRulesError(f"{source}: banking.banker_sets: the house dealer sets the house way, not 'own'")
        if limits.minimum > limits.maximum:
            raise HouseRulesError(f"{source}: limits.minimum: {limits.minimum} is above limits.maximum")
        return cls(
            key=key, name=name, joker=joker, wheel=wheel, house_way=house_way,
            player_foul=player_foul, banker_foul=banker_foul, commission=commission,
            banking=banking, start=start, limits=limits, fortune=fortune, envy=envy,
            equal_pair_behind_fouls=equal_pair_behind_fouls, misdeal_reasons=misdeal_reasons,
            wrong_count=wrong_count, wrong_count_words=wrong_count_words.strip(), one_pile=one_pile,
            house_way_on_request=on_request, chart=chart, source=source,
        )

    def misdeal_reason(self, reason: str) -> str:
        """The house's own wording of a misdeal reason; an unlisted reason is refused, naming the list."""
        for listed in self.misdeal_reasons:
            if reason.strip().lower() == listed.lower():
                return listed
        raise MisdealReasonError(f"misdeal reason {reason!r} is not one of {self.name}'s: "
                                 + "; ".join(self.misdeal_reasons))

    def evaluator(self) -> Evaluator:
        """Hand values and the foul test under this house's joker, wheel and foul rules."""
        return evaluator(self.joker, self.wheel, self.equal_pair_behind_fouls)

    @property
    def player_banked(self) -> bool:
        return self.banking.mode is not BankingMode.HOUSE


def _chart(house: Section, house_way: str, data: Any, ev: Evaluator) -> Chart | None:
    """The house way's chart, proven under this house's rules; a house way without one names a module."""
    if house_way.endswith(".toml"):
        if data is None:
            raise house.error("house_way", f"the chart {house_way!r} was not read (the configuration loader reads it)")
        try:
            return load_chart(data, f"{house.source}: house.house_way {house_way!r}", ev)
        except ChartError as err:
            raise HouseRulesError(str(err)) from None
    if data is not None:
        raise house.error("house_way_chart", "only a house way that names a chart file (.toml) has a chart")
    if house_way not in HOUSE_WAYS:
        raise house.error("house_way", f"unknown house way {house_way!r}: expected one of {', '.join(HOUSE_WAYS)}, "
                                       "or a chart file (.toml) beside the house file")
    return None


def _commission(t: Section) -> Commission:
    kind = t.choice("kind", CommissionKind)
    banker_percent = t.decimal("banker_percent", Decimal(0))
    if kind is CommissionKind.PERCENT:
        result = Commission(
            kind, percent=t.decimal("percent"), increment=t.amount("increment"),
            rounding=t.choice("rounding", Rounding), banker_percent=banker_percent,
        )
        if result.increment <= 0:
            raise t.error("increment", "must be at least one cent")
    elif kind is CommissionKind.COLLECTION:
        tiers = []
        for tier in t.tables("tiers"):
            up_to = tier.raw("up_to", None)
            tiers.append(CollectionTier(None if up_to is None else tier.amount("up_to"), tier.amount("fee")))
            tier.done()
        if not tiers or tiers[-1].up_to is not None:
            raise t.error("tiers", "the last tier must have no up_to, so every wager has a fee")
        bounds = [tier.up_to for tier in tiers[:-1] if tier.up_to is not None]
        if len(bounds) < len(tiers) - 1:
            raise t.error("tiers", "only the last tier may have no up_to")
        if bounds != sorted(bounds) or len(set(bounds)) != len(bounds):
            raise t.error("tiers", "up_to must increase from tier to tier")
        result = Commission(kind, tiers=tuple(tiers), banker_percent=banker_percent)
    else:
        result = Commission(kind, banker_percent=banker_percent)
    t.done()
    return result


def _banking(t: Section) -> Banking:
    result = Banking(
        mode=t.choice("mode", BankingMode),
        banker_sets=t.choice("banker_sets", BankerSetting),
        action_limited=t.boolean("action_limited"),
        offer_every=t.integer("offer_every", 1, 10, 1),
        max_consecutive=t.integer("max_consecutive", 0, 100, 0),
        requires_previous_wager=t.boolean("requires_previous_wager", False),
        requires_prior_hand_wager=t.boolean("requires_prior_hand_wager", False),
    )
    t.done()
    return result


def _start(t: Section) -> StartSeat:
    methods = t.raw("methods")
    if not isinstance(methods, list) or not methods:
        raise t.error("methods", f"expected a list such as [\"dice\", \"rng\"], got {methods!r}")
    parsed = []
    for i, method in enumerate(methods):
        try:
            parsed.append(StartMethod(method))
        except ValueError:
            raise t.error(f"methods[{i}]", f"expected 'rng' or 'dice', got {method!r}") from None
    result = StartSeat(
        methods=tuple(parsed),
        count_direction=t.choice("count_direction", Direction),
        action_direction=t.choice("action_direction", Direction),
        player_seats=t.integer("player_seats", 6, 7),
    )
    t.done()
    return result


def _limits(t: Section) -> Limits:
    banker_maximum = t.raw("banker_maximum", None)
    result = Limits(
        minimum=t.amount("minimum"),
        maximum=t.amount("maximum"),
        banker_maximum=None if banker_maximum is None else t.amount("banker_maximum"),
        backline=t.boolean("backline"),
    )
    t.done()
    return result


def _strings(t: Section, key: str) -> tuple[str, ...]:
    values = t.raw(key)
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise t.error(key, f"expected a list of one or more texts, got {values!r}")
    return tuple(values)


def _pays(t: Section, read) -> dict[str, Any]:
    pays = {}
    for category, _ in t.items():
        if category not in FORTUNE_CATEGORIES:
            raise t.error(category, f"unknown bonus category; expected one of {', '.join(FORTUNE_CATEGORIES)}")
        pays[category] = read(t, category)
    if not pays:
        raise t.error("", "a pay table needs at least one line")
    return pays
