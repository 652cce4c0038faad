"""Time limits in-process (issue 9, item 5): seats.guard, SeatLimits, SIGALRM, the beacon.

Each hostile plugin tries to hang or slow the game; each test checks that the seat
forfeits with kind "time", quickly, and that honest games are untouched. A
faulthandler deadline bounds every test: a hang ends the run with a traceback.
"""

from __future__ import annotations

import signal
import threading
import time

import pytest
from helpers import CRASH, HANG_GUARD, TIME

from harness import play_game
from harness.errors import HarnessError, StrategyFailed, TimeForfeit
from harness.interrupts import user_interrupts
from harness.play import build_strategies
from harness.plugins import create
from harness.seats import Beacon, SeatLimits, close_all, guard, plugin_traceback
from harness.strategy import Strategy

pytestmark = [
    pytest.mark.interpreter,
    pytest.mark.usefixtures("deadline"),  # a hang ends the run with a traceback
]


class Watched(Beacon):
    """As a tournament worker's beacon: its parent's watchdog would end a call that never
    returns, so plugin seats stay in this process (their SIGALRM timers are what these
    tests try; without a watchdog they move to processes of their own:
    test_every_run_ends.py)."""

    watched = True


def forfeit_of(strategies, move_time=None, game_time=None):
    instances, names = build_strategies(strategies)
    seats = guard(instances, names, SeatLimits(move_time, game_time), beacon=Watched())
    try:
        with user_interrupts():  # as under the CLI: a plugin's KeyboardInterrupt is its own
            return play_game(seats, seed=5, forfeit=True, names=names)
    finally:
        close_all(seats)


# -- SeatLimits -------------------------------------------------------------------------------
def test_limits_are_off_by_default():
    limits = SeatLimits()
    assert not limits.active
    assert SeatLimits(move_time=1).active and SeatLimits(game_time=2.5).active
    assert SeatLimits(isolation="process").active


@pytest.mark.parametrize(
    "kwargs",
    [
        {"move_time": 0},
        {"move_time": -1},
        {"game_time": float("nan")},
        {"game_time": 3601},
        {"move_time": True},
        {"move_time": "1"},
        {"isolation": "thread"},
    ],
)
def test_bad_limits_are_one_line(kwargs):
    with pytest.raises(HarnessError) as info:
        SeatLimits(**kwargs)
    assert "\n" not in str(info.value)
    assert next(iter(kwargs)) in str(info.value)


# -- zero cost when off ----------------------------------------------------------------------
def test_guard_without_limits_returns_the_very_same_objects():
    strategies = [create("greedy"), create("random")]
    guarded = guard(strategies, ["greedy", "random"], SeatLimits())
    assert guarded is strategies
    assert all(a is b for a, b in zip(guarded, strategies, strict=True))
    close_all(guarded)  # harmless on an unguarded list


def test_honest_games_are_the_same_under_time_limits():
    seats = ["greedy", "tactician", "random"]
    for seed in (1, 2, 3):
        plain = play_game(seats, seed=seed, record=True)
        timed = play_game(seats, seed=seed, record=True, move_time=30, game_time=600)
        assert timed == plain


# -- time forfeits in-process -----------------------------------------------------------------
def test_a_python_loop_in_pick_is_interrupted_at_move_time():
    start = time.monotonic()
    result = forfeit_of([f"{TIME}:LoopsInPick", "greedy"], move_time=0.2)
    assert time.monotonic() - start < HANG_GUARD
    error = result.error
    assert isinstance(error, TimeForfeit) and error.kind == "time"
    assert (error.seat, error.turn) == (0, 1)
    assert "over move_time 0.2 s" in str(error) and "pick()" in str(error)
    assert result.forfeit == 0 and result.winner == 1


def test_a_sleep_in_stop_is_interrupted():
    start = time.monotonic()
    result = forfeit_of(["greedy", f"{TIME}:SleepsInStop"], move_time=0.2)
    assert time.monotonic() - start < HANG_GUARD
    assert isinstance(result.error, TimeForfeit) and result.error.seat == 1
    assert "stop()" in str(result.error)


def test_many_small_decisions_break_game_time():
    result = forfeit_of([f"{TIME}:SlowDecisions(delay=0.02)", "greedy"], game_time=0.3)
    error = result.error
    assert isinstance(error, TimeForfeit)
    assert "over game_time 0.3 s" in str(error)
    assert error.turn > 1  # it took several decisions to get there


def test_a_plugin_that_swallows_the_interrupt_still_forfeits():
    result = forfeit_of([f"{TIME}:SwallowsTheAlarm", "greedy"], move_time=0.2)
    assert isinstance(result.error, TimeForfeit)


def test_a_plugins_own_keyboard_interrupt_and_system_exit_under_limits():
    for what in ("KeyboardInterrupt", "SystemExit"):
        result = forfeit_of([f"{CRASH}:RaisesInPick(what={what!r})", "greedy"], move_time=5)
        assert isinstance(result.error, StrategyFailed), what
        assert f"raised {what} in pick()" in str(result.error)


