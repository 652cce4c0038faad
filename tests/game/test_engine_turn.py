"""A turn, R4-R8: rolling, keeping, stopping, claiming and the forced end, on scripted dice.

Board set-ups are game records replayed through the engine (``Script``); questions to
strategies are checked by driving :class:`harness.game.engine.Game` with scripted dice.
"""

from __future__ import annotations

import pytest
from helpers import Script, Scripted, ScriptedDice, rolls_for

from harness import replay
from harness.errors import RecordError
from harness.game.engine import Game, GameObserver
from harness.rules import Rules
from harness.strategy import Claim

W = 6


def engine(turns, *strategies, **rules) -> Game:
    return Game(list(strategies), Rules(players=len(strategies), **rules), ScriptedDice(turns))


class Events(GameObserver):
    def __init__(self) -> None:
        self.log: list[tuple] = []

    def kept(self, seat, roll, face, count, total, left):
        self.log.append(("kept", seat, roll.faces, face, count, total, left))

    def claimed(self, seat, claim, total):
        self.log.append(("claimed", seat, tuple(claim), total))

    def busted(self, seat, reason, total, returned, turned, roll):
        self.log.append(("busted", seat, reason, total, returned, turned))


def state_after(script: Script) -> dict:
    return replay(script.record()).state()


# -- R4, R5 ------------------------------------------------------------------------------
def test_r4_each_roll_has_the_dice_not_yet_set_aside():
    bot = Scripted(picks=[W, 5, 4], stops=[True])
    dice = [[[W, W, 3, 1, 2, 2, 5, 4], [5, 5, 1, 3, 2, 4, 1, 1], [4, 4, 1, 3]]]
    game = engine(dice, bot, Scripted())
    game.play_turn()
    rolled = [q[1] for q in bot.asked if q[0] == "pick"]
    assert [len(r) for r in rolled] == [8, 6, 4]
    assert rolled[1] == (1, 2, 3, 4, 5, 5)  # the first 6 of the second group of 8 dice


def test_r5_a_keep_sets_aside_every_die_of_the_face():
    bot = Scripted(picks=[2, W, 5], stops=[True])
    events = Events()
    dice = [[[W, W, 3, 1, 2, 2, 2, 4], [W, W, 5, 5, 5], [5, 5, 5]]]
    game = Game([bot, Scripted()], Rules(), ScriptedDice(dice), observer=events)
    game.play_turn()
    kept = [e for e in events.log if e[0] == "kept"]
    assert [(face, count, total, left) for *_, face, count, total, left in kept] == [
        (2, 3, 6, 5),
        (W, 2, 16, 3),
        (5, 3, 31, 0),
    ]
    assert events.log[-1] == ("claimed", 0, (31, None), 31)  # R6: 8 dice set aside, must stop


def test_r5_view_kept_lists_one_entry_per_die_in_order():
    seen = []

    class Watcher(Scripted):
        def stop(self, view):
            seen.append((view.kept, view.kept_faces, view.total, view.dice_left, view.has_worm))
            return True

    dice = [[[2, 2, W, 1, 3, 3, 3, 4], [W, W, W, 1, 1, 5], [5, 5, 1]]]
    engine(dice, Watcher(picks=[2, W, 5]), Scripted()).play_turn()
    # 4 and 19 claim nothing (R7), so stop is first offered at 29.
    assert seen == [((2, 2, W, W, W, 5, 5), (2, 5, W), 29, 1, True)]


def test_r5_no_new_face_busts_without_asking():
    events = Events()
    dice = [[[W, W, 1, 1, 1, 1, 1, 1], [W, 1, 1, 1, 1, 1], [W, W, 1]]]
    bot = Scripted(picks=[W, 1])
    game = Game([bot, Scripted()], Rules(), ScriptedDice(dice), observer=events)
    game.play_turn()
    assert events.log[-1] == ("busted", 0, "no-new-face", 15, None, None)
    assert [q[0] for q in bot.asked] == ["pick", "pick"]  # never asked about the last W


def test_r5_pick_is_offered_exactly_the_new_faces():
    bot = Scripted(picks=[3, 4], stops=[True])
    dice = [[[3, 3, 4, 4, 5, 5, 1, 1], [3, 4, 4, W, W, 2]]]
    engine(dice, bot, Scripted()).play_turn()
    picks = [q for q in bot.asked if q[0] == "pick"]
    assert picks[0][2] == (1, 3, 4, 5)
    assert picks[1][2] == (2, 4, W)  # 3 was set aside already (R5)


