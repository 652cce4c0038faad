"""Luck-adjusted ratio estimates: a control variate of mean zero, cross-fitted by deal.

A game-seat's outcome ``y`` (a win share, a worm margin, a head-to-head point) is partly
skill and partly the dice. The luck and skill account (:mod:`harness.analysis.account`)
measures the dice's part exactly as a *control* ``c`` whose expectation is zero whoever
plays (each roll's luck has mean zero given everything before it). So ``y - coef * c``
has the same expectation as ``y`` for any ``coef`` fixed independently of the game, and
for a well chosen one a much smaller variance: the same verdict from fewer games.

The controls (:func:`versus_others`, per game and seat):

* win share (first place, ties split): ``c = W_own - mean of the other seats' W``, W the
  seat's win-weighted luck (luck times the slope of a win model, fixed before each turn);
* worm margin (own worms - the mean of the others'): ``c = L_own - mean of the others' L``,
  L the seat's luck in worms;
* head to head (A's point when A finished ahead of B, a tie half): ``c = W_A - W_B``;
* a paired difference of two runs (twin games, ``b - a``): ``c = c_b - c_a``.

**The estimate.** As :class:`~harness.stats.Moments`, a ratio of sums over deals, a deal
(every game on one set of dice) the cluster: Y_d, M_d, C_d are deal d's totals of y, m
(games) and c, and the adjusted estimate is ``sum_d (Y_d - b_k C_d) / sum_d M_d``, with
b_k the coefficient of the deal's *fold* k (deal index mod ``folds``).

**The coefficient.** Linearised, the adjusted ratio's error is ``sum_d (e_d - b C_d) /
sum M`` with ``e_d = Y_d - r M_d`` (r the ratio), so its variance is proportional to
``E[(e - b C)^2]`` (E[C] = 0), a quadratic in b smallest at ``b = E[e C] / E[C^2]``,
estimated by ``b = sum_d e_d C_d / sum_d C_d^2 = (S_yc - r S_mc) / S_cc``. It uses that
E[C] = 0 is known (it does not centre C at its sample mean, which changes b by a term
that vanishes as deals grow), and a deal without the account (C_d = 0) adds nothing to
either sum: it does not enter the fit.

**Cross-fitting.** The b applied to fold k is fitted on the other folds only
(:meth:`ControlMoments.coefs`). Deals are independent, so b_k is independent of fold
k's dice and ``E[b_k sum_{d in k} C_d] = E[b_k] E[sum_{d in k} C_d] = 0``: the adjusted
estimate has exactly the raw one's expectation, by construction, whatever the sample
size (an in-sample b would not: it is fitted on the very C it multiplies). A fold whose
other folds hold no control (no account anywhere else, or ``folds=1``) gets b = 0: it
enters unadjusted.

**The interval.** The adjusted deal totals Y_d - b_k C_d are moments like any other
(:meth:`ControlMoments.adjusted` gives a :class:`~harness.stats.Moments`), so the
cluster-robust interval (``Moments.interval``, ``share_interval`` for shares) applies
as it is, the b_k taken as fixed (their own noise adds a term of relative order
1/deals; benchmarks/luck_coverage.py measures the coverage).

**Batch by batch.** Everything above is computed from additive sums per fold (the
:data:`CONTROL_FIELDS` of every deal of the fold), so a run of any size is reduced batch
by batch, as :class:`~harness.stats.Moments` are, and b follows for any batch split.
Games without the account have ``c`` nan: they count as c = 0 and are counted apart
(``sa``, the weight with the account; :attr:`ControlMoments.accounted`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats.intervals import NAN, Moments

#: Deals are cut into this many folds by deal index (deal mod folds): the coefficient of
#: one fold is fitted on the others.
FOLDS = 2
#: The sums kept per fold, over its deals (Y, M, C a deal's totals of y, m and c; A its
#: weight with the account): deals with weight, Y, M, C, Y^2, M^2, C^2, YM, YC, MC, A.
CONTROL_FIELDS = ("deals", "sy", "sm", "sc", "syy", "smm", "scc", "sym", "syc", "smc", "sa")
_F = {name: i for i, name in enumerate(CONTROL_FIELDS)}
_MOMENT_FIELDS = [_F[name] for name in ("deals", "sy", "sm", "syy", "smm", "sym")]


def versus_others(values: np.ndarray) -> np.ndarray:
    """Each seat's value minus the mean of the other seats' values in its game.

    ``values`` is (games, seats); a worm margin from worms, the win-share control from
    win-weighted luck, the margin's control from luck. nan stays nan.
    """
    x = np.asarray(values, dtype=float)
    n = x.shape[-1]
    if n < 2:
        raise ValueError("a game has two seats or more (R3)")
    return (n * x - x.sum(axis=-1, keepdims=True)) / (n - 1)


def win_control(
    wluck: np.ndarray, winluck: np.ndarray | None = None, winvec: np.ndarray | None = None
) -> np.ndarray:
    """The luck that controls a win share, per game and seat ((games, seats) in and out),
    the best one each game stored for every seat:

    * ``winvec`` (the vector, schema 6: each seat's part of every roll's win luck, its
      own rolls' and the others') scaled by (P - 1) / P, P the seats;
    * else ``winluck`` (the win-unit account's luck of the seat's own rolls, schema 5);
    * else ``wluck`` (worm luck times a normal-approximation slope: schema 4 parts,
      runs without ``luck: win``, native batches without an evaluator); nan where none
      was kept.

    Why the scaling: every reader takes the seats' controls against each other
    (:func:`versus_others`, or W_a - W_b head to head), and a game's vector sums to 0
    over its seats, so ``versus_others`` of v (P - 1) / P is v itself: the win share's
    control is the vector, which sees what a roll does to the seats that did not roll
    (at 3-4 players it takes out about 1.5 times more of the variance than winluck). At
    2 players v_0 = winluck_0 - winluck_1 = -v_1, so the control, taken against the
    other seat, is winluck's to rounding.

    Each is mean zero given the game before each roll, so a mixture of them per game
    keeps the adjusted estimate unbiased; its fitted coefficient is shared.
    """
    out = np.asarray(wluck, dtype=float)
    if winluck is not None:
        won = np.asarray(winluck, dtype=float)
        out = np.where(_stored(won), won, out)
    if winvec is not None:
        vec = np.asarray(winvec, dtype=float)
        seats = vec.shape[-1]
        out = np.where(_stored(vec), vec * ((seats - 1) / seats), out)
    return out


def _stored(values: np.ndarray) -> np.ndarray:
    """Per game (a trailing axis of one), whether every seat stored its value."""
    return ~np.isnan(values).any(axis=-1, keepdims=True)


def win_control_name(winluck: np.ndarray | None, winvec: np.ndarray | None = None) -> str:
    """Which control :func:`win_control` used, for a report to say so: "winvec",
    "winluck" or "wluck", or those of its games joined by "+" ("winvec+wluck"), best
    first; "wluck" without games."""
    used = []
    left: np.ndarray | None = None  # the games no better control took
    for name, values in (("winvec", winvec), ("winluck", winluck)):
        if values is None:
            continue
        stored = _stored(np.asarray(values, dtype=float))[..., 0]
        if left is None:
            left = np.ones_like(stored)
        if (stored & left).any():
            used.append(name)
        left = left & ~stored
    if left is None or left.any() or not left.size:
        used.append("wluck")
    return "+".join(used)


def win_points(ranks: np.ndarray) -> np.ndarray:
    """Each seat's share of first place (1 alone, 1/k shared by k, else 0): the standings'
    win share per game. ``ranks`` is (games, seats), 1 the best."""
    r = np.asarray(ranks)
    firsts = (r == 1).sum(axis=-1, keepdims=True)
    return np.where(r == 1, 1.0 / np.maximum(firsts, 1), 0.0)


def ahead(rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    """A's head-to-head point against B per game: 1 ahead, 1/2 tied, 0 behind."""
    a, b = np.asarray(rank_a), np.asarray(rank_b)
    return np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0))


