"""Strategies that break the rules, raise, or vandalise what they are given.

An illegal decision is a clear GameError naming the turn, the seat, the strategy and
the rule; with ``forfeit=True`` the game ends with that seat ranked last. Nothing a
strategy writes to its view or to what it is given can change the game.
"""

from __future__ import annotations

import contextlib

import pytest
from helpers import Scripted, ScriptedDice, referee, rolls_for

from harness import play_game, replay
from harness.errors import GameError, HarnessError, IllegalMove, StrategyFailed
from harness.game.engine import Game, GameResult
from harness.game.record import RecordBuilder
from harness.rules import Rules
from harness.strategies.greedy import Greedy
from harness.strategy import Claim, Strategy

W = 6
# Turn 1 (seat 0): plain greedy play. Turn 2 (seat 1, the bot under test) rolls below.
OPENING = [[W, W, W, W, W, 1, 1, 1]]  # seat 0 keeps 5 worms (25) and stops
BOT_ROLL = [[1, 2, 3, 4, W, W, 2, 2]]


class MyBot(Scripted):
    name = "my-bot"


def run(bot: Strategy, dice: list, forfeit: bool = False, players: int = 2) -> GameResult:
    """Seat 0 plays the first scripted turn, ``bot`` (seat 1) the second; then the result.

    Turns are played one by one, so an engine that wrongly accepts an answer shows up
    as "DID NOT RAISE" rather than as a game running past its scripted dice.
    """
    seats = [Scripted()] + [bot] + [Scripted() for _ in range(players - 2)]
    game = Game(seats, Rules(players=players), ScriptedDice(dice))
    try:
        game.start()
        for _ in dice:
            game.play_turn()
    except GameError as exc:
        if not forfeit:
            raise
        return game.result(error=exc)
    return game.result()


def error_of(bot: Strategy, dice: list) -> GameError:
    with pytest.raises(GameError) as info:
        run(bot, dice)
    assert "\n" not in str(info.value)
    return info.value


# -- pick (R5) -------------------------------------------------------------------------
def test_pick_of_a_face_not_in_the_roll():
    err = error_of(MyBot(picks=[5]), [OPENING, BOT_ROLL])
    assert isinstance(err, IllegalMove) and err.rule == "R5"
    assert str(err) == "turn 2, seat 1 (my-bot) picked 5, not in the roll 1 2 2 2 3 4 W W (R5)"
    assert (err.turn, err.seat, err.strategy) == (2, 1, "my-bot")


def test_pick_of_a_face_already_set_aside():
    err = error_of(MyBot(picks=[2, 2]), [OPENING, BOT_ROLL + [[2, 2, 5, 1, 1]]])
    assert str(err) == "turn 2, seat 1 (my-bot) picked 2, already set aside this turn (R5)"


@pytest.mark.parametrize(
    "answer, detail",
    [
        (0, "picked 0, not a face 1-6 (R2)"),
        (7, "picked 7, not a face 1-6 (R2)"),
        ("W", "pick() returned 'W', not a face 1-6 (R5)"),
        (None, "pick() returned None, not a face 1-6 (R5)"),
        ([6], "pick() returned [6], not a face 1-6 (R5)"),
    ],
)
def test_pick_of_something_that_is_not_a_face(answer, detail):
    err = error_of(MyBot(picks=[answer]), [OPENING, BOT_ROLL])
    assert str(err) == f"turn 2, seat 1 (my-bot) {detail}"


@pytest.mark.parametrize("answer", [True, 1.0, 4.0])
def test_pick_of_a_bool_or_float_is_not_a_face(answer):
    """The engine's own check calls bools and floats 'not a face' (R5); the fast path
    must agree, instead of turning True into a 1 or 4.0 into a 4."""
    err = error_of(MyBot(picks=[answer]), [OPENING, BOT_ROLL])
    assert isinstance(err, IllegalMove)
    assert f"pick() returned {answer!r}, not a face 1-6 (R5)" in str(err)


