"""Every run ends (issue 24, item 2): no plugin can make a run with time limits hang.

In harness's own process a plugin can catch the timer's exception every time, turn the
timer off (``setitimer(..., 0)``) or ignore SIGALRM; nothing there can stop it. So where
nothing outside watches the playing process (``harness play``, ``workers: 0``,
``play_game``), such a seat plays in a process of its own, said before playing; in a
tournament worker the parent's watchdog ends it; and an isolated seat always has a
deadline (``game_time`` defaults to ``seats.ISOLATED_GAME_TIME``). Each plugin, each
mode: a ``time`` forfeit, and the run finishes.
"""

from __future__ import annotations

import json

import pytest
from helpers import TIME

from harness import play_game
from harness.errors import TimeForfeit
from harness.seats import ISOLATED_GAME_TIME, SeatLimits
from harness.tourney import run_tournament

pytestmark = [
    pytest.mark.engine,
    pytest.mark.interpreter,
    pytest.mark.usefixtures("deadline"),  # a hang ends the run with a traceback
]

STUBBORN = ["DisarmsTheTimer", "IgnoresTheAlarm", "CatchesEveryInterrupt", "CLoopInPick"]


@pytest.mark.parametrize("plugin", STUBBORN)
def test_harness_play_ends_each_with_a_time_forfeit(cli, plugin):
    result = cli("play", f"{TIME}:{plugin}", "greedy", "--seed", "1", "--move-time", "0.3")
    assert result.exit_code == 0, result.output
    assert "plays in a process of its own so that the time limits hold" in result.output
    assert "FORFEIT: turn 1, seat 0" in result.output and "over move_time 0.3 s" in result.output


@pytest.mark.parametrize("plugin", STUBBORN)
def test_play_game_ends_each_with_a_time_forfeit(plugin):
    result = play_game([f"{TIME}:{plugin}", "greedy"], seed=1, forfeit=True, game_time=0.5)
    assert isinstance(result.error, TimeForfeit) and result.error.seat == 0
    assert "over game_time 0.5 s" in str(result.error)


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.once
def test_a_tournament_ends_each_with_time_forfeits(tmp_path, workers):
    entrants = [
        "greedy",
        *({"strategy": f"{TIME}:{p}", "name": p.lower()} for p in STUBBORN),
    ]
    config = {
        "name": "stubborn",
        "format": "gauntlet",
        "challenger": "greedy",
        "entrants": entrants,
        "deals": 1,
        "move_time": 0.3,
    }
    notes: list[str] = []
    run = run_tournament(config, out=tmp_path, workers=workers, echo=notes.append)
    assert run.status == "complete" and run.stored == 8
    assert run.forfeits == 8  # every game of every stubborn seat, each a time forfeit
    games = run.games
    assert set(games["error_kind"].dropna()) == {"time"}
    if workers == 0:
        assert any("plugin seats under time limits play in processes" in n for n in notes)


def test_an_isolated_seat_always_has_a_deadline(monkeypatch):
    assert SeatLimits(isolation="process").game_time == ISOLATED_GAME_TIME
    assert SeatLimits(isolation="process", game_time=5).game_time == 5
    assert SeatLimits().game_time is None  # in-process: no limit unless asked
    monkeypatch.setattr("harness.seats.settings.ISOLATED_GAME_TIME", 1.0)
    result = play_game([f"{TIME}:LoopsInPick", "greedy"], seed=1, forfeit=True, isolation="process")
    assert isinstance(result.error, TimeForfeit)
    assert "over game_time 1 s" in str(result.error)


def test_the_default_deadline_of_isolated_seats_is_said_in_json(cli):
    result = cli(
        "play", f"{TIME}:LoopsInPick", "greedy", "--seed", "1", "--isolation", "process",
        "--game-time", "0.5", "--json",
    )  # fmt: skip
    payload = json.loads(result.output.strip().splitlines()[-1])
    assert payload["error_kind"] == "time" and "over game_time 0.5 s" in payload["error"]


def test_an_instance_that_cannot_be_sent_is_said_not_silently_trusted(cli):
    from harness.play import open_seats
    from harness.strategy import Strategy

    class Local(Strategy):  # defined in a function: it cannot be pickled to a child
        name = "local"

        def pick(self, view):
            return max(view.choices)

        def stop(self, view):
            return True

    with open_seats([Local(), "greedy"], SeatLimits(move_time=1)) as seats:
        notes = seats.notes()
    assert len(notes) == 1 and "local cannot be sent to a process of its own" in notes[0]
