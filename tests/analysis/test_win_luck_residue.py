"""benchmarks/win_luck_residue.py, the measurement behind docs/luck.md's "What win luck
leaves": its telescoping is exact (seats that play the account's best play leave no
decisions' part, to the last bits), other play leaves one, luck against the rollers' own
play leaves none for the solved programmes (optimal with any settings: its shadow plan is
its play), and the variances it reports add up."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("win_luck_residue")


def _decisions(out: dict) -> np.ndarray:
    return out["win"] - out["first"] - out["drift"] - out["luck"]


@pytest.mark.parametrize("field", [("win-optimal", "win-optimal"),
                                   ("win-optimal", "win-optimal", "win-optimal")])  # fmt: skip
def test_seats_that_play_the_accounts_best_play_leave_no_decisions(bench, field):
    """win-optimal plays the programme the win account solves: what is left of its result
    after the evaluator's start, its drift and its luck is nothing (the telescoping is
    exact, every seat, every game of the deal)."""
    out = bench.play_deal((field, 1, 3, False))
    assert out["over"].all()
    assert np.abs(_decisions(out)).max() < 1e-12
    assert np.abs(out["drift"]).max() > 1e-3  # the evaluator is not exact: drift is there
    assert float(out["check"]) < 1e-12


def test_other_play_leaves_its_decisions(bench):
    out = bench.play_deal((("greedy", "simple"), 1, 3, False))
    assert np.abs(_decisions(out)).max() > 0.05
    assert np.allclose(out["luck"].sum(axis=1), 0.0, atol=1e-12)  # the vector: sums to 0


def test_the_variances_add_up(bench):
    field = ("greedy", "worm-first")
    data = bench.play(field, 6, 1, 1)
    (row,) = bench.measure(field, data)
    parts = row["var_drift"] + row["var_decisions"] + 2 * row["cov_drift_decisions"]
    assert row["var_less_luck"] == pytest.approx(parts, rel=1e-9)
    assert row["deals"] == 6 and row["gain_less_luck"] > 1


@pytest.mark.parametrize("field", [("win-optimal", "optimal"),
                                   ("optimal", "optimal(endgame=0)")])  # fmt: skip
def test_luck_against_the_rollers_own_play_leaves_no_decisions(bench, field):
    """With each roll's luck taken against the roller's own turn policy, a seat that
    keeps to its policy leaves nothing: optimal's shadow plan (its values, stops and
    claims) is the play the game saw, decision for decision. Against the best play,
    optimal's decisions are left (it does not play for the win)."""
    own = bench.play_deal((field, 2, 5, True))
    assert np.abs(_decisions(own)).max() < 1e-12 and float(own["check"]) < 1e-12
    best = bench.play_deal((field, 2, 5, False))
    assert np.abs(_decisions(best)).max() > 1e-3
    assert (own["win"] == best["win"]).all()  # the same games, accounted two ways


def test_a_policy_that_is_not_a_solved_programme_is_refused(bench):
    with pytest.raises(ValueError, match="not a solved programme"):
        bench.play_deal((("optimal", "greedy"), 1, 3, True))


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--field", "greedy,nosuch"], "unknown strategy 'nosuch'"),
        (["--policy", "--field", "greedy,optimal"], "not a solved programme"),
        (["--players", "3", "--field", "greedy,simple"], "a --field of 3 strategies"),
    ],
)
def test_a_bad_field_is_one_line_before_any_game(bench, capsys, args, why):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--deals", "2", *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert why in err[-1] and "Traceback" not in "\n".join(err)


def test_nothing_left_is_no_gain_not_a_division_by_zero(bench):
    assert bench._ratio(0.5, 0.0) is None and bench._gain(None) == "-"
    assert bench._ratio(0.5, 0.25) == 2.0
