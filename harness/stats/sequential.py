"""Sequential tests on deals: Wald's SPRT, generalised to the outcomes of a deal.

A deal is one set of dice played in every seat order (:mod:`harness.seating` defines
it); its score, A's share of its games where A finished ahead of B (ties half), is a
multiple of 1/(2 g) for g games a deal. The test counts deals, never games: the games of
a deal share their dice, so they are not independent. :class:`Sprt` is the running test,
its status and its summary; ``harness sprt`` (:mod:`harness.sprt`) plays the deals and
feeds it.

:class:`AdjustedSprt` is the same test on luck-adjusted deal scores: a deal's score minus
``coef`` times its control (the mean over its games of W_A - W_B, the seats' win-weighted
luck; :mod:`harness.stats.luck`), ``coef`` fitted only on the deals before (predictable),
so every adjusted score keeps the raw score's mean; the scores are continuous, so the
test is the normal one with the variance unknown (:func:`sprt_llr_scores`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.stats.elo import elo_to_score, score_to_elo
from harness.stats.intervals import NAN, z_quantile


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: accept H0 below, H1 above."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"alpha and beta must lie strictly between 0 and 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def deal_outcomes(games_per_deal: int) -> np.ndarray:
    """The possible scores of a deal: multiples of 1/(2 g) in [0, 1] (ties are halves).

    Two games a deal give the pentanomial outcomes 0, 1/4, 1/2, 3/4, 1.
    """
    return np.arange(2 * games_per_deal + 1) / (2 * games_per_deal)


def _constrained_mle(p_hat: np.ndarray, values: np.ndarray, s: float) -> np.ndarray:
    """The distribution closest to ``p_hat`` (max likelihood) whose mean is ``s``.

    p_i = p_hat_i / (1 + lam (v_i - s)) with lam solving sum p_i (v_i - s) = 0.
    """
    d = values - s
    if np.all(np.abs(d) < 1e-15):
        return p_hat
    lo = -1.0 / d.max() if d.max() > 0 else -1e12
    hi = -1.0 / d.min() if d.min() < 0 else 1e12
    eps = 1e-12 * (hi - lo)

    def f(lam: float) -> float:
        return float((p_hat * d / (1 + lam * d)).sum())

    from scipy.optimize import brentq  # slow to import: only here

    lam = brentq(f, lo + eps, hi - eps, xtol=1e-14, maxiter=500)
    p = p_hat / (1 + lam * d)
    return p / p.sum()


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float, *, prior: float = 1e-3) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0).

    ``counts[k]`` is how many deals scored ``k / (2 g)`` (``len(counts) = 2 g + 1``
    for ``g`` games a deal; pentanomial when g = 2). The test counts deals, not games:
    a deal's games share dice, so their results are not independent. Each hypothesis
    is the outcome distribution of largest likelihood whose mean score is
    ``elo_to_score(elo)``; the LLR is the log ratio of the two (the multinomial GSPRT of
    chess engine testing). ``prior`` pseudo-deals per outcome keep it finite early on.
    """
    n = np.asarray(counts, dtype=float)
    if n.ndim != 1 or len(n) < 3 or len(n) % 2 == 0:
        raise ValueError("counts: one count per deal outcome, 2 * games_per_deal + 1 of them")
    total = n.sum()
    if total <= 0:
        return 0.0
    values = np.arange(len(n)) / (len(n) - 1)
    p_hat = (n + prior) / (total + prior * len(n))
    p0 = _constrained_mle(p_hat, values, elo_to_score(elo0))
    p1 = _constrained_mle(p_hat, values, elo_to_score(elo1))
    seen = n > 0  # outcomes never seen add nothing (and may have probability 0)
    return float((n[seen] * np.log(p1[seen] / p0[seen])).sum())