def fold_of(deal: np.ndarray | int, folds: int = FOLDS) -> np.ndarray:
    """The fold of a deal: its index mod ``folds`` (a fixed rule: no outcome enters it)."""
    return np.mod(np.asarray(deal, dtype=np.int64), folds)


def unit_totals(
    deal: np.ndarray,
    key: np.ndarray,
    y: np.ndarray,
    c: np.ndarray,
    keys: int,
    m: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """Per unit (deal, key) with weight, in (deal, key) order: its deal, key and totals
    Y, M, C and A (the weight with the account) over its games: the one reduction of
    per-game values that :func:`control_rows` sums per fold and the sequential
    comparisons (:mod:`harness.stats.sequential_cs`) read deal by deal. ``c`` nan means
    the game has no account: it counts as 0, and its weight is not in A."""
    deal = np.asarray(deal, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    y = np.asarray(y, dtype=float)
    c = np.asarray(c, dtype=float)
    m = np.ones_like(y) if m is None else np.asarray(m, dtype=float)
    if len(y) == 0:
        empty = np.zeros(0)
        return empty.astype(np.int64), empty.astype(np.int64), empty, empty, empty, empty
    known = ~np.isnan(c)
    base = int(deal.min())
    flat, unit = np.unique((deal - base) * keys + key, return_inverse=True)
    unit = unit.ravel()
    unit_deal, unit_key = flat // keys + base, flat % keys
    big_y = np.bincount(unit, weights=y)
    big_m = np.bincount(unit, weights=m)
    big_c = np.bincount(unit, weights=np.where(known, c, 0.0))
    big_a = np.bincount(unit, weights=np.where(known, m, 0.0))
    return unit_deal, unit_key, big_y, big_m, big_c, big_a


def control_rows(
    deal: np.ndarray,
    key: np.ndarray,
    y: np.ndarray,
    c: np.ndarray,
    keys: int,
    m: np.ndarray | None = None,
    folds: int = FOLDS,
) -> np.ndarray:
    """The :data:`CONTROL_FIELDS` sums per key and fold from per-game values: (keys,
    folds, fields), to add up over batches and read with ``ControlMoments(rows[k])``.

    A unit is (deal, key): its totals Y, M, C over its games (:func:`unit_totals`), then
    summed per (key, fold of the deal). ``deal`` is the deal's number in the run (the
    fold is read off it, so never a batch's own cluster numbering: the folds would change
    with the batches). ``m`` is each game's weight (1 if not given); ``c`` nan means the
    game has no account: it counts as 0, and its weight is not in ``sa``. The games of
    one deal must come in one batch (as :func:`harness.runfolder.games.iter_games` gives
    them).
    """
    out = np.zeros((keys, folds, len(CONTROL_FIELDS)))
    if len(y) == 0:
        return out
    unit_deal, unit_key, big_y, big_m, big_c, big_a = unit_totals(deal, key, y, c, keys, m)
    cell = unit_key * folds + fold_of(unit_deal, folds)
    columns = (
        big_m > 0,
        big_y,
        big_m,
        big_c,
        big_y * big_y,
        big_m * big_m,
        big_c * big_c,
        big_y * big_m,
        big_y * big_c,
        big_m * big_c,
        big_a,
    )
    cells = out.reshape(keys * folds, len(CONTROL_FIELDS))
    for col, values in enumerate(columns):
        cells[:, col] = np.bincount(cell, weights=values.astype(float), minlength=keys * folds)
    return out


def seat_rows(
    deal: np.ndarray,
    strat: np.ndarray,
    y: np.ndarray,
    c: np.ndarray,
    strategies: int,
    folds: int = FOLDS,
) -> np.ndarray:
    """:func:`control_rows` per strategy from (games, seats) arrays: each seat's outcome
    ``y`` and control ``c`` counted for the strategy ``strat`` in that seat. The standings'
    win share is ``seat_rows(deal, strat, win_points(ranks), versus_others(wluck), p)``,
    the worm margin ``seat_rows(deal, strat, versus_others(worms), versus_others(luck), p)``.
    Returns (strategies, folds, fields)."""
    strat = np.asarray(strat)
    seats = strat.shape[1]
    return control_rows(
        np.repeat(np.asarray(deal), seats),
        strat.ravel(),
        np.asarray(y, dtype=float).ravel(),
        np.asarray(c, dtype=float).ravel(),
        strategies,
        folds=folds,
    )


def pair_points(
    deal: np.ndarray,
    strat: np.ndarray,
    ranks: np.ndarray,
    wluck: np.ndarray,
    strategies: int,
) -> tuple[np.ndarray, ...]:
    """Head to head, per game and pair of seats held by strategies a < b: (deal, key,
    point, control), key ``a * strategies + b``, the point a's against b (:func:`ahead`)
    and the control W_a - W_b (``wluck``, nan: no account). (games, seats) arrays in,
    flat arrays out: what :func:`pair_rows` sums per fold, and what the sequential
    comparisons read per deal (:func:`unit_totals`)."""
    strat, ranks = np.asarray(strat), np.asarray(ranks)
    wluck = np.asarray(wluck, dtype=float)
    deal = np.asarray(deal)
    p, seats = strategies, strat.shape[1]
    deals, keys, ys, cs = [], [], [], []
    for i in range(seats):
        for j in range(i + 1, seats):
            si, sj = strat[:, i], strat[:, j]
            differ = si != sj
            first = si < sj  # seat i holds the lower strategy index: its point as it is
            point = ahead(ranks[:, i], ranks[:, j])
            control = wluck[:, i] - wluck[:, j]
            deals.append(deal[differ])
            keys.append((np.minimum(si, sj) * p + np.maximum(si, sj))[differ])
            ys.append(np.where(first, point, 1.0 - point)[differ])
            cs.append(np.where(first, control, -control)[differ])
    return tuple(np.concatenate(part) for part in (deals, keys, ys, cs))


def pair_rows(
    deal: np.ndarray,
    strat: np.ndarray,
    ranks: np.ndarray,
    wluck: np.ndarray,
    strategies: int,
    folds: int = FOLDS,
) -> np.ndarray:
    """Head to head: for strategies a < b, a's point against b (:func:`ahead`) in every
    game and pair of seats where they both sit, with control W_a - W_b (``wluck``, nan:
    no account). (games, seats) arrays in; (strategies, strategies, folds, fields) out,
    row [a, b] for a < b (b's share against a is 1 minus a's)."""
    p = strategies
    rows = control_rows(*pair_points(deal, strat, ranks, wluck, p), p * p, folds=folds)
    return rows.reshape(p, p, folds, len(CONTROL_FIELDS))


@dataclass
class ControlMoments:
    """Per fold (row), the :data:`CONTROL_FIELDS` sums over its deals: everything the
    raw and the adjusted estimates, the coefficients and the intervals need.

    Moments of disjoint sets of deals add up (``+``), with the same number of folds.
    """

    rows: np.ndarray  # (folds, len(CONTROL_FIELDS))

    def __post_init__(self) -> None:
        self.rows = np.array(self.rows, dtype=float).reshape(-1, len(CONTROL_FIELDS))

    @classmethod
    def empty(cls, folds: int = FOLDS) -> ControlMoments:
        return cls(np.zeros((folds, len(CONTROL_FIELDS))))

    @classmethod
    def of(
        cls,
        y: Sequence[float] | np.ndarray,
        c: Sequence[float] | np.ndarray,
        m: Sequence[float] | np.ndarray | None = None,
        deal: Sequence[int] | np.ndarray | None = None,
        folds: int = FOLDS,
    ) -> ControlMoments:
        """Moments of games with outcomes ``y``, controls ``c`` (nan: no account) and
        weights ``m`` (1 each), clustered by ``deal`` (each game a deal of its own, in
        order, if not given)."""
        y = np.asarray(y, dtype=float)
        deal = np.arange(len(y)) if deal is None else np.asarray(deal)
        rows = control_rows(deal, np.zeros(len(y), dtype=np.int64), y, c, 1, m, folds)
        return cls(rows[0])

    def __add__(self, other: ControlMoments) -> ControlMoments:
        if self.rows.shape != other.rows.shape:
            raise ValueError("control moments of different fold counts do not add up")
        return ControlMoments(self.rows + other.rows)

    @property
    def folds(self) -> int:
        return len(self.rows)

    def flipped(self) -> ControlMoments:
        """The other side of a head-to-head point: y -> m - y and c -> -c per unit (b's
        share against a from a's), every sum transformed exactly."""
        r = self.rows.copy()
        f = _F
        sy, sm, sc = r[:, f["sy"]].copy(), r[:, f["sm"]].copy(), r[:, f["sc"]].copy()
        syy, smm, sym = r[:, f["syy"]].copy(), r[:, f["smm"]].copy(), r[:, f["sym"]].copy()
        syc, smc = r[:, f["syc"]].copy(), r[:, f["smc"]].copy()
        r[:, f["sy"]] = sm - sy
        r[:, f["sc"]] = -sc
        r[:, f["syy"]] = smm - 2 * sym + syy
        r[:, f["sym"]] = smm - sym
        r[:, f["syc"]] = syc - smc
        r[:, f["smc"]] = -smc
        return ControlMoments(r)

    def _sum(self, exclude: int | None = None) -> np.ndarray:
        keep = np.ones(self.folds, dtype=bool)
        if exclude is not None:
            keep[exclude] = False
        return self.rows[keep].sum(axis=0)

    @property
    def raw(self) -> Moments:
        """The unadjusted moments (y over m, clustered by deal)."""
        return Moments(*(float(v) for v in self._sum()[_MOMENT_FIELDS]))

    def fit(self, exclude: int | None = None) -> float:
        """The coefficient fitted on every fold but ``exclude`` (None: on all of them,
        in sample: for display, never applied): ``(S_yc - r S_mc) / S_cc``; nan when
        those folds have no weight or no control."""
        s = self._sum(exclude)
        sm, scc = s[_F["sm"]], s[_F["scc"]]
        if sm <= 0 or scc <= 0:
            return NAN
        r = s[_F["sy"]] / sm
        return float((s[_F["syc"]] - r * s[_F["smc"]]) / scc)

    @property
    def coef(self) -> float:
        """The in-sample coefficient over all folds (what the adjustment is worth per unit
        of control, for display); nan if undefined."""
        return self.fit()

    def coefs(self) -> np.ndarray:
        """The cross-fitted coefficient of each fold, fitted on the other folds only;
        0 where they hold no control (that fold enters unadjusted)."""
        out = np.array([self.fit(k) for k in range(self.folds)])
        return np.where(np.isnan(out), 0.0, out)

    def _coefs(self, coef: float | Sequence[float] | None) -> np.ndarray:
        if coef is None:
            return self.coefs()
        return np.broadcast_to(np.asarray(coef, dtype=float), (self.folds,))

    def adjusted(self, coef: float | Sequence[float] | None = None) -> Moments:
        """Moments of the adjusted deal totals Y - b C: the cross-fitted b per fold
        (None), or a given ``coef`` (one for all folds, or one per fold; 1 where the
        units allow it, 0 for none)."""
        return self._linear(1.0, coef)

    def correction(self, coef: float | Sequence[float] | None = None) -> Moments:
        """Moments of the adjustment itself, -b C per deal: its estimate is adjusted -
        raw, its standard error how far apart the two may fall by chance (the adjustment
        is unbiased when the estimate is within a few of it)."""
        return self._linear(0.0, coef)

    def _linear(self, u: float, coef: float | Sequence[float] | None) -> Moments:
        """Moments of u Y - b C per deal, exact from the sums of each fold (b is constant
        within a fold): sum (uY - bC)^2 = u^2 S_yy - 2 u b S_yc + b^2 S_cc, and so on."""
        b = self._coefs(coef)[:, None]
        col = {name: self.rows[:, [i]] for name, i in _F.items()}
        folds = np.hstack(
            [
                col["deals"],
                u * col["sy"] - b * col["sc"],
                col["sm"],
                u * u * col["syy"] - 2 * u * b * col["syc"] + b * b * col["scc"],
                col["smm"],
                u * col["sym"] - b * col["smc"],
            ]
        )
        return Moments(*(float(v) for v in folds.sum(axis=0)))

    @property
    def accounted(self) -> float:
        """The share of the weight (games) that had the account; nan with no weight."""
        s = self._sum()
        return float(s[_F["sa"]] / s[_F["sm"]]) if s[_F["sm"]] > 0 else NAN

    def gain(self, coef: float | Sequence[float] | None = None) -> float:
        """(raw se / adjusted se)^2: how many times the games the raw estimate needs for
        the adjusted one's precision; nan if either is undefined or the adjusted se is 0."""
        raw, adj = self.raw.se, self.adjusted(coef).se
        if math.isnan(raw) or math.isnan(adj) or adj == 0:
            return NAN
        return (raw / adj) ** 2
