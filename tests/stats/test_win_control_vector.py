"""The win share's control with the vector (harness.stats.win_control, schema 6).

What must hold: per game, the best control every seat stored wins (winvec, then winluck,
then wluck), and one seat without it sends the whole game down a step; the vector comes
scaled by (P - 1) / P so that ``versus_others`` of the control is the vector itself (every
reader takes the control against the other seats); at 2 players the control, taken
against the other seat (versus_others, head to head), is winluck's; calls with two
arguments are what they were; and the name a report gives says which controls a run used.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness import stats

pytestmark = pytest.mark.interpreter

NAN = np.nan


def _vectors(games: int, players: int, seed: int = 1) -> np.ndarray:
    """Random vectors whose seats sum to 0 per game, as a stored game's do."""
    x = np.random.default_rng(seed).normal(size=(games, players))
    return x - x.mean(axis=1, keepdims=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_versus_others_of_the_control_is_the_vector(players):
    vec = _vectors(200, players)
    rng = np.random.default_rng(2)
    wluck, winluck = rng.normal(size=vec.shape), rng.normal(size=vec.shape)
    control = stats.win_control(wluck, winluck, vec)
    assert np.allclose(control, vec * (players - 1) / players, rtol=0, atol=1e-15)
    assert np.allclose(stats.versus_others(control), vec, rtol=0, atol=1e-14)


def test_at_two_players_the_control_against_the_other_seat_is_winluck_s():
    rng = np.random.default_rng(3)
    winluck = rng.normal(size=(100, 2))
    vec = np.stack([winluck[:, 0] - winluck[:, 1], winluck[:, 1] - winluck[:, 0]], axis=1)
    wluck = rng.normal(size=(100, 2))
    with_vector = stats.win_control(wluck, winluck, vec)
    without = stats.win_control(wluck, winluck)
    # the share's control and head to head (W_a - W_b): the same figures to rounding
    assert np.allclose(stats.versus_others(with_vector), stats.versus_others(without), atol=1e-14)
    assert np.allclose(
        with_vector[:, 0] - with_vector[:, 1], without[:, 0] - without[:, 1], atol=1e-14
    )


def test_each_game_takes_the_best_control_every_seat_stored():
    wluck = np.array([[0.1, 0.2, -0.3]] * 5)
    winluck = np.array(
        [
            [0.3, -0.1, 0.0],  # all three stored
            [0.3, -0.1, 0.0],  # the vector misses a seat: win luck
            [0.3, NAN, 0.0],  # both miss a seat: wluck
            [NAN, NAN, NAN],  # neither (a run without ``luck: win``): wluck
            [NAN, NAN, NAN],  # a vector without win luck is still the vector
        ]
    )
    vec = np.array(
        [
            [0.6, -0.3, -0.3],
            [0.6, NAN, -0.3],
            [0.6, -0.3, NAN],
            [NAN, NAN, NAN],
            [0.3, -0.6, 0.3],
        ]
    )
    control = stats.win_control(wluck, winluck, vec)
    assert np.allclose(control[0], vec[0] * 2 / 3)
    assert control[1].tolist() == winluck[1].tolist()
    assert control[2].tolist() == wluck[2].tolist()
    assert control[3].tolist() == wluck[3].tolist()
    assert np.allclose(control[4], vec[4] * 2 / 3)
    assert stats.win_control_name(winluck, vec) == "winvec+winluck+wluck"


def test_a_game_without_any_control_is_nan():
    nothing = np.full((1, 3), NAN)
    assert np.isnan(stats.win_control(nothing, nothing, nothing)).all()


def test_two_arguments_are_what_they_were():
    wluck = np.array([[0.1, -0.1], [0.2, -0.2]])
    winluck = np.array([[0.3, -0.3], [NAN, 0.5]])
    assert stats.win_control(wluck, winluck).tolist() == [[0.3, -0.3], [0.2, -0.2]]
    assert stats.win_control(wluck, winluck, None).tolist() == [[0.3, -0.3], [0.2, -0.2]]
    assert stats.win_control(wluck).tolist() == wluck.tolist()
    assert stats.win_control_name(winluck) == "winluck+wluck"


@pytest.mark.parametrize(
    ("winluck", "winvec", "name"),
    [
        (None, None, "wluck"),
        ([[0.1, -0.1]], None, "winluck"),
        ([[0.1, -0.1]], [[0.2, -0.2]], "winvec"),
        (None, [[0.2, -0.2]], "winvec"),
        ([[0.1, -0.1], [0.1, -0.1]], [[0.2, -0.2], [NAN, NAN]], "winvec+winluck"),
        ([[0.1, -0.1], [NAN, NAN]], [[0.2, -0.2], [NAN, NAN]], "winvec+wluck"),
        ([[NAN, NAN]], [[NAN, NAN]], "wluck"),
        (np.zeros((0, 2)), np.zeros((0, 2)), "wluck"),  # no games: nothing stored
    ],
)
def test_the_name_says_which_controls_the_games_used(winluck, winvec, name):
    def arr(x):
        return None if x is None else np.asarray(x, dtype=float)

    assert stats.win_control_name(arr(winluck), arr(winvec)) == name


def test_the_adjusted_share_with_the_vector_keeps_its_expectation_and_loses_variance():
    """The vector is a control like the others: the cross-fitted estimate stays unbiased
    (its correction's z is small) and a control that explains the outcome takes its
    noise out."""
    rng = np.random.default_rng(7)
    games, players = 4000, 3
    vec = _vectors(games, players, seed=8) * 0.3
    noise = rng.normal(size=(games, players)) * 0.05
    y = 1 / players + vec + noise - noise.mean(axis=1, keepdims=True)
    deal = np.arange(games)
    strat = np.tile(np.arange(players), (games, 1))
    nothing = np.full((games, players), NAN)
    c = stats.versus_others(stats.win_control(nothing, nothing, vec))
    rows = stats.seat_rows(deal, strat, y, c, players)
    moments = stats.ControlMoments(rows[0])
    assert moments.gain() > 10
    correction = moments.correction()
    assert abs(correction.estimate / correction.se) < 4