def test_int_like_picks_are_plain_ints_in_the_record():
    class IntLike(int):
        pass

    builder = RecordBuilder(Rules(), ["my-bot", "scripted"])
    seats = [MyBot(picks=[IntLike(W)]), Scripted()]
    game = Game(seats, Rules(), ScriptedDice([OPENING]), observer=builder)
    game.play_turn()
    kept = builder.record["turns"][0]["keeps"]
    assert kept == [W] and type(kept[0]) is int


# -- stop (R6) -------------------------------------------------------------------------
@pytest.mark.parametrize("answer", [None, "yes", 2, [], 0.5])
def test_stop_returning_junk(answer):
    bot = MyBot(picks=[W], stops=[answer])
    err = error_of(bot, [OPENING, [[W, W, W, W, W, 1, 1, 1]]])
    assert isinstance(err, IllegalMove) and err.rule == "R6"
    assert str(err) == f"turn 2, seat 1 (my-bot) stop() returned {answer!r}, not True or False (R6)"


def test_stop_may_return_any_real_boolean():
    """``numpy.bool_`` is what ``view.total >= np.int64(25)`` gives: it is a yes or no."""
    np = pytest.importorskip("numpy")
    for answer, stack in ((np.True_, [25]), (np.False_, [30])):
        bot = MyBot(picks=[W], stops=[answer, True])
        result = run(bot, [OPENING, [[W, W, W, W, W, 1, 1, 1], [5, 1, 1]]])
        assert result.stacks[1] == stack


# -- claim (R7) ------------------------------------------------------------------------
STEAL_OR_GRILL = [rolls_for([(W, 6)]), rolls_for([(W, 6)])]  # 30 each: steal 30 or take 29


@pytest.mark.parametrize(
    "answer, detail",
    [
        (Claim(28), "claimed 28 with sum 30: the highest grill tile <= 30 is 29"),
        (Claim(31), "claimed 31 with sum 30"),
        (Claim(30, 1), "claimed 30 from its own stack"),
        (Claim(30, 5), "claimed 30 from seat 5, not a seat"),
        ("x", "claimed 'x', not a tile 21-36"),
        (None, "claimed None, not a tile 21-36"),
    ],
)
def test_claim_returning_an_illegal_choice(answer, detail):
    bot = MyBot(picks=[W], claims=[answer])
    err = error_of(bot, STEAL_OR_GRILL)
    assert isinstance(err, IllegalMove) and err.rule == "R7"
    assert str(err) == f"turn 2, seat 1 (my-bot) {detail} (R7)"


@pytest.mark.parametrize("answer, stacks", [(29, [[30], [29]]), ((30, 0), [[], [30]])])
def test_claim_may_answer_a_tile_number_or_a_tuple(answer, stacks):
    result = run(MyBot(picks=[W], claims=[answer]), STEAL_OR_GRILL)
    assert result.stacks == stacks


# -- raising -----------------------------------------------------------------------------
class Raiser(Greedy):
    name = "raiser"

    def __init__(self, method: str) -> None:
        self.method = method

    def new_game(self, seat, rules):
        if self.method == "new_game":
            raise RuntimeError("no memory\nsecond line")

    def pick(self, view):
        if self.method == "pick" and view.turn >= 2:
            raise KeyError("boom")
        return super().pick(view)

    def stop(self, view):
        if self.method == "stop":
            raise ZeroDivisionError("division by zero")
        return True

    def claim(self, view, choices):
        if self.method == "claim":
            raise ValueError("cannot decide")
        return super().claim(view, choices)


@pytest.mark.parametrize(
    "method, turn, detail",
    [
        ("new_game", 0, "raised RuntimeError in new_game(): no memory"),
        ("pick", 2, "raised KeyError in pick(): 'boom'"),
        ("stop", 2, "raised ZeroDivisionError in stop(): division by zero"),
        ("claim", 2, "raised ValueError in claim(): cannot decide"),
    ],
)
def test_a_strategy_that_raises(method, turn, detail):
    err = error_of(Raiser(method), STEAL_OR_GRILL)
    assert isinstance(err, StrategyFailed)
    assert str(err) == f"turn {turn}, seat 1 (raiser) {detail}"
    assert err.__cause__ is not None and err.method == method


