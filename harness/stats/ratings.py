"""Ratings from finishing orders: a Plackett-Luce model (Bradley-Terry with 2 players).

Finishing orders reduce to weighted choice events (:class:`ChoiceData`), fitted by
Newton's method to log-strengths reported on the Elo scale; the intervals are
cluster-robust (sandwich) with the deal as the cluster (:func:`pl_scores`,
:func:`sandwich_cov`; :mod:`harness.stats` says why the deal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from harness.stats.elo import ELO_PER_NAT


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
    :func:`sandwich_cov` for intervals clustered by deal. With two players per game the
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


def sandwich_cov(ratings: Ratings, meat: np.ndarray, deals: float) -> np.ndarray:
    """Cluster-robust covariance ``I^-1 B I^-1`` with the small-sample factor k/(k-1).

    ``meat`` is the sum over deals of the outer product of each deal's summed score
    vector (over games, for independent games); ``ratings.cov`` holds I^-1.
    """
    if deals < 2:
        return np.full_like(ratings.cov, np.nan)
    rated = np.flatnonzero(np.isfinite(ratings.theta))  # strategies without games stay nan
    bread = ratings.cov[np.ix_(rated, rated)]
    out = np.full_like(ratings.cov, np.nan)
    out[np.ix_(rated, rated)] = bread @ meat[np.ix_(rated, rated)] @ bread * deals / (deals - 1)
    return out
