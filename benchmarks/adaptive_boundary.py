"""How tight can an adaptive tournament's intervals be? The runner's confidence sequence
against an exact group-sequential boundary over its known looks: coverage and games.

    python benchmarks/adaptive_boundary.py [--tournaments 200] [--gaussian 20000]
                                           [--cap 20000] [--cache results/adaptive_played]
                                           [--json]

An adaptive run looks at a comparison only at batch ends, deals 100, 200, ... up to
``deals:`` (the cap): K = cap / batch known looks. The runner's boundary (Robbins' normal
mixture, :mod:`harness.stats.sequential_cs`) holds at *every* deal for ever, so it is
conservative twice over. The tightest boundary valid at those K looks alone, with the
same width rule at every look, is Pocock's: the constant c_K with

    P(max over k <= K of |S_k| / sqrt(t_k) > c_K) = alpha

for a Brownian motion S at the looks t_k (computed here by the Armitage-McPherson-Rowe
recursion on a grid, :func:`pocock`), the interval mean +- c_K sigma / sqrt(t).

1. **Exactness** (``--gaussian`` runs, Gaussian deals of known mean, the runner's plug-in
   variance, one comparison at alpha / 28 followed to the cap without stopping): the
   chance that some look's interval misses, for each boundary: Pocock's should be alpha,
   the mixture's far below.
2. **Tournaments** (``--tournaments``, resampled): the 28 pairs of adaptive_played.py's
   8 bots, each pair's deals drawn with replacement from the played truth run (its 30,000
   deals a pair with the account: run adaptive_played.py first; the control centred on the
   pool as adaptive_cs.py does, the pool's mean share the truth), fed in batches of 100
   to :class:`harness.stats.PairSequence` (the runner's), and to the same class with
   Pocock's radius, raw and luck-adjusted. Printed: games, wrong orders, and coverage of
   the intervals reported at the stops (per interval; all 28 of a run at once) and of every
   interval shown until the stops (all 28 at once).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from adaptive_played import CONFIDENCE, ZONE, pair_deals, right
from luck_pool import centred
from scipy.signal import fftconvolve

from harness.stats.sequential_cs import PRIOR_VAR, PairSequence, cs_radius

BATCH = 100
KINDS = ("raw", "adjusted")


def crossing(c: float, looks: int, h: float = 0.02) -> float:
    """P(|S_k| > c sqrt(k) at some k <= looks) for a standard random walk with
    N(0, 1) steps (a Brownian motion at t = 1, 2, ...), by the recursion on a grid of
    step ``h``: the density of S_k on the continuation region, convolved with the step."""
    width = c * math.sqrt(looks) + 1
    grid = np.arange(-width, width + h / 2, h)
    kernel_x = np.arange(-9, 9 + h / 2, h)
    kernel = np.exp(-kernel_x * kernel_x / 2) / math.sqrt(2 * math.pi) * h
    density = np.exp(-grid * grid / 2) / math.sqrt(2 * math.pi)  # S_1 ~ N(0, 1)
    inside = 1.0
    for k in range(1, looks + 1):
        if k > 1:
            density = fftconvolve(density, kernel, mode="same")
        density = np.where(np.abs(grid) < c * math.sqrt(k), density, 0.0)
        inside = float(density.sum() * h)
    return 1 - inside


def pocock(looks: int, alpha: float) -> float:
    """Pocock's constant: the c at which :func:`crossing` is ``alpha`` (bisection)."""
    lo, hi = 1.0, 8.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if crossing(mid, looks) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


class PocockSequence(PairSequence):
    """The runner's sequence with Pocock's radius c sigma / sqrt(n) in place of the
    mixture's; everything else (the plug-in variance, the verdicts) as it is."""

    c: float = math.nan

    def interval(self) -> tuple[float, float]:
        if self.deals == 0:
            return -math.inf, math.inf
        r = self.c * math.sqrt(self.var / self.deals)
        return self.mean - r, self.mean + r


def gaussian(args: argparse.Namespace, alpha: float, c: float) -> dict[str, Any]:
    """Miss rates over every look to the cap of one comparison, Gaussian deals of sd
    ``sigma`` (the raw share's 0.45 and the adjusted 0.30), the runner's plug-in variance
    from batch summaries: mean ~ N(0, s^2 / B), within-batch squares ~ s^2 chi^2_(B-1)."""
    rng = np.random.default_rng(12345)
    looks = args.cap // BATCH
    out = {}
    for sigma in (0.45, 0.30):
        n = np.zeros(args.gaussian)
        mean = np.zeros(args.gaussian)
        m2 = np.zeros(args.gaussian)
        miss = {"mixture": np.zeros(args.gaussian, bool), "pocock": np.zeros(args.gaussian, bool)}
        for _ in range(looks):
            bm = rng.normal(0, sigma / math.sqrt(BATCH), args.gaussian)
            ss = sigma**2 * rng.chisquare(BATCH - 1, args.gaussian)
            total = n + BATCH
            d = bm - mean
            m2 += ss + d * d * n * BATCH / total
            mean += d * BATCH / total
            n = total
            var = (m2 + PRIOR_VAR) / (n + 1)
            rho = cs_radius(n[0], 1.0, alpha)  # the mixture's radius per unit sd at n
            miss["mixture"] |= np.abs(mean) > rho * np.sqrt(var)
            miss["pocock"] |= np.abs(mean) > c * np.sqrt(var / n)
        out[f"sd {sigma}"] = {k: float(v.mean()) for k, v in miss.items()}
    return out