# -- R6, R7 ------------------------------------------------------------------------------
def test_r6_declining_to_stop_rolls_again():
    bot = Scripted(picks=[W, 5, 4], stops=[False, False, True])
    dice = [[[W, W, W, W, W, 1, 1, 1], [5, 1, 1], [4, 1]]]
    game = engine(dice, bot, Scripted())
    game.play_turn()
    asked = [q[0] for q in bot.asked]
    assert asked == ["pick", "stop", "pick", "stop", "pick", "stop"]
    assert game.result().stacks[0] == [34]  # 25 + 5 + 4 = 34


def test_r6_all_eight_dice_set_aside_must_stop_without_being_asked():
    bot = Scripted(picks=[W, 4])
    dice = [[[W, W, W, W, 1, 1, 1, 1], [4, 4, 4, 4]]]  # 20 then 36 with 0 dice left
    game = engine(dice, bot, Scripted())
    game.play_turn()
    assert [q[0] for q in bot.asked] == ["pick", "pick"]  # 20 claims nothing; 36: forced
    assert game.result().stacks[0] == [36]


def test_r7_stop_is_only_offered_when_it_would_claim():
    # W (5) then 4 x3 (17) then 3 x1 (20): nothing to claim yet; 2 x1 (22): claimable.
    bot = Scripted(picks=[W, 4, 3, 2], stops=[True])
    dice = [[[W, 1, 1, 1, 1, 1, 1, 1], [4, 4, 4, 1, 1, 1, 1], [3, 1, 1, 1], [2, 1, 1]]]
    game = engine(dice, bot, Scripted())
    game.play_turn()
    stops = [q for q in bot.asked if q[0] == "stop"]
    assert [(total, left) for _, total, left, _ in stops] == [(22, 2)]
    assert stops[0][3] == (Claim(22),)  # view.claims shows what the stop would take
    assert game.result().stacks[0] == [22]


def test_r7_no_stop_without_a_worm_however_high_the_total():
    bot = Scripted(picks=[5, 4, 3], stops=[])
    dice = [[[5, 5, 5, 5, 5, 1, 1, 1], [4, 4, 1], [3]]]  # 25, 33, 36: never a worm
    game = engine(dice, bot, Scripted())
    game.play_turn()
    assert [q[0] for q in bot.asked] == ["pick"] * 3
    result = game.result()
    assert result.busts == [1, 0] and result.stacks == [[], []]


def test_r7_the_exact_tile_or_the_highest_below():
    s = Script().take(27).take(27, total=27)
    with pytest.raises(RecordError, match=r"turn 2, seat 1: claim 27: not on the grill"):
        state_after(s)
    s = Script().take(27).take(26, total=27)  # 27 is gone: 26 is the highest <= 27
    assert state_after(s)["stacks"] == [[27], [26]]


def test_r7_official_only_the_highest_tile_below_the_sum():
    s = Script().take(30).take(28, total=31)
    with pytest.raises(
        RecordError,
        match=r"turn 2, seat 1: claim 28 with sum 31: the highest grill tile <= 31 is 31 \(R7\)",
    ):
        state_after(s)
    s = Script().take(30).take(29, total=30)
    assert state_after(s)["stacks"] == [[30], [29]]


def test_r7_claim_above_the_sum_names_the_sum():
    s = Script().take(27, total=26)
    with pytest.raises(RecordError, match=r"^turn 1, seat 0: claim 27 with sum 26 \(R7\)$"):
        state_after(s)


def test_r7_steal_the_exact_top_tile_of_a_rival():
    state = state_after(Script().take(25).steal(25, victim=0))
    assert state["stacks"] == [[], [25]]
    assert state["scores"] == [0, 2]
    assert 25 not in state["grill"]


def test_r7_steal_needs_the_exact_sum():
    s = Script().take(25).steal(25, victim=0, total=26)
    with pytest.raises(RecordError, match=r"steal 25 from seat 0 with sum 26: a steal needs the"):
        state_after(s)
    # what the engine does with 26 instead: the grill tile 26
    assert state_after(Script().take(25).take(26))["stacks"] == [[25], [26]]


def test_r7_only_the_top_tile_can_be_stolen():
    s = Script().take(25).bust().take(30).steal(25, victim=0)
    with pytest.raises(
        RecordError, match=r"turn 4, seat 1: steal 25 from seat 0 whose top is 30 \(R7\)"
    ):
        state_after(s)


