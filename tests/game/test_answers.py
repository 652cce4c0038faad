"""Answers are judged by their plain value (issue 9, item 1).

Every answer of ``pick``, ``stop`` and ``claim`` is turned into a plain int, bool or
Claim before its legality is checked, so an answer cannot pass through its own
``__eq__`` or ``__hash__``; an answer that raises when read is its seat's forfeit with a
one-line message. The misbehaving plugins are in tests/fixtures/hostile/engine_liars.py.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from helpers import Scripted, ScriptedDice, rolls_for

from harness import play_game, replay
from harness.errors import MESSAGE_LIMIT, GameError, IllegalMove, StrategyFailed
from harness.game.engine import Game, GameResult
from harness.game.record import RecordBuilder
from harness.plugins import resolve
from harness.rules import Rules
from harness.strategy import Claim, Strategy

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
W = 6
OPENING = [[W, W, W, W, W, 1, 1, 1]]  # seat 0 keeps 5 worms (25) and stops
BOT_ROLL = [[1, 2, 3, 4, W, W, 2, 2]]
WORMS_AGAIN = [[W, W, 1, 2, 3, 4, 5, 5], [W, W, 1, 1, 2, 2, 3]]  # worms show twice
STEAL_OR_GRILL = [rolls_for([(W, 6)]), rolls_for([(W, 6)])]  # 30 each: steal 30 or take 29


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, HOSTILE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


liars = load("engine_liars")
LyingInt = liars.LyingInt


class MyBot(Scripted):
    name = "my-bot"


def run(bot: Strategy, dice: list, players: int = 2, observer=None) -> GameResult:
    """Seat 0 plays the first scripted turn, ``bot`` (seat 1) the second, turn by turn."""
    seats = [Scripted()] + [bot] + [Scripted() for _ in range(players - 2)]
    game = Game(seats, Rules(players=players), ScriptedDice(dice), observer=observer)
    game.start()
    for _ in dice:
        game.play_turn()
    return game.result()


def error_of(bot: Strategy, dice: list) -> GameError:
    with pytest.raises(GameError) as info:
        run(bot, dice)
    text = str(info.value)
    assert "\n" not in text and len(text) < MESSAGE_LIMIT + 200
    return info.value


# -- pick ------------------------------------------------------------------------------
def test_a_lying_int_cannot_keep_worms_twice():
    """Its __eq__/__hash__ match the legal face 1, its value is the worm set aside."""
    err = error_of(MyBot(picks=[W, LyingInt(W, pretend=1)]), [OPENING, WORMS_AGAIN])
    assert isinstance(err, IllegalMove) and err.rule == "R5" and err.kind == "rule"
    assert str(err) == "turn 2, seat 1 (my-bot) picked W, already set aside this turn (R5)"


@pytest.mark.parametrize("value", [0, 7, -1])
def test_a_lying_int_that_is_no_face_at_all(value):
    err = error_of(MyBot(picks=[LyingInt(value, pretend=1)]), [OPENING, BOT_ROLL])
    assert str(err) == f"turn 2, seat 1 (my-bot) picked {value}, not a face 1-6 (R2)"


def test_a_lying_int_counts_for_its_value_when_that_is_legal():
    """LyingInt(4) pretends to be 1 (and its __index__ says 5): the engine keeps the 4."""
    bot = MyBot(picks=[LyingInt(4, pretend=1), W, 1])
    rolls = [[1, 2, 3, 4, W, W, 2, 2], [W, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]]
    run(bot, [OPENING, rolls])
    picks = [asked for asked in bot.asked if asked[0] == "pick"]
    assert [(kept, total) for _, _, _, kept, total in picks] == [((), 0), ((4,), 4), ((4, W), 9)]


def test_a_plugin_that_rekeeps_worms_forfeits_every_game_it_tries(tmp_path):
    """The issue's cheat: it won 242 of 300 games against greedy with no forfeit."""
    spec = resolve(f"{HOSTILE}/engine_liars.py:Rekeeper")
    tried = forfeits = wins = 0
    for seed in range(40):
        bot = spec.create()
        result = play_game([bot, "greedy"], seed=seed, forfeit=True, record=True)
        tried += bot.tries > 0
        if result.error is not None:
            forfeits += 1
            assert result.forfeit == 0 and isinstance(result.error, IllegalMove)
            assert "already set aside this turn (R5)" in str(result.error)
        wins += result.winner == 0
        # The engine's own record of the game replays (it was refused before).
        assert replay(result.record).state() == {
            **result.state(),
            "winner": result.state()["winner"] if result.error is None else None,
        }
    assert tried > 20 and forfeits == tried
    assert wins <= 40 - tried