class Pool:
    """A pair's played deals as a resampling population (adaptive_cs.World's way)."""

    def __init__(self, y: np.ndarray, m: np.ndarray, c: np.ndarray) -> None:
        self.y, self.m = y, m
        self.c = centred(y, m, c)
        self.share = float(y.sum() / m.sum())


def tournament(pools: list[Pool], t: int, kind: str, boundary: str, c: float) -> dict[str, Any]:
    """One resampled tournament of the pools' pairs, every pair on its own stream."""
    k = len(pools)
    alpha = (1 - CONFIDENCE) / k
    seqs: list[PairSequence] = []
    for _ in pools:
        if boundary == "mixture":
            seqs.append(PairSequence(alpha=alpha, zone=ZONE))
        else:
            s = PocockSequence(alpha=alpha, zone=ZONE)
            s.c = c
            seqs.append(s)
    rngs = [np.random.default_rng([t, i]) for i in range(k)]
    shown = [True] * k  # every interval shown until the stop covered
    first = 0
    while first < CAP[0] and any(s.settled == "open" for s in seqs):
        for i, (p, s) in enumerate(zip(pools, seqs, strict=True)):
            if s.settled != "open":
                continue
            rows = rngs[i].integers(0, len(p.y), BATCH)
            c_ = p.c[rows] if kind == "adjusted" else None
            s.add_batch(np.arange(first, first + BATCH), p.y[rows], p.m[rows], c_)
            low, high = s.interval()
            shown[i] &= bool(low <= p.share - 0.5 <= high)
            s.check()
        first += BATCH
    at_stop = []
    for p, s in zip(pools, seqs, strict=True):
        low, high = s.interval()
        at_stop.append(bool(low <= p.share - 0.5 <= high))
    return {
        "games": 2 * sum(s.deals for s in seqs),
        "wrong": sum(not right(s.settled, p.share, ZONE) for p, s in zip(pools, seqs, strict=True)),
        "at_stop": at_stop,
        "shown": all(shown),
    }


CAP = [20000]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tournaments", type=int, default=200)
    ap.add_argument("--gaussian", type=int, default=20000)
    ap.add_argument("--cap", type=int, default=20000)
    ap.add_argument("--cache", type=Path, default=Path("results/adaptive_played"))
    ap.add_argument("--truth-deals", type=int, default=30000)
    ap.add_argument("--truth-seed", type=int, default=900001)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    CAP[0] = args.cap
    k = 28
    alpha = (1 - CONFIDENCE) / k
    looks = args.cap // BATCH
    c = pocock(looks, alpha)
    result: dict[str, Any] = {"looks": looks, "alpha": alpha, "pocock": c}
    result["mixture_z"] = {
        str(n): cs_radius(n, 1.0, alpha) * math.sqrt(n) for n in (100, 1000, 10000, args.cap)
    }
    result["gaussian"] = gaussian(args, alpha, c)
    truth_file = args.cache / f"truth-{args.truth_deals}-{args.truth_seed}.json"
    if args.tournaments and truth_file.exists():
        tr = json.loads(truth_file.read_text())
        runs = sorted((args.cache / "truth" / "played-truth").iterdir())
        deals = pair_deals(runs[-1], tr["names"])
        pools = [Pool(y, m, np.where(np.isnan(cc), 0.0, cc)) for _, y, m, cc in deals.values()]
        out: dict[str, Any] = {}
        for kind in KINDS:
            for boundary in ("mixture", "pocock"):
                rs = []
                for t in range(args.tournaments):
                    rs.append(tournament(pools, t, kind, boundary, c))
                games = np.array([r["games"] for r in rs], float)
                out[f"{kind} {boundary}"] = {
                    "mean_games": float(games.mean()),
                    "wrong_tournaments": sum(r["wrong"] > 0 for r in rs),
                    "per_interval_at_stop": float(np.mean([x for r in rs for x in r["at_stop"]])),
                    "all_at_stop": float(np.mean([all(r["at_stop"]) for r in rs])),
                    "all_shown": float(np.mean([r["shown"] for r in rs])),
                }
        result["tournaments"] = out
    result["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{looks} looks, alpha {alpha:.5f} a comparison: Pocock's c = {c:.3f}; the mixture's")
    print(
        "  radius in sd / sqrt(n): "
        + ", ".join(f"{z:.2f} at {n}" for n, z in result["mixture_z"].items())
    )
    for sd, r in result["gaussian"].items():
        print(
            f"  Gaussian deals, {sd}: P(some look to the cap misses) mixture {r['mixture']:.5f}, "
            f"Pocock {r['pocock']:.5f} (alpha {alpha:.5f})"
        )
    for name, r in result.get("tournaments", {}).items():
        print(
            f"  {name:<18} games {r['mean_games']:8,.0f}  wrong {r['wrong_tournaments']}  "
            f"coverage per interval {r['per_interval_at_stop']:.2%}, all at stop "
            f"{r['all_at_stop']:.1%}, all shown {r['all_shown']:.1%}"
        )
    print(f"({result['seconds']:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
