"""Everything a plugin can throw is its seat's forfeit, in a bounded line (issue 9, items 4, 6).

The engine catches BaseException from every strategy call (new_game, pick, stop, claim,
and the reading of their answers); only the user's own Ctrl-C propagates
(:mod:`harness.interrupts`). Messages come from :func:`harness.errors.safe_text`: one
line, at most MESSAGE_LIMIT characters, whatever the exception's str() does. The
plugins are in tests/fixtures/hostile/engine_raisers.py.
"""

from __future__ import annotations

import importlib.util
import io
import pickle
import signal
import time
from pathlib import Path

import pytest
from helpers import Scripted, ScriptedDice, rolls_for

from harness import interrupts, play_game
from harness.errors import (
    MESSAGE_LIMIT,
    GameError,
    IllegalMove,
    SeatCrashed,
    StrategyFailed,
    TimeForfeit,
    safe_repr,
    safe_text,
    type_name,
)
from harness.game.engine import Game
from harness.rules import Rules

pytestmark = pytest.mark.interpreter

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
W = 6
STEAL_OR_GRILL = [rolls_for([(W, 6)]), rolls_for([(W, 6)])]  # turn 2 asks pick, stop, claim


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, HOSTILE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


raisers = load("engine_raisers")


def own_pickle(error: BaseException) -> bytes:
    """Pickled by the error's own __reduce__: Dask's tblib, imported by other test modules,
    registers copyreg reducers for every exception class that also pickle the cause."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer)
    pickler.dispatch_table = {}  # not copyreg's
    pickler.dump(error)
    return buffer.getvalue()


@pytest.fixture
def mode():
    """Switch interrupt modes inside a test; the mode and SIGINT handler come back after.
    SIGINT starts as at a terminal (Python's own handler), whatever pytest inherited: a
    background job starts with it ignored, and harness leaves an ignored signal ignored."""
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupts._reset_for_tests()
    yield interrupts
    interrupts._reset_for_tests()
    signal.signal(signal.SIGINT, handler)


def play(bot, dice=STEAL_OR_GRILL):
    """Seat 0 scripted, ``bot`` at seat 1; the GameError the game ended with (or None)."""
    game = Game([Scripted(), bot], Rules(), ScriptedDice(dice), names=["scripted", "throws"])
    try:
        game.start()
        for _ in dice:
            game.play_turn()
    except GameError as exc:
        game.result(error=exc)  # the board is sound: the forfeit can be scored
        return exc
    return None


EXPECTED = {
    "exit": "raised SystemExit in {m}(): 0",
    "exit-text": "raised SystemExit in {m}(): bye",
    "interrupt": "raised KeyboardInterrupt in {m}()",
    "generator-exit": "raised GeneratorExit in {m}()",
    "memory": "raised MemoryError in {m}(): out of memory",
    "recursion": "raised RecursionError in {m}(): maximum recursion depth exceeded",
    "unprintable": "raised Unprintable in {m}(): <unprintable Unprintable>",
    "huge": "raised ValueError in {m}(): " + "x" * 1800 + "... (998200 more characters)",
    "huge-line": "raised ValueError in {m}(): " + "y" * 1800 + "... (998212 more characters)",
    "multiline": "raised ValueError in {m}(): first line",
    "controls": "raised ValueError in {m}(): red \\x1b[31m alert\\x00 \\ud800 end",
    "unpicklable": "raised Unpicklable in {m}(): holds a lock",
    "nameless": "raised object in {m}(): who am I",
    "class-property": "raised ClassProperty in {m}(): what am I",
    "str-not-str": "raised StrNotStr in {m}(): <unprintable StrNotStr>",
}


@pytest.mark.parametrize("what", raisers.THROWN)
@pytest.mark.parametrize("method", ["new_game", "pick", "stop", "claim"])
def test_whatever_a_plugin_throws_is_its_forfeit(mode, method, what):
    mode.plugin_interrupts_only()  # as in a worker: every KeyboardInterrupt is a plugin's
    err = play(raisers.Throws(method, what))
    assert isinstance(err, StrategyFailed) and err.kind == "raised" and err.method == method
    assert (err.seat, err.turn, err.strategy) == (1, 0 if method == "new_game" else 2, "throws")
    text = str(err)
    assert text == f"turn {err.turn}, seat 1 (throws) " + EXPECTED[what].format(m=method)
    assert "\n" not in text and len(text) <= MESSAGE_LIMIT
    text.encode("utf-8")  # no lone surrogate: it can be written to any log or JSON file
    again = pickle.loads(own_pickle(err))  # the forfeit crosses processes, its cause not
    assert (type(again), str(again), again.seat, again.method) == (type(err), text, 1, method)


def test_the_cause_is_kept_for_tracebacks(mode):
    mode.plugin_interrupts_only()
    err = play(raisers.Throws("pick", "exit"))
    assert type(err.__cause__) is SystemExit


def test_a_method_that_cannot_even_be_looked_up(mode):
    mode.plugin_interrupts_only()
    err = play(raisers.NoPick())
    assert str(err) == "turn 2, seat 1 (throws) raised SystemExit in pick(): 3"


def test_play_game_with_forfeit_stores_a_bounded_line():
    result = play_game(
        [raisers.Throws("pick", "huge"), "greedy"], seed=1, forfeit=True, record=True
    )
    assert result.forfeit == 0 and len(str(result.error)) <= MESSAGE_LIMIT
    assert len(result.record["result"]["error"]) <= MESSAGE_LIMIT


# -- the user's Ctrl-C and a plugin's KeyboardInterrupt -----------------------------------
def test_outside_any_mode_a_keyboard_interrupt_stops_everything(mode):
    """Library use, a notebook: nobody can tell, so stopping is the safe default."""
    with pytest.raises(KeyboardInterrupt):
        play(raisers.Throws("pick", "interrupt"))
    err = play(raisers.Throws("pick", "exit"))  # SystemExit is never the user's
    assert isinstance(err, StrategyFailed)


def test_in_user_mode_a_plugins_keyboard_interrupt_is_its_forfeit(mode):
    with mode.user_interrupts():
        err = play(raisers.Throws("stop", "interrupt"))
        assert isinstance(err, StrategyFailed) and "KeyboardInterrupt in stop()" in str(err)
        assert not mode.user_pressed()


def test_the_users_ctrl_c_propagates(mode):
    def press():
        signal.raise_signal(signal.SIGINT)

    with mode.user_interrupts():
        bot = raisers.Converts()
        bot.pending = None
        seats_pick = bot.pick

        def pick(view):  # the user presses Ctrl-C while the plugin is thinking
            if view.turn >= 2:
                press()
            return seats_pick(view)

        bot.pick = pick
        with pytest.raises(KeyboardInterrupt):
            play(bot)
        assert mode.user_pressed()


def test_the_users_ctrl_c_propagates_even_if_a_plugin_turns_it_into_something_else(mode):
    with mode.user_interrupts():
        with pytest.raises(KeyboardInterrupt) as info:
            play(raisers.Converts(pending=lambda: signal.raise_signal(signal.SIGINT)))
        assert type(info.value.__cause__) is RuntimeError  # what the plugin made of it


def test_user_mode_restores_the_handler_and_the_mode(mode):
    before = signal.getsignal(signal.SIGINT)
    with mode.user_interrupts():
        assert signal.getsignal(signal.SIGINT) is not before
        with mode.user_interrupts():
            pass
        assert mode.is_user_interrupt(KeyboardInterrupt()) is False  # not pressed yet
    assert signal.getsignal(signal.SIGINT) is before
    assert mode.is_user_interrupt(KeyboardInterrupt()) is True  # the default again


def test_plugin_mode_ignores_sigint_and_never_calls_anything_the_users(mode):
    mode.plugin_interrupts_only()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert mode.is_user_interrupt(KeyboardInterrupt()) is False
    signal.raise_signal(signal.SIGINT)  # ignored: nothing raised


# -- what a seat's wrapper raises about its own seat --------------------------------------
class Raises(Scripted):
    """Raises ``error`` from its own pick at turn 2: a plugin forging a verdict."""

    name = "throws"

    def __init__(self, error: GameError) -> None:
        super().__init__()
        self.error = error

    def pick(self, view):
        if view.turn >= 2:
            raise self.error
        return super().pick(view)


class Slow(Scripted):
    name = "throws"

    def pick(self, view):
        if view.turn >= 2:
            time.sleep(0.5)
        return super().pick(view)


def test_a_seat_wrappers_time_verdict_keeps_its_kind():
    """The real wrapper (harness.seats) over move_time: a TimeForfeit of that seat."""
    seats = pytest.importorskip("harness.seats")
    limits = seats.SeatLimits(move_time=0.05)
    guarded = seats.guard([Scripted(), Slow()], ["scripted", "throws"], limits)
    try:
        game = Game(guarded, Rules(), ScriptedDice(STEAL_OR_GRILL), names=["scripted", "throws"])
        with pytest.raises(TimeForfeit) as info:
            game.start()
            for _ in STEAL_OR_GRILL:
                game.play_turn()
    finally:
        seats.close_all(guarded)
    err = info.value
    assert err.kind == "time" and (err.seat, err.turn, err.strategy) == (1, 2, "throws")
    assert "\n" not in str(err) and str(err).startswith("turn 2, seat 1 (throws) ")


@pytest.mark.parametrize("kind", [TimeForfeit, SeatCrashed])
def test_a_verdict_a_plugin_raises_on_itself_is_raised_not_time(kind):
    """A plugin cannot pass a loss off as machine-dependent (time) or as a crash."""
    err = play(Raises(kind(2, 1, "throws", "took 9 s for pick(), over move_time 1 s")))
    assert type(err) is StrategyFailed and err.seat == 1 and err.kind == "raised"
    assert f"raised {kind.__name__} in pick(): turn 2, seat 1 (throws) took 9 s" in str(err)


@pytest.mark.parametrize("kind", [TimeForfeit, SeatCrashed, IllegalMove])
def test_a_verdict_against_another_seat_is_the_raisers_own_forfeit(kind):
    """A plugin cannot make its rival forfeit by raising a verdict that names it."""
    args = (2, 0, "scripted", "took 9 s", "R5") if kind is IllegalMove else (2, 0, "scripted", "x")
    err = play(Raises(kind(*args)))
    assert type(err) is StrategyFailed and err.seat == 1 and err.kind == "raised"


def test_kinds_and_one_line_messages():
    assert [k.kind for k in (IllegalMove, StrategyFailed, TimeForfeit, SeatCrashed)] == [
        "rule",
        "raised",
        "time",
        "crash",
    ]
    err = SeatCrashed(3, 1, "bot\nwith a newline", "its process died (exit code 3) in pick()")
    assert str(err) == "turn 3, seat 1 (bot) its process died (exit code 3) in pick()"
    moved = pickle.loads(pickle.dumps(IllegalMove(1, 0, "a", "picked 5", "R5")))
    assert (moved.rule, moved.kind, str(moved)) == (
        "R5",
        "rule",
        "turn 1, seat 0 (a) picked 5 (R5)",
    )


# -- safe_text and safe_repr ---------------------------------------------------------------
def test_safe_text_bounds_and_cleans():
    assert safe_text("plain") == "plain"
    assert safe_text("a" * 10, limit=4) == "aaaa... (6 more characters)"
    assert safe_text("one\ntwo") == "one" and safe_text("one\r\ntwo") == "one"
    assert safe_text("one\u2028two") == "one"
    assert safe_text("tab\tstays") == "tab\tstays"
    assert safe_text("bell\x07") == "bell\\x07"
    assert safe_text("\udcff") == "\\udcff"
    assert safe_text(raisers.Unprintable()) == "<unprintable Unprintable>"
    assert safe_text(raisers.StrNotStr()) == "<unprintable StrNotStr>"
    assert safe_repr(raisers.Unprintable()) == "<unprintable Unprintable>"
    assert safe_repr("x" * 300) == "'" + "x" * 199 + "... (102 more characters)"
    assert safe_text(10**5000) == "<unprintable int>"
    assert type_name(raisers.Nameless()) == "object"


def test_safe_text_lets_the_users_ctrl_c_through(mode):
    class Slow:
        def __str__(self):
            raise KeyboardInterrupt  # as if Ctrl-C landed while formatting

    with pytest.raises(KeyboardInterrupt):
        safe_text(Slow())
    mode.plugin_interrupts_only()
    assert safe_text(Slow()) == "<unprintable Slow>"
