"""Luck-adjusted estimates (harness.stats.luck) and the adjusted SPRT (AdjustedSprt).

What must hold: the sums add up batch by batch; a fold's coefficient is fitted on the
other folds only (a leak would shrink variances that must not shrink, and bias the mean);
exact answers on hand-made data; nan where nothing can be said; the SPRT's coefficient
is predictable (fitted on earlier deals only) and the test deterministic.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from harness import stats
from harness.stats import luck

pytestmark = pytest.mark.interpreter


def test_per_game_helpers_exact():
    ranks = np.array([[1, 2, 3], [1, 1, 3], [2, 1, 1]])
    assert stats.win_points(ranks).tolist() == [[1, 0, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]]
    assert stats.ahead(ranks[:, 0], ranks[:, 1]).tolist() == [1.0, 0.5, 0.0]
    worms = np.array([[6.0, 3.0, 0.0], [2.0, 2.0, 2.0]])
    # own minus the mean of the others': 6 - 1.5, 3 - 3, 0 - 4.5
    assert stats.versus_others(worms).tolist() == [[4.5, 0.0, -4.5], [0.0, 0.0, 0.0]]
    assert stats.versus_others(np.array([[1.0, 4.0]])).tolist() == [[-3.0, 3.0]]
    assert np.isnan(stats.versus_others(np.array([[np.nan, 1.0, 2.0]]))).all()
    with pytest.raises(ValueError, match="two seats"):
        stats.versus_others(np.array([[1.0]]))
    assert stats.fold_of(np.array([0, 1, 2, 7])).tolist() == [0, 1, 0, 1]


# -- exact answers on hand-made data -----------------------------------------------------
def hand_made() -> stats.ControlMoments:
    """Four deals of one game each. Fold 1 (deals 1, 3): Y = 1, 0; C = 1, -1: r = 1/2,
    residuals +-1/2, b_0 = (1/2 + 1/2) / 2 = 1/2. Fold 0 (deals 0, 2): Y = 1, 1; C = 2, 0:
    r = 1, residuals 0, b_1 = 0."""
    return stats.ControlMoments.of([1, 1, 1, 0], [2, 1, 0, -1])


def test_exact_coefficients_and_estimate():
    cm = hand_made()
    assert cm.coefs().tolist() == [0.5, 0.0]
    # fold 0 adjusted by 1/2: 1 - 1, 1 - 0; fold 1 as it is: 1, 0 -> (0 + 1 + 1 + 0) / 4
    adjusted = cm.adjusted()
    assert adjusted.estimate == 0.5
    assert adjusted == stats.Moments.of([0, 1, 1, 0])
    assert cm.raw == stats.Moments.of([1, 1, 1, 0])
    assert cm.correction().estimate == -0.25 == adjusted.estimate - cm.raw.estimate
    # in sample (display only): r = 3/4, e = 1/4, 1/4, 1/4, -3/4: sum e C = 3/2, sum C^2 = 6
    assert cm.coef == 0.25
    assert cm.adjusted(1.0) == stats.Moments.of([-1, 0, 1, 1])
    assert cm.adjusted([0.0, 0.0]) == cm.raw
    assert cm.accounted == 1.0
    assert cm.gain() == pytest.approx((cm.raw.se / adjusted.se) ** 2)


def test_weights_and_a_deal_of_several_games():
    # deal 0: two games (y 1 and 0, c 1 and 1): one unit Y 1, M 2, C 2; deal 1: Y 1, M 1
    cm = stats.ControlMoments.of([1, 0, 1], [1, 1, -1], deal=[0, 0, 1])
    expected = {"deals": 1, "sy": 1, "sm": 2, "sc": 2, "syy": 1, "smm": 4, "scc": 4}
    expected |= {"sym": 2, "syc": 2, "smc": 4, "sa": 2}
    assert dict(zip(stats.CONTROL_FIELDS, cm.rows[0], strict=True)) == expected
    assert cm.rows[1].tolist() == [1, 1, 1, -1, 1, 1, 1, 1, -1, -1, 1]
    weighted = stats.ControlMoments.of([2, 1], [1, -1], m=[4, 1], deal=[0, 1])
    assert weighted.raw == stats.Moments.of([2, 1], [4, 1])


# -- batch by batch ---------------------------------------------------------------------
def random_games(rng: np.random.Generator, deals: int, keys: int = 3):
    deal = np.repeat(np.arange(deals), 4)
    key = rng.integers(0, keys, len(deal))
    c = rng.normal(size=len(deal))
    y = (rng.random(len(deal)) < 0.4 + 0.15 * np.tanh(c)).astype(float)
    c[rng.random(len(deal)) < 0.1] = np.nan  # a tenth of the games without the account
    return deal, key, y, c


def test_sums_add_up_batch_by_batch():
    rng = np.random.default_rng(7)
    deal, key, y, c = random_games(rng, 300)
    whole = stats.control_rows(deal, key, y, c, 3)
    cuts = [0, 37 * 4, 150 * 4, 151 * 4, len(deal)]  # whole deals in each batch
    parts = sum(
        stats.control_rows(deal[a:b], key[a:b], y[a:b], c[a:b], 3)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    )
    np.testing.assert_allclose(parts, whole, rtol=1e-12, atol=1e-12)
    for k in range(3):
        one = stats.ControlMoments.of(y[key == k], c[key == k], deal=deal[key == k])
        np.testing.assert_allclose(one.rows, whole[k], rtol=1e-12)
        summed = stats.ControlMoments.empty()
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            sel = slice(a, b)
            mask = key[sel] == k
            summed = summed + stats.ControlMoments.of(
                y[sel][mask], c[sel][mask], deal=deal[sel][mask]
            )
        assert summed.coefs() == pytest.approx(one.coefs(), rel=1e-12)
        assert summed.adjusted().estimate == pytest.approx(one.adjusted().estimate, rel=1e-12)
        assert summed.adjusted().se == pytest.approx(one.adjusted().se, rel=1e-12)


def test_folds_must_match_to_add():
    with pytest.raises(ValueError, match="fold"):
        stats.ControlMoments.empty(2) + stats.ControlMoments.empty(3)


# -- no fold sees its own data ---------------------------------------------------------------
def test_a_folds_coefficient_ignores_the_fold():
    rng = np.random.default_rng(3)
    deal, _, y, c = random_games(rng, 200)
    base = stats.ControlMoments.of(y, c, deal=deal)
    fold0 = stats.fold_of(deal) == 0
    y2, c2 = y.copy(), c.copy()
    y2[fold0] = 1 - y2[fold0]  # every outcome of fold 0 changed ...
    c2[fold0] = y2[fold0] * 5.0  # ... and its control made of them
    changed = stats.ControlMoments.of(y2, c2, deal=deal)
    assert changed.coefs()[0] == base.coefs()[0]  # fitted on fold 1 only: bit for bit
    assert changed.coefs()[1] != base.coefs()[1]
    # so fold 0 is adjusted with the coefficient it had before its data changed
    assert changed.adjusted() == changed.adjusted([base.coefs()[0], changed.coefs()[1]])


def test_a_control_made_of_the_outcome_in_one_fold_cannot_shrink_it():
    """Fold 0's control is its own outcome (centred), fold 1's is noise. Fitted in sample,
    the coefficient would use fold 0's perfect fit to cancel fold 0's variance; fitted on
    the other fold it learns nothing there, and the variance stays."""
    rng = np.random.default_rng(11)
    deals = 20000
    deal = np.arange(deals)
    y = rng.random(deals)
    c = np.where(deal % 2 == 0, y - 0.5, 0.1 * rng.normal(size=deals))
    cm = stats.ControlMoments.of(y, c, deal=deal)
    assert abs(cm.coefs()[0]) < 0.1  # from fold 1: noise
    assert cm.gain() < 1.15
    leaky = cm.gain(cm.coef)  # the in-sample coefficient on the same data
    assert leaky > 1.5


@pytest.mark.once
def test_cross_fitting_is_unbiased_where_an_in_sample_fit_is_not():
    """Small runs (8 deals) whose outcome is the square of a skewed control: the
    in-sample coefficient correlates with the control's sample mean and biases the
    estimate; the cross-fitted one cannot (E[c] = 0 and b is fitted on other deals)."""
    rng = np.random.default_rng(2026)
    reps, deals = 20000, 8
    c = rng.exponential(size=(reps, deals)) - 1.0  # mean 0, skewed
    y = c * c + 0.2 * rng.normal(size=(reps, deals))  # mean 1
    crossed, in_sample = [], []
    deal = np.arange(deals)
    for r in range(reps):
        cm = stats.ControlMoments.of(y[r], c[r], deal=deal)
        crossed.append(cm.adjusted().estimate)
        in_sample.append(cm.adjusted(cm.coef).estimate)
    for values, biased in ((crossed, False), (in_sample, True)):
        v = np.asarray(values)
        z = (v.mean() - 1.0) / (v.std(ddof=1) / math.sqrt(reps))
        assert (abs(z) > 5) if biased else (abs(z) < 3.5), z


# -- games without the account ---------------------------------------------------------
def test_games_without_the_account():
    rng = np.random.default_rng(5)
    deal, _, y, c = random_games(rng, 100)
    none = stats.ControlMoments.of(y, np.full(len(y), np.nan), deal=deal)
    assert none.accounted == 0.0
    assert none.coefs().tolist() == [0.0, 0.0]
    assert none.adjusted() == none.raw
    assert math.isnan(none.coef) and math.isnan(none.gain()) is False  # gain 1: same se
    assert none.gain() == pytest.approx(1.0)
    some = stats.ControlMoments.of(y, c, deal=deal)
    as_zero = stats.ControlMoments.of(y, np.nan_to_num(c), deal=deal)
    assert some.accounted == pytest.approx(np.mean(~np.isnan(c)))
    # a game without the account is a game with control 0 in every sum but the account's
    np.testing.assert_array_equal(some.rows[:, :-1], as_zero.rows[:, :-1])
    assert as_zero.accounted == 1.0
    # and a deal without any (C = 0) adds nothing to the fit's sums
    extra = stats.ControlMoments.of([1.0, 0.0], [np.nan, np.nan], deal=[1000, 1000])
    f = {n: i for i, n in enumerate(stats.CONTROL_FIELDS)}
    for name in ("sc", "scc", "syc", "smc"):
        assert (some + extra).rows[:, f[name]].tolist() == some.rows[:, f[name]].tolist()


def test_undefined_is_nan():
    empty = stats.ControlMoments.empty()
    assert math.isnan(empty.raw.estimate) and math.isnan(empty.adjusted().estimate)
    assert math.isnan(empty.coef) and math.isnan(empty.accounted) and math.isnan(empty.gain())
    assert empty.coefs().tolist() == [0.0, 0.0]
    one = stats.ControlMoments.of([1.0], [0.5])
    assert one.adjusted().estimate == 1.0 and math.isnan(one.adjusted().se)
    assert math.isnan(one.correction().se)
    single = stats.ControlMoments.of([1, 0, 1, 1], [1, -1, 0.5, 0], folds=1)
    assert single.coefs().tolist() == [0.0]  # nothing to fit on: unadjusted
    assert single.adjusted() == single.raw
    assert not math.isnan(single.coef)  # in sample it is defined (for display)


def test_intervals_are_the_moments_own():
    rng = np.random.default_rng(9)
    deal, _, y, c = random_games(rng, 400)
    cm = stats.ControlMoments.of(y, c, deal=deal)
    adjusted = cm.adjusted()
    assert adjusted.interval() == stats.Moments(*vars(adjusted).values()).interval()
    lo, hi = stats.share_interval(adjusted, True)
    assert lo < adjusted.estimate < hi
    raw_lo, raw_hi = stats.share_interval(cm.raw, True)
    assert hi - lo < raw_hi - raw_lo  # the control explains part of y here


# -- the adjusted SPRT ---------------------------------------------------------------------
def deals_of(rng: np.random.Generator, n: int, mean: float = 0.5, slope: float = 0.8):
    c = rng.normal(scale=0.2, size=n)
    score = np.clip(mean + slope * c + rng.normal(scale=0.05, size=n), 0, 1)
    return score, c


def test_sprt_coefficient_is_predictable():
    rng = np.random.default_rng(4)
    score, c = deals_of(rng, 200)
    c[::7] = np.nan  # some deals without the account
    test = stats.AdjustedSprt()
    assert (test.prior_coef, test.prior_deals) == (1.0, 10)
    for t in range(len(score)):
        before = test.coef
        seen = ~np.isnan(c[:t])
        if not seen.any():
            assert before == 1.0  # the prior alone
        else:  # least squares on the earlier deals only (E[c] = 0), shrunk to the prior
            s_bar = score[:t].mean()
            cc = c[:t][seen]
            fit = ((score[:t][seen] - s_bar) * cc).sum() / (cc * cc).sum()
            n = seen.sum()
            assert before == pytest.approx((n * fit + 10 * 1.0) / (n + 10), rel=1e-9)
        control = None if np.isnan(c[t]) else float(c[t])
        x = test.add(float(score[t]), control)
        assert x == float(score[t]) - before * (0.0 if control is None else control)
    assert test.deals == 200 and test.accounted == int((~np.isnan(c)).sum())
    # the coefficient deal t gets does not move when deal t changes
    twins = [stats.AdjustedSprt(), stats.AdjustedSprt()]
    for twin in twins:
        for t in range(150):
            twin.add(float(score[t]), None if np.isnan(c[t]) else float(c[t]))
    b = twins[0].coef
    assert b == twins[1].coef != 0.0
    assert twins[0].add(0.0, 3.0) == -3.0 * b
    assert twins[1].add(1.0, -3.0) == 1.0 + 3.0 * b


def test_sprt_adjusted_scores_keep_the_mean():
    """Each adjusted score has the raw mean given the past: averaged over many runs, the
    adjusted score of a late deal is the true mean. A coefficient that saw the deal itself
    (a leak) would be biased here: the score is the control's square."""
    rng = np.random.default_rng(8)
    reps, deals = 6000, 14
    c = rng.exponential(size=(reps, deals)) - 1.0
    score = np.clip(0.2 + 0.1 * c * c, 0, 1)
    moved = []  # the last deal's adjusted minus raw score, run by run
    for r in range(reps):
        test = stats.AdjustedSprt(min_deals=4)
        for t in range(deals):
            x = test.add(float(score[r, t]), float(c[r, t]))
        moved.append(x - score[r, -1])
    v = np.asarray(moved)
    z = v.mean() / (v.std(ddof=1) / math.sqrt(reps))
    assert abs(z) < 3.5, z


