"""``harness play``: the readable turn-by-turn log, --record, --json, and its errors."""

from __future__ import annotations

import json
import re

import pytest

from harness import play_game, replay
from harness.game.engine import GameObserver
from harness.play.narrate import Narrator
from harness.rules import Rules

pytestmark = pytest.mark.engine

SEATS = ["greedy", "threshold(target=28)", "random"]


class Events(GameObserver):
    def __init__(self) -> None:
        self.steals = 0
        self.turned_after_return = 0
        self.returned_kept = 0
        self.no_tile = 0

    def claimed(self, seat, claim, total):
        self.steals += claim.victim is not None

    def busted(self, seat, reason, total, returned, turned, roll):
        self.turned_after_return += bool(returned and turned)
        self.returned_kept += bool(returned and not turned)
        self.no_tile += returned is None


@pytest.fixture(scope="module")
def eventful_seed() -> int:
    """A seed whose game has a steal, a bust that turns a tile, one that turns nothing
    and one with no tile to return (found by playing, so it survives dice changes)."""
    for seed in range(500):
        events = Events()
        play_game(SEATS, seed=seed, observer=events)
        if events.steals and events.turned_after_return and events.returned_kept and events.no_tile:
            return seed
    raise AssertionError("no seed in 0..499 shows every event")


def test_play_tells_the_game_turn_by_turn(cli, eventful_seed):
    result = cli("play", *SEATS, "--seed", str(eventful_seed))
    assert result.exit_code == 0
    out = result.output
    assert out.startswith(f"Pickomino: official, 3 players, seed {eventful_seed}\n")
    assert "  seat 1: threshold(target=28)" in out
    assert "Turn 1: seat 0 (greedy)" in out
    assert "  rolls " in out and " sets aside " in out and " dice left" in out  # R4, R5
    assert "  stops at " in out and ": takes " in out and "from the grill" in out  # R6, R7
    assert ": steals " in out and " from seat " in out  # R7
    assert "BUST: no new face in the roll (R5)" in out  # R5, R9
    assert "; returns " in out and " to the grill; turns " in out and " face down" in out
    assert "; nothing turned" in out and "; no tile to return" in out
    assert "Game over after " in out
    assert re.search(r" worms?  +stack: ", out)  # final scores (R11)
    assert "Winner: seat " in out or "No winner: a shared result (R11)" in out


def test_the_log_is_the_story_of_the_game_played(cli, tmp_path, eventful_seed):
    path = tmp_path / "game.json"
    out = cli("play", *SEATS, "--seed", str(eventful_seed), "--record", str(path)).output
    record = json.loads(path.read_text())
    story: list[str] = []
    replay(record, observer=Narrator(record["seats"], story.append))
    body = out.splitlines()[1 + len(SEATS) : 1 + len(SEATS) + len(story)]
    assert body == story
    assert f"Record written to {path}" in out


def test_final_scores_and_winner_match_the_result(cli):
    result = play_game(SEATS, seed=12)
    out = cli("play", *SEATS, "--seed", "12").output
    for seat, name in enumerate(SEATS):
        stack = " ".join(map(str, result.stacks[seat])) or "-"
        worms = "worm " if result.scores[seat] == 1 else "worms"
        line = f"#{result.ranks[seat]}  seat {seat}  {name:<20}  {result.scores[seat]:>2} {worms}"
        assert line in out
        assert f"stack: {stack}" in out
    if result.winner is not None:
        assert f"Winner: seat {result.winner} ({SEATS[result.winner]})" in out


def test_same_seed_same_output(cli):
    first = cli("play", "random", "random", "--seed", "99").output
    assert cli("play", "random", "random", "--seed", "99").output == first
    assert cli("play", "random", "random", "--seed", "98").output != first


def test_without_a_seed_the_seed_is_shown_and_replays(cli):
    out = cli("play", "random", "greedy").output
    seed = int(out.splitlines()[0].rsplit("seed ", 1)[1])
    assert cli("play", "random", "greedy", "--seed", str(seed)).output == out


def test_play_record_then_replay_reproduces_the_state(cli, tmp_path):
    path = tmp_path / "g.json"
    played = json.loads(cli("play", *SEATS, "--seed", "3", "--record", str(path), "--json").output)
    record = json.loads(path.read_text())
    assert record["seats"] == SEATS and record["seed"] == 3
    replayed = json.loads(cli("replay", str(path), "--json").output)
    assert replayed == {k: played[k] for k in replayed}