def test_r7_never_from_ones_own_stack():
    s = Script().take(25).bust().steal(25, victim=0)
    with pytest.raises(RecordError, match=r"turn 3, seat 0: steal 25 from its own stack \(R7\)"):
        state_after(s)
    s = Script().take(25).bust().take(25)
    with pytest.raises(RecordError, match=r"claim 25: not on the grill but on its own stack"):
        state_after(s)
    # Setting aside 25 again takes the highest grill tile below instead: 24.
    assert state_after(Script().take(25).bust().take(24, total=25))["stacks"] == [[25, 24], []]


def test_r7_own_top_is_not_claimable_so_the_engine_rolls_on():
    # Seat 0 takes 21; in its next turn it sets aside 21 again with a worm: its own top
    # is not claimable and the grill's lowest tile is 22, so stop is not offered (R7).
    seat0 = Scripted(picks=[W, 4, W, 4, 2])
    dice = [
        rolls_for([(W, 1), (4, 4)]),  # 21
        [[1] * 7 + [2], [1]],  # seat 1 busts
        [[W, 1, 1, 1, 1, 1, 1, 1], [4, 4, 4, 4, 1, 1, 1], [2, 1, 1]],  # 21, then 23
    ]
    game = engine(dice, seat0, Scripted(picks=[1]))
    for _ in range(3):
        game.play_turn()
    stops = [(total, left) for what, total, left, *_ in seat0.asked if what == "stop"]
    assert stops == [(21, 3), (23, 2)]
    assert game.result().stacks == [[21, 23], []]


def test_r7_claim_is_asked_only_with_a_real_choice_and_the_default_prefers_the_steal():
    # Seat 0 takes 30; seat 1 sets aside exactly 30 with grill tile 29 below: two claims.
    turns = [rolls_for([(W, 6)]), rolls_for([(W, 6)])]
    first, second = Scripted(picks=[W]), Scripted(picks=[W], stops=[True])
    game = engine(turns, first, second)
    game.play_turn()
    game.play_turn()
    assert [q[0] for q in first.asked] == ["pick", "stop"]
    claim = [q for q in second.asked if q[0] == "claim"]
    assert claim == [("claim", 30, (Claim(30, 0), Claim(29)))]  # greatest claim_key first
    assert game.result().stacks == [[], [30]]  # default: steal (3 + 3 worms > 3)


def test_r7_a_strategy_may_take_the_grill_tile_instead_of_the_steal():
    turns = [rolls_for([(W, 6)]), rolls_for([(W, 6)])]
    game = engine(turns, Scripted(), Scripted(claims=[Claim(29)]))
    game.play_turn()
    game.play_turn()
    assert game.result().stacks == [[30], [29]]


def test_r7_face_down_tiles_are_never_claimed():
    # seat 0 takes 21, busts: returns it, 36 is turned; seat 0 then sets aside 40.
    s = Script().take(21).bust().bust().bust()
    assert state_after(s)["flipped"] == [36]
    s.take(36, total=40)
    with pytest.raises(RecordError, match=r"claim 36: it is face down \(R7, R9\)"):
        state_after(s)
    s.turns.pop()
    assert state_after(s.take(35, total=40))["stacks"] == [[35], []]


# -- R8 --------------------------------------------------------------------------------
def test_r8_eight_dice_without_a_worm_bust_no_worm():
    state = state_after(Script().bust("no-worm"))
    assert state["grill"] == list(range(21, 37)) and state["stacks"] == [[], []]


def test_r8_eight_dice_with_a_worm_but_no_tile_bust_no_tile():
    assert state_after(Script().bust("no-tile"))["flipped"] == []
    # Sum 22 with 21 and 22 gone from the grill: a worm, but nothing to claim (own top
    # 22 never counts; seat 1's top 21 is not the exact sum).
    s = Script().take(22).take(21)
    s.turn(rolls_for([(W, 2), (4, 2), (1, 4)]), [W, 4, 1], {"bust": "no-tile"})
    state = state_after(s)
    assert state["stacks"] == [[], [21]]  # seat 0 returned 22 (R9) ...
    assert state["flipped"] == [36] and 22 in state["grill"]  # ... and 36 was turned


def test_r8_the_reason_must_match_the_dice():
    s = Script().turn([[5] * 8], [5], {"bust": "no-tile"})
    with pytest.raises(RecordError, match=r"bust no-tile, but the dice say no-worm"):
        state_after(s)


def test_r8_busting_with_a_claim_available_is_refused():
    s = Script().turn(rolls_for([(W, 4), (4, 4)]), [W, 4], {"bust": "no-tile"})
    with pytest.raises(
        RecordError,
        match=r"turn 1, seat 0: bust no-tile with all dice set aside, but 36 could be claimed",
    ):
        state_after(s)