# -- forfeits ---------------------------------------------------------------------------
def test_forfeit_ends_the_game_with_the_seat_last():
    result = run(MyBot(picks=[5]), [OPENING, BOT_ROLL], forfeit=True, players=3)
    assert result.status == "forfeit" and result.forfeit == 1
    assert isinstance(result.error, IllegalMove)
    assert result.ranks[1] == 3
    assert result.ranks[0] == 1 and result.winner == 0  # seat 0 holds 25
    assert not result.over


def test_forfeit_with_the_others_tied_has_no_winner():
    result = run(Raiser("new_game"), [], forfeit=True, players=3)
    assert result.turns == 0 and result.ranks == [1, 3, 1] and result.winner is None


def test_forfeit_record_stops_before_the_broken_turn_and_replays():
    seats = [Scripted(), MyBot(picks=[5])]
    result = play_game(seats, dice=ScriptedDice([OPENING, BOT_ROLL]), forfeit=True, record=True)
    record = result.record
    assert len(record["turns"]) == 1
    assert record["result"]["status"] == "forfeit"
    assert "picked 5" in record["result"]["error"]
    assert replay(record).state() == {**result.state(), "winner": None}
    assert referee(record)["stacks"] == [[25], []]


def test_without_forfeit_the_error_propagates():
    with pytest.raises(IllegalMove):
        run(MyBot(picks=[5]), [OPENING, BOT_ROLL])


def test_display_names_name_the_seat_in_errors_results_and_records():
    seats = [Scripted(), MyBot(picks=[5])]
    dice = ScriptedDice([OPENING, BOT_ROLL])
    names = ["alice", "bots.py:Bob(level=2)"]
    result = play_game(seats, dice=dice, forfeit=True, record=True, names=names)
    assert result.names == names and result.record["seats"] == names
    assert str(result.error).startswith("turn 2, seat 1 (bots.py:Bob(level=2)) picked 5")
    with pytest.raises(HarnessError, match="1 names for 2 seats"):
        play_game(["greedy", "greedy"], names=["solo"])


def test_the_same_instance_cannot_sit_twice():
    bot = Greedy()
    with pytest.raises(HarnessError, match="seat 1: the same greedy instance as another seat"):
        play_game([bot, bot], seed=1)


# -- vandals ------------------------------------------------------------------------------
class Vandal(Greedy):
    """Greedy's decisions, made first; then it scribbles over everything it was given."""

    name = "greedy"

    def new_game(self, seat, rules):
        for key in ("players", "bust_flip", "flip_without_tile"):
            with contextlib.suppress(Exception):
                setattr(rules, key, "none")

    def vandalise(self, view) -> None:
        for attr in dir(view):
            if attr.startswith("_") or attr == "rng":  # private slots are not the API
                continue
            for junk in ((), 40, None, (9, 9, 9)):
                with contextlib.suppress(Exception):
                    setattr(view, attr, junk)
        for attr in ("grill", "stacks", "tops", "scores", "flipped", "kept", "claims"):
            try:
                value = getattr(view, attr)
                value.clear()  # tuples: AttributeError
            except Exception:
                pass
        view.rng.random()  # its own stream: the dice are not drawn from it

    def pick(self, view):
        face = super().pick(view)
        self.vandalise(view)
        return face

    def stop(self, view):
        self.vandalise(view)
        return True

    def claim(self, view, choices):
        answer = super().claim(view, choices)
        with contextlib.suppress(Exception):
            choices.clear()
        self.vandalise(view)
        return answer


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("players", [2, 4])
def test_a_vandal_cannot_change_the_game(seed, players):
    rules = Rules(players=players)
    clean = play_game([Greedy() for _ in range(players)], rules, seed, record=True)
    seats: list = [Greedy() for _ in range(players)]
    seats[1] = Vandal()
    vandalised = play_game(seats, rules, seed, record=True)
    assert vandalised.record == clean.record
    assert vandalised.state() == clean.state()
    assert rules == Rules(players=players)  # what new_game was given is unchanged


def test_writing_to_the_view_does_not_widen_the_legal_choices():
    class Liar(MyBot):
        def pick(self, view):
            with contextlib.suppress(AttributeError):
                view.choices = (1, 2, 3, 4, 5, 6)
            return 5

    err = error_of(Liar(), [OPENING, BOT_ROLL])
    assert "picked 5, not in the roll" in str(err)