def test_play_json(cli):
    data = json.loads(cli("play", "greedy", "worm-first", "--seed", "5", "--json").output)
    expected = play_game(["greedy", "worm-first"], seed=5)
    assert data["seed"] == 5 and data["seats"] == ["greedy", "worm-first"]
    assert data["rules"] == Rules().to_dict()
    assert data["status"] == "over" and data["error"] is None
    assert data["turns"] == expected.turns and data["ranks"] == expected.ranks
    assert {k: data[k] for k in expected.state()} == expected.state()


def test_play_quiet_prints_only_the_end(cli):
    out = cli("play", "greedy", "greedy", "--seed", "5", "-q").output
    assert "Turn 1" not in out and "rolls" not in out
    assert "Game over after" in out


def test_rules_preset_and_overrides(cli, tmp_path):
    path = tmp_path / "g.json"
    args = ["--rules", "piko-blog", "--set", "bust_flip=none", "--seed", "1"]
    out = cli("play", "greedy", "random", *args, "--record", str(path)).output
    assert out.startswith("Pickomino: bust_flip='none', flip_without_tile=true, 2 players")
    rules = json.loads(path.read_text())["rules"]
    assert rules == Rules(bust_flip="none", flip_without_tile=True).to_dict()


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["greedy"], 2, "1 strategy given; a game has 2 to 7 players (R3)"),
        (["greedy"] * 8, 2, "8 strategies given; a game has 2 to 7 players (R3)"),
        (["greedy", "greedy", "--rules", "german"], 2, "'german' is not one of"),
        (["greedy", "greedy", "--set", "bust_flip"], 2, "write KEY=VALUE"),
        (["greedy", "greedy", "--set", "bust_flip=up"], 2, "bust_flip: 'up' is not one of"),
        (["greedy", "greedy", "--set", "colour=red"], 2, "unknown key 'colour'"),
        (["greedy", "greedy", "--set", "players=3"], 2, "rules.players is 3 but 2 strategies"),
        (["greedy", "greedy", "--seed", "x"], 2, "'x' is not a valid integer"),
        (["greedy", "greedy", "--max-turns", "0"], 2, "--max-turns"),
    ],
)
def test_play_usage_errors_are_one_line(cli, args, code, message):
    result = cli("play", *args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output


def test_turn_cap_is_reported_unfinished(cli):
    out = cli("play", "greedy", "greedy", "--seed", "1", "--max-turns", "5").output
    assert "UNFINISHED: stopped by the turn cap after 5 turns" in out
    assert "Winner" not in out


def test_an_unwritable_record_path_is_one_line(cli, tmp_path):
    # A folder that does not exist is bad input (issue 24, item 7): exit 2.
    result = cli("play", "greedy", "greedy", "--record", str(tmp_path / "no" / "g.json"))
    assert result.exit_code == 2
    assert "there is no folder" in result.output and "Traceback" not in result.output


CHEAT = """
from harness.strategy import Strategy


class Cheat(Strategy):
    name = "cheat"

    def pick(self, view):
        return 5 if 5 not in view.choices else 1

    def stop(self, view):
        return True
"""


def test_a_cheating_plugin_forfeits_with_the_rule_named(cli, tmp_path):
    path = tmp_path / "cheat.py"
    path.write_text(CHEAT)
    record = tmp_path / "g.json"
    result = cli("play", "greedy", f"{path}:Cheat", "--seed", "2", "--record", str(record))
    assert result.exit_code == 0  # a forfeit ends the game (--strict: 3)
    # Named by its class's own name, as in a tourney (issue 19), not by its path.
    assert "FORFEIT: turn " in result.output and "seat 1 (cheat) picked " in result.output
    assert "(R5)" in result.output
    saved = json.loads(record.read_text())
    assert saved["result"]["status"] == "forfeit"
    assert replay(saved).over is False  # what was played before the forfeit replays


def test_strict_makes_a_forfeit_exit_3(cli, tmp_path):
    path = tmp_path / "cheat.py"
    path.write_text(CHEAT)
    plain = cli("play", "greedy", f"{path}:Cheat", "--seed", "2")
    strict = cli("play", "greedy", f"{path}:Cheat", "--seed", "2", "--strict")
    assert "FORFEIT: turn " in plain.output and plain.exit_code == 0
    assert strict.output == plain.output and strict.exit_code == 3
    honest = cli("play", "greedy", "greedy", "--seed", "2", "--strict")
    assert honest.exit_code == 0


def test_play_bounds_are_one_line(cli):
    result = cli("play", "greedy", "greedy", "--max-turns", "40000")
    assert result.exit_code == 2 and "--max-turns: 40000" in result.output
    assert "Traceback" not in result.output