def test_sprt_is_deterministic():
    rng = np.random.default_rng(1)
    score, c = deals_of(rng, 500, mean=0.53)
    runs = []
    for _ in range(2):
        test = stats.AdjustedSprt(elo0=0, elo1=20)
        statuses = []
        for s, x in zip(score, c, strict=True):
            test.add(float(s), float(x))
            statuses.append(test.status)
        runs.append((json.dumps(test.summary()), statuses))
    assert runs[0] == runs[1]


def test_sprt_llr_scores_exact_and_first_order():
    s0, s1 = stats.elo_to_score(0), stats.elo_to_score(10)
    mean, var, n = 0.51, 0.04, 400
    expected = n / 2 * math.log((var + (mean - s0) ** 2) / (var + (mean - s1) ** 2))
    assert stats.sprt_llr_scores(n, mean, var, 0, 10) == pytest.approx(expected, rel=1e-12)
    normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert stats.sprt_llr_scores(n, mean, var, 0, 10) == pytest.approx(normal, rel=0.01)
    assert stats.sprt_llr_scores(1, mean, 0.0, 0, 10) == 0.0
    assert stats.sprt_llr_scores(50, 0.5, 0.0, 0, 10) == -math.inf  # every score exactly s0
    assert stats.sprt_llr_scores(50, s1, 0.0, 0, 10) == math.inf
    assert stats.sprt_llr_scores(50, (s0 + s1) / 2, 0.0, 0, 10) == pytest.approx(0, abs=1e-9)
    assert stats.sprt_llr_scores(50, math.nan, 0.1, 0, 10) == 0.0


