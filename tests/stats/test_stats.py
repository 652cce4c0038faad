"""Statistics of harness.stats against hand computations and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from harness import stats
from harness.stats import ratings

pytestmark = pytest.mark.interpreter


# -- intervals ---------------------------------------------------------------------------
def test_wilson_matches_the_textbook_values():
    # 8 of 10: the Wilson 95% interval is (0.4902, 0.9433) (Newcombe 1998, method 3).
    assert stats.wilson(8, 10) == pytest.approx((0.49016, 0.94332), abs=1e-5)
    # 0 of n: the upper end is z^2 / (n + z^2).
    z2 = 1.959964**2
    assert stats.wilson(0, 10) == pytest.approx((0.0, z2 / (10 + z2)), abs=1e-6)
    assert stats.wilson(10, 10)[1] == 1.0


def test_wilson_of_no_games_is_undefined():
    lo, hi = stats.wilson(0, 0)
    assert math.isnan(lo) and math.isnan(hi)


def test_moments_of_single_games_give_the_t_interval_of_the_mean():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 20, size=57).astype(float)
    m = stats.Moments.of(y)
    assert m.estimate == pytest.approx(y.mean())
    assert m.se == pytest.approx(sps.sem(y))
    expected = sps.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=sps.sem(y))
    assert m.interval() == pytest.approx(expected)


def test_cluster_moments_by_hand():
    # three deals with totals y and games m: ratio r = 9/6 = 1.5
    y, m = [4.0, 2.0, 3.0], [2.0, 2.0, 2.0]
    mo = stats.Moments.of(y, m)
    assert mo.estimate == 1.5
    # residuals y - r m = 1, -1, 0 -> sum of squares 2; se = sqrt(2 * 3/2) / 6
    assert mo.se == pytest.approx(math.sqrt(2 * 3 / 2) / 6)


def test_moments_add_up_across_parts():
    y = [1.0, 0.5, 2.0, 0.0, 1.5]
    m = [2.0, 1.0, 2.0, 2.0, 2.0]
    whole = stats.Moments.of(y, m)
    parts = stats.Moments.of(y[:2], m[:2]) + stats.Moments.of(y[2:], m[2:])
    assert parts.__dict__ == pytest.approx(whole.__dict__)


def test_fewer_than_two_deals_have_no_interval():
    m = stats.Moments.of([1.0], [2.0])
    assert math.isnan(m.se)
    assert all(math.isnan(v) for v in stats.share_interval(m, by_deal=True))


def test_share_interval_by_deal_is_wilson_on_the_effective_sample():
    y = [2.0, 1.0, 1.5, 1.0, 2.0, 0.5, 1.0, 1.5, 2.0, 1.0]  # deals of 2 games
    m = stats.Moments.of(y, [2.0] * len(y))
    p, se = m.estimate, m.se
    t = sps.t.ppf(0.975, len(y) - 1)
    n_eff = p * (1 - p) / se**2 * (stats.Z95 / t) ** 2
    assert stats.share_interval(m, by_deal=True) == pytest.approx(stats.wilson(p * n_eff, n_eff))


def test_share_by_deal_at_one_keeps_a_width():
    m = stats.Moments.of([2.0] * 20, [2.0] * 20)
    lo, hi = stats.share_interval(m, by_deal=True)
    assert hi == 1.0 and 0.5 < lo < 1.0
    assert stats.share_se(m, by_deal=True) > 0


def test_likelihood_of_superiority():
    assert stats.los(0.5, 0.1) == 0.5
    assert stats.los(0.6, 0.05) == pytest.approx(sps.norm.cdf(2.0))
    assert stats.los(0.4, 0.05) == pytest.approx(1 - sps.norm.cdf(2.0))
    assert math.isnan(stats.los(float("nan"), 0.1))


def test_holm_adjustment_by_hand():
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005, float("nan")])
    assert adjusted[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(adjusted[4])


def test_difference_test():
    d, se, p = stats.diff_test(0.5, 0.03, 0.6, 0.04)
    assert d == pytest.approx(0.1) and se == pytest.approx(0.05)
    assert p == pytest.approx(2 * sps.norm.sf(2.0))


def test_games_to_separate():
    # gap 0.1, se 0.05 each at 1000 games: need (1.96 * 0.1 / 0.1)^2 = 3.84 x the games
    assert stats.games_to_separate(0.1, 0.05, 0.05, 1000) == pytest.approx(1000 * stats.Z95**2)
    assert stats.games_to_separate(0.0, 0.05, 0.05, 1000) == math.inf


# -- Elo ---------------------------------------------------------------------------------
def test_elo_and_score_round_trip():
    assert stats.elo_to_score(0) == 0.5
    assert stats.elo_to_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -10.0, 0.0, 55.0, 800.0):
        assert stats.score_to_elo(stats.elo_to_score(elo)) == pytest.approx(elo)
    assert stats.score_to_elo(1.0) == math.inf and stats.score_to_elo(0.0) == -math.inf


# -- Plackett-Luce / Bradley-Terry -------------------------------------------------------
def test_choice_events_of_orders_and_ties():
    assert stats.choice_events([5, 7, 9], [2, 1, 3]) == [
        (5, (5, 9), 1.0),
        (7, (5, 7, 9), 1.0),
    ]
    # two players share last place: only the winner's choice says something
    assert stats.choice_events([0, 1, 2], [1, 2, 2]) == [(0, (0, 1, 2), 1.0)]
    # two share first (the third forfeited): each chosen from all with weight 1/2
    assert stats.choice_events([0, 1, 2], [1, 1, 3]) == [
        (0, (0, 1, 2), 0.5),
        (1, (0, 1, 2), 0.5),
    ]
    # a 2-player draw says nothing
    assert stats.choice_events([0, 1], [1, 1]) == []


def _bt_data(wins: float, losses: float) -> stats.ChoiceData:
    data = stats.ChoiceData(2)
    data.add(0, (0, 1), wins)
    data.add(1, (0, 1), losses)
    return data


def test_bradley_terry_closed_form():
    fit = stats.fit_plackett_luce(_bt_data(30, 10), prior_draws=0)
    assert fit.model == "Bradley-Terry"
    assert fit.theta[0] - fit.theta[1] == pytest.approx(math.log(3))
    assert fit.theta.sum() == pytest.approx(0, abs=1e-12)
    # model variance of the difference: 1 / (N p (1 - p))
    var = fit.cov[0, 0] + fit.cov[1, 1] - 2 * fit.cov[0, 1]
    assert var == pytest.approx(1 / (40 * 0.75 * 0.25))
    # Elo of a 75% score: 400 log10(3)
    assert fit.elo[0] - fit.elo[1] == pytest.approx(400 * math.log10(3))


def test_virtual_draws_keep_a_perfect_record_finite():
    fit = stats.fit_plackett_luce(_bt_data(20, 0), prior_draws=1)
    assert fit.converged
    assert fit.theta[0] - fit.theta[1] == pytest.approx(math.log(20.5 / 0.5))


def _random_orders(theta, games, seats, rng):
    strat = np.array([rng.choice(len(theta), size=seats, replace=False) for _ in range(games)])
    gumbel = theta[strat] + rng.gumbel(size=strat.shape)  # PL orders by the Gumbel trick
    ranks = (-gumbel).argsort(axis=1).argsort(axis=1) + 1
    return strat, ranks


def test_plackett_luce_matches_a_generic_optimiser_and_recovers_strengths():
    rng = np.random.default_rng(7)
    truth = np.array([0.8, 0.2, -0.1, -0.9])
    strat, ranks = _random_orders(truth, 3000, 3, rng)
    data = stats.ChoiceData(4)
    for s, r in zip(strat, ranks, strict=True):
        data.add_order(s.tolist(), r.tolist())
    fit = stats.fit_plackett_luce(data, prior_draws=0)
    assert fit.model == "Plackett-Luce"
    ref = optimize.minimize(
        lambda t: -stats.pl_loglik(np.append(t, -t.sum()), data), np.zeros(3), method="BFGS"
    )
    assert fit.theta[:3] == pytest.approx(ref.x, abs=1e-4)
    se = np.sqrt(np.diag(fit.cov))
    assert np.all(np.abs(fit.theta - (truth - truth.mean())) < 4 * se)


def test_per_game_scores_sum_to_the_gradient():
    rng = np.random.default_rng(3)
    theta = np.array([0.3, -0.2, 0.5, -0.6])
    strat, ranks = _random_orders(theta, 200, 3, rng)
    ranks[:10, 1:] = 3  # some shared last places
    data = stats.ChoiceData(4)
    for s, r in zip(strat, ranks, strict=True):
        data.add_order(s.tolist(), r.tolist())
    rows, cols, vals = stats.pl_scores(theta, strat, ranks)
    per_strategy = np.bincount(cols, weights=vals, minlength=4)
    grad, _ = ratings._grad_info(theta, *ratings._design(data))
    assert per_strategy == pytest.approx(grad)


def test_sandwich_equals_model_variance_for_independent_games():
    rng = np.random.default_rng(11)
    truth = np.array([0.5, 0.0, -0.5])
    strat, ranks = _random_orders(truth, 6000, 2, rng)
    data = stats.ChoiceData(3)
    for s, r in zip(strat, ranks, strict=True):
        data.add_order(s.tolist(), r.tolist())
    fit = stats.fit_plackett_luce(data, prior_draws=0)
    rows, cols, vals = stats.pl_scores(fit.theta, strat, ranks)
    score = np.zeros((len(strat), 3))
    np.add.at(score, (rows, cols), vals)
    robust = stats.sandwich_cov(fit, score.T @ score, len(strat))
    assert np.sqrt(np.diag(robust)) == pytest.approx(np.sqrt(np.diag(fit.cov)), rel=0.1)


def test_strategies_without_games_are_not_rated():
    data = _bt_data(10, 5)
    data.strategies = 3
    fit = stats.fit_plackett_luce(data)
    assert math.isnan(fit.theta[2]) and not math.isnan(fit.theta[0])
    assert stats.connected(data)


def test_disconnected_groups_are_detected():
    data = stats.ChoiceData(4)
    data.add(0, (0, 1), 3)
    data.add(2, (2, 3), 3)
    assert not stats.connected(data)


# -- SPRT --------------------------------------------------------------------------------
def test_sprt_bounds_are_walds():
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    with pytest.raises(ValueError):
        stats.sprt_bounds(0, 0.05)


def test_pentanomial_outcomes():
    assert stats.deal_outcomes(2).tolist() == [0, 0.25, 0.5, 0.75, 1]


def test_llr_is_zero_without_data_and_antisymmetric():
    assert stats.sprt_llr([0, 0, 0, 0, 0], 0, 10) == 0
    counts = [30, 120, 300, 160, 40]
    assert stats.sprt_llr(counts, 0, 10) == pytest.approx(-stats.sprt_llr(counts, 10, 0))


def test_llr_agrees_with_its_normal_approximation_on_many_deals():
    counts = np.array([900, 5200, 9800, 5600, 1100]) * 2
    exact = stats.sprt_llr(counts, 0, 10)
    approx = stats.sprt_llr_normal(counts, 0, 10)
    assert exact == pytest.approx(approx, rel=0.02)


def test_llr_by_hand_for_a_trinomial():
    # one game per deal: outcomes 0, 1/2, 1. With only wins and losses (no draws)
    # the constrained MLE is the Bernoulli with mean s, so the LLR is the binomial one.
    wins, losses = 60, 40
    s0, s1 = stats.elo_to_score(0), stats.elo_to_score(50)
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert stats.sprt_llr([losses, 0, wins], 0, 50, prior=0) == pytest.approx(expected, rel=1e-6)


def test_sprt_accepts_h1_for_a_clear_edge_and_h0_for_none():
    strong = stats.Sprt(elo0=0, elo1=10)
    strong.add(0.75, 800)
    strong.add(0.5, 1000)
    strong.add(0.25, 400)
    assert strong.status == "H1"
    even = stats.Sprt(elo0=0, elo1=10)
    for score, n in ((0.0, 100), (0.25, 600), (0.5, 1600), (0.75, 600), (1.0, 100)):
        even.add(score, n)
    assert even.status == "H0"
    summary = even.summary()
    assert summary["games"] == 6000 and summary["elo"] == pytest.approx(0)
    assert summary["elo_low"] < 0 < summary["elo_high"]


def test_sprt_rejects_impossible_input():
    with pytest.raises(ValueError):
        stats.Sprt(elo0=5, elo1=5)
    with pytest.raises(ValueError):
        stats.Sprt().add(0.3)


def test_sprt_false_positive_rate_is_near_alpha():
    """Simulated pentanomial deals at elo0: H1 is accepted about alpha of the time."""
    rng = np.random.default_rng(2024)
    probs = np.array([0.05, 0.2, 0.5, 0.2, 0.05])  # mean 1/2: elo 0 = elo0
    accepted = 0
    runs = 60
    for _ in range(runs):
        test = stats.Sprt(elo0=0, elo1=40, alpha=0.05, beta=0.05)
        while test.status == "continue" and test.deals < 20000:
            test.counts += rng.multinomial(50, probs)
        accepted += test.status == "H1"
    assert accepted / runs <= 0.15
