"""benchmarks/win_luck_vector.py, the measurement behind docs/luck.md's "Win luck as a
vector": its roller's component is the stored account's luck, a roll's luck sums to zero
over the seats, at three and four players it is the stored vector (``winvec``) bit for
bit, and at two players the vector is the stored luck and its negative. (Its
policy evaluation, harness.analysis.turn.policy_arrays: tests/analysis/test_turn_policy.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("win_luck_vector")


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
    # the product's vector (WinAccountant.vector, stored as winvec): the same bits
    assert out["stored"].tobytes() == out["vector"].tobytes()


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
