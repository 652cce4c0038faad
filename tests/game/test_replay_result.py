"""Records say what they mean (issue 24, item 8).

``harness replay`` accepted a record whose ``result`` contradicted its moves (a flipped
winner, wrong scores, a wrong ``over`` or status, a result that is not an object: 15 of
15). Replay now holds the stored result to the moves it re-applied: a mismatch is one
line, exit 2; a record without a result stays fine.
"""

from __future__ import annotations

import copy
import json

import pytest

from harness import play_game
from harness.errors import RecordError
from harness.game.record import replay
from harness.strategy import Strategy


class FailsLate(Strategy):
    """Plays like the highest face, then raises at its fifth turn."""

    name = "fails-late"

    def pick(self, view):
        if view.turn >= 9:
            raise RuntimeError("late failure")
        return max(view.choices)

    def stop(self, view):
        return True


def records() -> dict[str, dict]:
    over = play_game(["greedy", "tactician", "random"], seed=4, record=True).record
    forfeit = play_game([FailsLate(), "greedy"], seed=2, record=True, forfeit=True).record
    capped = play_game(["greedy", "greedy"], seed=3, record=True, max_turns=6).record
    assert over["result"]["status"] == "over" and over["result"]["winner"] is not None
    assert forfeit["result"]["status"] == "forfeit" and capped["result"]["status"] == "turn-cap"
    return {"over": over, "forfeit": forfeit, "capped": capped}


@pytest.mark.parametrize("kind", ["over", "forfeit", "capped"])
def test_a_true_result_and_no_result_replay(kind):
    record = records()[kind]
    replay(record)
    bare = {k: v for k, v in record.items() if k != "result"}
    replay(bare)


def tamper(record: dict, change) -> dict:
    changed = copy.deepcopy(record)
    change(changed["result"])
    return changed


LIES = {
    "winner-flipped": lambda r: r.update(winner=(r["winner"] + 1) % 3),
    "winner-none": lambda r: r.update(winner=None),
    "winner-as-bool": lambda r: r.update(
        winner=bool(r["winner"]) if r["winner"] in (0, 1) else 1.0
    ),
    "scores-wrong": lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1),
    "scores-short": lambda r: r["scores"].pop(),
    "scores-float": lambda r: r["scores"].__setitem__(0, float(r["scores"][0])),
    "over-false": lambda r: r.update(over=False),
    "over-as-int": lambda r: r.update(over=1),
    "status-forfeit": lambda r: r.update(status="forfeit"),
    "status-capped": lambda r: r.update(status="turn-cap"),
    "status-unknown": lambda r: r.update(status="won"),
    "error-added": lambda r: r.update(error="turn 3, seat 0 (greedy) raised RuntimeError"),
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_result_that_contradicts_the_moves_is_refused(lie):
    record = tamper(records()["over"], LIES[lie])
    with pytest.raises(RecordError) as info:
        replay(record)
    assert str(info.value).startswith("result") and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        ("forfeit", lambda r: r.update(winner=0)),  # the forfeiter cannot win
        ("forfeit", lambda r: r.update(status="over")),
        ("forfeit", lambda r: r.update(error="turn 3, seat 1 (greedy) raised Oops")),
        ("forfeit", lambda r: r.update(error="it went wrong")),  # no seat named
        ("forfeit", lambda r: r.update(over=True)),
        ("capped", lambda r: r.update(status="over")),
        ("capped", lambda r: r.update(winner=0)),
    ],
)
def test_forfeits_and_capped_games_are_held_to_their_moves_too(kind, change):
    with pytest.raises(RecordError, match="^result"):
        replay(tamper(records()[kind], change))


@pytest.mark.parametrize("value", [[1, 2], "over", 7, None, True])
def test_a_result_that_is_not_an_object_is_refused(value):
    record = copy.deepcopy(records()["over"])
    record["result"] = value
    with pytest.raises(RecordError, match="^result: expected an object"):
        replay(record)


def test_harness_replay_refuses_a_lying_record_in_one_line(cli, tmp_path):
    record = tamper(records()["over"], LIES["winner-flipped"])
    path = tmp_path / "lie.json"
    path.write_text(json.dumps(record))
    result = cli("replay", str(path))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: result.winner: ")
