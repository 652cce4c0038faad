"""The estimate interval at a comparison's stop (harness.stats.stagewise): the recursion
against brute force, one look giving the z interval, monotone bounds, determinism, and
its coverage under the stopping it was made for."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness import stats
from harness.stats.sequential_cs import PairSequence
from harness.stats.stagewise import StoppingDesign, stop_interval, stop_probability

Z975 = 1.959963984540054
# A small design where all three stops happen: looks at 100 to 400 deals, sd 1, a wide
# alpha and a zone that opens a tie region from the second look on.
SMALL = StoppingDesign((100, 200, 300, 400), sd=1.0, alpha=0.2, zone=0.35)
RANK = {"b": 0, "middle": 1, "a": 2}


def simulate(design: StoppingDesign, theta: float, paths: int, seed: int):
    """Brute force: Gaussian deals of mean theta, the design's rule applied at its looks;
    per path the look it stopped at, its group and its mean."""
    rng = np.random.default_rng(seed)
    looks = np.asarray(design.looks)
    steps = np.diff(np.concatenate([[0], looks]))
    sums = np.cumsum(rng.normal(theta * steps, np.sqrt(steps) * design.sd, (paths, len(looks))), 1)
    look = np.full(paths, -1)
    group = np.full(paths, -1)
    alive = np.ones(paths, bool)
    for j in range(len(looks)):
        a_bound, t_bound = design.bounds(j)
        u = sums[:, j] / design.sd
        up, down = alive & (u > a_bound), alive & (u < -a_bound)
        middle = alive & ~up & ~down & ((np.abs(u) < t_bound) | (j == len(looks) - 1))
        for mask, g in ((up, 2), (down, 0), (middle, 1)):
            look[mask], group[mask] = j, g
        alive &= ~(up | down | middle)
    mean = sums[np.arange(paths), look] / looks[look]
    return look, group, mean


def above(look, group, mean, stop: int, obs: str, m: float) -> np.ndarray:
    """The stagewise ordering written out directly: the paths ranked above (stop, obs, m)."""
    g = RANK[obs]
    out = group > g
    same = group == g
    if obs == "middle":
        return out | (same & (mean > m))
    at = same & (look == stop) & (mean > m)
    earlier = same & ((look < stop) if obs == "a" else (look > stop))
    return out | at | earlier


@pytest.mark.parametrize("theta", [-0.1, 0.0, 0.06, 0.15])
def test_the_recursion_matches_a_brute_force_simulation(theta):
    """P_theta(a path ranked above each of eight outcomes), computed and counted."""
    look, group, mean = simulate(SMALL, theta, 60000, seed=int(theta * 1000) + 700)
    assert {1, 2} <= set(group.tolist())  # ties and "a" stops happen in this design
    for stop, obs, m in [
        (0, "a", 0.3),
        (1, "a", 0.2),
        (3, "a", 0.12),
        (1, "b", -0.25),
        (2, "b", -0.2),
        (1, "middle", 0.0),
        (2, "middle", 0.05),
        (3, "middle", -0.02),
    ]:
        empirical = float(above(look, group, mean, stop, obs, m).mean())
        (computed,) = stop_probability(SMALL, stop, obs, m, [theta])
        se = math.sqrt(max(empirical * (1 - empirical), 1e-4) / len(look))
        assert abs(computed - empirical) < 4.5 * se + 1e-3, (stop, obs, m, computed, empirical)


@pytest.mark.parametrize("group, mean", [("b", -0.2), ("middle", 0.03), ("a", 0.25)])
def test_one_look_gives_the_ordinary_z_interval(group, mean):
    """A fixed sample is the design of one look: whatever it is called, the interval is
    mean +- 1.96 sd / sqrt(n) and the median-unbiased estimate the mean."""
    design = StoppingDesign((400,), sd=0.45, alpha=0.05 / 28, zone=0.01)
    se = 0.45 / 20
    a_bound = design.bounds(0)[0] * 0.45 / 400  # the "a" stop's edge, in the mean
    assert {"a": mean > a_bound, "b": mean < -a_bound}.get(group, abs(mean) < a_bound)
    low, median, high = stop_interval(design, 0, group, mean)
    assert low == pytest.approx(mean - Z975 * se, abs=2e-3 * se)
    assert high == pytest.approx(mean + Z975 * se, abs=2e-3 * se)
    assert median == pytest.approx(mean, abs=2e-3 * se)


def test_probability_is_increasing_in_theta_and_bounds_in_the_mean():
    thetas = np.linspace(-0.3, 0.4, 29)
    for stop, obs, m in [(1, "a", 0.25), (2, "b", -0.2), (3, "middle", 0.05)]:
        p = stop_probability(SMALL, stop, obs, m, thetas)
        assert np.all(np.diff(p) >= -1e-9), (stop, obs)
        assert p[0] < 0.05 and p[-1] > 0.95
    for stop, obs, means in [
        (1, "a", [0.22, 0.26, 0.3, 0.4]),
        (2, "b", [-0.4, -0.3, -0.25, -0.2]),
        (3, "middle", [-0.1, -0.02, 0.05, 0.1]),
    ]:
        bounds = [stop_interval(SMALL, stop, obs, m) for m in means]
        for (lo1, med1, hi1), (lo2, med2, hi2) in zip(bounds, bounds[1:], strict=False):
            assert lo1 < lo2 and med1 < med2 and hi1 < hi2
        for lo, med, hi in bounds:
            assert lo < med < hi
    # the later an "a" stop with the same mean, the lower the evidence: lower bounds
    assert stop_interval(SMALL, 1, "a", 0.3)[0] > stop_interval(SMALL, 3, "a", 0.3)[0]


def feed(seq: PairSequence, x: np.ndarray, batch: int = 100) -> PairSequence:
    for start in range(0, len(x), batch):
        if seq.settled != "open":
            break
        part = x[start : start + batch]
        deal = np.arange(start, start + len(part))
        seq.add_batch(deal, (part + 0.5) * 2, np.full(len(part), 2.0))
        seq.check()
    return seq


def test_it_is_a_pure_function_of_the_batches():
    x = np.random.default_rng(3).normal(0.03, 0.3, 2000)
    first = feed(PairSequence(alpha=0.05 / 3), x)
    again = feed(PairSequence(alpha=0.05 / 3), x)
    assert first.settled == "a" and first.looks == again.looks
    one = stats.sequence_interval(first)
    assert one == stats.sequence_interval(again) == stats.sequence_interval(first)
    assert one["stop_low"] < one["stop_median"] < one["stop_high"]
    design, stop = stats.sequence_design(first)
    assert design.looks == tuple(first.looks) and stop == len(first.looks) - 1
    assert design.sd == math.sqrt(first.var)


def test_a_tie_is_placed_in_the_design_up_to_its_cap():
    x = np.random.default_rng(8).normal(0.0, 0.1, 20000)
    seq = feed(PairSequence(alpha=0.05 / 3, zone=0.01), x)
    assert seq.settled == "tie"
    future = [seq.deals + 100 * k for k in range(1, 6)]
    design, stop = stats.sequence_design(seq, future)
    assert design.looks[stop] == seq.deals and design.looks[stop + 1 :] == tuple(future)
    interval = stats.sequence_interval(seq, future)
    assert interval["stop_low"] < seq.share < interval["stop_high"]


def test_it_covers_95_percent_under_the_stopping_it_was_made_for():
    """Gaussian deals through the runner's PairSequence (its plug-in variance and rule),
    stopped where it stops them, a cap of 1,000 deals: the interval at the stop covers
    about 95% where the verdict's interval covers nearly always."""
    theta, runs, cap = 0.02, 400, 1000
    future = list(range(100, cap + 1, 100))
    covered = cs_covered = 0
    for seed in range(runs):
        x = np.random.default_rng(seed).normal(theta, 0.3, cap)
        seq = feed(PairSequence(alpha=0.05, zone=0.03), x)
        rest = [n for n in future if n > seq.deals] if seq.settled == "tie" else []
        got = stats.sequence_interval(seq, rest)
        covered += got["stop_low"] <= theta + 0.5 <= got["stop_high"]
        low, high = seq.interval()
        cs_covered += low <= theta <= high
    assert 0.92 <= covered / runs <= 0.98, covered
    assert cs_covered / runs > 0.985


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"looks": ()}, "must be increasing"),
        ({"looks": (100, 100)}, "must be increasing"),
        ({"sd": 0.0}, "must be positive"),
    ],
)
def test_a_bad_design_is_refused(kwargs, message):
    base = {"looks": (100, 200), "sd": 0.3, "alpha": 0.05, "zone": 0.01}
    with pytest.raises(ValueError, match=message):
        StoppingDesign(**{**base, **kwargs})
    with pytest.raises(ValueError, match="group"):
        stop_interval(SMALL, 0, "tie", 0.0)
    with pytest.raises(ValueError, match="look 9"):
        stop_interval(SMALL, 9, "a", 0.0)