def sprt_llr_normal(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The normal approximation of :func:`sprt_llr`: N (s1-s0)(2 s - s0 - s1) / (2 var)."""
    n = np.asarray(counts, dtype=float)
    total = n.sum()
    values = np.arange(len(n)) / (len(n) - 1)
    if total < 2:
        return 0.0
    mean = float((n * values).sum() / total)
    var = float((n * (values - mean) ** 2).sum() / total)
    if var <= 0:
        return 0.0
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def sprt_llr_scores(deals: float, mean: float, var: float, elo0: float, elo1: float) -> float:
    """Generalised LLR of H1 (elo1) against H0 (elo0) for continuous deal scores.

    The scores are taken as normal with an unknown variance, profiled under each
    hypothesis (the generalised likelihood ratio of the sequential t-test):
    ``deals / 2 * log(v0 / v1)`` with ``v_h = var + (mean - s_h)^2`` the mean squared
    deviation from ``s_h = elo_to_score(elo_h)``; ``mean`` and ``var`` (divided by
    ``deals``) are the scores'. To first order in the hypotheses' gap it is the normal
    GSPRT of :func:`sprt_llr_normal`, ``deals (s1 - s0)(2 mean - s0 - s1) / (2 var)``,
    but it stays finite and meaningful when the scores hardly vary: it is then +-inf only
    if every score is exactly s1 (or s0). 0 with fewer than two deals.
    """
    if deals < 2 or math.isnan(mean) or math.isnan(var):
        return 0.0
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    v0 = max(var, 0.0) + (mean - s0) ** 2
    v1 = max(var, 0.0) + (mean - s1) ** 2
    if v0 == v1:
        return 0.0
    if v1 == 0:
        return math.inf
    if v0 == 0:
        return -math.inf
    return deals / 2 * math.log(v0 / v1)


def deal_elo(counts: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Elo estimate with interval from deal outcome counts: (elo, low, high)."""
    n = np.asarray(counts, dtype=float)
    total = n.sum()
    if total < 1:
        return NAN, NAN, NAN
    values = np.arange(len(n)) / (len(n) - 1)
    mean = float((n * values).sum() / total)
    if total < 2:
        return score_to_elo(mean), NAN, NAN
    var = float((n * (values - mean) ** 2).sum() / (total - 1))
    half = z_quantile(confidence) * math.sqrt(var / total)
    return score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half)


