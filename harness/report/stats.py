"""Pure statistics for reports and SPRT: intervals, ratings and sequential tests.

No I/O and no pandas here: functions take counts and sums (the aggregates a run of any
size reduces to) and return numbers. Undefined results are ``nan``, never a made-up
number; callers show them as a dash.

Every interval that aggregates games (standings, ratings, head-to-head, seat advantage,
the convergence curve) treats a deal of the whole run as its unit: all the games of deal
d, at every table and in every seat order, are one cluster. Why, for either dice mode:

* duplicate dice: every seat order of deal d sees the same dice, and since issue 10 so
  does every table (deal d's seed comes from the config seed and d only). A strategy's
  results at its tables are then correlated through the shared deal: clustering by
  (table, deal) would count one lucky deal as independent luck at each table and make the
  intervals too narrow (benchmarks/coverage.py measures by how much).
* independent dice: seat order k of deal d draws one stream, the same at every table, so
  the games of (deal d, order k) at different tables share their dice just as well; games
  of one deal in other orders do not, but grouping them in the deal's cluster costs
  nothing measurable (a cluster coarser than the dependence is still valid; it only
  leaves fewer degrees of freedom, and runs have hundreds of deals) and keeps one rule.

The estimate is a ratio of sums over deals and its variance the cluster-robust
(linearised ratio) variance, with a t quantile on deals - 1 degrees of freedom, as the
game pairs of chess engine testing are treated. Moments of disjoint sets of deals add
up, so a run is reduced batch by batch (:mod:`harness.report.aggregate`). Runs stored
before issue 10 (deal seeds per table) are clustered by deal too, which is conservative
there. A plain Wilson interval over games (``share_interval(m, blocks=False)``) is
kept for callers that have truly independent games.

Ratings are a Plackett-Luce model fitted to finishing orders (with two players it is
Bradley-Terry), reported on the Elo scale, with cluster-robust (sandwich) intervals, the
deal being the cluster.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

_NORMAL = NormalDist()


def _z(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence``."""
    return _NORMAL.inv_cdf(0.5 + confidence / 2)


def _t(confidence: float, df: int) -> float:
    """The two-sided Student t quantile (scipy, imported on first use: it is slow to load)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + confidence / 2))


Z95 = _z(0.95)
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-strength
NAN = float("nan")


# -- intervals ---------------------------------------------------------------------------
def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a share ``successes / n`` (successes may be fractional).

    ``(nan, nan)`` when ``n`` is 0.
    """
    if n <= 0:
        return NAN, NAN
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low = 0.0 if p <= 0 else max(0.0, centre - half)  # exact ends, not rounding noise
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


@dataclass
class Moments:
    """Sums over units (games or deals) of a ratio statistic ``sum(y) / sum(m)``.

    ``y`` is a unit's total (points, worms) and ``m`` its weight (games); the sums of
    squares and cross products make the cluster-robust variance exact to compute from
    additive pieces, so moments of parts of a run simply add up.
    """

    units: float = 0.0
    sy: float = 0.0
    sm: float = 0.0
    syy: float = 0.0
    smm: float = 0.0
    sym: float = 0.0

    @classmethod
    def of(cls, y: Iterable[float], m: Iterable[float] | None = None) -> Moments:
        """Moments of units with totals ``y`` and weights ``m`` (1 each if not given)."""
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
            self.units + other.units,
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
        """Cluster-robust standard error of the ratio; nan with fewer than two units."""
        k = self.units
        if k < 2 or self.sm <= 0:
            return NAN
        r = self.estimate
        ss = self.syy - 2 * r * self.sym + r * r * self.smm
        return math.sqrt(max(ss, 0.0) * k / (k - 1)) / self.sm

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """t interval on units - 1 degrees of freedom; (nan, nan) if undefined."""
        se = self.se
        if math.isnan(se):
            return NAN, NAN
        t = _t(confidence, self.units - 1)
        r = self.estimate
        return r - t * se, r + t * se


