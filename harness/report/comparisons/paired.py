"""Paired differences of two runs' games, clustered by deal (pure numpy, no I/O).

When two runs play a strategy on the same deals from the same seats against the same
opponents with the same dice, each game of one run has a twin in the other, and the
difference of a twin pair cancels most of the luck of the dice, as engine testers
compare two versions of an engine on the same openings. The pairs of one deal (every
table and seat order of it, in both runs) share that deal's dice, so the deal is the
unit: the estimate is the mean paired difference, its variance the cluster-robust
(linearised ratio) variance of :class:`harness.stats.Moments` over deals, and the
interval a t interval on deals - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness import stats


@dataclass(frozen=True)
class PairedDiff:
    """The mean of ``b - a`` over pairs, with its deal-clustered interval and p-value."""

    diff: float
    se: float
    low: float
    high: float
    p: float  # two-sided, t on deals - 1 degrees of freedom; nan if undefined
    pairs: int
    deals: int

    def cell(self) -> dict[str, float | int]:
        """As :func:`harness.report.comparisons.compare.compare` reports a difference."""
        return {"diff": self.diff, "low": self.low, "high": self.high, "p": self.p}


def deal_moments(deal: np.ndarray, values: np.ndarray) -> stats.Moments:
    """Moments over deals of per-pair ``values`` (each deal's sum and count of pairs)."""
    if len(deal) == 0:
        return stats.Moments()
    _, unit = np.unique(np.asarray(deal), return_inverse=True)
    y = np.bincount(unit, weights=np.asarray(values, dtype=float))
    m = np.bincount(unit).astype(float)
    return stats.Moments(
        float(len(y)),
        float(y.sum()),
        float(m.sum()),
        float((y * y).sum()),
        float((m * m).sum()),
        float((y * m).sum()),
    )


def paired_difference(
    deal: np.ndarray, a: np.ndarray, b: np.ndarray, confidence: float = 0.95
) -> PairedDiff:
    """The paired difference ``b - a`` of per-game values, pairs clustered by ``deal``."""
    moments = deal_moments(deal, np.asarray(b, dtype=float) - np.asarray(a, dtype=float))
    low, high = moments.interval(confidence)
    return PairedDiff(
        moments.estimate,
        moments.se,
        low,
        high,
        t_pvalue(moments.estimate, moments.se, moments.deals - 1),
        int(moments.sm),
        int(moments.deals),
    )


def t_pvalue(estimate: float, se: float, df: float) -> float:
    """Two-sided p of ``estimate / se`` under Student's t; 1 or 0 when se is 0."""
    if math.isnan(estimate) or math.isnan(se) or df < 1:
        return stats.NAN
    if se == 0:
        return 1.0 if estimate == 0 else 0.0
    from scipy.special import stdtr  # slow to import: on first use, as stats does

    return float(2 * stdtr(df, -abs(estimate) / se))


def width_ratio(paired: tuple[float, float], unpaired: tuple[float, float]) -> float:
    """How many times narrower the paired interval is than the unpaired one (nan if either
    is undefined or the paired one has no width)."""
    wp, wu = paired[1] - paired[0], unpaired[1] - unpaired[0]
    if not (wp > 0 and wu == wu):
        return stats.NAN
    return wu / wp
