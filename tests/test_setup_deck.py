"""The deck taught card by card (the setup's teaching, without the camera): photos of rendered faces
kept as `deck learn` reads them, a photo without a card refused in words, the whole deck learned by
`deck learn`'s own code in the background, and what was taught still there after a restart."""

import time

import numpy as np
import pytest

from appliance.setup.deck_teaching import ORDER, DeckTeaching
from appliance.vision.deck import Deck, DeckError
from appliance.vision.render import DESIGNS, card_face


def photo(code: str) -> np.ndarray:
    """A photo of the card on a dark felt, as the camera's teach photo looks."""
    face = card_face(code, DESIGNS["modern"])
    felt = np.full((face.shape[0] + 120, face.shape[1] + 120, 3), (40, 110, 30), np.uint8)
    felt[60:60 + face.shape[0], 60:60 + face.shape[1]] = face
    return felt


def learned(teaching: DeckTeaching, seconds: float = 180) -> dict:
    deadline = time.monotonic() + seconds
    while teaching.learning and time.monotonic() < deadline:
        time.sleep(0.2)
    return teaching.to_json()


@pytest.mark.slow
def test_a_deck_taught_card_by_card_is_learned_and_kept(tmp_path):
    teaching = DeckTeaching(tmp_path, lambda: None)  # no deck in use: a first install
    empty = teaching.capture("As", np.full((600, 300, 3), (40, 110, 30), np.uint8))  # felt, no card
    assert empty.status == "refused" and empty.say.startswith("No whole card in the teach zone")
    assert teaching.next_card() == "As"
    first = teaching.capture("As", photo("As"))
    assert first.status == "captured" and "once the whole deck is in" in first.say
    with pytest.raises(DeckError, match="51 card.s. not captured yet, the first: the king of spades"):
        teaching.learn_again()
    for code in ORDER[1:]:
        assert teaching.capture(code, photo(code)).status == "captured"
    state = learned(teaching)
    assert state["learned"] and state["problem"] == "" and state["refused"] == [] and state["next"] is None
    assert state["advice"] is None  # photos as close as the faces are drawn: nothing to do better
    assert {c["status"] for c in state["cards"]} == {"learned"} and len(state["cards"]) == 53
    assert teaching.image("Td", "rank")[:8] == b"\x89PNG\r\n\x1a\n"
    deck = teaching.use()
    assert isinstance(deck, Deck) and (tmp_path / "deck" / "deck.json").is_file() and "JK" in deck.ranks
    # the appliance restarts: what was captured is there, to be learned again
    again = DeckTeaching(tmp_path, lambda: deck.index)
    assert [c["status"] for c in again.to_json()["cards"]] == ["captured"] * 53
    swapped = again.capture("9h", photo("9h"))
    assert swapped.status == "checked" and swapped.images.keys() == {"face", "rank", "suit"}
    assert learned(again)["learned"]
