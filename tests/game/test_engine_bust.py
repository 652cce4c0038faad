"""Busts and the end of the game, R9 and R10 (official rules), on scripted records."""

from __future__ import annotations

import pytest
from helpers import ALL_TILES, Script, referee

from harness import replay
from harness.errors import RecordError
from harness.game.engine import GameObserver

GRILL = ALL_TILES


class Busts(GameObserver):
    def __init__(self) -> None:
        self.busts: list[tuple] = []

    def busted(self, seat, reason, total, returned, turned, roll):
        self.busts.append((seat, reason, returned, turned))


def play(script: Script) -> dict:
    state = replay(script.record()).state()
    assert state == referee(script.record())  # the engine agrees with the rules text
    return state


@pytest.mark.parametrize("reason", ["no-new-face", "no-worm", "no-tile"])
def test_r9_every_bust_returns_the_top_tile_and_turns_the_highest(reason):
    state = play(Script().take(25).bust().bust(reason))
    assert state["stacks"] == [[], []]
    assert state["flipped"] == [36]
    assert state["grill"] == [t for t in GRILL if t != 36]  # 25 is back, face up
    assert state["scores"] == [0, 0]


def test_r9_only_the_top_tile_is_returned():
    state = play(Script().take(25).bust().take(30).bust().bust())
    assert state["stacks"] == [[25], []]
    assert 30 in state["grill"] and state["flipped"] == [36]
    assert state["scores"] == [2, 0]


def test_r9_the_returned_tile_can_be_claimed_again():
    state = play(Script().take(25).bust().bust().take(25))
    assert state["stacks"] == [[], [25]]


def test_r9_returned_tile_that_is_the_highest_turns_nothing():
    busts = Busts()
    s = Script().take(36, total=40).bust().bust()
    state = replay(s.record(), observer=busts).state()
    assert busts.busts[-1] == (0, "no-new-face", 36, None)
    assert state["flipped"] == [] and state["grill"] == GRILL
    assert state == referee(s.record())


def test_r9_returned_tile_highest_among_face_up_tiles_turns_nothing():
    # 36 is face down; seat 1 takes 35 (sum 40), then busts: 35 is the highest face-up.
    s = Script().take(21).bust().bust().take(35, total=40).bust().bust()
    state = play(s)
    assert state["flipped"] == [36]
    assert 35 in state["grill"] and state["stacks"] == [[], []]


def test_r9_returned_tile_below_the_highest_the_highest_is_turned():
    s = Script().take(35, total=35).bust().bust()
    state = play(s)
    assert state["flipped"] == [36] and 35 in state["grill"]


def test_r9_no_tile_to_return_turns_nothing():
    busts = Busts()
    s = Script().bust().bust("no-worm").bust("no-tile")
    state = replay(s.record(), observer=busts).state()
    assert [b[2:] for b in busts.busts] == [(None, None)] * 3
    assert state["grill"] == GRILL and state["flipped"] == []


def test_r9_successive_busts_turn_the_highest_remaining():
    s = Script().take(21).take(22).bust().bust().bust().bust()
    # seat 0 returns 21 (turns 36), seat 1 returns 22 (turns 35), then nothing to return
    state = play(s)
    assert state["flipped"] == [35, 36]
    assert state["stacks"] == [[], []]


def test_r9_a_stolen_tile_is_returned_by_its_new_owner():
    s = Script().take(27).steal(27, victim=0).bust().bust()
    state = play(s)
    assert state["stacks"] == [[], []]
    assert 27 in state["grill"] and state["flipped"] == [36]


def whole_game_by_claims() -> Script:
    """Seats 0 and 1 take 21..36 in turn: the last claim empties the grill."""
    s = Script()
    for tile in GRILL:
        s.take(tile)
    return s


def test_r10_the_game_ends_after_the_claim_of_the_last_tile():
    s = whole_game_by_claims()
    result = replay(s.record())
    assert result.over and result.grill == [] and result.turns == 16
    assert result.status == "over"
    assert result.stacks == [list(range(21, 37, 2)), list(range(22, 37, 2))]


def test_r10_nothing_may_be_played_after_the_end():
    s = whole_game_by_claims().bust()
    with pytest.raises(
        RecordError,
        match=r"^turn 17, seat 0: the game was already over: no face-up tile left on the "
        r"grill \(R10\)$",
    ):
        replay(s.record())


def test_r10_the_game_ends_after_a_bust_that_turns_the_last_tile():
    # flip_without_tile: seat 1 never holds a tile, yet each bust turns the highest.
    s = Script(flip_without_tile=True)
    for tile in range(21, 29):
        s.take(tile).bust()
    result = replay(s.record())
    assert result.over and result.grill == []
    assert result.flipped == list(range(29, 37))
    assert result.winner == 0 and result.scores == [12, 0]
    assert result.state() == referee(s.record())


def test_r10_under_official_rules_a_bust_never_empties_the_grill():
    """A bust returns a tile to the grill or turns nothing (R9), so official games end
    on a claim: down to one face-up tile, a bust by the holder of a tile leaves one."""
    s = Script()
    for tile in range(21, 36):  # 21..35 taken, 36 alone on the grill
        s.take(tile)
    s.bust()  # seat 1 returns 34; 36 (the highest) is turned
    state = play(s)
    assert state["grill"] == [34] and state["flipped"] == [36] and not state["over"]
    state = play(s.bust())  # seat 0 returns 35, now the highest: nothing is turned
    assert state["grill"] == [34, 35] and state["flipped"] == [36] and not state["over"]
