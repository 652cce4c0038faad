"""The named variants and presets of RULES.md, on scripted records, and 2..7 players.

Each variant is checked against the official behaviour on the same dice, and every
replayed state is also checked against the independent referee in ``helpers``.
"""

from __future__ import annotations

import pytest
from helpers import ALL_TILES, Script, Scripted, ScriptedDice, referee, rolls_for

from harness import play_game, replay
from harness.errors import RecordError
from harness.game.engine import Game
from harness.rules import Rules
from harness.strategy import Claim

W = 6


def play(script: Script) -> dict:
    state = replay(script.record()).state()
    assert state == referee(script.record())
    return state


# -- bust_flip ---------------------------------------------------------------------------
@pytest.mark.parametrize("bust_flip, flipped", [("highest", [36]), ("lowest", [21]), ("none", [])])
def test_bust_flip_chooses_the_tile_turned(bust_flip, flipped):
    state = play(Script(bust_flip=bust_flip).take(25).bust().bust())
    assert state["flipped"] == flipped
    assert state["stacks"] == [[], []]
    assert sorted(state["grill"] + state["flipped"]) == ALL_TILES


def test_bust_flip_lowest_keeps_a_returned_tile_that_is_the_lowest():
    """RULES.md: returned_tile applies to whichever tile bust_flip selects."""
    state = play(Script(bust_flip="lowest").take(21).bust().bust())
    assert state["flipped"] == [] and state["grill"] == ALL_TILES


def test_bust_flip_lowest_with_returned_tile_flip_turns_the_returned_lowest():
    state = play(Script(bust_flip="lowest", returned_tile="flip").take(21).bust().bust())
    assert state["flipped"] == [21]


def test_bust_flip_lowest_turns_the_lowest_face_up_tile_not_a_taken_one():
    # seat 0 returns 30; 21 is on seat 1's stack, so 22 is the lowest face-up tile.
    state = play(Script(bust_flip="lowest").take(30).take(21).bust())
    assert state["flipped"] == [22] and 30 in state["grill"]
    # seat 0 returns 22, which is then the lowest face-up tile: nothing is turned.
    state = play(Script(bust_flip="lowest").take(22).take(21).bust())
    assert state["flipped"] == [] and state["stacks"] == [[], [21]]


def test_bust_flip_none_never_turns_a_tile():
    s = Script(bust_flip="none", flip_without_tile=True).take(21).bust().bust().bust()
    state = play(s)
    assert state["flipped"] == [] and state["grill"] == ALL_TILES


# -- flip_without_tile -------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules, flipped",
    [
        ({}, []),  # R9: no tile to return, nothing turned
        ({"flip_without_tile": True}, [36]),
        ({"flip_without_tile": True, "bust_flip": "lowest"}, [21]),
        ({"flip_without_tile": True, "bust_flip": "none"}, []),
        ({"preset": "piko-blog"}, [21]),
    ],
)
def test_flip_without_tile(rules, flipped):
    state = play(Script(**rules).bust())
    assert state["flipped"] == flipped


@pytest.mark.parametrize("reason", ["no-new-face", "no-worm", "no-tile"])
def test_flip_without_tile_applies_to_every_kind_of_bust(reason):
    assert play(Script(flip_without_tile=True).bust(reason))["flipped"] == [36]


def test_flip_without_tile_with_a_tile_is_plain_r9():
    assert play(Script(flip_without_tile=True).take(25).bust().bust())["flipped"] == [35, 36]
    # seat 1 (no tile) turned 36, then seat 0 returned 25 and 35 was turned


# -- lower_tile --------------------------------------------------------------------------
def test_lower_tile_any_allows_any_face_up_tile_below_the_sum():
    state = play(Script(lower_tile="any").take(22, total=30))
    assert state["stacks"] == [[22], []]


def test_lower_tile_any_still_never_above_the_sum():
    with pytest.raises(RecordError, match=r"claim 31 with sum 30 \(R7\)"):
        play(Script(lower_tile="any").take(31, total=30))