@pytest.mark.parametrize("value", [0, 7])
def test_rekeeping_with_no_face_is_refused_too(value):
    bot = resolve(f"{HOSTILE}/engine_liars.py:Rekeeper(value={value})").create()
    result = play_game([bot, "greedy"], seed=3, forfeit=True)
    assert bot.tries and isinstance(result.error, IllegalMove) and result.error.rule == "R2"


def test_numpy_ints_are_faces_and_numpy_floats_and_bools_are_not():
    np = pytest.importorskip("numpy")
    builder = RecordBuilder(Rules(), ["my-bot", "scripted"])
    game = Game(
        [MyBot(picks=[np.int64(W)]), Scripted()],
        Rules(),
        ScriptedDice([OPENING]),
        observer=builder,
    )
    game.play_turn()
    kept = builder.record["turns"][0]["keeps"]
    assert kept == [W] and type(kept[0]) is int
    for answer in (np.float64(4.0), np.True_):
        err = error_of(MyBot(picks=[answer]), [OPENING, BOT_ROLL])
        assert isinstance(err, IllegalMove) and err.rule == "R5", answer


def test_a_huge_int_is_named_without_printing_it():
    err = error_of(MyBot(picks=[10**5000]), [OPENING, BOT_ROLL])
    assert str(err) == "turn 2, seat 1 (my-bot) picked a 16610-bit number, not a face 1-6 (R2)"


def test_an_answer_whose_index_raises_is_a_forfeit():
    err = error_of(MyBot(picks=[liars.Unreadable(ValueError("boom"))]), [OPENING, BOT_ROLL])
    assert isinstance(err, StrategyFailed) and err.kind == "raised" and err.method == "pick"
    assert (
        str(err) == "turn 2, seat 1 (my-bot) raised ValueError reading the answer of pick(): boom"
    )


def test_an_answer_whose_index_exits_is_a_forfeit():
    err = error_of(MyBot(picks=[liars.Unreadable(SystemExit(2))]), [OPENING, BOT_ROLL])
    assert isinstance(err, StrategyFailed)
    assert "raised SystemExit reading the answer of pick(): 2" in str(err)


def test_a_non_int_whose_repr_raises_is_named_by_its_type():
    """__index__ raises TypeError (not an int) and __repr__ raises: R5, one line."""
    err = error_of(MyBot(picks=[liars.Unreadable(TypeError("no"))]), [OPENING, BOT_ROLL])
    assert str(err) == "turn 2, seat 1 (my-bot) pick() returned <unprintable Unreadable>, " + (
        "not a face 1-6 (R5)"
    )


def test_an_int_whose_methods_raise_counts_for_its_value():
    """__hash__, __eq__, __bool__, __str__ and __repr__ raise: none of them is consulted."""
    bot = MyBot(picks=[liars.UnreadableInt(W)])
    result = run(bot, [OPENING, [[W, W, W, W, W, W, 1, 1]]])
    assert result.stacks == [[25], [30]]
    err = error_of(MyBot(picks=[liars.UnreadableInt(0)]), [OPENING, BOT_ROLL])
    assert str(err) == "turn 2, seat 1 (my-bot) picked 0, not a face 1-6 (R2)"


# -- stop ------------------------------------------------------------------------------
FIVE_WORMS = [[W, W, W, W, W, 1, 1, 1], [5, 1, 1]]  # 25 with 3 dice left, then 5s for 30


def stack_after_stop(answer) -> list[int]:
    """The bot's stack: 25 stolen from seat 0 if it stopped, 30 from the grill if not."""
    bot = MyBot(picks=[W], stops=[answer, True])
    return run(bot, [OPENING, FIVE_WORMS]).stacks[1]


@pytest.mark.parametrize(
    "answer, stopped",
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        (LyingInt(1, pretend=0), True),  # its __bool__ and __eq__ say no: its value is 1
        (LyingInt(0, pretend=1), False),
    ],
)
def test_stop_counts_by_value(answer, stopped):
    assert stack_after_stop(answer) == ([25] if stopped else [30])


def test_stop_takes_numpy_values():
    np = pytest.importorskip("numpy")
    assert stack_after_stop(np.True_) == [25]
    assert stack_after_stop(np.False_) == [30]
    assert stack_after_stop(np.int64(1)) == [25]


@pytest.mark.parametrize("answer", [LyingInt(2, pretend=1), 1.0, "True", None])
def test_stop_refuses_what_is_not_a_boolean(answer):
    bot = MyBot(picks=[W], stops=[answer])
    err = error_of(bot, [OPENING, FIVE_WORMS])
    assert isinstance(err, IllegalMove) and err.rule == "R6"


