"""Intervals and tests on counts and sums: Wilson, cluster-robust ratios, LOS, Holm.

Functions take the aggregates a run of any size reduces to (counts, sums, moments) and
return numbers; an undefined result is ``nan``. Why the ratio statistics are clustered by
deal, not taken over games, is told in :mod:`harness.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

_NORMAL = NormalDist()
NAN = float("nan")


def z_quantile(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence``."""
    return _NORMAL.inv_cdf(0.5 + confidence / 2)


def t_quantile(confidence: float, df: float) -> float:
    """The two-sided Student t quantile (scipy, imported on first use: it is slow to load)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + confidence / 2))


Z95 = z_quantile(0.95)


def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a share ``successes / n`` (successes may be fractional).

    ``(nan, nan)`` when ``n`` is 0.
    """
    if n <= 0:
        return NAN, NAN
    z = z_quantile(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low = 0.0 if p <= 0 else max(0.0, centre - half)  # exact ends, not rounding noise
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


@dataclass
class Moments:
    """Sums over deals of a ratio statistic ``sum(y) / sum(m)``, clustered by deal.

    ``y`` is a deal's total (points, worms) and ``m`` its weight (games); the sums of
    squares and cross products make the cluster-robust variance exact to compute from
    additive pieces, so moments of parts of a run simply add up. ``deals`` counts the
    deals with a weight (for independent games, give each game as a deal of its own).
    """

    deals: float = 0.0
    sy: float = 0.0
    sm: float = 0.0
    syy: float = 0.0
    smm: float = 0.0
    sym: float = 0.0

    @classmethod
    def of(cls, y: Iterable[float], m: Iterable[float] | None = None) -> Moments:
        """Moments of deals with totals ``y`` and weights ``m`` (1 each if not given)."""
        ys = np.asarray(list(y), dtype=float)
        ms = np.ones_like(ys) if m is None else np.asarray(list(m), dtype=float)
        return cls(
            float(np.count_nonzero(ms)),
            float(ys.sum()),
            float(ms.sum()),
            float((ys * ys).sum()),
            float((ms * ms).sum()),
            float((ys * ms).sum()),
        )

    def __add__(self, other: Moments) -> Moments:
        return Moments(
            self.deals + other.deals,
            self.sy + other.sy,
            self.sm + other.sm,
            self.syy + other.syy,
            self.smm + other.smm,
            self.sym + other.sym,
        )

    @property
    def estimate(self) -> float:
        return self.sy / self.sm if self.sm > 0 else NAN

    @property
    def se(self) -> float:
        """Cluster-robust standard error of the ratio; nan with fewer than two deals."""
        k = self.deals
        if k < 2 or self.sm <= 0:
            return NAN
        r = self.estimate
        ss = self.syy - 2 * r * self.sym + r * r * self.smm
        return math.sqrt(max(ss, 0.0) * k / (k - 1)) / self.sm

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """t interval on deals - 1 degrees of freedom; (nan, nan) if undefined."""
        se = self.se
        if math.isnan(se):
            return NAN, NAN
        t = t_quantile(confidence, self.deals - 1)
        r = self.estimate
        return r - t * se, r + t * se


def share_interval(m: Moments, by_deal: bool, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for a share in [0, 1]: Wilson, on the effective number of games by deal.

    ``by_deal``: clustered by deal (what reports pass, see :mod:`harness.stats`); False:
    the games are independent, plain Wilson on ``sy`` of ``sm``. The games of a deal are
    not independent, so the binomial count
    is replaced by the effective sample size p(1-p)/se^2 from the cluster-robust standard
    error (Kish's design effect), scaled by (z/t)^2 on deals - 1 degrees of freedom (Korn
    and Graubard's interval for clustered samples). This keeps Wilson's good behaviour
    at shares near 0 or 1; at exactly 0 or 1 the deals count as the trials.
    """
    if not by_deal:
        return wilson(m.sy, m.sm, confidence)
    p, se, k = m.estimate, m.se, m.deals
    if math.isnan(se):
        return NAN, NAN
    z = z_quantile(confidence)
    t = t_quantile(confidence, k - 1)
    if p <= 0 or p >= 1:
        n_eff = k
    elif se == 0:
        return p, p  # every deal gave exactly the same share: nothing varies
    else:
        n_eff = p * (1 - p) / (se * se)
    n_eff *= (z / t) ** 2
    return wilson(p * n_eff, n_eff, confidence)


def share_se(m: Moments, by_deal: bool) -> float:
    """Standard error of a share, read off its 95% interval (half-width / 1.96).

    Consistent with the interval shown, and never 0 at a share of 0 or 1, so tests and
    likelihoods of superiority built on it are not overconfident.
    """
    lo, hi = share_interval(m, by_deal)
    return (hi - lo) / (2 * Z95)


def los(score: float, se: float) -> float:
    """Likelihood of superiority: P(true score > 1/2) given a normal estimate.

    The chess-testing LOS: for A's share of games where it finished ahead of B, the
    probability that A is really the stronger of the two. nan if undefined.
    """
    if math.isnan(score) or math.isnan(se):
        return NAN
    if se == 0:
        return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return _NORMAL.cdf((score - 0.5) / se)


def games_to_separate(gap: float, se_a: float, se_b: float, games: float) -> float:
    """About how many games in all would make two 95% intervals stop overlapping.

    Assumes the gap stays as it is and standard errors shrink as 1/sqrt(games); nan
    if undefined, inf if the gap is zero.
    """
    if any(math.isnan(v) for v in (gap, se_a, se_b)) or games <= 0:
        return NAN
    if gap == 0:
        return math.inf
    return games * (Z95 * (se_a + se_b) / abs(gap)) ** 2


def diff_test(a: float, se_a: float, b: float, se_b: float) -> tuple[float, float, float]:
    """Difference ``b - a`` of two independent estimates: (diff, se, two-sided p)."""
    d = b - a
    se = math.hypot(se_a, se_b)
    if math.isnan(se) or math.isnan(d):
        return d, NAN, NAN
    if se == 0:
        return d, 0.0, 1.0 if d == 0 else 0.0
    return d, se, 2 * (1 - _NORMAL.cdf(abs(d) / se))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (nan stays nan), for many tests in one table."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    order = sorted(idx, key=lambda i: pvalues[i])
    out = [NAN] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * pvalues[i]))
        out[i] = running
    return out
