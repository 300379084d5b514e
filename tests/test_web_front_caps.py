"""Who may open an event stream: a cap per address and in all, room past it for the dealer's screens
only, and a paired screen counted by itself, not with its address."""

import doctest

from appliance.web import front, front_caps
from appliance.web.front_caps import ConnectionCaps, Holder, StreamCaps


def test_the_examples_in_the_docstrings_hold():
    for module in (front_caps, front):
        assert doctest.testmod(module).failed == 0


def test_an_address_past_its_cap_is_refused_until_one_of_its_streams_ends():
    caps = StreamCaps(per_holder=3, in_all=100, dealer_room=10)
    stranger = Holder.of("10.0.0.7")
    assert [caps.admit(stranger) for _ in range(3)] == [None] * 3
    refusal = caps.admit(stranger)
    assert refusal.status == 429 and "this address holds 3 event streams" in refusal.reason
    assert caps.admit(Holder.of("10.0.0.8")) is None  # another address is not held back
    caps.release(stranger)
    assert caps.admit(stranger) is None
    assert (caps.open, caps.refused) == (4, 1)


def test_past_the_cap_in_all_only_the_dealers_screens_are_admitted_up_to_their_room():
    caps = StreamCaps(per_holder=2, in_all=4, dealer_room=3)
    for n in range(2):
        assert [caps.admit(Holder.of(f"10.0.0.{n}")) for _ in range(2)] == [None, None]
    refusal = caps.admit(Holder.of("10.0.0.9"))
    assert refusal.status == 503 and "serves 4 event streams already" in refusal.reason
    own, paired = Holder.of("127.0.0.1"), Holder.of("10.0.0.0", paired_screen="ab12")
    assert [caps.admit(own), caps.admit(paired), caps.admit(paired)] == [None, None, None]
    assert caps.admit(own).status == 503  # the room is used up too
    assert caps.open == 7


def test_a_paired_screen_is_counted_by_itself_not_with_its_address():
    caps = StreamCaps(per_holder=1, in_all=10, dealer_room=1)
    assert caps.admit(Holder.of("10.0.0.7")) is None
    assert caps.admit(Holder.of("10.0.0.7", paired_screen="ab12")) is None
    refusal = caps.admit(Holder.of("10.0.0.7", paired_screen="ab12"))
    assert refusal.status == 429 and refusal.reason.startswith("this screen holds 1")


def test_addresses_are_counted_as_the_hosts_that_hold_them():
    assert Holder.of("2001:db8:1:2::7") == Holder.of("2001:db8:1:2:ffff::1")  # one host's /64
    assert Holder.of("2001:db8:1:2::7") != Holder.of("2001:db8:1:3::7")
    assert Holder.of("::ffff:10.0.0.7") == Holder.of("10.0.0.7")
    assert Holder.of("fe80::1%eth0") == Holder.of("fe80::2")
    assert Holder.of("127.0.0.1").dealer and Holder.of("::1").dealer and Holder.of("::ffff:127.0.0.1").dealer
    assert not Holder.of("127.0.0.2").dealer and not Holder.of("10.0.0.7").dealer


def test_one_address_cannot_fill_the_connections_and_the_appliances_own_has_room_past_them():
    caps = ConnectionCaps(per_address=2, in_all=3, own_room=2)
    assert [caps.admit("10.0.0.7") for _ in range(3)] == [True, True, False]
    assert [caps.admit("10.0.0.8"), caps.admit("10.0.0.9")] == [True, False]  # the cap in all
    assert [caps.admit("127.0.0.1") for _ in range(3)] == [True, True, False]  # its room, not held per address
    caps.release("10.0.0.7")
    assert caps.admit("10.0.0.9") is False  # the room is the appliance's: still 4 open of 3 + 2
    caps.release("127.0.0.1")
    caps.release("127.0.0.1")
    assert caps.admit("10.0.0.9") is True