def test_lower_tile_highest_refuses_a_lower_tile():
    with pytest.raises(
        RecordError, match=r"claim 22 with sum 30: the highest grill tile <= 30 is 30 \(R7\)"
    ):
        play(Script().take(22, total=30))


def test_lower_tile_any_offers_every_tile_below_and_the_steal():
    dice = [rolls_for([(W, 5)]), rolls_for([(W, 5)])]  # 25 each
    seat1 = Scripted(claims=[Claim(23)])
    game = Game([Scripted(), seat1], Rules(lower_tile="any"), ScriptedDice(dice))
    game.play_turn()
    game.play_turn()
    (asked,) = [q for q in seat1.asked if q[0] == "claim"]
    assert set(asked[2]) == {Claim(25, 0)} | {Claim(t) for t in range(21, 25)}
    assert asked[2][0] == Claim(25, 0)  # greatest claim_key first
    assert game.result().stacks == [[25], [23]]


def test_lower_tile_any_steals_still_need_the_exact_sum():
    with pytest.raises(RecordError, match="a steal needs the exact sum"):
        play(Script(lower_tile="any").take(25).steal(25, victim=0, total=27))


def test_french_preset_record():
    s = Script(preset="french").take(21, total=36)
    assert play(s)["stacks"] == [[21], []]


# -- returned_tile -----------------------------------------------------------------------
@pytest.mark.parametrize("returned_tile, flipped", [("keep", []), ("flip", [36])])
def test_returned_tile_that_is_the_highest(returned_tile, flipped):
    state = play(Script(returned_tile=returned_tile).take(36, total=40).bust().bust())
    assert state["flipped"] == flipped
    assert state["stacks"] == [[], []]


def test_short_preset_turns_the_returned_tile():
    state = play(Script(preset="short").take(36, total=40).bust().bust())
    assert state["flipped"] == [36] and state["grill"] == list(range(21, 36))


def test_returned_tile_flip_changes_nothing_when_it_is_not_the_highest():
    state = play(Script(returned_tile="flip").take(25).bust().bust())
    assert state["flipped"] == [36] and 25 in state["grill"]


# -- players -----------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(2, 8))
def test_players_take_turns_in_seat_order(players):
    s = Script(players=players)
    for i in range(players + 1):
        s.take(21 + i)
    result = replay(s.record())
    assert result.stacks[0] == [21, 21 + players]
    assert [st for st in result.stacks[1:]] == [[21 + i] for i in range(1, players)]
    assert result.state() == referee(s.record())
    bad = s.record()
    bad["turns"][-1]["seat"] = 1
    with pytest.raises(RecordError, match=rf"turn {players + 1}, seat 1: it is seat 0's turn"):
        replay(bad)


@pytest.mark.parametrize("players", range(2, 8))
def test_a_steal_from_any_rival_seat(players):
    s = Script(players=players).take(25)
    for _ in range(players - 2):
        s.bust()
    s.steal(25, victim=0)  # the last seat steals from seat 0
    state = play(s)
    assert state["stacks"][-1] == [25] and state["stacks"][0] == []


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("preset", ["official", "piko-blog", "french", "short"])
def test_every_preset_and_player_count_plays_to_the_end(preset, players):
    result = play_game(["greedy"] * players, rules=preset, seed=players, record=True)
    assert result.over and not result.grill
    assert result.record["rules"] == Rules.preset(preset, players).to_dict()
    assert referee(result.record) == result.state()


# -- presets in records ------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "piko-blog"},
        "piko-blog",
        {"preset": "official", "bust_flip": "lowest", "flip_without_tile": True},
    ],
)
def test_a_record_may_name_a_preset(rules):
    record = Script().bust().record()
    record["rules"] = rules
    assert replay(record).flipped == [21]


def test_a_preset_in_a_record_can_be_overridden_by_a_key():
    record = Script().bust().record()
    record["rules"] = {"preset": "piko-blog", "bust_flip": "highest"}
    assert replay(record).flipped == [36]
