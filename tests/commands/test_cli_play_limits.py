"""``harness play`` with limits (issue 9, items 2, 5, 7, 16): --isolation, --move-time,
--game-time, --traceback, and a --record path that cannot be written.

Each forfeit is one line (exit 0, 3 with --strict; the game told up to it); the plugin's
traceback only with --traceback; a bad option or an unwritable record path is one line
before anything is played (exit 2; 1 for a place that cannot be written).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import CRASH, TIME, as_at_a_terminal

pytestmark = [
    pytest.mark.engine,
    pytest.mark.interpreter,
    pytest.mark.usefixtures("deadline"),  # a hang ends the run with a traceback
]


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# -- time limits ------------------------------------------------------------------------------
def test_a_loop_forfeits_at_move_time(cli):
    result = cli("play", f"{TIME}:LoopsInPick", "greedy", "--seed", "2", "--move-time", "0.2")
    assert result.exit_code == 0  # a forfeit ends the game (--strict: 3)
    forfeit = [line for line in result.output.splitlines() if line.startswith("FORFEIT")]
    assert len(forfeit) == 1
    assert "seat 0" in forfeit[0] and "over move_time 0.2 s" in forfeit[0]
    assert "Traceback" not in result.output


def test_game_time_in_json(cli):
    result = cli(
        "play",
        f"{TIME}:SlowDecisions(delay=0.02)",
        "greedy",
        "--seed",
        "2",
        "--game-time",
        "0.2",
        "--json",
    )
    assert result.exit_code == 0  # a forfeit ends the game (--strict: 3)
    payload = json.loads(result.stdout)
    assert payload["status"] == "forfeit" and payload["error_kind"] == "time"
    assert "over game_time 0.2 s" in payload["error"]
    assert "traceback" not in payload


@pytest.mark.parametrize(
    "args",
    [
        ["--move-time", "0"],
        ["--move-time", "-1"],
        ["--game-time", "4000"],
        ["--move-time", "soon"],
        ["--isolation", "thread"],
    ],
)
def test_bad_limits_are_usage_errors(cli, args):
    result = cli("play", "greedy", "greedy", "--seed", "1", *args)
    assert result.exit_code == 2
    assert "Turn 1" not in result.output and "Traceback" not in result.output


def test_honest_play_is_unchanged_by_limits(cli):
    plain = cli("play", "greedy", "tactician", "--seed", "8").output
    timed = cli("play", "greedy", "tactician", "--seed", "8", "--move-time", "30").output
    assert timed == plain


# -- tracebacks -------------------------------------------------------------------------------
def test_traceback_only_when_asked_in_process(cli):
    args = ("play", "greedy", f"{CRASH}:FailsInStop", "--seed", "2")
    plain = cli(*args)
    assert plain.exit_code == 0  # a forfeit ends the game (--strict: 3)
    assert "FORFEIT: turn " in plain.output and "raised ZeroDivisionError in stop()" in plain.output
    assert "Traceback" not in plain.output
    shown = cli(*args, "--traceback")
    assert shown.exit_code == 0  # a forfeit ends the game (--strict: 3)
    assert shown.stdout == plain.stdout  # the traceback goes to stderr, after the line
    assert "Traceback (most recent call last)" in shown.stderr
    assert "helper_that_divides" in shown.stderr and "ZeroDivisionError" in shown.stderr


def test_traceback_of_an_isolated_seat_comes_from_its_process(cli):
    result = cli(
        "play",
        "greedy",
        f"{CRASH}:FailsInStop",
        "--seed",
        "2",
        "--isolation",
        "process",
        "--traceback",
        "--json",
    )
    assert result.exit_code == 0  # a forfeit ends the game (--strict: 3)
    payload = json.loads(result.stdout)
    assert payload["error_kind"] == "raised"
    assert "helper_that_divides" in payload["traceback"]
    assert "total / 0" in payload["traceback"]


def test_a_crash_of_an_isolated_seat_is_one_line(cli):
    result = cli("play", f"{CRASH}:ExitsInPick", "greedy", "--seed", "1", "--isolation", "process")
    assert result.exit_code == 0  # a forfeit ends the game (--strict: 3)
    assert "its process died (exit code 3) in pick()" in result.output
    assert "Traceback" not in result.output


# -- errors before anything is played -----------------------------------------------------------
def test_a_bad_reference_in_isolation_is_one_line_and_nothing_told(cli):
    result = cli("play", "gredy", "greedy", "--seed", "1", "--isolation", "process")
    assert result.exit_code == 2
    assert lines(result.output) == [lines(result.output)[0]]
    assert "did you mean 'greedy'" in result.output and "Pickomino:" not in result.output


def test_a_huge_option_value_is_one_short_error_line(cli):
    # click quotes the value it rejects; a 5,000-digit --seed must not fill the screen
    result = cli("play", "greedy", "random", "--seed", "9" * 5000)
    assert result.exit_code == 2
    errors = [line for line in lines(result.output) if line.startswith("Error:")]
    assert len(errors) == 1 and len(errors[0]) < 500
    assert errors[0].endswith("is not a valid integer.")


@pytest.mark.parametrize("where", ["missing-folder", "under-a-file", "a-folder"])
def test_an_unwritable_record_path_is_one_line_before_playing(cli, tmp_path, where):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    path = {
        "missing-folder": tmp_path / "nope" / "game.json",
        "under-a-file": blocker / "game.json",
        "a-folder": tmp_path,
    }[where]
    result = cli("play", "greedy", "random", "--seed", "1", "--record", str(path))
    # A path that cannot name a file is bad input (2, issue 24 item 7); a folder that
    # cannot be written would be a run that cannot finish (1: "read-only folder").
    assert result.exit_code == 2
    assert len(lines(result.output)) == 1
    assert str(path) in result.output and "Turn 1" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing left behind


def test_a_writable_record_path_leaves_only_the_record(cli, tmp_path):
    path = tmp_path / "game.json"
    result = cli("play", "greedy", "random", "--seed", "1", "--record", str(path), "-q")
    assert result.exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    assert json.loads(path.read_text())["seats"] == ["greedy", "random"]


# -- the user's Ctrl-C ------------------------------------------------------------------------
def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def test_ctrl_c_during_an_isolated_game_is_130_and_ends_the_seats():
    """The user's Ctrl-C while an isolated seat loops (no time limit): one line, status
    130, and no seat process left behind (they ignore SIGINT: the parent ends them)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "play",
            f"{TIME}:LoopsInPick",
            "greedy",
            "--seed",
            "1",
            "--isolation",
            "process",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,
    )
    try:
        assert proc.stdout.readline().startswith("Pickomino:")  # the seats are up
        seats = children_of(proc.pid)
        assert len(seats) == 2
        time.sleep(0.3)  # seat 0 is looping in pick() by now
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait(10)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["Interrupted."]
    deadline = time.monotonic() + 5
    while not all(map(gone, seats)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(map(gone, seats))


def gone(pid: int) -> bool:
    """Ended (a zombie nobody reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
