"""Anytime-valid comparisons of two entrants from paired duplicate deals.

An adaptive tournament (and a racing sweep) looks at its comparisons again and again and
stops each as soon as it is settled. A fixed-sample interval looked at after every batch
is not a 95% interval any more: the chance that it excludes the truth at *some* look
grows with the looks. This module gives intervals that stay valid however often they are
looked at and whenever one stops: a *confidence sequence* (CS), a sequence of intervals
CI_1, CI_2, ... with P(the truth lies in every CI_t at once) >= 1 - alpha.

**The observations.** A comparison of A and B reads, deal by deal (a deal is one set of
duplicate dice in every seat order: :mod:`harness.game.seating`), A's head-to-head points
against B over the deal's games (1 ahead, 1/2 tied, 0 behind), the deal's totals Y, its
games M and, where the games kept the luck and skill account, the control C (the sum of
W_A - W_B, the seats' win-weighted luck: :mod:`harness.stats.luck`, whose
:func:`~harness.stats.luck.pair_points` and :func:`~harness.stats.luck.unit_totals` give
the three). A deal's value is

    x_d = (Y_d - b_t C_d) / M_d - 1/2,

A's head-to-head share over one half, its luck taken out by the coefficient b_t of the
batch t the deal belongs to. b_t is fitted (:meth:`ControlMoments.fit`, the report's own
fit) on the batches *before* t only, :data:`~harness.stats.sequential.PRIOR_COEF` before
any: it is predictable. Deals are independent (a deal's seed comes from the config seed
and its index alone), and E[C_d] = 0 whoever plays (docs/luck.md), so given everything
before batch t, E[x_d] = delta, A's expected head-to-head share minus 1/2, for every deal:
the x_d are martingale differences around one mean, delta. Without the account C_d = 0
and x_d is the raw share (bounded in [-1/2, 1/2]).

**The boundary.** Robbins' normal mixture: for increments with mean delta and variance
sigma^2, mixing exp(lam S_t - lam^2 V_t / 2) over lam ~ N(0, rho^2 / sigma^2) gives the
nonnegative martingale (1 + rho^2 t)^(-1/2) exp(rho^2 S_t^2 / (2 sigma^2 (1 + rho^2 t)))
(S_t the sum of x - delta, V_t = t sigma^2), and Ville's inequality bounds by alpha the
chance that it ever reaches 1/alpha. So with probability >= 1 - alpha, for every t at once,

    |mean_t - delta| <= sigma * sqrt(2 (t rho^2 + 1) / (t^2 rho^2)
                                     * log(sqrt(t rho^2 + 1) / alpha)).

That is exact for Gaussian increments of known sigma. Here sigma is not known: it is
replaced by the running estimate sigma_t (the deals' variance so far, with one pseudo-deal
of variance :data:`PRIOR_VAR`, the largest a share can have, so that a few equal deals
never give a zero width). That is the *asymptotic confidence sequence* of Waudby-Smith,
Arnold, Wu, Chang, Howard and Ramdas ("Time-uniform central limit theory and asymptotic
confidence sequences", Ann. Statist. 2024, Thm 2.2 for i.i.d. deals, the martingale
version for the luck-adjusted ones, whose conditional variance settles as b_t does):
its time-uniform coverage tends to 1 - alpha as the first look grows. It is therefore
*not* a finite-sample guarantee; the benchmarks measure the coverage
(benchmarks/adaptive_cs.py: docs/tourney.md), and a comparison is never settled before
``min_deals`` deals. rho is chosen so the boundary is tightest at ``t_opt`` deals:
rho^2 = (-2 log alpha + log(1 - 2 log alpha)) / t_opt; the width barely depends on it.

Why this and not an empirical-Bernstein CS: those are exact in finite samples but need
known bounds on x_d. The raw share has them; the luck-adjusted value has none worth the
name (a game's control is a sum of per-roll luck), and the luck adjustment saves 2.5-3x
the deals (docs/luck.md), far more than an exact bound's finite-sample care would cost
in looseness; one boundary serves both.

**Verdicts.** With the indifference zone +-``zone`` (of the head-to-head share:
:data:`SHARE_ZONE` is one point, :func:`zone_of_elo` converts Elo), the interval [lo, hi]
of delta at a look says: "a" (A ahead) when lo > 0, "b" when hi < 0, "tie" when
-zone < lo and hi < zone, else "open". While the CS covers delta each verdict is true:
"a" means delta > 0 and "tie" means |delta| < zone. A comparison is looked at only at
batch ends, a subset of the times the guarantee covers, so stopping there is optional
stopping it allows (and makes it conservative). A tournament of K comparisons gives each
alpha / K (Bonferroni): the chance that any of its intervals ever misses is <= alpha, so
every settled verdict of the run is right with probability >= 1 - alpha. Every delta
gets a verdict in finite time: delta != 0 a sign, delta = 0 a tie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from harness.stats.elo import elo_to_score
from harness.stats.intervals import NAN
from harness.stats.luck import ControlMoments
from harness.stats.sequential import PRIOR_COEF

#: One point of head-to-head share: the default indifference zone.
SHARE_ZONE = 0.01
#: The indifference zone in Elo, as the issue states it (+-10 Elo is +-1.44 points).
ELO_ZONE = 10.0
#: Deals at which the boundary is tightest (rho's choice); its width hardly depends on it.
T_OPT = 1000
#: The variance of one pseudo-deal added to the estimate: the largest a share in [0, 1]
#: has, so the width never collapses on a few equal deals.
PRIOR_VAR = 0.25
#: Deals before a comparison may be settled: the plug-in variance rests on this many.
CS_MIN_DEALS = 100
#: The verdicts: A ahead, B ahead, a tie within the zone, not settled yet.
VERDICTS = ("a", "b", "tie", "open")


def zone_of_elo(elo: float) -> float:
    """The indifference zone in head-to-head share of an Elo zone (10 Elo: 0.0144)."""
    return elo_to_score(elo) - 0.5


def cs_mixing(alpha: float, t_opt: float = T_OPT) -> float:
    """rho^2 of the normal mixture that makes the boundary tightest at ``t_opt`` deals."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha} must lie strictly between 0 and 1")
    if t_opt <= 0:
        raise ValueError(f"t_opt {t_opt} must be positive")
    two_log = -2 * math.log(alpha)
    return (two_log + math.log(1 + two_log)) / t_opt