@pytest.mark.parametrize("mean, status", [(stats.elo_to_score(20), "H1"), (0.5, "H0")])
def test_sprt_decides(mean, status):
    rng = np.random.default_rng(12)
    score, c = deals_of(rng, 20000, mean=mean)
    test = stats.AdjustedSprt(elo0=0, elo1=10)
    raw = stats.AdjustedSprt(elo0=0, elo1=10)
    for s, x in zip(score, c, strict=True):
        test.add(float(s), float(x))
        if test.status != "continue":
            break
    for s in score:
        raw.add(float(s))
        if raw.status != "continue":
            break
    assert test.status == status == raw.status
    assert test.deals * 3 < raw.deals  # the control explains most of the score here
    assert 0.7 < test.coef < 0.9


def test_sprt_mirror_accepts_h0_and_waits_for_min_deals():
    test = stats.AdjustedSprt()
    for _ in range(test.min_deals - 1):
        test.add(0.5, 0.0)
        assert test.status == "continue"  # too few deals to say anything
    test.add(0.5, 0.0)
    assert test.llr == -math.inf and test.status == "H0"


def test_sprt_undefined_and_refused():
    test = stats.AdjustedSprt()
    assert test.llr == 0.0 and test.status == "continue"
    assert all(math.isnan(v) for v in test.elo())
    summary = test.summary()
    assert math.isnan(summary["score"]) and summary["deals"] == 0
    assert test.add(0.75, 0.1) == 0.75 - 0.1  # the prior coefficient, 1
    elo, lo, hi = test.elo()
    assert elo == pytest.approx(stats.score_to_elo(0.65)) and math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError, match="not a share"):
        test.add(1.5, 0.0)
    with pytest.raises(ValueError, match="must be above"):
        stats.AdjustedSprt(elo0=5, elo1=5)
    assert luck.FOLDS == stats.FOLDS == 2


