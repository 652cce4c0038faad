"""``isolation: process`` (issue 9, items 2, 4, 5, 8): a seat's strategy in a process of
its own.

The guarantees, each attacked: honest strategies play exactly the games they play
in-process; nothing of the engine is reachable from the child; the child's answers are
read as plain data, never unpickled; a child that loops (in Python or C), sleeps, dies,
raises anything or forges bytes on its pipe costs only its seat's game; children never
outlive their parent. Every wait is bounded (time limits, subprocess timeouts, and a
faulthandler deadline on the whole test).
"""

from __future__ import annotations

import faulthandler
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import HANG_GUARD

from harness import play_game
from harness.errors import IllegalMove, PluginError, SeatCrashed, StrategyFailed, TimeForfeit
from harness.interrupts import user_interrupts
from harness.play import open_seats
from harness.plugins import builtin_strategies
from harness.seats import SeatLimits, close_all, plugin_traceback

pytestmark = pytest.mark.interpreter

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
TIME = f"{HOSTILE}/seats_time.py"
CRASH = f"{HOSTILE}/seats_crash.py"
CHEAT = f"{HOSTILE}/seats_cheat.py"
STATE = f"{HOSTILE}/seats_state.py"
ISOLATED = SeatLimits(isolation="process")


@pytest.fixture(autouse=True)
def bounded():
    """No test here may hang: after 90 s the process dumps its stacks and exits."""
    faulthandler.dump_traceback_later(90, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def isolated(strategies, seed=5, **kw):
    return play_game(strategies, seed=seed, forfeit=True, isolation="process", **kw)


def duel(ref, opponent, seed=5, limits=ISOLATED, **kw):
    """``ref`` in a process of its own (seat 0) against the module's isolated greedy:
    one process started per test, not two."""
    with open_seats([ref], limits) as seats:
        return play_game(
            [seats.strategies[0], opponent],
            seed=seed,
            forfeit=True,
            names=[seats.names[0], "greedy"],
            **kw,
        )


def in_process(strategies, seed=5, **kw):
    with user_interrupts():  # as under the CLI: a plugin's KeyboardInterrupt is its own
        return play_game(strategies, seed=seed, forfeit=True, **kw)


def gone(pid: int) -> bool:
    """The process has ended (a zombie nobody reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return True


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


# -- honest strategies: the very same games --------------------------------------------------
@pytest.fixture(scope="module")
def builtin_seats():
    names = sorted(builtin_strategies())
    seats = open_seats(names, ISOLATED)
    yield dict(zip(names, seats.strategies, strict=True))
    seats.close()


@pytest.fixture(scope="module")
def opponent(builtin_seats):
    """An isolated greedy, shared by the tests of this module."""
    return builtin_seats["greedy"]


@pytest.mark.once
def test_every_builtin_plays_identical_games_isolated(builtin_seats):
    names = list(builtin_seats)
    assert len(names) >= 8
    played = set()
    for players in (2, 3, 4):
        for offset in range(0, len(names), players):
            table = [names[(offset + i) % len(names)] for i in range(players)]
            seed = 100 * players + offset
            rules = "french" if offset % 2 else "official"  # french: claim() is asked
            expected = play_game(table, rules=rules, seed=seed, record=True)
            got = play_game(
                [builtin_seats[n] for n in table],
                rules=rules,
                seed=seed,
                record=True,
                names=table,
            )
            assert got == expected, (table, seed)
            assert got.record == expected.record
            played.update(table)
    assert played == set(names)


def test_play_game_isolated_and_timed_equals_in_process():
    table = ["threshold(target=28)", "random(p_stop=0.4)"]
    got = isolated(table, seed=9, record=True, move_time=30, game_time=600)
    assert got == play_game(table, seed=9, record=True)


def test_instances_are_sent_to_their_process_by_pickle():
    """Instances (a built-in's, and a plugin file's class) play as they do in-process;
    one that cannot be pickled is one line."""
    from harness.plugins import create, resolve

    def seats():
        return [create("worm-first"), resolve(f"{STATE}:RemembersGames").create()]

    assert isolated(seats(), seed=3, record=True) == play_game(seats(), seed=3, record=True)
    unpicklable = create("greedy")
    unpicklable.hook = lambda: None
    with pytest.raises(PluginError) as info:
        isolated([unpicklable, "greedy"])
    assert "cannot be sent to its own process" in str(info.value)


def test_every_game_starts_from_a_fresh_instance(opponent):
    """A strategy that remembers games plays each like its first (item 8), whatever
    its process played before."""
    with open_seats([f"{STATE}:RemembersGames"], ISOLATED) as seats:
        table, names = [seats.strategies[0], opponent], [seats.names[0], "greedy"]
        games = [play_game(table, seed=s, names=names) for s in (1, 2, 3)]
    for seed, got in zip((1, 2, 3), games, strict=True):
        assert got == play_game([f"{STATE}:RemembersGames", "greedy"], seed=seed)


# -- nothing of the engine in reach ----------------------------------------------------------
def test_the_child_finds_no_game_and_no_dice(opponent):
    # In-process a plugin that walks gc finds them (the README says so) ...
    found = in_process([f"{CHEAT}:Snoops", "greedy"])
    assert isinstance(found.error, StrategyFailed) and "found a Game" in str(found.error)
    # ... in its own process there is nothing to find.
    result = duel(f"{CHEAT}:Snoops", opponent)
    assert result.error is None and result.over


def test_a_plugin_file_is_never_imported_by_the_engine_process(tmp_path, capfd, opponent):
    # The plugin says where it was imported on stderr (an isolated seat may write no file
    # outside its scratch folder: see test_isolation_sandbox.py).
    plugin = tmp_path / "marks.py"
    plugin.write_text(
        textwrap.dedent(
            """
            import os, sys
            from harness.strategy import Strategy
            print(f"imported-in {os.getpid()}", file=sys.stderr)

            class Marks(Strategy):
                name = "marks"
                def pick(self, view):
                    return max(view.choices)
                def stop(self, view):
                    return True
            """
        )
    )

    def importers() -> set[str]:
        err = capfd.readouterr().err
        return {line.split("imported-in ")[1].split()[0] for line in err.splitlines()
                if "imported-in " in line}  # fmt: skip

    capfd.readouterr()
    result = duel(f"{plugin}:Marks", opponent)
    assert result.error is None
    pids = importers()
    assert pids and str(os.getpid()) not in pids
    in_process([f"{plugin}:Marks", "greedy"])  # the check can fail: in-process it is ours
    assert str(os.getpid()) in importers()


# -- answers: plain data, checked by value ----------------------------------------------------
def test_a_lying_int_is_refused_by_its_value_as_in_process(opponent):
    result = duel(f"{CHEAT}:RekeepsFaces", opponent)
    assert isinstance(result.error, IllegalMove) and result.error.rule == "R5"
    assert str(result.error) == str(in_process([f"{CHEAT}:RekeepsFaces", "greedy"]).error)


def test_the_engine_process_never_unpickles_an_answer(tmp_path, monkeypatch, opponent):
    marker = tmp_path / "unpickled"

    def refuse(*args, **kwargs):
        raise AssertionError("the parent unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    result = duel(f"{CHEAT}:PickleBomb(path={str(marker)!r})", opponent)
    assert isinstance(result.error, IllegalMove)
    assert "Unpickles object" in str(result.error)
    assert not marker.exists()


def test_an_answer_that_raises_when_read_is_the_same_forfeit(opponent):
    got = duel(f"{CHEAT}:UnreadableAnswer", opponent).error
    want = in_process([f"{CHEAT}:UnreadableAnswer", "greedy"]).error
    assert isinstance(got, StrategyFailed) and str(got) == str(want)
    assert "reading the answer of pick()" in str(got)


@pytest.mark.parametrize("kind", ["huge", "garbage"])
def test_forged_bytes_on_the_pipe_are_the_seats_crash(kind, opponent):
    result = duel(f"{CHEAT}:ForgesReplies(kind={kind!r})", opponent)
    assert isinstance(result.error, SeatCrashed) and result.error.kind == "crash"
    assert result.error.seat == 0 and "unreadable answer to pick()" in str(result.error)


# -- everything a plugin throws: its seat's forfeit -------------------------------------------
@pytest.mark.parametrize("what", ["KeyboardInterrupt", "SystemExit"])
def test_keyboard_interrupt_and_system_exit_are_forfeits(what, opponent):
    result = duel(f"{CRASH}:RaisesInPick(what={what!r})", opponent)
    assert isinstance(result.error, StrategyFailed) and result.error.kind == "raised"
    assert f"raised {what} in pick()" in str(result.error)


def test_a_raise_carries_the_plugins_traceback_from_its_process(opponent):
    error = duel(f"{CRASH}:FailsInStop", opponent).error
    assert isinstance(error, StrategyFailed) and error.seat == 0
    assert str(error).endswith("raised ZeroDivisionError in stop(): division by zero")
    text = plugin_traceback(error)
    assert "helper_that_divides" in text and "ZeroDivisionError" in text


def test_a_process_that_exits_is_a_crash_and_the_next_game_gets_a_fresh_one(opponent):
    with open_seats([f"{CRASH}:ExitsInPick(code=3, seat=0)"], ISOLATED) as seats:
        exits = seats.strategies[0]
        dead = exits.process.pid
        first = play_game([exits, opponent], seed=1, names=["exits", "greedy"], forfeit=True)
        assert isinstance(first.error, SeatCrashed) and first.error.seat == 0
        assert "its process died (exit code 3) in pick()" in str(first.error)
        assert gone(dead)
        # Seat 1 this time: the fixture plays on, in a new process.
        second = play_game([opponent, exits], seed=1, names=["greedy", "exits"], forfeit=True)
        assert second.error is None
        assert exits.process.pid not in (None, dead)


def test_a_process_killed_by_a_signal_is_a_crash(opponent):
    error = duel(f"{CRASH}:KillsItself", opponent).error
    assert isinstance(error, SeatCrashed) and "killed by SIGKILL" in str(error)


def test_a_plugin_that_exits_at_import_is_one_line(opponent):
    with pytest.raises(PluginError) as info:
        duel(f"{HOSTILE}/seats_import_exit.py:NeverLoaded", opponent)
    assert "its process died while loading it (exit code 4)" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("ref", "says"),
    [
        ("gredy", "did you mean 'greedy'"),  # found out before any process starts
        ("threshold(target='x')", "parameter target"),
        (f"{STATE}:RemembersGames(target=3)", "unknown parameter 'target'"),  # in its process
        (f"{STATE}:Nobody", "has no class 'Nobody'"),
    ],
)
def test_bad_references_are_one_line(ref, says, opponent):
    with pytest.raises(PluginError) as info:
        duel(ref, opponent)
    assert says in str(info.value) and "\n" not in str(info.value)


# -- time limits: the parent kills ------------------------------------------------------------
@pytest.mark.parametrize(
    "ref",
    [f"{TIME}:LoopsInPick", f"{TIME}:CLoopInPick", f"{TIME}:SwallowsTheAlarm"],
    ids=["python-loop", "c-loop", "swallows"],
)
def test_a_loop_is_killed_at_move_time(ref, opponent):
    start = time.monotonic()
    result = duel(ref, opponent, limits=SeatLimits(move_time=0.2, isolation="process"))
    assert time.monotonic() - start < HANG_GUARD
    error = result.error
    assert isinstance(error, TimeForfeit) and error.kind == "time" and error.seat == 0
    assert "over move_time 0.2 s" in str(error)


def test_sleeps_and_slow_games_forfeit_and_the_seat_is_restarted(opponent):
    with open_seats([f"{TIME}:SleepsInStop"], SeatLimits(0.2, None, "process")) as seats:
        for seed in (1, 2):  # the second game runs in a fresh process
            result = play_game(
                [opponent, seats.strategies[0]],
                seed=seed,
                names=["greedy", "sleeps"],
                forfeit=True,
            )
            assert isinstance(result.error, TimeForfeit) and result.error.seat == 1
    limits = SeatLimits(game_time=0.3, isolation="process")
    result = duel(f"{TIME}:SlowDecisions(delay=0.02)", opponent, limits=limits)
    assert isinstance(result.error, TimeForfeit) and "over game_time 0.3 s" in str(result.error)


# -- processes: signals, output, ends -----------------------------------------------------------
def test_children_ignore_ctrl_c_and_end_with_close_all(opponent):
    seats = open_seats(["random"], ISOLATED)
    pids = [seats.strategies[0].process.pid, opponent.process.pid]
    for pid in pids:
        os.kill(pid, signal.SIGINT)  # the user's Ctrl-C is the parent's to handle
    result = play_game([seats.strategies[0], opponent], seed=2, names=["random", "greedy"])
    assert result.error is None
    close_all(seats.strategies)
    assert wait_gone(pids[0]) and not gone(pids[1])


def test_a_plugins_output_goes_to_stderr_with_its_seat(capfd, opponent):
    result = duel(f"{CHEAT}:Chatty", opponent)
    assert result.error is None
    out, err = capfd.readouterr()
    assert "chatty" not in out
    assert "chatty picks at turn 1" in err
    assert f"[seat 0 {CHEAT}:Chatty] chatty complains" in err


def test_a_plugin_cannot_start_a_process(tmp_path, opponent):
    # The sandbox refuses new processes (test_isolation_sandbox.py tries every way); where
    # it cannot, the seat's whole process group dies with it (test_a_seats_process_group_
    # dies_with_it there).
    note = tmp_path / "helper.pid"
    result = duel(f"{CRASH}:SpawnsHelper(path={str(note)!r})", opponent)
    if "seccomp" in " ".join(opponent.process.missing):
        pytest.skip("no seccomp filter on this system")
    assert isinstance(result.error, StrategyFailed) and "PermissionError" in str(result.error)
    assert not note.exists()


PARENT = """
import sys, time
from harness.play import open_seats
from harness.seats import SeatLimits
seats = open_seats([sys.argv[1], sys.argv[1]], SeatLimits(isolation="process"))
print(*(s.process.pid for s in seats.strategies), flush=True)
from harness import play_game
play_game(seats.strategies, seed=1, names=seats.names)  # loops forever in the child
"""


def test_children_die_with_a_killed_parent():
    """kill -9 of the engine process (the OOM killer) while its child is busy in a
    plugin's loop: the child is gone within seconds."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, f"{TIME}:LoopsInPick"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        looping, idle = map(int, parent.stdout.readline().split())
        time.sleep(0.5)  # seat 0 is now looping in pick(), seat 1 waits for questions
        assert not gone(looping) and not gone(idle)
        parent.kill()
        parent.wait(10)
        assert wait_gone(looping, 5.0) and wait_gone(idle, 5.0)
    finally:
        parent.kill()
        parent.wait(10)
        parent.stdout.close()


def test_json_output_of_the_cli_survives_a_printing_isolated_plugin(harness_process):
    proc = harness_process(
        "play", f"{CHEAT}:Chatty", "greedy", "--seed", "3", "--isolation", "process", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["status"] == "over"
    assert "chatty picks" in proc.stderr and "[seat 0 " in proc.stderr
