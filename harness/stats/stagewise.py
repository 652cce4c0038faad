"""An estimate interval at the stop: exact for the design that stopped a comparison.

An adaptive comparison (:class:`~harness.stats.sequential_cs.PairSequence`) reports two
different intervals, and this module computes the second.

* **The verdict's interval** is a confidence sequence: valid at every look at once, at the
  run's Bonferroni level (1 - 0.05 / K for K comparisons). It decides the verdicts, and
  at the stop it covers far more often than 95% (99.96-100% measured: docs/tourney.md).
* **The estimate interval at the stop** (here) is a 95% interval for the same difference,
  exact (to the normal approximation of the batch sums) for the stopping rule that was
  actually run: it covers 95% of the time over the comparisons a design stops, wherever
  it stops them (measured 94.5-96.4% in resampled worlds: docs/tourney.md). It decides
  nothing: a verdict is never read from it.

**The design.** The looks are the comparison's batch ends, with the information the
batches gave: n_1 < n_2 < ... deals (a look before ``min_deals`` deals cannot stop; the
cap, ``deals:``, is the last look, where everything stops). The deal values x_d (A's
share minus 1/2, luck-adjusted with the coefficients as they were used) are taken to be
independent N(theta, sigma^2), sigma^2 the plug-in variance at the stop (the one the
verdict used there) as if it were known. On the scale u = S / sigma (S the sum of the
x_d), a look with n deals and the verdict's radius r (:func:`cs_radius` at that n and
sigma^2) stops with "a" when u > A = r n / sigma, with "b" when u < -A, with "tie" when
|u| < min(A, (zone - r) n / sigma) (the runner's :func:`pair_verdict`, whose "a" and "b"
come first); else it goes on.

**The ordering** (stagewise: Armitage, McPherson and Rowe 1969; Jennison and Turnbull,
*Group Sequential Methods*, 2000, ch. 8.4, extended to the three stopping regions). An
outcome is the look j it stopped at, its region and its mean. "a" stops rank above
everything else, an earlier one above a later one (at one look by the mean); "b" stops
rank below everything else, an earlier one below a later one; between them the ties
(at any look) and the cap's unsettled outcomes, ranked by their mean. With the design's
one look (a fixed sample) this is the order of the mean: the ordinary z interval. For an
"a" or "b" stop at look k only looks 1 .. k enter (stagewise's own property: the design
after the stop does not matter); a tie or an open comparison needs the design to the cap.

**The computation.** p(theta) = P_theta(an outcome above the observed one), by the
recursive numerical integration over looks (the density of u at each look on its
continuation region, convolved with the next increment's N(mu dn, dn), mu = theta /
sigma), on a grid of 1/16 of the smallest increment's sd, each grid cell's mass split
between regions by the part of the cell each holds. It is computed under five base
drifts mu_0, 3 standard errors apart, and tilted from the nearest to any other drift (the
path's likelihood ratio depends on u and n alone: exp((mu - mu_0) u - (mu^2 - mu_0^2) n /
2)), so that a tilt never lifts the grid's rounding noise. The bounds are the roots of
p(theta) = (1 - level) / 2 and (1 + level) / 2 (bisection, numpy only); the
median-unbiased estimate is the root of 1/2. With a tie region in the middle p need not
be monotone in theta, so the interval is the hull: the smallest theta where p reaches
(1 - level) / 2 to the largest where it is still below (1 + level) / 2, over a scan of
+-7.5 standard errors (a bound beyond it is reported infinite).

Everything is a pure function of the looks and the numbers at the stop: the same batches
give the same interval on any worker count, bit for bit on one machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats.sequential_cs import CS_MIN_DEALS, T_OPT, PairSequence, cs_radius

#: The level of the estimate interval at the stop (each comparison alone).
STOP_LEVEL = 0.95
#: Grid points per standard deviation of the smallest increment between looks.
_GRID_PER_SD = 16
#: The normal kernel's reach, in standard deviations of an increment.
_KERNEL_SDS = 9.0
#: The groups of outcomes, lowest first: "b" stops, the middle (ties and the cap's
#: unsettled outcomes), "a" stops.
_GROUPS = ("b", "middle", "a")
#: Masses below this part of a look's largest are set to 0 (the FFT's noise).
_NOISE = 1e-14
#: Where the recursion is computed (in standard errors of the estimate at the stop, from
#: it): every p(theta) is tilted from the nearest, at most 1.5 standard errors away.
_BASES = (-6.0, -3.0, 0.0, 3.0, 6.0)
#: The scan for the bounds, in standard errors from the estimate.
_SCAN = 7.5
_INF = math.inf


@dataclass(frozen=True)
class StoppingDesign:
    """A comparison's stopping rule on the scale u = S / sigma (the module docstring).

    ``looks``: the deals at each look, increasing, the last the cap; ``sd``: sigma;
    ``alpha``, ``zone``, ``t_opt``, ``min_deals``: the verdicts' own (``PairSequence``'s).
    """

    looks: tuple[int, ...]
    sd: float
    alpha: float
    zone: float
    t_opt: float = T_OPT
    min_deals: int = CS_MIN_DEALS

    def __post_init__(self) -> None:
        if not self.looks or np.any(np.diff(self.looks) <= 0):
            raise ValueError(f"looks {self.looks} must be increasing and not empty")
        if self.looks[0] < 1:
            raise ValueError("a look needs a deal")
        if not self.sd > 0:
            raise ValueError(f"sd {self.sd} must be positive")

    def bounds(self, j: int) -> tuple[float, float]:
        """(A, T) at look j: "a" above A, "b" below -A, "tie" within +-T (T = 0: no tie
        region); (inf, 0) where the look cannot stop."""
        n = self.looks[j]
        if n < self.min_deals:
            return _INF, 0.0
        r = cs_radius(n, self.sd * self.sd, self.alpha, self.t_opt)
        a = r * n / self.sd
        t = min(a, max(0.0, (self.zone - r) * n / self.sd))
        return a, t

    def regions(self, j: int) -> dict[str, list[tuple[float, float]]]:
        """The regions of look j (u scale): its stops, and "go" (to the next look; at the
        cap, "open": it stops there unsettled)."""
        a, t = self.bounds(j)
        go = [(-a, -t), (t, a)] if t > 0 else [(-a, a)]
        go = [(lo, hi) for lo, hi in go if hi > lo]
        out = {"a": [(a, _INF)], "b": [(-_INF, -a)], "tie": [(-t, t)] if t > 0 else []}
        out["open" if j == len(self.looks) - 1 else "go"] = go
        return out


def _cell_share(u: np.ndarray, h: float, lo: float, hi: float) -> np.ndarray:
    """The part of each grid cell [u - h/2, u + h/2] that lies in (lo, hi)."""
    return np.clip((np.minimum(u + h / 2, hi) - np.maximum(u - h / 2, lo)) / h, 0.0, 1.0)


def _share_in(
    u: np.ndarray, h: float, spans: list[tuple[float, float]], above: float
) -> np.ndarray:
    """The part of each cell in the union of ``spans`` above ``above``."""
    out = np.zeros_like(u)
    for lo, hi in spans:
        out += _cell_share(u, h, max(lo, above), hi)
    return out


@dataclass
class _Exits:
    """The base recursion's outcomes: per grid point that stops (or is still going at the
    last look computed), its u, its look's n, its mass under mu0, the part above the
    observed outcome."""

    u: np.ndarray
    n: np.ndarray
    mass: np.ndarray
    above: np.ndarray
    mu0: float

    def p(self, mu: float) -> float:
        """P_mu(above) / P_mu(everything), by the likelihood ratio from mu0."""
        logw = (mu - self.mu0) * self.u - (mu * mu - self.mu0 * self.mu0) * self.n / 2
        top = float(logw.max())
        w = np.exp(logw - top)
        total = float((w * self.mass).sum())
        return float((w * self.above).sum()) / total if total > 0 else math.nan


def _outcomes(design: StoppingDesign, stop: int, group: str, u_obs: float, mu0: float) -> _Exits:
    """The recursion under drift mu0 over the looks it needs (to ``stop`` for an "a" or
    "b" stop, to the cap for the middle), each stop region's mass and the part of it that
    ranks above the observed outcome (``group`` at look ``stop``, u ``u_obs``). Each look
    works on the window of the grid where the mass is not 0."""
    looks = np.asarray(design.looks, dtype=float)
    last = stop if group in ("a", "b") else len(looks) - 1
    steps = np.diff(np.concatenate([[0.0], looks[: last + 1]]))
    h = math.sqrt(float(steps.min())) / _GRID_PER_SD
    reach = max(
        min(design.bounds(j)[0], _KERNEL_SDS * math.sqrt(looks[j]) + abs(mu0) * looks[j])
        for j in range(last + 1)
    )
    margin = _KERNEL_SDS * math.sqrt(float(steps.max())) + abs(mu0) * float(steps.max())
    half = math.ceil((reach + margin) / h)
    u = np.arange(-half, half + 1) * h
    m_obs = u_obs / looks[stop]  # the observed mean, in u per deal
    us: list[np.ndarray] = []
    ns: list[np.ndarray] = []
    masses: list[np.ndarray] = []
    aboves: list[np.ndarray] = []
    kernels: dict[tuple[float, int], tuple[int, np.ndarray]] = {}
    lo, mass = 0, np.zeros(0)  # the window: mass of u[lo : lo + len(mass)]
    for j in range(last + 1):
        dn = float(steps[j])
        if j == 0:
            z = (u - mu0 * dn) / math.sqrt(dn)
            lo, mass = 0, np.exp(-z * z / 2) * h / math.sqrt(2 * math.pi * dn)
        else:
            lo, mass = _step(mass, lo, len(u), dn, mu0, h, kernels)
        nz = np.flatnonzero(mass > _NOISE * mass.max()) if len(mass) else mass
        if not len(nz):
            break
        lo, mass = lo + int(nz[0]), mass[nz[0] : nz[-1] + 1]
        uu = u[lo : lo + len(mass)]
        n = float(looks[j])
        go_share = None
        for name, spans in design.regions(j).items():
            if not spans:
                continue
            share = _share_in(uu, h, spans, -_INF)
            if name == "go":
                go_share = share
                if j < last:
                    continue
                # the computation ends here: what goes on ranks above a "b" stop, not an "a"
                above = share if group == "b" else np.zeros_like(share)
            else:
                above = _above_share(name, j, stop, group, uu, h, spans, m_obs * n)
            keep = share * mass > 0
            us.append(uu[keep])
            ns.append(np.full(int(keep.sum()), n))
            masses.append((share * mass)[keep])
            aboves.append((above * mass)[keep])
        if go_share is None:
            break
        mass = mass * go_share
    return _Exits(
        np.concatenate(us), np.concatenate(ns), np.concatenate(masses), np.concatenate(aboves), mu0
    )


def _step(
    mass: np.ndarray,
    lo: int,
    size: int,
    dn: float,
    mu0: float,
    h: float,
    kernels: dict[tuple[float, int], tuple[int, np.ndarray]],
) -> tuple[int, np.ndarray]:
    """The window's mass carried over an increment N(mu0 dn, dn), by numpy's FFT: the new
    window (its start on the grid of ``size`` points, its masses)."""
    reach = math.ceil((_KERNEL_SDS * math.sqrt(dn) + abs(mu0) * dn) / h)
    width = len(mass) + 2 * reach
    fft = 1 << (width - 1).bit_length()
    if (dn, fft) not in kernels:
        d = np.arange(-reach, reach + 1) * h
        z = (d - mu0 * dn) / math.sqrt(dn)
        kernel = np.exp(-z * z / 2) * h / math.sqrt(2 * math.pi * dn)
        kernels[dn, fft] = reach, np.fft.rfft(kernel, fft)
    reach, kernel_fft = kernels[dn, fft]
    out = np.fft.irfft(np.fft.rfft(mass, fft) * kernel_fft, fft)[:width]
    start = lo - reach  # out[0] is at grid point lo - reach
    a, b = max(0, -start), min(width, size - start)
    return start + a, np.maximum(out[a:b], 0.0)


def _above_share(
    name: str,
    j: int,
    stop: int,
    group: str,
    u: np.ndarray,
    h: float,
    spans: list[tuple[float, float]],
    threshold: float,
) -> np.ndarray:
    """The part of each cell of region ``name`` at look j that ranks above the observed
    outcome (``group`` at look ``stop``, whose mean is ``threshold`` / n at this look)."""
    mine = "middle" if name in ("tie", "open") else name
    rank, obs_rank = _GROUPS.index(mine), _GROUPS.index(group)
    if mine == "middle" and rank == obs_rank or j == stop and rank == obs_rank:  # by the mean
        return _share_in(u, h, spans, threshold)
    # another group; or an earlier "a" stop (higher), an earlier "b" stop (lower)
    higher = rank > obs_rank if rank != obs_rank else j < stop if mine == "a" else j > stop
    return _share_in(u, h, spans, -_INF) if higher else np.zeros_like(u)


def _tilts(design: StoppingDesign, stop: int, group: str, mean: float) -> Callable[[float], float]:
    """mu -> P_mu(above the observed outcome), each mu tilted from the nearest base."""
    if group not in _GROUPS:
        raise ValueError(f"group {group!r} is not one of {_GROUPS}")
    if not 0 <= stop < len(design.looks):
        raise ValueError(f"look {stop} is not one of the design's {len(design.looks)}")
    n = design.looks[stop]
    u_obs = mean * n / design.sd
    se, mu_hat = 1 / math.sqrt(n), mean / design.sd
    centres = [mu_hat + b * se for b in _BASES]
    bases = [_outcomes(design, stop, group, u_obs, c) for c in centres]

    def p(mu: float) -> float:
        nearest = min(range(len(centres)), key=lambda i: abs(centres[i] - mu))
        return bases[nearest].p(mu)

    return p


def stop_probability(
    design: StoppingDesign, stop: int, group: str, mean: float, thetas: Sequence[float]
) -> np.ndarray:
    """P_theta(an outcome ranked above the observed one) for each theta: the observed
    outcome is ``group`` ("a", "b" or "middle") at look ``stop`` with the mean ``mean`` of
    the deal values. (For the tests and benchmarks; :func:`stop_interval` inverts it.)"""
    p = _tilts(design, stop, group, mean)
    return np.array([p(float(t) / design.sd) for t in thetas])


def _root(f: Callable[[float], float], lo: float, hi: float, target: float, tol: float) -> float:
    """The point in [lo, hi] where the increasing-there f crosses target (bisection)."""
    flo = f(lo) - target
    for _ in range(80):
        if hi - lo <= tol:
            break
        mid = (lo + hi) / 2
        fm = f(mid) - target
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def stop_interval(
    design: StoppingDesign, stop: int, group: str, mean: float, level: float = STOP_LEVEL
) -> tuple[float, float, float]:
    """(low, median, high) of theta from an outcome at look ``stop`` (the module
    docstring): the stagewise interval at ``level`` and the median-unbiased estimate."""
    if not 0 < level < 1:
        raise ValueError(f"level {level} must lie between 0 and 1")
    p = _tilts(design, stop, group, mean)
    sd = design.sd
    se, mu_hat = 1 / math.sqrt(design.looks[stop]), mean / sd  # of mu = theta / sd
    scan = mu_hat + se * np.linspace(-_SCAN, _SCAN, 61)
    ps = np.array([p(float(m)) for m in scan])
    out = []
    for i, target in enumerate(((1 - level) / 2, 0.5, (1 + level) / 2)):
        # the hull: the lowest crossing for the lower bound, the highest for the upper
        reached = np.nonzero(ps >= target)[0] if i < 2 else np.nonzero(ps <= target)[0]
        k = -1 if not len(reached) else int(reached[0]) if i < 2 else int(reached[-1])
        if k < 0 or (i < 2 and k == 0) or (i == 2 and k == len(scan) - 1):  # beyond the scan
            out.append(-_INF if i < 2 else _INF)
            continue
        lo, hi = (scan[k - 1], scan[k]) if i < 2 else (scan[k], scan[k + 1])
        out.append(_root(p, float(lo), float(hi), target, se * 1e-3))
    low, median, high = (x * sd for x in out)
    return low, median, high


#: The group of outcomes each verdict is (an open comparison stopped at its cap).
_GROUP_OF = {"a": "a", "b": "b", "tie": "middle", "open": "middle"}


def sequence_design(seq: PairSequence, future: Sequence[int] = ()) -> tuple[StoppingDesign, int]:
    """The design that stopped ``seq`` and the look it stopped at: its looks (the deals
    after each batch fed, a batch that brought no deal merged with the one before), then,
    after a tie, ``future``: the deals the looks it would still have had would have held,
    up to the cap (a comparison still open was stopped by its cap: its last look is)."""
    looks: list[int] = []
    for n in seq.looks:
        if not looks or n > looks[-1]:
            looks.append(n)
    stop = len(looks) - 1
    if seq.settled == "tie":
        looks += [n for n in future if n > looks[-1]]
    sd = math.sqrt(seq.var)
    return StoppingDesign(tuple(looks), sd, seq.alpha, seq.zone, seq.t_opt, seq.min_deals), stop


def sequence_interval(
    seq: PairSequence, future: Sequence[int] = (), level: float = STOP_LEVEL
) -> dict[str, float]:
    """The estimate interval at the stop of ``seq`` on the share scale (A's head-to-head
    share: ``stop_low``, ``stop_high``, clipped to [0, 1] as the verdict's interval is) and
    the median-unbiased share ``stop_median`` (nan before a deal)."""
    if not seq.deals:
        return {"stop_low": math.nan, "stop_median": math.nan, "stop_high": math.nan}
    design, stop = sequence_design(seq, future)
    low, median, high = stop_interval(design, stop, _GROUP_OF[seq.settled], seq.mean, level)
    return {
        "stop_low": max(low + 0.5, 0.0),
        "stop_median": median + 0.5,
        "stop_high": min(high + 0.5, 1.0),
    }


__all__ = [
    "STOP_LEVEL",
    "StoppingDesign",
    "sequence_design",
    "sequence_interval",
    "stop_interval",
    "stop_probability",
]