# -- a field: standings and head to head -----------------------------------------------
def test_seat_and_pair_rows_by_hand():
    # two games of deal 0 at a 3-seat table of strategies 0, 1, 2 (and 1 twice in game 2)
    deal = np.array([0, 0])
    strat = np.array([[0, 1, 2], [1, 0, 1]])
    ranks = np.array([[2, 1, 3], [1, 1, 3]])
    wluck = np.array([[0.3, -0.1, 0.4], [0.2, 0.0, np.nan]])
    seat = stats.seat_rows(deal, strat, stats.win_points(ranks), stats.versus_others(wluck), 3)
    f = {n: i for i, n in enumerate(stats.CONTROL_FIELDS)}
    # strategy 1: game 1 seat 1 (won: 1, control -0.1 - 0.35), game 2 seats 0 and 2
    # (half a win and 0; the game has no account in full: its controls are nan)
    one = seat[1, 0]
    assert one[f["sy"]] == 1.5 and one[f["sm"]] == 3 and one[f["sa"]] == 1
    assert one[f["sc"]] == pytest.approx(-0.45)
    pairs = stats.pair_rows(deal, strat, ranks, wluck, 3)
    # 0 against 1: game 1 (0 behind: 0, W 0.3 - -0.1), game 2 twice (0 tied with seat 0:
    # 1/2, control 0.0 - 0.2; 0 ahead of seat 2: 1, control nan)
    zero_one = pairs[0, 1, 0]
    assert zero_one[f["sy"]] == 1.5 and zero_one[f["sm"]] == 3 and zero_one[f["sa"]] == 2
    assert zero_one[f["sc"]] == pytest.approx(0.4 - 0.2)
    assert pairs[1, 2, 0][f["sy"]] == 1.0 and pairs[1, 0].sum() == 0  # only a < b rows
    assert pairs[0, 2, 0][f["sy"]] == 1.0 and pairs[0, 2, 0][f["sc"]] == pytest.approx(-0.1)


