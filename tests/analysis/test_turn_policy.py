"""harness.analysis.turn.policy_arrays and best_keep: another payoff's worth under a
turn's best play (the vector win account's evaluation, docs/luck.md). Checked against the
solver itself (a payoff under its own play, bit for bit), against the exact distribution
of how the play ends (Solution.outcomes in rational arithmetic, an independent forward
pass), and against Solution.pick's choices."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from harness.analysis.turn import (
    CHILD,
    START,
    STATES,
    Payoff,
    best_keep,
    policy_arrays,
    solve,
    solve_arrays,
    solve_exact,
)


def _payoff(seed: int, bust: float) -> Payoff:
    rng = np.random.default_rng(seed)
    return Payoff(tuple(None if s < 21 else float(v) for s, v in enumerate(rng.random(41))), bust)


def _theirs(mine: Payoff, seed: int) -> Payoff:
    """Another seat's worth of the same endings: a stop exactly where mine has one."""
    rng = np.random.default_rng(seed)
    return Payoff(tuple(None if v is None else float(rng.random()) for v in mine.stop), 0.7)


@pytest.mark.parametrize("seed", [3, 11])
def test_a_payoff_under_its_own_play_is_the_solvers_values_bit_for_bit(seed):
    payoff = _payoff(seed, 0.05)
    value, roll, stops = solve_arrays(payoff)
    got, got_roll = policy_arrays((value, stops), payoff)
    assert (got == value).all()
    rolls = ~np.isnan(got_roll)
    assert rolls.sum() == 1293 and (got_roll[rolls] == roll[rolls]).all()  # every roll state


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_another_payoff_is_worth_what_the_plays_exact_endings_say(seed):
    """V_theirs(START) = sum over the play's endings of their probability times theirs'
    worth, the distribution computed exactly (Fractions) by another algorithm."""
    mine = _payoff(seed, 0.1)
    theirs = _theirs(mine, seed + 100)
    value, _, stops = solve_arrays(mine)
    got, roll = policy_arrays((value, stops), theirs)
    exact = solve_exact(Payoff(tuple(None if v is None else Fraction(v) for v in mine.stop),
                               Fraction(mine.bust)))  # fmt: skip
    ended, bust = exact.outcomes()
    expected = sum(p * Fraction(theirs.stop[s]) for s, p in ended.items())
    expected += bust * Fraction(theirs.bust)
    assert abs(roll[START] - float(expected)) < 1e-12
    # and not theirs' own best play: that is worth more somewhere
    own = solve_arrays(theirs)[0]
    assert (own >= got - 1e-12).all() and (own > got + 0.01).any()


def test_two_seats_whose_endings_sum_to_one_have_values_that_do():
    mine = _payoff(8, 0.2)
    theirs = Payoff(tuple(None if v is None else 1.0 - v for v in mine.stop), 0.8)
    value, _, stops = solve_arrays(mine)
    got, _ = policy_arrays((value, stops), theirs)
    assert np.allclose(got + value, 1.0, atol=1e-12)


def test_best_keep_is_solution_pick():
    """Every roll state with two free faces or more: the child best_keep gives is the one
    Solution.pick keeps, ties to the higher face included (a payoff of whole numbers has
    many)."""
    payoff = Payoff(tuple(None if s < 21 else float(s // 4) for s in range(41)), -1.0)
    solution = solve(payoff)
    checked = 0
    for i, (mask, left, _) in enumerate(STATES):
        free = [f for f in range(1, 7) if not mask >> f & 1]
        if left < 2 or len(free) < 2:
            continue
        counts = [0] * 7
        counts[free[0]], counts[free[-1]] = 1, left - 1  # the lowest and highest free faces
        new = 1 << free[0] | 1 << free[-1]
        face = solution.pick(i, counts, (free[0], free[-1]))
        assert (
            best_keep(solution.value, i, counts, new)
            == CHILD[i << 6 | face << 3 | counts[face] - 1]
        )
        checked += 1
    assert checked > 300


def test_a_payoff_without_the_plays_stops_is_refused():
    """The worth must offer a stop exactly where the play does (R7): one that offers none
    where the play stops, or one where the play busts with every die kept (R8), would be
    read as a number it is not, so it is refused in one line."""
    mine = _payoff(9, 0.0)
    value, _, stops = solve_arrays(mine)
    with pytest.raises(ValueError, match="exactly where the play's does"):
        policy_arrays((value, stops), Payoff((None,) * 41, 0.5))
    low = Payoff(tuple(0.5 if s == 12 else v for s, v in enumerate(mine.stop)), 0.5)
    with pytest.raises(ValueError, match="R7"):  # a worm and seven ones: 12, the play busts
        policy_arrays((value, stops), low)
