"""The exact turn DP (harness.analysis.turn): published figures, hand-computed cases,
float against exact arithmetic, and the policy's outcome distribution (R4-R8)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from harness.analysis.board import TurnBoard
from harness.analysis.turn import (
    CHILD,
    LAYERS,
    LOOKUP,
    N_STATES,
    START,
    STATES,
    Payoff,
    solve,
    solve_exact,
    state_index,
)
from harness.rules import FACE_POINTS, WORM

FULL = TurnBoard()


@pytest.fixture(scope="module")
def exact_21(exact_turn) -> tuple:
    return exact_turn("at_least", 21), exact_turn("exactly", 21)


# -- the published reference figures (issue 5) -------------------------------------------
def test_published_p_at_least_21_float_and_exact(exact_21):
    at_least, _ = exact_21
    assert f"{float(at_least.start):.15f}" == "0.893026737150746"
    assert isinstance(at_least.start, Fraction)
    assert abs(solve(FULL.at_least(21)).start - float(at_least.start)) < 1e-15


def test_published_p_exactly_21(exact_21):
    _, exactly = exact_21
    assert f"{float(exactly.start):.15f}" == "0.439596789623015"
    assert abs(solve(FULL.exactly(21)).start - float(exactly.start)) < 1e-15


def test_published_mean_worms_gained_full_grill_nothing_held():
    exact = solve_exact(FULL.worms_gained())
    assert f"{float(exact.start):.10f}" == "1.6447296740"
    assert abs(solve(FULL.worms_gained()).start - float(exact.start)) < 1e-14


def test_p_exactly_21_is_its_own_policy_not_the_at_least_policy():
    """P(= t) is the best chance of ending at exactly t; the policy that maximises
    P(>= 21) ends at exactly 21 less often (it also stops at 22, 23, ...)."""
    at_least = solve(FULL.at_least(21))
    ended, _ = at_least.outcomes()
    assert ended[21] < solve(FULL.exactly(21)).start - 0.01


# -- hand-computed small cases -------------------------------------------------------
def test_seven_fives_no_worm_one_die_left_needs_the_worm():
    """7 fives (35 points, no worm), 1 die: only a worm claims (R7): P(>= 21) = 1/6."""
    state = state_index([5], 1, 35)
    assert solve_exact(FULL.at_least(21)).value[state] == Fraction(1, 6)
    assert solve(FULL.at_least(21)).value[state] == pytest.approx(1 / 6, abs=1e-15)


def test_seven_worms_one_die_left():
    """7 worms (35): stopping now claims 35; rolling the last die claims 36 unless it
    shows a worm again (R5: bust). P(>= 36) = 5/6, P(= 40) = 1/6 of a 5 = 1/6."""
    state = state_index([WORM], 1, 35)
    assert solve_exact(FULL.at_least(36)).value[state] == Fraction(5, 6)
    assert solve_exact(FULL.exactly(40)).value[state] == Fraction(1, 6)
    assert solve_exact(FULL.at_least(35)).value[state] == 1  # stop now (R6)


def test_two_dice_left_with_every_face_but_the_worm_kept():
    """Faces 1-5 kept (1, 2, 3, 4, 5, 5: 20 points), 2 dice: the roll must show a worm
    (1 - (5/6)^2 = 11/36), and any worm reaches 25; 30 needs both dice worms (1/36),
    since a last die can only show a kept face (R5: bust)."""
    state = state_index([1, 2, 3, 4, 5], 2, 20)
    sol = solve_exact(FULL.at_least(21))
    assert sol.value[state] == 1 - Fraction(5, 6) ** 2
    # reaching 30 needs both dice to be worms: 1/36
    assert solve_exact(FULL.at_least(30)).value[state] == Fraction(1, 36)


def test_all_dice_kept_without_a_claim_busts():
    """R8: 8 dice kept, no worm: the value is the bust value whatever the target."""
    state = state_index([1, 5], 0, 4 * 1 + 4 * 5)  # four ones, four fives
    payoff = Payoff.from_function(lambda s: 3 if s >= 21 else None, bust=-2)
    assert solve_exact(payoff).value[state] == -2
    assert solve_exact(payoff).stops[state] is False


def test_state_graph_size_and_lookup():
    assert N_STATES == 1939
    assert sum(1 for _, n, _ in STATES if n) == 1293
    assert LOOKUP[(), 8, 0] == START
    with pytest.raises(ValueError, match="no such turn state"):
        state_index([1], 8, 0)


def test_children_follow_the_rules():
    """Keeping c dice of face f: that face is added, c dice fewer, c x points more (R5)."""
    for i, (mask, n, s) in enumerate(STATES):
        for f in range(1, 7):
            for c in range(1, n + 1):
                child = CHILD[i << 6 | f << 3 | c - 1]
                if mask >> f & 1:
                    assert child == -1
                else:
                    assert STATES[child] == (mask | 1 << f, n - c, s + FACE_POINTS[f] * c)


def test_roll_probabilities_sum_to_one_exactly():
    for layer in LAYERS[1:]:
        for span in layer.spans:
            assert sum(layer.weight[r] for r in span) == 6**layer.n


# -- float against exact ---------------------------------------------------------------
BOARDS = [
    TurnBoard(),
    TurnBoard(grill=tuple(range(25, 37)), tops=(23,), held=24),
    TurnBoard(grill=(22, 27, 31, 36), tops=(21, 29, 33), held=35),
]


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.describe())
def test_float_solver_agrees_with_exact_to_1e_12(board):
    for payoff in (board.worms_gained(), board.at_least(27), board.exactly(23)):
        exact = solve_exact(payoff)
        fast = solve(payoff)
        worst = max(abs(float(e) - f) for e, f in zip(exact.value, fast.value, strict=True))
        assert worst < 1e-12
        assert fast.stops == exact.stops  # the same policy, tie-breaks included


@pytest.mark.parametrize("exact", [False, True])
def test_outcomes_are_a_distribution_worth_the_value(exact):
    board = BOARDS[1]
    sol = (solve_exact if exact else solve)(board.worms_gained())
    ended, bust = sol.outcomes()
    total = sum(ended.values()) + bust
    worth = sol.worth(ended, bust)
    if exact:
        assert total == 1
        assert worth == sol.start
    else:
        assert total == pytest.approx(1, abs=1e-14)
        assert worth == pytest.approx(sol.start, abs=1e-13)
    # the policy stops only where the board offers a claim (R7)
    assert all(board.stoppable(s) for s in ended)


def test_max_success_values_fall_with_the_target():
    values = [solve(FULL.at_least(t)).start for t in range(21, 37)]
    assert values == sorted(values, reverse=True)
    assert values[-1] > 0


def test_payoff_needs_a_value_for_every_total():
    with pytest.raises(ValueError, match="each total"):
        Payoff((None,) * 10)


def test_pick_prefers_the_higher_face_on_ties():
    """All faces worth the same (a payoff that ignores the total): the worm is kept."""
    sol = solve(Payoff.from_function(lambda s: 1, bust=1))
    counts = (0, 1, 1, 1, 1, 1, 3)
    assert sol.pick(START, counts, (1, 2, 3, 4, 5, 6)) == WORM
