import pytest

from appliance.game.cards import (
    CARDS, JOKER, Card, CardError, DuplicateCardError, card, format_cards, parse_cards,
)


@pytest.mark.parametrize("text, code", [
    ("Ah", "Ah"), ("AH", "Ah"), ("ah", "Ah"), ("10h", "Th"), ("10H", "Th"), ("Td", "Td"),
    ("2c", "2c"), ("joker", "Jk"), ("JK", "Jk"), ("Jk", "Jk"), (" 9s ", "9s"), ("qS", "Qs"),
])
def test_lenient_parse_canonical_print(text, code):
    assert str(Card.parse(text)) == code


@pytest.mark.parametrize("bad", ["", "A", "1h", "11h", "Ax", "Zz", "AhKd", "J", "10", "hA", "jokers"])
def test_rejects_anything_else_naming_the_input(bad):
    with pytest.raises(CardError, match="unknown card"):
        Card.parse(bad)


def test_text_form_round_trips_for_every_card():
    assert len(CARDS) == 53 and len({str(c) for c in CARDS}) == 53
    for c in CARDS:
        assert Card.parse(str(c)) is c
        assert eval(repr(c), {"Card": Card}) is c


def test_cards_are_small_ints_with_rank_and_suit():
    ace = Card.parse("As")
    assert isinstance(ace, int) and ace.rank == 14 and ace.suit == "s" and not ace.is_joker
    assert JOKER.is_joker and JOKER.rank is None and JOKER.suit is None
    assert card(int(ace)) is ace and card("As") is ace


def test_duplicates_are_refused():
    with pytest.raises(DuplicateCardError, match="Kd appears twice"):
        parse_cards("Kd 2c kd")
    assert format_cards(parse_cards("Kd,2c , Jk")) == ["Kd", "2c", "Jk"]


def test_non_text_is_refused():
    with pytest.raises(CardError):
        Card.parse(12)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        card(53)
