"""SPSA on paired duplicate-dice games: the tuner's method, pure (no I/O, no games).

**The method.** Simultaneous perturbation stochastic approximation (Spall 1992), as
fishtest tunes engines: the parameters live in the unit cube (each range [LO, HI] mapped
to [0, 1]); at iteration k every parameter is moved by +c_k or -c_k at once (the signs
``delta``, a fair coin each, from the seed and k alone), the two points play the same
deals against the field, and the difference f(u+) - f(u-) of their win shares over the
gap between them is the gradient's estimate along every axis. The step is
u_{k+1} = clip(u_k + a_k g_k / s_k) with Spall's gains a_k = a / (A + k + 1)^0.602 and
c_k = c / (k + 1)^0.101. The answer is the mean of the iterates of the second half
(Polyak-Ruppert averaging): the last iterate jitters with the noise of its last steps;
the average does not, and it converges at the best rate the noise allows.

**Scale-free steps.** s_k is the root mean square of the differences so far (this one
included, :func:`scale`): a step is a_k times the difference in units of the typical
difference, whatever the surface's scale. Spall's plain step (s_k = 1) needs ``a``
matched to the slope: a gain that suits threshold's target (2 to 8 points of win share a
value) barely moves a parameter worth a point over its whole range, where the noise of
an iteration is a few points; measured in its own root mean square, every tune's first
steps are about a_0 / gap, and a surface's slope shows as the share of steps that agree.

**Plateaus.** Where both points lie in one flat cell of the surface (a parameter
compared with a whole number of dice; a range where the bot plays alike) they play
identical games, deal for deal, and the difference is exactly 0: the tune would never
move. After such an iteration the perturbation doubles (:func:`widening`; at most
:data:`MAX_PERTURBATION` of each range), and after one whose games differed it shrinks
back by :data:`SHRINK`, never below the schedule: the points straddle the flat cell
until the tune has left it, then the perturbation returns to c_k, whose smaller gap
keeps the end of the tune near the best cell rather than astride it.

**Why SPSA, and why here.** A step costs two evaluations whatever the number of
parameters (one for six is the same price as one for one); it needs no model of the
response surface (Bayesian optimisation, CLOP) and no grid (NTBEA, racing a sweep,
which grows as the product of the ranges). Its weak point is noise in the difference,
and duplicate dice are exactly what removes it: u+ and u- play the same dice in the same
seats against the same opponents, so the luck common to both cancels in the difference
(common random numbers), and the luck account takes out much of the rest (the
difference's control C+ - C-, with a coefficient fitted on the iterations before: it is
predictable, so the step stays an unbiased gradient estimate; docs/luck.md).

**Integers.** An integer parameter plays its point rounded, and its perturbation is at
least one step of the integer (else u+ and u- would often round to the same value and
the difference would say nothing). The gradient is taken over the gap actually played
(after clipping to the cube and rounding): a gap of 0 gives no step on that axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALPHA = 0.602  # Spall's exponents of the gains: the asymptotically efficient pair
GAMMA = 0.101
#: A perturbation grows this much for every iteration just before whose two points
#: played identical games (a plateau), up to :data:`MAX_PERTURBATION` of each range.
GROWTH = 2.0
SHRINK = 1.25
MAX_PERTURBATION = 0.5
#: The tuner's own salt in the perturbations' seed: not a deal seed's.
PERTURB_SALT = 0x5B5A


@dataclass(frozen=True)
class Gains:
    """SPSA's gains in unit-cube terms: ``a`` the step per unit of scaled gradient (the
    difference in units of its root mean square, per range), ``c`` the perturbation (a
    share of each range), ``stability`` Spall's A."""

    a: float = 0.08
    c: float = 0.1
    stability: float = 5.0

    def step(self, k: int) -> float:
        return self.a / (self.stability + k + 1) ** ALPHA

    def perturbation(self, k: int, widening: float = 1.0) -> float:
        """c_k, times ``widening`` (:func:`widening`), at most :data:`MAX_PERTURBATION`."""
        c = self.c / (k + 1) ** GAMMA
        return c if widening == 1.0 else min(MAX_PERTURBATION, c * widening)

    def to_dict(self) -> dict[str, float]:
        return {"a": self.a, "c": self.c, "stability": self.stability}


def signs(seed: int, k: int, dims: int) -> np.ndarray:
    """Iteration k's perturbation signs: +1 or -1 per parameter, from the seed and k."""
    rng = np.random.default_rng([PERTURB_SALT, seed, k])
    return np.where(rng.random(dims) < 0.5, -1.0, 1.0)


def widening(identical: list[bool]) -> float:
    """The perturbation's factor after these iterations: times :data:`GROWTH` after one
    whose two points played identical games (both in one flat cell), divided by
    :data:`SHRINK` after one that did not, never below 1."""
    factor = 1.0
    for same in identical:
        factor = factor * GROWTH if same else max(1.0, factor / SHRINK)
    return factor


def points(
    u: np.ndarray, delta: np.ndarray, c: float, steps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """u + c delta and u - c delta in the cube; an axis with integer steps (``steps``: the
    cube's width of one step, 0 for a real axis) moves at least one step and lands on
    one."""
    width = np.maximum(c, steps)
    plus = np.clip(u + width * delta, 0.0, 1.0)
    minus = np.clip(u - width * delta, 0.0, 1.0)
    return snap(plus, steps), snap(minus, steps)


def snap(u: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """The point an integer axis plays: its nearest step (a real axis as it is)."""
    out = np.array(u, dtype=float)
    whole = steps > 0
    out[whole] = np.clip(np.round(out[whole] / steps[whole]) * steps[whole], 0.0, 1.0)
    return out


def scale(before: list[float], diff: float) -> float:
    """What a difference is measured in: the root mean square of the differences so far,
    this one included (a win-share scale learnt from the surface and its noise: a step
    is then at most sqrt(k + 1) gains); 1 while every difference is 0."""
    rms = math.sqrt((sum(d * d for d in before) + diff * diff) / (len(before) + 1))
    return rms if rms > 0 else 1.0


def update(u: np.ndarray, plus: np.ndarray, minus: np.ndarray, diff: float, a: float) -> np.ndarray:
    """One step: ``diff`` is f(plus) - f(minus) (the tuner passes it scaled,
    :func:`scale`); the gradient along each axis is diff over the gap played there (none
    where plus and minus coincide)."""
    gap = plus - minus
    grad = np.divide(diff, gap, out=np.zeros_like(gap), where=gap != 0)
    return np.clip(u + a * grad, 0.0, 1.0)


def averaged(path: list[np.ndarray], batches: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The mean of the second half of the iterates (Polyak-Ruppert) and two standard
    errors of it by batch means (the half cut into ``batches`` runs; nan while fewer
    iterates than batches). The spread of the average, not an interval of the optimum."""
    if not path:
        raise ValueError("no iterate yet")
    tail = np.array(path[len(path) // 2 :], dtype=float)
    mean = tail.mean(axis=0)
    if len(tail) < batches:
        return mean, np.full(mean.shape, math.nan)
    means = np.array([part.mean(axis=0) for part in np.array_split(tail, batches)])
    se = means.std(axis=0, ddof=1) / math.sqrt(batches)
    return mean, 2 * se


__all__ = [
    "ALPHA",
    "GAMMA",
    "GROWTH",
    "MAX_PERTURBATION",
    "SHRINK",
    "Gains",
    "averaged",
    "points",
    "scale",
    "signs",
    "snap",
    "update",
    "widening",
]
