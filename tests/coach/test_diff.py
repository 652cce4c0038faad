"""harness diff: where two bots decide differently on the same deals, valued exactly (issue 21).

The valuation (OwnPlay: a bot's own play of the rest of a turn, every roll enumerated) is
checked against the turn solver where the bot is the solver's policy, and against the real
engine by simulation; the diff's sum over a turn against the exact difference of the two
bots' turn values (the performance difference identity), by simulation; and its sign
against the paired compare of results.
"""

from __future__ import annotations

import json
import math
import statistics

import pytest
from helpers import NEEDS_NATIVE, answers_alike

from harness.analysis.account import solved, swing_payoff
from harness.analysis.turn import START
from harness.coach.differ import DiffTally, diff, named
from harness.coach.shadow import OwnPlay, Shadowed
from harness.coach.valuing import Board
from harness.game.dice import SeededDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import TILES, Rules
from harness.strategies.optimal import Optimal
from harness.strategy import Strategy
from harness.view import View

pytestmark = pytest.mark.engine

BOTS = "tests/fixtures/coach_bots.py"


def _view(rules, grill=TILES, stacks=((), ()), seat=0, seed=1) -> View:
    from harness.game.board import mask_of

    view = View(seat, rules, seed)
    view.show_turn(1, mask_of(grill), 0, tuple(tuple(s) for s in stacks))
    return view


def turn_value(strategy: Strategy, rules: Rules, **board) -> float:
    """What ``strategy``'s whole play of a turn is worth from its start (OwnPlay)."""
    view = _view(rules, **board)
    strategy.new_game(view.seat, rules)
    return OwnPlay(strategy, view, Board.of(view)).roll_value(START, ())


# -- the valuation ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "board",
    [
        {},
        {"grill": (25, 26, 27, 28, 29, 30, 31), "stacks": ((23,), (24, 21))},
        {"grill": (21, 22, 33, 34), "stacks": ((36,), (24,)), "seat": 1},
    ],
)
def test_own_play_of_the_solvers_policy_is_the_solvers_value(board):
    rules = Rules.coerce("official", players=2)
    view = _view(rules, **board)
    tops = tuple(s[-1] if s else 0 for s in view.stacks)
    stop, bust = swing_payoff(view.grill, tops, view.seat, False)
    _, roll = solved(stop, bust)
    # optimal with no end game plays the turn solver's policy exactly
    got = turn_value(Optimal(endgame=0), rules, **board)
    assert math.isclose(got, roll[START], rel_tol=0, abs_tol=1e-12)


@pytest.mark.once
def test_own_play_agrees_with_the_engine_by_simulation():
    rules = Rules.coerce("official", players=2)
    exact = turn_value(resolve("threshold(target=27)").create(), rules)

    class Watch:
        swing = 0.0

    swings = []
    for seed in range(6000):
        bot = resolve("threshold(target=27)").create()
        game = Game([bot, resolve("greedy").create()], rules, SeededDice(seed), seed=seed)
        game.start()
        game.play_turn()
        result = game.result()
        swings.append(float(result.scores[0]))  # opening board: the swing is the worms won
    mean = statistics.fmean(swings)
    se = statistics.stdev(swings) / math.sqrt(len(swings))
    assert abs(mean - exact) < 4 * se, (mean, exact, se)


class SumGains(DiffTally):
    def __init__(self):
        super().__init__("A")
        self.begin(0, 0, 0)
        self.turn_gain = 0.0

    def parted(self, moment, parting):
        super().parted(moment, parting)
        self.turn_gain += parting.shadow_value - parting.primary_value


@pytest.mark.once
def test_a_turns_gains_sum_to_the_difference_of_the_two_bots_turn_values():
    """E[sum of B's gains over A's turn] = V_B(start) - V_A(start), by simulation."""
    rules = Rules.coerce("official", players=2)
    exact = turn_value(resolve("tactician").create(), rules) - turn_value(
        resolve("greedy").create(), rules
    )
    sums = []
    for seed in range(2500):
        tally = SumGains()
        seat = Shadowed(resolve("greedy").create(), resolve("tactician").create(), tally)
        game = Game([seat, resolve("greedy").create()], rules, SeededDice(seed), seed=seed)
        game.start()
        game.play_turn()
        assert seat.error is None and seat.failure is None
        sums.append(tally.turn_gain)
    mean = statistics.fmean(sums)
    se = statistics.stdev(sums) / math.sqrt(len(sums))
    assert se > 0 and abs(mean - exact) < 4 * se, (mean, exact, se)
    assert exact > 0.05  # tactician's turn is worth more than greedy's on the opening board


# -- the diff --------------------------------------------------------------------------------------
def test_threshold_26_and_27_part_only_at_a_total_of_26():
    d = diff("threshold(target=26)", "threshold(target=27)", opponents=["greedy"], deals=60)
    spots = d.spots()
    assert spots, "they part"
    assert all(key[0].kind == "stop" and key[0].total == 26 for key in spots)
    assert all((a, b) == ("stop", "roll on") for _, a, b in spots)
    v = d.verdict
    assert v["high"] < 0 and v["says"] == "A is better (95%)"  # 27 rolls on where 26 stops


