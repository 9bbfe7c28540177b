"""Choices of the basic Sheepshead bot that players judge it by."""

from __future__ import annotations

from protocol.cards import parse_cards
from server.bots.sheepshead_policy import can_call, choose_bury, go_alone


def test_bury_keeps_a_partner_call_open() -> None:
    # rule SS-4.1, SS-4.3: burying TH AH would bank 21 points but keep 8H as the only fail card,
    # whose ace is buried: nothing could be called (SS-4.3 needs every fail card to be an ace),
    # a forced alone. The bot buries 8H TH instead and keeps an unknown-card call open.
    hand = parse_cards("8H TH JD JH JS QC QH AH")
    th_ah = (parse_cards("TH")[0], parse_cards("AH")[0])
    assert not can_call([c for c in hand if c not in th_ah], th_ah)
    bury = choose_bury(hand)
    keep = [c for c in hand if c not in bury]
    assert not go_alone(keep) and can_call(keep, bury)


def test_alone_only_with_an_overwhelming_hand() -> None:
    # rule SS-4.4: alone is always allowed, but the bot reserves it for monster hands.
    assert go_alone(parse_cards("QC QS QH JC JS AD"))
    assert go_alone(parse_cards("QC QS QH QD JS AH"))
    assert not go_alone(parse_cards("QC QS JC JS AD TD"))
    assert not go_alone(parse_cards("QC QS QH JC AH TH"))