@dataclass
class Sprt:
    """A running sequential probability ratio test of A against B on deals.

    Feed it deal outcomes in a fixed order (``add``, or add to ``counts`` in place);
    ``status`` is "H1", "H0" or "continue". A deal's score is A's share of the deal's
    games (every seat order) where A finished ahead of B (ties count half).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    games_per_deal: int = 2
    counts: np.ndarray = field(default=None)  # type: ignore[assignment]
    # (what it was computed from, the LLR): it solves two small root problems, so once
    _llr_of: tuple[tuple[bytes, float, float], float] | None = field(
        default=None, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        self.lower, self.upper = sprt_bounds(self.alpha, self.beta)
        if self.counts is None:
            self.counts = np.zeros(2 * self.games_per_deal + 1)

    def add(self, deal_score: float, count: int = 1) -> None:
        """Add ``count`` deals that scored ``deal_score`` (a multiple of 1/(2 g))."""
        k = round(deal_score * 2 * self.games_per_deal)
        if abs(k - deal_score * 2 * self.games_per_deal) > 1e-9 or not 0 <= k < len(self.counts):
            raise ValueError(f"deal score {deal_score} is not a possible outcome")
        self.counts[k] += count

    @property
    def deals(self) -> int:
        """Deals counted so far."""
        return int(self.counts.sum())

    @property
    def games(self) -> int:
        """Games in the counted deals."""
        return self.deals * self.games_per_deal

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of the counts so far (:func:`sprt_llr`)."""
        key = (np.asarray(self.counts, dtype=float).tobytes(), self.elo0, self.elo1)
        if self._llr_of is None or self._llr_of[0] != key:
            self._llr_of = (key, sprt_llr(self.counts, self.elo0, self.elo1))
        return self._llr_of[1]

    @property
    def status(self) -> str:
        """H1 at or above the upper bound, H0 at or below the lower one, else continue."""
        llr = self.llr
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else "continue"

    def elo(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """A's Elo over B with its interval, from the counted deals (:func:`deal_elo`)."""
        return deal_elo(self.counts, confidence)

    def summary(self) -> dict[str, Any]:
        """The test's numbers (nan/inf as they are): status, LLR, bounds, deals, Elo."""
        return {**_summary(self), "counts": [int(c) for c in self.counts]}


def _summary(test: Sprt | AdjustedSprt) -> dict[str, Any]:
    """What both tests report first, in this order: status, LLR, bounds, deals, Elo."""
    elo, lo, hi = test.elo()
    return {
        "status": test.status,
        "llr": test.llr,
        "lower": test.lower,
        "upper": test.upper,
        "deals": test.deals,
        "games": test.games,
        "elo": elo,
        "elo_low": lo,
        "elo_high": hi,
    }


#: Deals before :class:`AdjustedSprt` may stop: below it the variance (and so the
#: likelihood ratio) rests on too few scores to be trusted.
MIN_DEALS = 10
#: The coefficient :class:`AdjustedSprt` starts from: the control is win-weighted luck,
#: a change of win chance in the score's own units, so 1 is its natural value (the
#: fitted ones are 0.73-0.84: benchmarks/luck_variance.py).
PRIOR_COEF = 1.0


@dataclass
class AdjustedSprt:
    """A running SPRT of A against B on luck-adjusted deal scores.

    Feed it deals in a fixed order with ``add(score, control)``: ``score`` is the deal's
    raw score (as :class:`Sprt` counts it), ``control`` the mean over the deal's games of
    W_A - W_B (None or nan: the deal has no account; it enters unadjusted). The deal
    counts ``score - coef * control`` with ``coef`` (:attr:`coef`) fitted on the deals
    before it only: predictable, so given the past an adjusted score has the raw one's
    mean (E[control] = 0), and the test keeps its meaning. The fit is the regression
    coefficient of score on control, ``(S_sc - mean(s) S_c) / S_cc`` (the one that
    minimises the adjusted score's variance, as :mod:`harness.stats.luck` derives),
    shrunk towards ``prior_coef`` as if that had been fitted on ``prior_deals`` deals:
    ``(n fit + prior_deals prior_coef) / (n + prior_deals)`` after n deals with the
    account. The first deals are then adjusted well rather than not at all (they would
    otherwise weigh on the variance of the whole test: 3-4% more deals to a verdict
    with a coefficient 0 until 10 deals, greedy v tactician in benchmarks/luck_sprt.py).

    ``status`` compares :func:`sprt_llr_scores` of the adjusted scores with Wald's
    bounds, from ``min_deals`` deals on. Everything is a running sum in deal order: the
    same deals in the same order give the same verdict, bit for bit.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    games_per_deal: int = 2
    min_deals: int = MIN_DEALS
    prior_coef: float = PRIOR_COEF
    prior_deals: float = MIN_DEALS
    deals: int = field(default=0, init=False)
    # The adjusted scores' running mean and sum of squared deviations (Welford).
    mean: float = field(default=0.0, init=False)
    m2: float = field(default=0.0, init=False)
    # What the coefficient is fitted on: raw scores (all deals), and over the deals with
    # the account, their count and the sums of control, score x control, control^2.
    raw_sum: float = field(default=0.0, init=False)
    accounted: int = field(default=0, init=False)
    c_sum: float = field(default=0.0, init=False)
    sc_sum: float = field(default=0.0, init=False)
    cc_sum: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        self.lower, self.upper = sprt_bounds(self.alpha, self.beta)

    @property
    def coef(self) -> float:
        """The coefficient the next deal will be adjusted with (fitted on the deals so far)."""
        if self.cc_sum <= 0:  # no deal with a control yet (or every control 0)
            return self.prior_coef
        n = self.accounted
        fit = (self.sc_sum - self.raw_sum / self.deals * self.c_sum) / self.cc_sum
        return (n * fit + self.prior_deals * self.prior_coef) / (n + self.prior_deals)

    def add(self, score: float, control: float | None = None) -> float:
        """Add one deal; returns its adjusted score."""
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"deal score {score} is not a share between 0 and 1")
        known = control is not None and not math.isnan(control)
        c = float(control) if known else 0.0
        x = score - self.coef * c  # the coefficient of the deals before this one
        self.deals += 1
        delta = x - self.mean
        self.mean += delta / self.deals
        self.m2 += delta * (x - self.mean)
        self.raw_sum += score
        if known:
            self.accounted += 1
            self.c_sum += c
            self.sc_sum += score * c
            self.cc_sum += c * c
        return x

    @property
    def games(self) -> int:
        """Games in the counted deals."""
        return self.deals * self.games_per_deal

    @property
    def var(self) -> float:
        """The adjusted scores' variance (divided by deals, the likelihood's); nan if none."""
        return self.m2 / self.deals if self.deals else NAN

    @property
    def llr(self) -> float:
        """:func:`sprt_llr_scores` of the adjusted scores so far."""
        return sprt_llr_scores(self.deals, self.mean, self.var, self.elo0, self.elo1)

    @property
    def status(self) -> str:
        """H1 at or above the upper bound, H0 at or below the lower one, else continue
        (always before ``min_deals`` deals)."""
        if self.deals < self.min_deals:
            return "continue"
        llr = self.llr
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else "continue"

    def elo(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """A's Elo over B with its interval, from the adjusted scores' mean and variance."""
        n = self.deals
        if n < 1:
            return NAN, NAN, NAN
        if n < 2:
            return score_to_elo(self.mean), NAN, NAN
        half = z_quantile(confidence) * math.sqrt(self.m2 / (n - 1) / n)
        return (
            score_to_elo(self.mean),
            score_to_elo(self.mean - half),
            score_to_elo(self.mean + half),
        )

    def summary(self) -> dict[str, Any]:
        """The test's numbers (nan/inf as they are): status, LLR, bounds, deals, Elo, the
        coefficient and the raw mean beside the adjusted one."""
        return {
            **_summary(self),
            "score": self.mean if self.deals else NAN,
            "raw_score": self.raw_sum / self.deals if self.deals else NAN,
            "coef": self.coef,
            "deals_accounted": self.accounted,
        }