def cs_radius(n: float, var: float, alpha: float, t_opt: float = T_OPT) -> float:
    """The half-width of the confidence sequence of a mean after ``n`` deals whose
    variance is ``var`` (the normal-mixture boundary; inf before a deal)."""
    if n < 1 or math.isnan(var):
        return math.inf
    rho2 = cs_mixing(alpha, t_opt)
    v = n * rho2 + 1
    return math.sqrt(max(var, 0.0) * 2 * v / (n * n * rho2) * math.log(math.sqrt(v) / alpha))


def pair_verdict(low: float, high: float, zone: float) -> str:
    """What an interval [low, high] of delta (A's share minus 1/2) settles (:data:`VERDICTS`)."""
    if low > 0:
        return "a"
    if high < 0:
        return "b"
    if -zone < low and high < zone:
        return "tie"
    return "open"


@dataclass
class PairSequence:
    """A running anytime-valid comparison of A and B (the module docstring derives it).

    Feed it whole batches of deals in a fixed order (:meth:`add_batch`), then look
    (:meth:`check`). The first look that is not "open" settles it: the verdict, the
    deals and the interval are kept as they were then, and later batches are ignored.
    Everything is a function of the batches in order: the same batches, the same
    verdict, bit for bit.
    """

    alpha: float = 0.05
    zone: float = SHARE_ZONE
    t_opt: float = T_OPT
    min_deals: int = CS_MIN_DEALS
    deals: int = field(default=0, init=False)
    mean: float = field(default=0.0, init=False)  # of x (delta's estimate)
    m2: float = field(default=0.0, init=False)  # sum of squared deviations of x
    moments: ControlMoments = field(default_factory=ControlMoments.empty, init=False)
    coefs: list[float] = field(default_factory=list, init=False)  # b of each batch fed
    looks: list[int] = field(default_factory=list, init=False)  # deals after each batch fed
    settled: str = field(default="open", init=False)
    settled_deals: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        cs_mixing(self.alpha, self.t_opt)  # checks both
        if not self.zone >= 0:
            raise ValueError(f"zone {self.zone} must be 0 or more")

    @property
    def coef(self) -> float:
        """The coefficient the next batch is adjusted with: fitted on the batches so far
        (the report's fit), :data:`PRIOR_COEF` while they hold no control."""
        fit = self.moments.fit()
        return PRIOR_COEF if math.isnan(fit) else fit

    def add_batch(
        self,
        deal: np.ndarray,
        y: np.ndarray,
        m: np.ndarray,
        c: np.ndarray | None = None,
    ) -> None:
        """One batch of deals: per deal, A's points Y against B, the games M and the
        control C (nan or None: no account). Deals without games are skipped. Ignored
        once the comparison is settled."""
        if self.settled != "open":
            return
        deal = np.asarray(deal, dtype=np.int64)
        y, m = np.asarray(y, dtype=float), np.asarray(m, dtype=float)
        c = np.full(len(y), NAN) if c is None else np.asarray(c, dtype=float)
        keep = m > 0
        deal, y, m, c = deal[keep], y[keep], m[keep], c[keep]
        b = self.coef
        self.coefs.append(b)
        x = (y - b * np.where(np.isnan(c), 0.0, c)) / m - 0.5
        n = len(x)
        if n:  # Chan's update of the running mean and squared deviations
            mean = float(x.mean())
            m2 = float(((x - mean) ** 2).sum())
            total = self.deals + n
            delta = mean - self.mean
            self.m2 += m2 + delta * delta * self.deals * n / total
            self.mean += delta * n / total
            self.deals = total
            self.moments = self.moments + ControlMoments.of(y, c, m, deal)
        self.looks.append(self.deals)  # every batch fed is looked at (the stopping design)

    @property
    def var(self) -> float:
        """The deals' variance with one pseudo-deal of :data:`PRIOR_VAR`."""
        return (self.m2 + PRIOR_VAR) / (self.deals + 1)

    def interval(self) -> tuple[float, float]:
        """The confidence sequence's interval of delta now ((-inf, inf) before a deal)."""
        if self.deals == 0:
            return -math.inf, math.inf
        r = cs_radius(self.deals, self.var, self.alpha, self.t_opt)
        return self.mean - r, self.mean + r

    def check(self) -> str:
        """Look: the verdict now (latched once settled); "open" before ``min_deals``."""
        if self.settled != "open" or self.deals < self.min_deals:
            return self.settled
        self.settled = pair_verdict(*self.interval(), self.zone)
        if self.settled != "open":
            self.settled_deals = self.deals
        return self.settled

    @property
    def share(self) -> float:
        """A's head-to-head share estimate (luck-adjusted where the account is kept)."""
        return self.mean + 0.5 if self.deals else NAN

    def summary(self) -> dict[str, float | int | str]:
        """Its numbers for a report: verdict, deals, share and its interval, coefficient."""
        low, high = self.interval()
        return {
            "verdict": self.settled,
            "deals": self.deals,
            "share": self.share,
            # the share lies in [0, 1]: an interval clipped to it covers when it did
            "low": max(low + 0.5, 0.0),
            "high": min(high + 0.5, 1.0),
            "coef": self.coefs[-1] if self.coefs else NAN,
        }


__all__ = [
    "ELO_ZONE",
    "CS_MIN_DEALS",
    "PRIOR_VAR",
    "SHARE_ZONE",
    "T_OPT",
    "VERDICTS",
    "PairSequence",
    "cs_mixing",
    "cs_radius",
    "pair_verdict",
    "zone_of_elo",
]
