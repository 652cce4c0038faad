"""Game records (``pickomino-record/1``): what is written, and the shape checks on reading.

Replay legality (the rules applied to a record) is in test_replay.py.
"""

from __future__ import annotations

import copy
import json
import os

import pytest
from helpers import Script, referee

from harness import play_game, replay
from harness.errors import HarnessError, RecordError
from harness.game.record import RECORD_FORMAT, check_record, load_record, save_record
from harness.rules import Rules


@pytest.fixture(scope="module")
def game():
    return play_game(["greedy", "threshold(target=28)", "random"], "french", seed=7, record=True)


def test_play_writes_the_documented_record(game):
    record = game.record
    assert record["format"] == RECORD_FORMAT == "pickomino-record/1"
    assert record["rules"] == Rules.preset("french", 3).to_dict()
    assert record["seats"] == ["greedy", "threshold(target=28)", "random"]
    assert record["seed"] == 7
    assert record["result"] == {
        "scores": game.scores,
        "winner": game.winner,
        "over": True,
        "status": "over",
    }
    assert len(record["turns"]) == game.turns
    for i, turn in enumerate(record["turns"]):
        assert set(turn) == {"seat", "rolls", "keeps", "end", "account"}  # docs/luck.md
        assert turn["seat"] == i % 3
        sizes = [len(r) for r in turn["rolls"]]
        assert sizes[0] == 8 and sizes == sorted(sizes, reverse=True)
        assert len(turn["rolls"]) == len(turn["keeps"]) + (turn["end"] == {"bust": "no-new-face"})
        for roll, face in zip(turn["rolls"], turn["keeps"], strict=False):
            assert face in roll
        (kind,) = set(turn["end"]) - {"from"}
        assert kind in ("claim", "steal", "bust")


def test_the_record_is_plain_json(game):
    text = json.dumps(game.record)
    assert json.loads(text) == game.record
    assert replay(json.loads(text)).state() == game.state()


def test_every_end_kind_appears_in_records():
    ends = set()
    for seed in range(30):
        record = play_game(["random", "greedy", "worm-first"], seed=seed, record=True).record
        for turn in record["turns"]:
            end = turn["end"]
            ends.add(end.get("bust") or ("steal" if "steal" in end else "claim"))
    assert ends == {"claim", "steal", "no-new-face", "no-worm", "no-tile"}


def test_save_and_load_round_trip(game, tmp_path):
    path = tmp_path / "game.json"
    save_record(game.record, path)
    assert load_record(path) == game.record
    assert not list(tmp_path.glob("*.tmp"))  # written atomically: nothing left behind


def test_save_into_a_missing_directory_is_one_line(game, tmp_path):
    with pytest.raises(HarnessError, match=r"cannot write the record") as info:
        save_record(game.record, tmp_path / "no" / "such" / "dir" / "game.json")
    assert "\n" not in str(info.value)


def test_a_failed_save_leaves_the_old_file_whole(game, tmp_path):
    path = tmp_path / "game.json"
    save_record(game.record, path)
    before = path.read_text()
    bad = dict(game.record, junk=object())  # not JSON-serialisable
    with pytest.raises((HarnessError, TypeError)):
        save_record(bad, path)
    assert path.read_text() == before
    assert not list(tmp_path.glob("*.tmp"))