def share_interval(m: Moments, blocks: bool, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for a share in [0, 1]: Wilson, on the effective number of games for blocks.

    ``blocks``: the moments' units are deal clusters (what reports pass, see the module
    docstring); False: they are independent games. The games of a deal are not
    independent, so the binomial count
    is replaced by the effective sample size p(1-p)/se^2 from the cluster-robust standard
    error (Kish's design effect), scaled by (z/t)^2 on deals - 1 degrees of freedom (Korn
    and Graubard's interval for clustered samples). This keeps Wilson's good behaviour
    at shares near 0 or 1; at exactly 0 or 1 the deals count as the trials.
    """
    if not blocks:
        return wilson(m.sy, m.sm, confidence)
    p, se, k = m.estimate, m.se, m.units
    if math.isnan(se):
        return NAN, NAN
    z = _z(confidence)
    t = _t(confidence, k - 1)
    if p <= 0 or p >= 1:
        n_eff = k
    elif se == 0:
        return p, p  # every deal gave exactly the same share: nothing varies
    else:
        n_eff = p * (1 - p) / (se * se)
    n_eff *= (z / t) ** 2
    return wilson(p * n_eff, n_eff, confidence)


def share_se(m: Moments, blocks: bool) -> float:
    """Standard error of a share, read off its 95% interval (half-width / 1.96).

    Consistent with the interval shown, and never 0 at a share of 0 or 1, so tests and
    likelihoods of superiority built on it are not overconfident.
    """
    lo, hi = share_interval(m, blocks)
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


# -- Elo ---------------------------------------------------------------------------------
def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference giving expected ``score``; +-inf at 1 and 0, nan if undefined."""
    if math.isnan(score):
        return NAN
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


# -- Plackett-Luce / Bradley-Terry ratings -----------------------------------------------
@dataclass
class ChoiceData:
    """Finishing orders reduced to weighted choice events (the model's sufficient data).

    An event says "``chosen`` finished ahead of everyone else in ``pool``": each place
    of a finishing order is one event, chosen from the players not yet placed. ``pool``
    is a sorted tuple of strategy indices (repeats allowed) that includes ``chosen``.
    Players tied for a place (R11 draws) each get an event from the same pool with
    weight 1/ties (they share the place); the last place says nothing and is skipped.
    """

    strategies: int
    weights: dict[tuple[int, tuple[int, ...]], float] = field(default_factory=dict)

    def add(self, chosen: int, pool: tuple[int, ...], weight: float) -> None:
        key = (chosen, pool)
        self.weights[key] = self.weights.get(key, 0.0) + weight

    def add_order(self, strategies: Sequence[int], ranks: Sequence[int]) -> None:
        """Add one game: seat strategies and their ranks (1 = best, ties share)."""
        for chosen, pool, weight in choice_events(strategies, ranks):
            self.add(chosen, pool, weight)

    def merge(self, other: ChoiceData) -> None:
        for key, w in other.weights.items():
            self.weights[key] = self.weights.get(key, 0.0) + w


def choice_events(
    strategies: Sequence[int], ranks: Sequence[int]
) -> list[tuple[int, tuple[int, ...], float]]:
    """The Plackett-Luce events of one finishing order (see :class:`ChoiceData`)."""
    events = []
    for i, ri in enumerate(ranks):
        if not any(rj > ri for rj in ranks):
            continue  # last place (alone or shared): no choice left to explain
        tied = sum(rj == ri for rj in ranks)
        pool = tuple(sorted(s for s, rj in zip(strategies, ranks, strict=True) if rj >= ri))
        events.append((strategies[i], pool, 1.0 / tied))
    return events


@dataclass
class Ratings:
    """Fitted log-strengths (mean zero) and their covariance; Elo via ``elo``."""

    theta: np.ndarray
    cov: np.ndarray
    model: str
    converged: bool

    @property
    def elo(self) -> np.ndarray:
        return self.theta * ELO_PER_NAT

    @property
    def elo_se(self) -> np.ndarray:
        return np.sqrt(np.clip(np.diag(self.cov), 0, None)) * ELO_PER_NAT


def _design(data: ChoiceData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Events as arrays: chosen index, pool multiplicity matrix, weight."""
    keys = list(data.weights)
    chosen = np.array([c for c, _ in keys], dtype=np.int64)
    mult = np.zeros((len(keys), data.strategies))
    for row, (_, pool) in enumerate(keys):
        for s in pool:
            mult[row, s] += 1
    weights = np.array([data.weights[k] for k in keys])
    return chosen, mult, weights


def _probabilities(theta: np.ndarray, mult: np.ndarray) -> np.ndarray:
    expo = mult * np.exp(theta - theta.max())
    return expo / expo.sum(axis=1, keepdims=True)


def pl_loglik(theta: np.ndarray, data: ChoiceData) -> float:
    """Plackett-Luce log-likelihood of the events at log-strengths ``theta``."""
    return _loglik(np.asarray(theta, dtype=float), *_design(data))


def present(data: ChoiceData) -> list[int]:
    """The strategies that appear in some event (the ones a fit can rate)."""
    return sorted({s for _, pool in data.weights for s in pool})


def connected(data: ChoiceData) -> bool:
    """Whether every strategy with games is linked to every other through shared games."""
    n = data.strategies
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for _, pool in data.weights:
        for s in pool[1:]:
            parent[find(s)] = find(pool[0])
    return len({find(s) for s in present(data)}) == 1


def with_virtual_draws(data: ChoiceData, draws: float = 1.0) -> ChoiceData:
    """The data plus ``draws`` virtual drawn 2-player games per pair that met.

    The prior BayesElo uses: it keeps a strategy that won (or lost) every game at a
    finite rating and costs nothing measurable once there are real games.
    """
    out = ChoiceData(data.strategies, dict(data.weights))
    pairs = set()
    for _, pool in data.weights:
        members = sorted(set(pool))
        pairs.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    for a, b in sorted(pairs):
        out.add(a, (a, b), draws / 2)
        out.add(b, (a, b), draws / 2)
    return out


def fit_plackett_luce(data: ChoiceData, *, prior_draws: float = 1.0) -> Ratings:
    """Maximum-likelihood Plackett-Luce log-strengths (mean zero) by Newton's method.

    ``cov`` is the inverse observed information (model-based); replace it with
    :func:`sandwich_cov` when units are clustered. With two players per game the
    model is Bradley-Terry.
    """
    rated = present(data)
    if len(rated) < data.strategies:  # fit the strategies with games; nan for the rest
        index = {s: i for i, s in enumerate(rated)}
        sub = ChoiceData(len(rated))
        for (chosen, pool), w in data.weights.items():
            sub.add(index[chosen], tuple(index[s] for s in pool), w)
        part = fit_plackett_luce(sub, prior_draws=prior_draws)
        theta = np.full(data.strategies, np.nan)
        cov = np.full((data.strategies, data.strategies), np.nan)
        theta[rated] = part.theta
        cov[np.ix_(rated, rated)] = part.cov
        return Ratings(theta, cov, part.model, part.converged)
    p = data.strategies
    fitted = with_virtual_draws(data, prior_draws) if prior_draws else data
    chosen, mult, weights = _design(fitted)
    theta = np.zeros(p)
    ones = np.ones((p, p)) / p  # fixes the free direction (strengths add a constant)
    converged = False
    loglik = _loglik(theta, chosen, mult, weights)
    for _ in range(100):
        grad, info = _grad_info(theta, chosen, mult, weights)
        step = np.linalg.solve(info + ones, grad)
        scale = 1.0
        while scale > 1e-6:  # backtracking keeps every step an ascent
            trial = theta + scale * step
            trial -= trial.mean()
            new = _loglik(trial, chosen, mult, weights)
            if new >= loglik - 1e-12:
                break
            scale /= 2
        theta, loglik = trial, new
        if np.abs(scale * step).max() < 1e-10:
            converged = True
            break
    _, info = _grad_info(theta, chosen, mult, weights)
    cov = np.linalg.pinv(info, hermitian=True)
    model = "Bradley-Terry" if all(len(pool) == 2 for _, pool in data.weights) else "Plackett-Luce"
    return Ratings(theta, cov, model, converged)


def _loglik(theta, chosen, mult, weights) -> float:
    probs = _probabilities(theta, mult)
    return float((weights * np.log(probs[np.arange(len(chosen)), chosen])).sum())


def _grad_info(theta, chosen, mult, weights) -> tuple[np.ndarray, np.ndarray]:
    probs = _probabilities(theta, mult)
    p = len(theta)
    grad = np.bincount(chosen, weights=weights, minlength=p) - weights @ probs
    weighted = probs * weights[:, None]
    info = np.diag(weighted.sum(axis=0)) - probs.T @ weighted
    return grad, info


def pl_scores(
    theta: np.ndarray, strategies: np.ndarray, ranks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-game score vectors of the Plackett-Luce log-likelihood, sparse.

    ``strategies`` and ``ranks`` are (games, seats) arrays. Returns (game row,
    strategy, value) triples whose sums per game are the gradient contributions: what
    the sandwich variance adds up by deal.
    """
    games, seats = strategies.shape
    expo = np.exp(theta - theta.max())[strategies]
    rows, cols, vals = [], [], []
    idx = np.arange(games)
    for i in range(seats):
        ri = ranks[:, [i]]
        in_pool = ranks >= ri
        active = (ranks > ri).any(axis=1)
        weight = active / (ranks == ri).sum(axis=1)
        pool_expo = np.where(in_pool, expo, 0.0)
        share = pool_expo / pool_expo.sum(axis=1, keepdims=True)
        rows.append(idx)
        cols.append(strategies[:, i])
        vals.append(weight)
        for j in range(seats):
            rows.append(idx)
            cols.append(strategies[:, j])
            vals.append(-weight * share[:, j])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)


def sandwich_cov(ratings: Ratings, meat: np.ndarray, units: float) -> np.ndarray:
    """Cluster-robust covariance ``I^-1 B I^-1`` with the small-sample factor k/(k-1).

    ``meat`` is the sum over units (deals or games) of the outer product of each
    unit's summed score vector; ``ratings.cov`` holds I^-1.
    """
    if units < 2:
        return np.full_like(ratings.cov, np.nan)
    rated = np.flatnonzero(np.isfinite(ratings.theta))  # strategies without games stay nan
    bread = ratings.cov[np.ix_(rated, rated)]
    out = np.full_like(ratings.cov, np.nan)
    out[np.ix_(rated, rated)] = bread @ meat[np.ix_(rated, rated)] @ bread * units / (units - 1)
    return out


# -- SPRT --------------------------------------------------------------------------------
def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: accept H0 below, H1 above."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"alpha and beta must lie strictly between 0 and 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def block_outcomes(games_per_block: int) -> np.ndarray:
    """The possible scores of a block: multiples of 1/(2 g) in [0, 1] (ties are halves).

    Two games per block give the pentanomial outcomes 0, 1/4, 1/2, 3/4, 1.
    """
    return np.arange(2 * games_per_block + 1) / (2 * games_per_block)


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

    ``counts[k]`` is how many blocks scored ``k / (2 g)`` (``len(counts) = 2 g + 1``
    for ``g`` games per block; pentanomial when g = 2). The block, not the game, is the
    unit: its games share dice, so their results are not independent. Each hypothesis
    is the outcome distribution of largest likelihood whose mean score is
    ``elo_to_score(elo)``; the LLR is the log ratio of the two (the multinomial GSPRT of
    chess engine testing). ``prior`` pseudo-blocks per outcome keep it finite early on.
    """
    n = np.asarray(counts, dtype=float)
    if n.ndim != 1 or len(n) < 3 or len(n) % 2 == 0:
        raise ValueError("counts: one count per block outcome, 2 * games_per_block + 1 of them")
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


def block_elo(counts: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Elo estimate with interval from block outcome counts: (elo, low, high)."""
    n = np.asarray(counts, dtype=float)
    total = n.sum()
    if total < 1:
        return NAN, NAN, NAN
    values = np.arange(len(n)) / (len(n) - 1)
    mean = float((n * values).sum() / total)
    if total < 2:
        return score_to_elo(mean), NAN, NAN
    var = float((n * (values - mean) ** 2).sum() / (total - 1))
    half = _z(confidence) * math.sqrt(var / total)
    return score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half)