def test_pair_rows_agree_with_a_game_by_game_count():
    rng = np.random.default_rng(21)
    games, seats, p = 400, 3, 4
    deal = np.repeat(np.arange(games // 4), 4)
    strat = rng.integers(0, p, (games, seats))
    ranks = np.argsort(rng.random((games, seats)), axis=1) + 1
    ranks[::5, 1] = ranks[::5, 0]  # some ties
    wluck = rng.normal(size=(games, seats))
    rows = stats.pair_rows(deal, strat, ranks, wluck, p)
    for a in range(p):
        for b in range(a + 1, p):
            d, y, c = [], [], []
            for g in range(games):
                for i in range(seats):
                    for j in range(seats):
                        if i != j and strat[g, i] == a and strat[g, j] == b:
                            d.append(deal[g])
                            y.append(stats.ahead(ranks[g, i], ranks[g, j]))
                            c.append(wluck[g, i] - wluck[g, j])
            expected = stats.ControlMoments.of(y, c, deal=d)
            np.testing.assert_allclose(rows[a, b], expected.rows, rtol=1e-12, atol=1e-12)


def test_adjusted_intervals_cover():
    """Synthetic deals of two games whose win chance moves with a mean-zero luck control:
    the adjusted 95% intervals (shares, and t intervals of the margin-like total) hold the
    truth about 95% of the time, and are narrower than the raw ones. (The benchmark
    benchmarks/luck_coverage.py measures it on played games.)"""
    rng = np.random.default_rng(31)
    runs, deals, truth = 400, 120, 0.5
    held = {"raw": 0, "adjusted": 0, "t": 0}
    widths = {"raw": 0.0, "adjusted": 0.0}
    deal = np.repeat(np.arange(deals), 2)
    for _ in range(runs):
        c = rng.normal(scale=0.3, size=2 * deals)
        p = np.clip(truth + c, 0.0, 1.0)
        c = p - truth  # clipped symmetrically about 1/2: still mean 0, and E[y] = 1/2
        y = (rng.random(2 * deals) < p).astype(float)
        cm = stats.ControlMoments.of(y, c, deal=deal)
        for way, m in (("raw", cm.raw), ("adjusted", cm.adjusted())):
            lo, hi = stats.share_interval(m, True)
            held[way] += lo <= truth <= hi
            widths[way] += hi - lo
        lo, hi = cm.adjusted().interval()
        held["t"] += lo <= truth <= hi
    for way, count in held.items():
        assert 0.92 <= count / runs <= 0.98, (way, count / runs)
    assert widths["adjusted"] < 0.85 * widths["raw"]