@pytest.mark.once
def test_the_diffs_sign_is_the_paired_compares(tmp_path):
    from harness.report import cached_summary
    from harness.report.comparisons.compare import compare
    from harness.tourney import run_tournament

    def run(target):
        config = {
            "name": f"thr{target}",
            "entrants": ["greedy", "worm-first",
                         {"strategy": "threshold", "params": {"target": target}, "name": "thr"}],
            "deals": 300,
            "seed": 5,
            "workers": 0,
        }  # fmt: skip
        return cached_summary(run_tournament(config, out=tmp_path, progress=False).run_dir)

    found = compare([run(26), run(27)])
    row = next(s for s in found["strategies"] if s["strategy"] == "thr")
    share = row["diffs"][0]["win_share"]
    assert row["diffs"][0]["paired"] and share["high"] < 0  # 27 wins less than 26
    d = diff("threshold(target=26)", "threshold(target=27)", opponents=["greedy", "worm-first"],
             deals=40, seed=5)  # fmt: skip
    assert d.verdict["high"] < 0  # the same sign, from a tenth of the deals


@pytest.mark.parametrize("bot", ["greedy", "random", "tactician"])
def test_a_bot_against_itself_never_parts(bot):
    d = diff(bot, bot, opponents=["simple"], deals=10)
    assert d.verdict["partings"] == 0 and d.verdict["estimate"] == 0
    assert d.a == f"A: {bot}" and d.b == f"B: {bot}"
    assert d.sides["A"].column("pick_asked") and sum(d.sides["A"].column("pick_asked")) > 0


def test_either_side_is_the_others_mirror():
    """Swapping A and B swaps the sides and flips every gain."""
    ab = diff("greedy", "tactician", opponents=["simple"], deals=15)
    ba = diff("tactician", "greedy", opponents=["simple"], deals=15)
    assert math.isclose(ab.verdict["estimate"], -ba.verdict["estimate"], abs_tol=1e-12)
    assert ab.sides["A"].rows.keys() == ba.sides["B"].rows.keys()
    assert sum(ab.sides["A"].column("stop_parted")) == sum(ba.sides["B"].column("stop_parted"))


@NEEDS_NATIVE
@pytest.mark.once
def test_the_engines_and_the_worker_count_give_the_same_answer():
    runs = [
        diff("greedy", "tactician", opponents=["simple"], deals=30, engine=e, workers=w, examples=1)
        for e, w in (("python", 1), ("native", 2))
    ]
    plain = answers_alike(runs)
    assert plain[0] == plain[1]


def test_a_failing_shadow_is_counted_not_a_forfeit():
    d = diff("greedy", f"{BOTS}:StopsBadly", opponents=["simple"], deals=10, examples=0)
    assert sum(d.sides["A"].column("forfeits")) == 0  # greedy's games are greedy's
    assert sum(d.sides["A"].column("failed")) > 0
    assert "no stopping at 30" in d.sides["A"].failures[0]
    assert sum(d.sides["B"].column("forfeits")) > 0  # in its own games it forfeits


def test_examples_replay_with_their_gain():
    d = diff("greedy", "tactician", opponents=["simple"], deals=20, examples=1)
    assert len(d.examples) == 2
    gains = [e.gain for e in d.examples]
    assert gains[0] > 0 > gains[1]
    for e in d.examples:
        data = e.to_json()
        assert math.isclose(data["b_value"] - data["a_value"], e.gain, abs_tol=1e-12)
        from harness.game.record import replay

        replay(e.record)


def test_named_entrants():
    assert named("old=bots/v1.py:Bot") == ("old", "bots/v1.py:Bot")
    assert named("threshold(target=26)") == (None, "threshold(target=26)")
    assert named("t26=threshold(target=26)") == ("t26", "threshold(target=26)")
    assert named("bots/a=b.py:Bot") == (None, "bots/a=b.py:Bot")
    d = diff("t26=threshold(target=26)", "t27=threshold(target=27)", deals=3, examples=0)
    assert (d.a, d.b) == ("t26", "t27")


def test_the_command(cli, tmp_path):
    out = cli("diff", "threshold(target=26)", "threshold(target=27)", "--deals", "10",
              "-o", "greedy", "--out", str(tmp_path / "d"))  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "A is better" in out.output and "Where B loses" in out.output
    out = cli("diff", "greedy", "tactician", "--deals", "5", "--json", "--out", str(tmp_path / "j"))
    data = json.loads(out.output)
    assert data["games"] == {"A": 10, "B": 10} and "verdict" in data
    out = cli("diff", "greedy", "gredy", "--deals", "2", "--out", str(tmp_path / "x"))
    assert out.exit_code == 2 and "unknown strategy 'gredy'" in out.output