@dataclass
class Sprt:
    """A running sequential probability ratio test of A against B on blocks.

    Feed it block outcomes in a fixed order (``add``); ``status`` is "H0", "H1" or
    "continue". A block is one deal in every seat order; its score is A's share of
    the block's games where A finished ahead of B (ties count half).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    games_per_block: int = 2
    counts: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        self.lower, self.upper = sprt_bounds(self.alpha, self.beta)
        if self.counts is None:
            self.counts = np.zeros(2 * self.games_per_block + 1)

    def add(self, block_score: float, count: int = 1) -> None:
        """Add ``count`` blocks that scored ``block_score`` (a multiple of 1/(2 g))."""
        k = round(block_score * 2 * self.games_per_block)
        if abs(k - block_score * 2 * self.games_per_block) > 1e-9 or not 0 <= k < len(self.counts):
            raise ValueError(f"block score {block_score} is not a possible outcome")
        self.counts[k] += count

    @property
    def blocks(self) -> int:
        return int(self.counts.sum())

    @property
    def games(self) -> int:
        return self.blocks * self.games_per_block

    @property
    def llr(self) -> float:
        return sprt_llr(self.counts, self.elo0, self.elo1)

    @property
    def status(self) -> str:
        llr = self.llr
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else "continue"

    def summary(self) -> dict[str, float | int | str]:
        elo, lo, hi = block_elo(self.counts)
        return {
            "status": self.status,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "blocks": self.blocks,
            "games": self.games,
            "elo": elo,
            "elo_low": lo,
            "elo_high": hi,
            "counts": [int(c) for c in self.counts],
        }


def block_score(ahead: Sequence[float]) -> float:
    """A block's score from A's per-game results against B (1 ahead, 0.5 tie, 0 behind)."""
    return float(sum(ahead)) / len(ahead)
