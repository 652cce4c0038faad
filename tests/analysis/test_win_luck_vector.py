"""benchmarks/win_luck_vector.py, the measurement behind docs/luck.md's "Win luck as a
vector": its policy evaluation reproduces the turn programme where it must, its roller's
component is the stored account's luck to the bit, a roll's luck sums to zero over the
seats, and at two players the vector is the stored luck and its negative."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import load_benchmark

from harness.analysis import turn
from harness.analysis.turn import N_STATES, Payoff, solve_arrays


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("win_luck_vector")


def test_the_rollers_own_values_are_the_programmes(bench):
    """Evaluating the roller's own policy with its own payoff gives the solver's values
    and roll values bit for bit (the same rows, the same sums in the same order)."""
    rng = np.random.default_rng(3)
    stop = tuple(None if s < 21 else float(v) for s, v in enumerate(rng.random(41)))
    payoff = Payoff(stop, 0.05)
    value, roll, stops = solve_arrays(payoff)
    mover = np.empty(N_STATES + 2)
    mover[:N_STATES] = value
    mover[turn._NONE], mover[turn._BUST] = -np.inf, 0.05
    vals, r = bench.policy_values(mover, stops, turn._stop_vector(payoff), 0.05)
    assert (vals[:N_STATES] == value).all()
    rolls = ~np.isnan(r)
    assert (r[rolls] == roll[rolls]).all() and rolls.sum() > 1000


def test_another_payoff_is_evaluated_under_the_rollers_play_not_its_own(bench):
    rng = np.random.default_rng(4)
    mine = Payoff(tuple(None if s < 21 else float(v) for s, v in enumerate(rng.random(41))), 0.1)
    theirs = Payoff(tuple(None if v is None else 1.0 - v for v in mine.stop), 0.9)
    value, _, stops = solve_arrays(mine)
    mover = np.empty(N_STATES + 2)
    mover[:N_STATES] = value
    mover[turn._NONE], mover[turn._BUST] = -np.inf, 0.1
    vals, _ = bench.policy_values(mover, stops, turn._stop_vector(theirs), 0.9)
    # two seats whose endings sum to one: the other's value is one minus the roller's
    assert np.allclose(vals[:N_STATES] + value, 1.0, atol=1e-12)
    own_best, _, _ = solve_arrays(theirs)
    assert (own_best >= vals[:N_STATES] - 1e-12).all() and (own_best > vals[:N_STATES] + 0.01).any()


@pytest.mark.parametrize("field", [("greedy", "worm-first", "tactician"),
                                   ("tactician", "simple", "greedy", "worm-first")])  # fmt: skip
def test_a_deal_keeps_its_checks(bench, field):
    out = bench.play_deal((field, 2, 5))
    players = len(field)
    assert out["vector"].shape == (players, players) and out["rank"].shape == (players, players)
    worst_own, worst_sum = out["checks"]
    assert worst_own < 1e-12 and worst_sum < 1e-12  # ties within turn.EPS: the last bits
    assert np.allclose(out["vector"].sum(axis=1), 0.0, atol=1e-12)
    assert not np.allclose(out["vector"], out["winluck"])  # not the roller's luck alone


def test_at_two_players_the_vector_is_the_luck_and_its_negative(bench):
    out = bench.play_deal((("greedy", "simple"), 1, 7))
    own = out["winluck"]
    assert np.allclose(out["vector"][:, 0], own[:, 0] - own[:, 1], atol=1e-12)
    assert np.allclose(out["vector"][:, 1], own[:, 1] - own[:, 0], atol=1e-12)


def test_the_targets_are_measured_with_both_controls(bench):
    pool, checks = bench.play(3, 4, 1, 1)
    assert pool.games == 12 and checks.max() <= bench.TOLERANCE
    rows = bench.measure(pool)
    assert [r["kind"] for r in rows] == ["win"] * 3 + ["h2h"] * 3
    assert all(np.isfinite(r["today"]["raw"]) and "gain" in r["vector"] for r in rows)