def test_stop_answer_that_raises_when_read():
    bot = MyBot(picks=[W], stops=[liars.Unreadable(RuntimeError("nope"))])
    err = error_of(bot, [OPENING, FIVE_WORMS])
    assert isinstance(err, StrategyFailed) and err.method == "stop"
    assert "raised RuntimeError reading the answer of stop(): nope" in str(err)
    bot = MyBot(picks=[W], stops=[liars.Unreadable(TypeError("nope"))])
    err = error_of(bot, [OPENING, FIVE_WORMS])
    assert str(err).endswith("stop() returned <unprintable Unreadable>, not True or False (R6)")


# -- claim -----------------------------------------------------------------------------
def claim_error(kind: str) -> GameError:
    return error_of(liars.LyingClaim(kind), STEAL_OR_GRILL)


def test_a_tuple_equal_to_everything_is_its_items():
    """Its __eq__, __hash__, __len__, __getitem__ and __iter__ all lie; its items are 21."""
    err = claim_error("tuple")
    assert isinstance(err, IllegalMove) and err.rule == "R7"
    assert str(err).endswith("claimed 21 with sum 30: the highest grill tile <= 30 is 29 (R7)")


def test_a_claim_with_a_lying_tile_is_its_value():
    err = claim_error("tile")  # Claim(LyingInt(21, pretend=30), 0): a steal of 21
    assert str(err).endswith("stole 21 from seat 0 whose top is 30 (R7)")


def test_a_claim_with_a_lying_victim_is_its_value():
    err = claim_error("victim")  # Claim(30, LyingInt(6, pretend=0))
    assert str(err).endswith("claimed 30 from seat 6, not a seat (R7)")


@pytest.mark.parametrize(
    "answer, stacks",
    [
        (30, [[], [30]]),  # a bare tile number: the first choice of that tile, the steal
        (29, [[30], [29]]),
        ((30, 0), [[], [30]]),
        ((29, None), [[30], [29]]),
        (LyingInt(29, pretend=30), [[30], [29]]),
    ],
)
def test_claims_by_plain_value(answer, stacks):
    assert run(MyBot(picks=[W], claims=[answer]), STEAL_OR_GRILL).stacks == stacks


def test_claims_with_numpy_values():
    np = pytest.importorskip("numpy")
    answer = (np.int64(30), np.int8(0))
    assert run(MyBot(picks=[W], claims=[answer]), STEAL_OR_GRILL).stacks == [[], [30]]
    err = error_of(MyBot(picks=[W], claims=[np.float64(29.0)]), STEAL_OR_GRILL)
    assert str(err).endswith("claimed np.float64(29.0), not a tile 21-36 (R7)")


@pytest.mark.parametrize(
    "answer, detail",
    [
        (True, "claimed True, not a tile 21-36"),
        (Claim(29.0), "claimed Claim(tile=29.0, victim=None), not a tile 21-36"),
        ((30, 0, 1), "claimed (30, 0, 1), not a tile 21-36"),
        ((30, "x"), "claimed 30 from seat 'x', not a seat"),
        ((30, True), "claimed 30 from seat True, not a seat"),
        pytest.param(10**5000, "claimed <unprintable int>, not a tile 21-36", id="huge"),
    ],
)
def test_claims_that_are_not_claims(answer, detail):
    err = error_of(MyBot(picks=[W], claims=[answer]), STEAL_OR_GRILL)
    assert isinstance(err, IllegalMove)
    assert str(err) == f"turn 2, seat 1 (my-bot) {detail} (R7)"


def test_a_claim_answer_that_raises_when_read():
    err = error_of(MyBot(picks=[W], claims=[liars.Unreadable(KeyError("k"))]), STEAL_OR_GRILL)
    assert isinstance(err, StrategyFailed) and err.method == "claim"
    assert "raised KeyError reading the answer of claim(): 'k'" in str(err)


def test_claims_in_the_record_are_the_engines_own():
    """Whatever the answer's type, the observer hears an interned plain Claim."""
    heard = []

    class Hears(RecordBuilder):
        def claimed(self, seat, claim, total):
            heard.append(claim)
            super().claimed(seat, claim, total)

    run(MyBot(picks=[W], claims=[LyingInt(29, pretend=30)]), STEAL_OR_GRILL)
    observer = Hears(Rules(), ["a", "b"])
    run(MyBot(picks=[W], claims=[LyingInt(29, pretend=30)]), STEAL_OR_GRILL, observer=observer)
    assert heard[-1] == (29, None) and type(heard[-1]) is Claim and type(heard[-1].tile) is int
