"""Replay: every way a record can break the rules, ``harness replay``, and the regression
playthroughs in tests/playthroughs/.

Every illegal record fails with one line naming the turn, the seat and the rule, and
``harness replay`` exits with status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Script, referee, rolls_for, turn

from harness import play_game, replay
from harness.errors import RecordError
from harness.play.narrate import Narrator

W = 6
PLAYTHROUGHS = Path(__file__).resolve().parents[1] / "playthroughs"


def illegal(script: Script) -> str:
    with pytest.raises(RecordError) as info:
        replay(script.record())
    text = str(info.value)
    assert "\n" not in text
    with pytest.raises(AssertionError):  # the referee refuses it too
        referee(script.record())
    return text


def taken_25() -> Script:
    return Script().take(25)


CASES = {
    # R4: a roll has exactly the dice not yet set aside
    "first roll of 7 dice": (
        lambda: Script().turn([[W, W, W, W, W, 1, 1]], [W], {"claim": 25}),
        "turn 1, seat 0: roll 1 has 7 dice but 8 were left (R4)",
    ),
    "second roll with too many dice": (
        lambda: Script().turn(
            [[W, W, W, 1, 1, 1, 1, 1], [4, 4, 1, 1, 1, 1]], [W, 4], {"claim": 23}
        ),
        "turn 1, seat 0: roll 2 has 6 dice but 5 were left (R4)",
    ),
    "second roll with too few dice": (
        lambda: Script().turn([[W, W, W, 1, 1, 1, 1, 1], [4, 4, 1, 1]], [W, 4], {"claim": 23}),
        "turn 1, seat 0: roll 2 has 4 dice but 5 were left (R4)",
    ),
    "busting roll with the wrong number of dice": (
        lambda: Script().turn([[1] * 7 + [2], [1, 1]], [1], {"bust": "no-new-face"}),
        "turn 1, seat 0: roll 2 has 2 dice but 1 was left (R4)",
    ),
    # R5: a keep is a face of the roll not set aside before
    "keep not in the roll": (
        lambda: Script().turn([[W, W, 1, 1, 2, 2, 3, 3]], [5], {"claim": 21}),
        "turn 1, seat 0: keep 5, not in the roll 1 1 2 2 3 3 W W (R5)",
    ),
    "keep already set aside": (
        lambda: Script().turn(
            [[W, W, 1, 1, 1, 1, 1, 1], [W, 4, 4, 4, 1, 1]], [W, W], {"claim": 25}
        ),
        "turn 1, seat 0: keep W, already set aside this turn (R5)",
    ),
    "keep that is not a face": (
        lambda: Script().turn([[W] * 8], [7], {"claim": 36}),
        "turn 1, seat 0: keep 7, not a face 1-6 (R2)",
    ),
    "no-new-face bust on a roll with a new face": (
        lambda: Script().turn([[1] * 7 + [2], [2]], [1], {"bust": "no-new-face"}),
        "turn 1, seat 0: bust no-new-face, but the roll 2 shows a new face (R5)",
    ),
    # R6: all 8 dice set aside ends the turn
    "rolls after all 8 dice were set aside": (
        lambda: Script().turn([[W] * 8, [5]], [W, 5], {"claim": 36}),
        "turn 1, seat 0: 1 roll(s) recorded after the turn ended: all 8 dice were set aside (R6)",
    ),
    "no-new-face roll after all 8 dice were set aside": (
        lambda: Script().turn([[W] * 8, [W]], [W], {"bust": "no-new-face"}),
        "turn 1, seat 0: bust no-new-face with all dice set aside, but 36 could be claimed "
        "(R7, R8)",
    ),
    # R7: claims
    "claim with the wrong sum": (
        lambda: Script().take(27, total=26),
        "turn 1, seat 0: claim 27 with sum 26 (R7)",
    ),
    "claim of a lower tile under official rules": (
        lambda: Script().take(30).take(28, total=31),
        "turn 2, seat 1: claim 28 with sum 31: the highest grill tile <= 31 is 31 (R7)",
    ),
    "claim without a worm": (
        lambda: Script().turn([[5] * 5 + [1] * 3, [4, 4, 1]], [5, 4], {"claim": 33}),
        "turn 1, seat 0: claim 33 without a worm set aside (R7)",
    ),
    "claim where the engine rolls on into a bust": (
        lambda: Script().turn([[1] * 7 + [W]], [1], {"claim": 21}),
        "turn 1, seat 0: claim 21 without a worm set aside (R7)",
    ),
    "claim of a tile on a stack": (
        lambda: Script().take(27).take(27),
        "turn 2, seat 1: claim 27: not on the grill but on seat 0's stack (R7)",
    ),
    "claim of a face-down tile": (
        lambda: Script().take(21).bust().bust().take(36, total=40),
        "turn 4, seat 1: claim 36: it is face down (R7, R9)",
    ),
    "claim of no tile at all": (
        lambda: Script().take(40),
        "turn 1, seat 0: claim 40: not a tile 21-36 (R1)",
    ),
    "steal of a non-top tile": (
        lambda: Script().take(25).bust().take(30).steal(25, victim=0),
        "turn 4, seat 1: steal 25 from seat 0 whose top is 30 (R7)",
    ),
    "steal from an empty stack": (
        lambda: Script().take(27).steal(25, victim=0).steal(25, victim=1),
        None,
    ),
    "steal with the wrong sum": (
        lambda: Script().take(25).steal(25, victim=0, total=26),
        "turn 2, seat 1: steal 25 from seat 0 with sum 26: a steal needs the exact sum (R7)",
    ),
    "steal from its own stack": (
        lambda: Script().take(25).bust().steal(25, victim=0),
        "turn 3, seat 0: steal 25 from its own stack (R7)",
    ),
    # R7, R8: busts
    "bust claimed when a tile could be taken": (
        lambda: Script().turn(rolls_for([(W, 4), (4, 4)]), [W, 4], {"bust": "no-tile"}),
        "turn 1, seat 0: bust no-tile with all dice set aside, but 36 could be claimed (R7, R8)",
    ),
    "bust with dice left": (
        lambda: Script().turn([[5] * 4 + [1] * 4], [5], {"bust": "no-worm"}),
        "turn 1, seat 0: bust no-worm with dice left: the turn goes on (R6, R8)",
    ),
    "bust with a die left that would have busted anyway": (
        lambda: Script().turn([[1] * 7 + [W]], [1], {"bust": "no-worm"}),
        "turn 1, seat 0: bust no-worm with dice left: the turn goes on (R6, R8)",
    ),
    "bust with the wrong reason": (
        lambda: Script().turn([[5] * 8], [5], {"bust": "no-tile"}),
        "turn 1, seat 0: bust no-tile, but the dice say no-worm (R5, R7, R8)",
    ),
    # R10
    "record continuing after the game ended": (
        lambda: _full_game().bust(),
        "turn 17, seat 0: the game was already over: no face-up tile left on the grill (R10)",
    ),
}


def _full_game() -> Script:
    s = Script()
    for tile in range(21, 37):
        s.take(tile)
    return s


@pytest.mark.parametrize("case", list(CASES))
def test_illegal_records_fail_with_turn_seat_and_rule(case):
    make, message = CASES[case]
    text = illegal(make())
    if message is not None:
        assert text == message
    assert text.startswith("turn ") and ", seat " in text and text.endswith(")")


def test_wrong_seat_order_message():
    s = Script().take(25)
    s.turns.append(turn(0, [[1] * 7 + [2], [1]], [1], {"bust": "no-new-face"}))
    assert illegal(s) == "turn 2, seat 0: it is seat 1's turn (R3)"


def test_steal_from_an_empty_stack_message():
    s = Script(players=3).take(27).steal(25, victim=2)
    assert illegal(s) == "turn 2, seat 1: steal 25 from seat 2 whose top is nothing (R7)"


def test_a_claim_the_engine_asks_about_is_explained_the_same_way():
    """With a steal and a grill tile both possible the engine asks claim(); a record's
    illegal answer there reads like any other refused claim."""
    s = Script().take(30).take(28, total=30)
    assert illegal(s) == (
        "turn 2, seat 1: claim 28 with sum 30: the highest grill tile <= 30 is 29 (R7)"
    )


def test_legal_records_replay_to_the_referees_state():
    for make in (lambda: Script().take(25).steal(25, 0).bust().bust("no-worm"), _full_game):
        record = make().record()
        assert replay(record).state() == referee(record)


def test_play_then_replay_reproduces_the_final_state_exactly():
    for seed in range(12):
        result = play_game(["random", "greedy", "worm-first"], "short", seed=seed, record=True)
        again = replay(json.loads(json.dumps(result.record)))
        assert again.state() == result.state()
        assert (again.turns, again.busts, again.steals, again.stolen) == (
            result.turns,
            result.busts,
            result.steals,
            result.stolen,
        )


# -- harness replay ------------------------------------------------------------------------
def test_replay_json_prints_exactly_the_state(cli, tmp_path):
    path = tmp_path / "game.json"
    played = cli("play", "greedy", "random", "worm-first", "--seed", "4", "--record", str(path))
    assert played.exit_code == 0
    out = cli("replay", str(path), "--json")
    assert out.exit_code == 0
    state = json.loads(out.output)
    assert list(state) == ["grill", "flipped", "stacks", "scores", "over", "winner"]
    assert state == play_game(["greedy", "random", "worm-first"], seed=4).state()


def test_replay_prints_the_state_for_people(cli, tmp_path):
    path = tmp_path / "game.json"
    cli("play", "greedy", "random", "--seed", "4", "--record", str(path))
    out = cli("replay", str(path)).output
    assert "turns replayed, all legal" in out
    assert "Face down:" in out and "Grill:" in out
    assert "Winner: seat" in out or "No winner" in out


def test_replay_of_an_unfinished_record(cli, tmp_path):
    path = tmp_path / "part.json"
    path.write_text(json.dumps(Script().take(25).record()))
    state = json.loads(cli("replay", str(path), "--json").output)
    assert state["over"] is False and state["winner"] is None
    assert "Not over after 1 turns." in cli("replay", str(path)).output


@pytest.mark.parametrize(
    "content, message",
    [
        (json.dumps(Script().take(27, total=26).record()), "turn 1, seat 0: claim 27 with sum 26"),
        ('{"format": "pickomino-record/1", "seats": [', "not valid JSON"),
        (json.dumps({"format": "other"}), "format: expected 'pickomino-record/1'"),
        (json.dumps({**Script().record(), "turns": [{"seat": 0}]}), "turns[0]: missing 'rolls'"),
    ],
)
def test_replay_of_a_bad_record_exits_2_in_one_line(cli, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = cli("replay", str(path))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and message in result.output
    assert "Traceback" not in result.output


def test_replay_of_a_missing_file_exits_2(cli, tmp_path):
    result = cli("replay", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "no such file" in result.output


def test_replay_in_a_real_process_exits_2(harness_process, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(Script().take(30).take(28, total=31).record()))
    done = harness_process("replay", str(path), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "Error: turn 2, seat 1: claim 28 with sum 31: the highest grill tile <= 31 is 31 (R7)\n"
    )


# -- regression playthroughs -----------------------------------------------------------------
NAMES = sorted(
    p.name.removesuffix(".json")
    for p in PLAYTHROUGHS.glob("*.json")
    if not p.name.endswith(".state.json")
)


def test_the_playthroughs_cover_2_to_7_players_and_every_preset():
    records = [json.loads((PLAYTHROUGHS / f"{n}.json").read_text()) for n in NAMES]
    players = {len(r["seats"]) for r in records}
    assert {2, 4, 7} <= players
    from harness.rules import PRESETS, Rules

    presets = {Rules.from_dict(r["rules"]).preset_name for r in records}
    assert set(PRESETS) | {None} == presets  # every preset and a custom mix


@pytest.mark.parametrize("name", NAMES)
def test_playthrough_replays_to_its_recorded_state_and_story(name):
    record = json.loads((PLAYTHROUGHS / f"{name}.json").read_text())
    expected = json.loads((PLAYTHROUGHS / f"{name}.state.json").read_text())
    lines: list[str] = []
    result = replay(record, observer=Narrator(record["seats"], lines.append))
    assert result.state() == expected
    assert referee(record) == expected
    assert record["result"]["scores"] == expected["scores"]
    story = (PLAYTHROUGHS / f"{name}.log").read_text().splitlines()
    assert lines == story, "the story changed: diff the .log file (make_playthroughs.py)"
