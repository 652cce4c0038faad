"""``harness analyze game``, ``harness analyze roll`` and ``harness play --analyze``: the
account of a game and of a roll for people, checked against the library's own values."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness import play_game
from harness.analysis.account import solved, swing_payoff
from harness.analysis.game import account_record
from harness.analysis.roll import TurnPosition, roll_options
from harness.analysis.turn import CHILD, START
from harness.cli import main
from harness.rules import TILES

pytestmark = pytest.mark.engine


def _run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# -- a roll ------------------------------------------------------------------------------------
def test_a_rolls_options_are_every_legal_keep_valued_exactly():
    position = TurnPosition(tuple(TILES), (0, 0), 0)
    analysis = roll_options(position, (6, 6, 5, 3, 2, 1, 1, 4))
    stop, bust = swing_payoff(tuple(TILES), (0, 0), 0, False)
    value, roll = solved(stop, bust)
    assert analysis.expected == roll[START]
    counts = {6: 2, 5: 1, 4: 1, 3: 1, 2: 1, 1: 2}
    assert {o.face for o in analysis.options} == set(counts)
    for o in analysis.options:
        assert o.then == "roll"  # nothing can be claimed after one keep but worms: 10 < 21
        assert o.value == value[CHILD[START << 6 | o.face << 3 | counts[o.face] - 1]]
    assert analysis.best == max(o.value for o in analysis.options)
    assert analysis.options[0].regret == 0 and all(o.regret >= 0 for o in analysis.options)
    assert analysis.luck == analysis.best - analysis.expected


def test_stop_and_roll_on_are_separate_options_where_a_stop_claims():
    position = TurnPosition((25, 26, 27, 28, 29, 30), (23, 24), 0, kept=(6, 6, 3, 3, 2))
    analysis = roll_options(position, (5, 5, 4))
    kinds = {(o.face, o.then) for o in analysis.options}
    assert (5, "stop") in kinds and (5, "roll") in kinds and (4, "roll") in kinds
    stop = analysis.option(5, "stop")
    assert stop.claim == (28, None) and stop.value == 2.0


def test_a_roll_with_no_new_face_is_a_bust_worth_the_bust_value():
    position = TurnPosition(tuple(TILES), (25, 0), 0, kept=(6, 6, 5))
    analysis = roll_options(position, (6, 5, 6, 5, 6))
    assert analysis.bust and analysis.best == -2.0  # tile 25: two worms lost


def test_analyze_roll_prints_the_library_values(tmp_path):
    out = _run("analyze", "roll", "5,5,4", "--kept", "W,W,3,3,2", "--grill", "25-30",
               "--tops", "24", "--held", "23", "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    position = TurnPosition((25, 26, 27, 28, 29, 30), (23, 24), 0, kept=(6, 6, 3, 3, 2))
    analysis = roll_options(position, (5, 5, 4))
    assert [o["value"] for o in data["options"]] == [o.value for o in analysis.options]
    assert data["luck"] == analysis.luck
    text = _run("analyze", "roll", "5,5,4", "--kept", "W,W,3,3,2", "--grill", "25-30",
                "--tops", "24", "--held", "23").output  # fmt: skip
    assert "keep 2 x 5, stop: take 28" in text and "luck" in text


@pytest.mark.parametrize(
    "args, says",
    [
        (["5,5,5"], "a roll of 3 dice with 8 dice left"),
        (["9,9,9,9,9,9,9,9"], "not a face"),
        (["5,5", "--kept", "W,W,W,W,W,W,W"], "a roll of 2 dice with 1 dice left"),
        (["5,5,4", "--kept", "W,W,3,3,2", "--tops", "30", "--grill", "25-30"], "also on a stack"),
        (["5,5,4", "--kept", "W,W,3,3,2", "--grill", ""], "empty"),
    ],
)
def test_analyze_roll_refuses_what_cannot_happen_in_one_line(args, says):
    out = CliRunner().invoke(main, ["analyze", "roll", *args])
    assert out.exit_code == 2, out.output
    assert says in out.output and len(out.output.strip().splitlines()) == 1
    assert "Traceback" not in out.output


# -- a game ------------------------------------------------------------------------------------
@pytest.fixture
def record_file(tmp_path):
    path = tmp_path / "game.json"
    out = _run("play", "greedy", "tactician", "--seed", "3", "--record", str(path), "-q")
    assert out.exit_code == 0, out.output
    return path


def test_a_records_turns_carry_their_account(record_file):
    data = json.loads(record_file.read_text())
    account = account_record(data)
    assert all("account" in t for t in data["turns"])
    for turn, stored in zip(account.turns, data["turns"], strict=True):
        assert stored["account"]["swing"] == turn.swing
        assert stored["account"]["luck"] == turn.luck


def test_analyze_game_tells_every_turn_and_the_margin_split(record_file):
    out = _run("analyze", "game", str(record_file))
    assert out.exit_code == 0, out.output
    assert "Turn 1, seat 0 (greedy): par" in out.output
    assert "every turn sums" in out.output
    assert "Unit: chances to win" in out.output  # the default unit (issue 32)
    worms = _run("analyze", "game", str(record_file), "--json", "--unit", "worms").output
    data = json.loads(worms)
    assert data["unit"] == "worms" and data["sums"] and data["worst_residual"] < 1e-12
    split = data["ledgers"][0]["margin_split"]
    assert split["par"] + split["luck"] + split["skill"] == pytest.approx(split["margin"])
    assert split["margin"] == data["scores"][0] - data["scores"][1]


def test_analyze_game_in_chances_to_win_splits_each_result_exactly(record_file):
    # two players: result share = chance at the start + drift + luck + skill (own - other's)
    data = json.loads(_run("analyze", "game", str(record_file), "--json").output)
    assert data["unit"] == "win" and data["sums"] and data["worst_residual"] < 1e-12
    scores = data["scores"]
    for seat in (0, 1):
        split = data["ledgers"][seat]["margin_split"]
        parts = split["start"] + split["drift"] + split["luck"] + split["skill"]
        assert parts == pytest.approx(split["result"], abs=1e-12)
        won = scores[seat] > scores[1 - seat]
        assert split["result"] == (1.0 if won else 0.0) or scores[0] == scores[1]
    turn = data["turns"][0]
    assert 0 <= turn["before"] <= 1 and turn["swing"] == pytest.approx(
        turn["par"] + turn["luck"] - turn["regret"], abs=1e-12
    )
    out = CliRunner().invoke(main, ["analyze", "game", str(record_file), "--unit", "chips"])
    assert out.exit_code == 2 and "chips" in out.output


def test_a_record_whose_stored_account_lies_is_refused(record_file, tmp_path):
    data = json.loads(record_file.read_text())
    data["turns"][3]["account"]["luck"] += 0.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    out = CliRunner().invoke(main, ["analyze", "game", str(bad)])
    assert out.exit_code == 2 and "turn 4" in out.output and "luck" in out.output
    assert len(out.output.strip().splitlines()) == 1
    data["turns"][3]["account"] = "lucky"
    bad.write_text(json.dumps(data))
    out = CliRunner().invoke(main, ["analyze", "game", str(bad)])
    assert out.exit_code == 2 and "not an object" in out.output


def test_a_record_without_an_account_is_accounted_from_its_moves(record_file, tmp_path):
    data = json.loads(record_file.read_text())
    for turn in data["turns"]:
        del turn["account"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(data))
    out = _run("analyze", "game", str(plain), "--seats-only", "--unit", "worms")
    assert out.exit_code == 0 and "margin" in out.output
    out = _run("analyze", "game", str(plain), "--seats-only")
    assert out.exit_code == 0 and "chance (own minus other's): start" in out.output


def test_play_analyze_shows_the_account_and_json_holds_it():
    out = _run("play", "greedy", "optimal", "--seed", "5", "--analyze")
    assert out.exit_code == 0, out.output
    assert "Luck and skill" in out.output and "margin over seat 1" in out.output
    data = json.loads(
        _run("play", "greedy", "optimal", "--seed", "5", "--analyze", "--json").output
    )
    result = play_game(["greedy", "optimal"], seed=5)
    assert data["account"]["scores"] == result.scores
    out = CliRunner().invoke(
        main, ["play", "greedy", "simple", "--analyze", "-q", "--engine", "native"]
    )
    assert out.exit_code == 2 and "--analyze" in out.output