# -- reading: shape checks -------------------------------------------------------------------
def good() -> dict:
    return Script().take(25).bust().bust().record()  # seat 0 returns 25, 36 is turned


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: [], "record: expected a JSON object"),
        (lambda r: r.pop("format"), "format: expected 'pickomino-record/1', got None"),
        (lambda r: r.update(format="pickomino-record/2"), "format: expected 'pickomino-record/1'"),
        (lambda r: r.update(seats="greedy"), "seats: expected a list of strategy names"),
        (lambda r: r.update(seats=["a", 3]), "seats: expected a list of strategy names"),
        (lambda r: r.update(seats=["solo"]), "rules.players is 2 but the record has 1 seat (R3)"),
        (lambda r: r.update(seats=["solo"], rules={}), "1 players; a game has 2 to 7 (R3)"),
        (lambda r: r.update(rules={"bust_flip": "up"}), "rules.bust_flip: 'up' is not one of"),
        (
            lambda r: r.update(rules={"players": 3}),
            "rules.players is 3 but the record has 2 seats (R3)",
        ),
        (lambda r: r.update(rules={"colour": "red"}), "unknown key 'colour'"),
        (lambda r: r.update(rules=[1]), "rules: expected a mapping of variant keys"),
        (lambda r: r.update(rules="german"), "unknown preset 'german'"),
        (lambda r: r.update(turns={}), "turns: expected a list of turns"),
        (lambda r: r.pop("turns"), "turns: expected a list of turns"),
        (lambda r: r["turns"].append([0]), "turns[3]: expected an object with seat, rolls"),
        (lambda r: r["turns"][1].pop("end"), "turns[1]: missing 'end'"),
        (lambda r: r["turns"][1].pop("keeps"), "turns[1]: missing 'keeps'"),
        (lambda r: r["turns"][0].update(seat=2), "turns[0].seat: expected a seat 0..1, got 2"),
        (lambda r: r["turns"][0].update(seat="0"), "turns[0].seat: expected a seat 0..1, got '0'"),
        (lambda r: r["turns"][0].update(rolls=[]), "turns[0].rolls: expected a non-empty list"),
        (lambda r: r["turns"][0]["rolls"].__setitem__(0, [6] * 9), "turns[0].rolls[0]: expected"),
        (lambda r: r["turns"][0]["rolls"].__setitem__(0, [7, 1]), "1 to 8 faces 1-6, got [7, 1]"),
        (lambda r: r["turns"][0]["rolls"].__setitem__(0, []), "turns[0].rolls[0]: expected 1"),
        (lambda r: r["turns"][0]["rolls"].__setitem__(0, "66"), "turns[0].rolls[0]: expected"),
        (lambda r: r["turns"][0].update(keeps=["W"]), "turns[0].keeps: expected a list of faces"),
        (lambda r: r["turns"][0].update(keeps=[True]), "turns[0].keeps: expected a list of faces"),
        (lambda r: r["turns"][0].update(end={}), "turns[0].end: expected {claim: T}"),
        (lambda r: r["turns"][0].update(end=25), "turns[0].end: expected {claim: T}"),
        (lambda r: r["turns"][0].update(end={"take": 25}), "expected claim, steal or bust"),
        (lambda r: r["turns"][0].update(end={"claim": "25"}), "expected {claim: TILE}"),
        (lambda r: r["turns"][0].update(end={"claim": 25, "x": 1}), "expected {claim: TILE}"),
        (lambda r: r["turns"][0].update(end={"steal": 25}), "expected {steal: TILE, from: SEAT}"),
        (lambda r: r["turns"][0].update(end={"steal": 25, "from": 5}), "steal from 5: not a seat"),
        (lambda r: r["turns"][1].update(end={"bust": "unlucky"}), "bust must be one of"),
        (lambda r: r["turns"][1].update(end={"bust": "no-worm"}), "turns[1]: 2 rolls for 1 keeps"),
        (lambda r: r["turns"][0]["keeps"].append(1), "turns[0]: 1 rolls for 2 keeps"),
    ],
)
def test_malformed_records_are_one_clear_line(change, message):
    record = good()
    changed = change(record)
    if changed == []:
        record = changed
    with pytest.raises(RecordError) as info:
        check_record(record)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(RecordError):
        replay(record)


def test_extra_fields_are_allowed_and_kept():
    record = good()
    record["seed"] = 12
    record["result"] = {"anything": True}
    record["comment"] = "from a tournament"
    record["turns"][0]["note"] = "nice"
    record["rules"] = {"preset": "official"}
    original = copy.deepcopy(record)
    assert check_record(record) is record
    assert replay(record).state() == referee(original)
    assert record == original  # replay does not modify what it is given


def test_missing_rules_are_official_and_players_come_from_the_seats():
    record = good()
    del record["rules"]
    assert replay(record).flipped == [36]
    record["rules"] = None
    assert replay(record).flipped == [36]
    record["seats"] = ["a", "b", "c"]
    record["turns"] = record["turns"][:2]
    assert replay(record).players == 3


def test_a_record_may_end_before_the_game_is_over():
    result = replay(good())
    assert not result.over and result.winner is None and result.status == "unfinished"
    state = result.state()
    assert state["over"] is False and state["winner"] is None


def test_an_empty_game_is_a_record_too():
    record = Script(players=4).record()
    state = replay(record).state()
    assert state["grill"] == list(range(21, 37)) and state["stacks"] == [[]] * 4


# -- reading files --------------------------------------------------------------------------
def test_load_missing_file(tmp_path):
    with pytest.raises(RecordError, match=r"nope.json: no such file"):
        load_record(tmp_path / "nope.json")


def test_load_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "pickomino-record/1",\n "seats": [}\n')
    with pytest.raises(RecordError, match=r"bad.json: not valid JSON: .* \(line 2\)"):
        load_record(path)


def test_load_binary_junk(tmp_path):
    path = tmp_path / "junk.json"
    path.write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(RecordError, match=r"junk.json: cannot read"):
        load_record(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_load_unreadable_file(tmp_path):
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    with pytest.raises(RecordError, match="cannot read"):
        load_record(path)


def test_load_a_directory(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path)


def test_the_documented_example_record_replays():
    """The record shown in docs/records.md is a legal record (the docs do not lie)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "records.md").read_text()
    blocks = [b for b in re.findall(r"```json\n(.*?)```", doc, re.S) if RECORD_FORMAT in b]
    assert blocks, "docs/records.md shows no example record"
    for block in blocks:
        record = json.loads(block)
        assert replay(record).state() == referee(record)
