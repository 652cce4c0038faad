"""harness.tune.spsa: the method's pure parts (signs from seed and k alone, points in the
cube with integer axes on their steps, the perturbation widened on plateaus, the step in
units of the differences' root mean square, over the gap played, the averaged
iterates)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.tune.spsa import (
    GROWTH,
    MAX_PERTURBATION,
    SHRINK,
    Gains,
    averaged,
    points,
    scale,
    signs,
    snap,
    update,
    widening,
)


def test_signs_depend_on_the_seed_and_the_iteration_alone():
    assert (signs(1, 5, 6) == signs(1, 5, 6)).all()
    assert set(np.unique(signs(1, 5, 64))) == {-1.0, 1.0}
    seen = {tuple(signs(seed, k, 6)) for seed in (1, 2) for k in range(20)}
    assert len(seen) > 30  # they vary with both


def test_gains_decay_as_spall_says():
    g = Gains(a=2.0, c=0.1, stability=5.0)
    assert g.step(0) == pytest.approx(2.0 / 6**0.602)
    assert g.perturbation(9) == pytest.approx(0.1 / 10**0.101)
    assert g.step(100) < g.step(10) and g.perturbation(100) < g.perturbation(10)


def test_an_integer_axis_moves_at_least_one_step_and_lands_on_one():
    steps = np.array([1 / 19, 0.0])  # an integer axis (21..40) and a real one
    plus, minus = points(np.array([6 / 19, 0.5]), np.array([1.0, -1.0]), 0.01, steps)
    assert plus[0] == pytest.approx(7 / 19) and minus[0] == pytest.approx(5 / 19)
    assert plus[1] == pytest.approx(0.49) and minus[1] == pytest.approx(0.51)
    # at the bound the point is clipped into the cube
    plus, minus = points(np.array([0.0, 1.0]), np.array([-1.0, 1.0]), 0.1, steps)
    assert plus[0] == 0.0 and minus[0] == pytest.approx(2 / 19) and plus[1] == 1.0
    assert snap(np.array([0.52, 0.52]), steps)[0] == pytest.approx(10 / 19)


def test_the_step_is_over_the_gap_played_and_none_without_one():
    u = np.array([0.5, 0.5])
    plus, minus = np.array([0.6, 0.5]), np.array([0.4, 0.5])
    moved = update(u, plus, minus, diff=0.02, a=1.0)
    assert moved[0] == pytest.approx(0.6) and moved[1] == 0.5
    assert update(u, plus, minus, diff=-10.0, a=1.0)[0] == 0.0  # clipped to the cube


def test_the_answer_is_the_mean_of_the_second_half():
    path = [np.array([float(i)]) for i in range(20)]
    mean, spread = averaged(path)
    assert mean[0] == pytest.approx(np.mean(range(10, 20)))
    assert spread[0] > 0
    assert math.isnan(averaged(path[:4])[1][0])  # too few iterates for batch means
    with pytest.raises(ValueError):
        averaged([])


def test_the_perturbation_widens_on_identical_games_and_narrows_after():
    assert widening([]) == 1.0
    assert widening([True, True]) == GROWTH**2
    assert widening([True, True, False]) == pytest.approx(GROWTH**2 / SHRINK)
    assert widening([False, False]) == 1.0  # never below the schedule
    assert widening([True] + [False] * 50) == 1.0
    g = Gains(c=0.1)
    assert g.perturbation(3, 4.0) == pytest.approx(4 * g.perturbation(3))
    assert g.perturbation(0, 64.0) == MAX_PERTURBATION  # at most half of each range


def test_a_difference_is_measured_in_its_root_mean_square_so_far():
    assert scale([], 0.03) == pytest.approx(0.03)  # the first step: its sign, one gain
    assert scale([0.03, -0.04], 0.0) == pytest.approx(math.sqrt(0.0025 / 3))
    assert scale([], 0.0) == 1.0 and scale([0.0], 0.0) == 1.0  # nothing learnt yet
    # a step is never more than sqrt(k + 1) gains, however small the differences before
    before = [1e-6] * 8
    assert 0.5 / scale(before, 0.5) <= 3.0