def test_the_traceback_of_a_time_forfeit_shows_where_the_plugin_was():
    result = forfeit_of([f"{TIME}:LoopsInPick", "greedy"], move_time=0.1)
    text = plugin_traceback(result.error)
    assert text is not None and "seats_time.py" in text and "while True" in text


def test_a_forged_time_forfeit_for_another_seat_is_the_forgers_own():
    """A plugin raising TimeForfeit naming its rival forfeits itself, as "raised"."""
    from harness.strategy import Strategy

    class Framer(Strategy):
        name = "framer"

        def pick(self, view):
            raise TimeForfeit(view.turn, 1 - view.seat, "greedy", "framed")

        def stop(self, view):
            return True

    result = forfeit_of([Framer(), "greedy"], move_time=5)
    assert result.error.seat == 0 and result.error.kind == "raised"


# -- SIGALRM hygiene -----------------------------------------------------------------------
def test_the_previous_sigalrm_handler_and_timer_are_given_back():
    fired = []

    def mine(signum, frame):
        fired.append(signum)

    old = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        strategies = guard([create("greedy"), create("greedy")], ["a", "b"], SeatLimits(1))
        play_game(strategies, seed=1, names=["a", "b"])
        close_all(strategies)
        assert signal.getsignal(signal.SIGALRM) is mine
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left <= 30  # still running for its owner
        assert not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_without_a_time_limit_no_handler_is_installed():
    before = signal.getsignal(signal.SIGALRM)
    strategies = guard([create("greedy"), create("greedy")], ["a", "b"], SeatLimits())
    assert signal.getsignal(signal.SIGALRM) is before
    close_all(strategies)


def test_outside_the_main_thread_the_limit_is_checked_when_the_call_returns():
    """No signals there: a slow call is timed after it returns (the watchdog's job is
    the call that never returns)."""
    results = []

    def play():
        results.append(forfeit_of([f"{TIME}:SlowDecisions(delay=0.15)", "greedy"], move_time=0.1))

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(20)
    assert not thread.is_alive()
    assert isinstance(results[0].error, TimeForfeit)


# -- the beacon ------------------------------------------------------------------------------
class Recorder(Beacon):
    def __init__(self):
        self.events = []

    def enter(self, seat, turn, deadline):
        self.events.append(("enter", seat, turn, deadline, time.monotonic()))

    def leave(self):
        self.events.append(("leave",))


def test_the_beacon_hears_every_call_with_its_deadline():
    beacon = Recorder()
    names = ["greedy", "random"]
    strategies = guard([create(n) for n in names], names, SeatLimits(move_time=2), beacon=beacon)
    try:
        result = play_game(strategies, seed=3, names=names)
    finally:
        close_all(strategies)
    assert result.error is None
    enters = [e for e in beacon.events if e[0] == "enter"]
    assert len(enters) == len(beacon.events) // 2 > result.turns
    # Strictly alternating: every call is left before the next starts.
    assert all(e[0] == ("enter" if i % 2 == 0 else "leave") for i, e in enumerate(beacon.events))
    assert {e[1] for e in enters} == {0, 1}
    assert enters[0][2] == 0  # new_game: turn 0
    for _, _, _, deadline, now in enters:
        assert now < deadline <= now + 2.01


class _IndexLoops:
    """An answer whose __index__ never returns: reading it is part of the decision."""

    def __index__(self) -> int:
        while True:
            pass


class _AnswersWithALoop(Strategy):
    name = "index-loop"

    def pick(self, view):
        return _IndexLoops()

    def stop(self, view):
        return True


def test_an_answer_whose_index_loops_is_stopped_at_move_time():
    result = play_game([_AnswersWithALoop(), "greedy"], seed=1, forfeit=True, move_time=0.3)
    assert result.error is not None and result.error.kind == "time"
    assert result.error.seat == 0 and "over move_time 0.3 s" in str(result.error)


class _IndexedTriple(tuple):
    """A claim answer of the wrong length whose __index__ names a legal tile."""

    def __index__(self) -> int:
        return 21


class _ClaimsATriple(Strategy):
    name = "triple"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True

    def claim(self, view, choices):
        return _IndexedTriple((0, 0, 0))


def test_a_lying_claim_gets_the_same_verdict_with_and_without_limits():
    from harness.rules import Rules

    rules = Rules.coerce({"lower_tile": "any"}, players=2)  # claims are asked often
    plain = play_game([_ClaimsATriple(), "greedy"], rules, seed=3, forfeit=True)
    timed = play_game([_ClaimsATriple(), "greedy"], rules, seed=3, forfeit=True, move_time=5)
    assert plain.error is not None and "(R7)" in str(plain.error)
    assert timed.error is not None and str(timed.error) == str(plain.error)
