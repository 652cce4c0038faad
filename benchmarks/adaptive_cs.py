"""Anytime-valid comparisons under optional stopping: coverage, errors, games saved.

    python benchmarks/adaptive_cs.py [--runs 1000] [--tournaments 200] [--pool-deals 20000]
                                     [--batch 50] [--cache results/luck_pools] [--json]

A resampling world (as luck_sprt.py's): a pool of played 2-player deals with the luck
account (luck_pool.py: both seat orders on duplicate dice) is the population of a pair's
deals; a run draws its deals from it with replacement, in an order fixed by its seed. The
pool's mean head-to-head share is the known truth, and the control is centred on the
pool so that it has mean exactly 0 there, as in the real world. Every deal goes to
harness.stats.PairSequence (the code the adaptive tournament runs) twice, raw (no
control) and luck-adjusted, in batches of ``--batch`` deals, looked at after each batch.

1. **Comparisons** (``--runs`` each, alpha 0.05, zone 1 point): for a few pairings and
   for a *tie world* (the pool of the closest pair made symmetric: each deal and its
   mirror, A and B swapped, so the truth is exactly 1/2: the right verdict is "tie"),
   the verdicts' error rate, how often the interval reported at the stop covers the
   truth, how often every interval looked at did (the anytime coverage), and the deals.
2. **Tournaments** (``--tournaments``): 8 built-ins at 2 players, 28 pairs, each pair's
   deals from its own pool and its own stream; alpha 0.05 for the whole run, alpha/28 a
   comparison (Bonferroni). The adaptive run plays a batch to every open pair until each
   is settled (or reaches ``--cap`` deals: left open). The fixed round robin plays the
   same deals to every pair; it "reaches the order" at the first batch end where every
   pair's fixed-sample interval (normal, alpha/28, the coefficient of the luck-adjusted
   one the pool's own: an oracle) settles it by the same rule. That peeks at every batch
   end, which favours the fixed design: the ratio is a lower bound on what it saves.
   Printed: the games of each, their ratio, the tournaments with a wrong verdict, and
   the coverage of the intervals reported at the stops.
3. **The estimate interval at the stop** (``--stop RUNS``: this section alone, RUNS runs
   a world and kind): harness.stats.sequence_interval, the 95% stagewise interval exact
   for the design that stopped the comparison (docs/tourney.md). One comparison of a
   28-comparison run (alpha 0.05 / 28, the played tournaments' design), batches of
   ``--batch``, the cap ``--stop-cap`` deals (a look, where an open one stops), in the
   worlds of ``--stop-pairing`` (simple v greedy, worm-first v env-heuristic, greedy v
   tactician by default), the tie world, and a *zone-edge world* (the tie world with
   every deal's share moved up by ``--edge - 0.5``: truth 50.9%, 0.1 point inside the
   zone). Printed per world and kind: its coverage (Wilson 95% interval), the coverage
   of the naive interval at the stop (mean +- 1.96 standard errors, as if the sample
   size had been fixed) and of the verdict's confidence sequence, the bias of the mean
   at the stop and of the median-unbiased estimate, and the coverage by verdict.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import centred, deal_totals, pool

from harness import stats
from harness.stats.sequential_cs import PairSequence, pair_verdict

BOTS = [
    "optimal",
    "tactician",
    "simple",
    "greedy",
    "worm-first",
    "env-heuristic",
    "threshold",
    "random",
]
PAIRINGS = ["simple,greedy", "worm-first,env-heuristic", "greedy,tactician", "optimal,simple"]
KINDS = ("raw", "adjusted")


class World:
    """A pair's deals as a resampling population: per deal, Y, M and the centred C."""

    def __init__(self, y: np.ndarray, m: np.ndarray, c: np.ndarray) -> None:
        keep = m > 0
        self.y, self.m = y[keep], m[keep]
        self.c = centred(self.y, self.m, c[keep])
        self.delta = float(self.y.sum() / self.m.sum()) - 0.5
        cm = stats.ControlMoments.of(self.y, self.c, self.m)
        self.coef = cm.coef  # the pool's own: the fixed design's oracle
        self.gain = cm.gain()

    @classmethod
    def of(cls, field: tuple[str, ...], args: argparse.Namespace, say: Any) -> World:
        p = pool(field, 2, args.pool_deals, args.seed, 1, args.cache, say)
        return cls(*deal_totals(p, "h2h", 0, 1))

    def mirrored(self) -> World:
        """The tie world: every deal and its mirror (A and B swapped): truth exactly 1/2."""
        return World(
            np.concatenate([self.y, self.m - self.y]),
            np.concatenate([self.m, self.m]),
            np.concatenate([self.c, -self.c]),
        )

    def right(self, v: str, zone: float) -> bool:
        """Whether a verdict is true of this world."""
        if v == "a":
            return self.delta > 0
        if v == "b":
            return self.delta < 0
        if v == "tie":
            return abs(self.delta) < zone
        return True  # open: no claim


def run_pair(
    world: World, seed: int, alpha: float, zone: float, batch: int, cap: int
) -> dict[str, dict[str, Any]]:
    """One run of one pair: raw and adjusted sequences fed the same deals until settled."""
    rng = np.random.default_rng(seed)
    seqs = {k: PairSequence(alpha=alpha, zone=zone) for k in KINDS}
    covered = {k: True for k in KINDS}
    first = 0
    while any(s.settled == "open" for s in seqs.values()) and first < cap:
        rows = rng.integers(0, len(world.y), batch)
        deal = np.arange(first, first + batch)
        y, m, c = world.y[rows], world.m[rows], world.c[rows]
        first += batch
        for kind, s in seqs.items():
            if s.settled != "open":
                continue
            s.add_batch(deal, y, m, c if kind == "adjusted" else None)
            low, high = s.interval()
            covered[kind] &= low <= world.delta <= high
            s.check()
    out = {}
    for kind, s in seqs.items():
        low, high = s.interval()
        out[kind] = {
            "verdict": s.settled,
            "deals": s.deals,
            "right": world.right(s.settled, zone),
            "covers": bool(low <= world.delta <= high),
            "covered_always": covered[kind],
        }
    return out


def comparisons(name: str, world: World, args: argparse.Namespace) -> dict[str, Any]:
    runs = [
        run_pair(world, seed, 0.05, args.zone, args.batch, args.cap) for seed in range(args.runs)
    ]
    out: dict[str, Any] = {"pairing": name, "delta": world.delta, "gain": world.gain}
    for kind in KINDS:
        rs = [r[kind] for r in runs]
        wrong = sum(not r["right"] for r in rs)
        lo, hi = stats.wilson(wrong, len(rs))
        verdicts = {v: sum(r["verdict"] == v for r in rs) for v in ("a", "b", "tie", "open")}
        deals = np.array([r["deals"] for r in rs], dtype=float)
        out[kind] = {
            "error_rate": wrong / len(rs),
            "error_ci": [lo, hi],
            "coverage_at_stop": float(np.mean([r["covers"] for r in rs])),
            "coverage_anytime": float(np.mean([r["covered_always"] for r in rs])),
            "verdicts": verdicts,
            "mean_deals": float(deals.mean()),
            "median_deals": float(np.median(deals)),
        }
    return out


def fixed_intervals(
    world: World, draws: np.ndarray, kind: str, alpha: float, batch: int
) -> tuple[np.ndarray, np.ndarray]:
    """For one pair's deal stream: at each batch end, the fixed-sample interval (normal,
    ``alpha``; the luck-adjusted one with the pool's own coefficient) of that many deals,
    as its centre and half-width (of delta, the share minus 1/2)."""
    c = world.c[draws] if kind == "adjusted" else 0.0
    b = world.coef if kind == "adjusted" else 0.0
    x = (world.y[draws] - b * c) / world.m[draws] - 0.5
    ends = np.arange(batch, len(x) + 1, batch)
    s1, s2 = np.cumsum(x)[ends - 1], np.cumsum(x * x)[ends - 1]
    mean = s1 / ends
    var = np.maximum(s2 / ends - mean * mean, 0) * ends / np.maximum(ends - 1, 1)
    return mean, stats.z_quantile(1 - alpha) * np.sqrt(var / ends)


def fixed_reach(
    world: World, draws: np.ndarray, kind: str, alpha: float, zone: float, batch: int
) -> np.ndarray:
    """For one pair's deal stream: at each batch end, whether a fixed-sample interval
    (normal, ``alpha``) of that many deals settles the pair."""
    mean, half = fixed_intervals(world, draws, kind, alpha, batch)
    return np.array(
        [pair_verdict(mu - h, mu + h, zone) != "open" for mu, h in zip(mean, half, strict=True)]
    )


def tournament(worlds: list[World], t: int, args: argparse.Namespace) -> dict[str, Any]:
    """One simulated tournament: adaptive (raw, adjusted) and the fixed round robin."""
    k = len(worlds)
    alpha = 0.05 / k
    out: dict[str, Any] = {}
    for kind in KINDS:
        seqs = [PairSequence(alpha=alpha, zone=args.zone) for _ in worlds]
        rngs = [np.random.default_rng([t, i]) for i in range(k)]
        draws: list[list[np.ndarray]] = [[] for _ in worlds]
        first = 0
        while first < args.cap and any(s.settled == "open" for s in seqs):
            for i, (w, s) in enumerate(zip(worlds, seqs, strict=True)):
                if s.settled != "open":
                    continue
                rows = rngs[i].integers(0, len(w.y), args.batch)
                draws[i].append(rows)
                deal = np.arange(first, first + args.batch)
                s.add_batch(deal, w.y[rows], w.m[rows], w.c[rows] if kind == "adjusted" else None)
                s.check()
            first += args.batch
        games = 2 * sum(s.deals for s in seqs)
        wrong = sum(not w.right(s.settled, args.zone) for w, s in zip(worlds, seqs, strict=True))
        covers = []
        for w, s in zip(worlds, seqs, strict=True):
            low, high = s.interval()
            covers.append(low <= w.delta <= high)
        # The fixed round robin on the same streams, extended to the cap where needed.
        reach = None
        ends = args.cap // args.batch
        reached = np.ones(ends, dtype=bool)
        for i, w in enumerate(worlds):
            stream = np.concatenate(draws[i]) if draws[i] else np.zeros(0, dtype=np.int64)
            more = rngs[i].integers(0, len(w.y), args.cap - len(stream))
            stream = np.concatenate([stream, more]).astype(np.int64)
            reached &= fixed_reach(w, stream, kind, alpha, args.zone, args.batch)
        hit = np.flatnonzero(reached)
        if len(hit):
            reach = int(hit[0] + 1) * args.batch
        out[kind] = {
            "games": games,
            "open": sum(s.settled == "open" for s in seqs),
            "wrong": wrong,
            "coverage": float(np.mean(covers)),
            "fixed_games": None if reach is None else 2 * reach * k,
        }
    return out


def tournaments(worlds: list[World], args: argparse.Namespace) -> dict[str, Any]:
    runs = [tournament(worlds, t, args) for t in range(args.tournaments)]
    out: dict[str, Any] = {"tournaments": len(runs), "pairs": len(worlds)}
    for kind in KINDS:
        rs = [r[kind] for r in runs]
        games = np.array([r["games"] for r in rs], dtype=float)
        fixed = np.array([r["fixed_games"] or math.nan for r in rs], dtype=float)
        wrong = sum(r["wrong"] > 0 for r in rs)
        out[kind] = {
            "mean_games": float(games.mean()),
            "median_games": float(np.median(games)),
            "fixed_mean_games": float(np.nanmean(fixed)),
            "fixed_unreached": int(np.isnan(fixed).sum()),
            "ratio_of_means": float(np.nanmean(fixed) / games.mean()),
            "median_ratio": float(np.nanmedian(fixed / games)),
            "wrong_tournaments": wrong,
            "wrong_ci": list(stats.wilson(wrong, len(rs))),
            "open_pairs": int(sum(r["open"] for r in rs)),
            "coverage": float(np.mean([r["coverage"] for r in rs])),
        }
    out["fixed_raw_over_adaptive_adjusted"] = (
        out["raw"]["fixed_mean_games"] / out["adjusted"]["mean_games"]
    )
    return out


STOP_PAIRINGS = ["simple,greedy", "worm-first,env-heuristic", "greedy,tactician"]
Z975 = 1.959963984540054


def shifted(world: World, share: float) -> World:
    """The world with every deal's share moved so that the truth is ``share``."""
    move = share - 0.5 - world.delta
    return World(world.y + move * world.m, world.m.copy(), world.c.copy())


def stop_run(world: World, seed: int, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """One comparison, raw and adjusted on the same deals, each to its stop or the cap,
    and its intervals at the stop against the truth."""
    rng = np.random.default_rng(seed)
    alpha = 0.05 / 28
    seqs = {k: PairSequence(alpha=alpha, zone=args.zone) for k in KINDS}
    first = 0
    while any(s.settled == "open" for s in seqs.values()) and first < args.stop_cap:
        rows = rng.integers(0, len(world.y), args.batch)
        deal = np.arange(first, first + args.batch)
        first += args.batch
        for kind, s in seqs.items():
            if s.settled == "open":
                s.add_batch(
                    deal,
                    world.y[rows],
                    world.m[rows],
                    world.c[rows] if kind == "adjusted" else None,
                )
                s.check()
    out = {}
    for kind, s in seqs.items():
        future = []
        if s.settled == "tie":  # the looks its design still had, to the cap
            future = [
                s.deals + d - first
                for d in range(first + args.batch, args.stop_cap + 1, args.batch)
            ]
        started = time.process_time()
        got = stats.sequence_interval(s, future)
        cpu = time.process_time() - started
        truth = world.delta + 0.5
        half = Z975 * math.sqrt(s.var / s.deals)
        low, high = s.interval()
        out[kind] = {
            "verdict": s.settled,
            "deals": s.deals,
            "covers": bool(got["stop_low"] <= truth <= got["stop_high"]),
            "naive": bool(abs(s.mean - world.delta) <= half),
            "cs": bool(low <= world.delta <= high),
            "mean_error": s.mean - world.delta,
            "median_error": got["stop_median"] - truth,
            "width": got["stop_high"] - got["stop_low"],
            "naive_width": 2 * half,
            "cpu": cpu,
        }
    return out


def stop_section(name: str, world: World, args: argparse.Namespace, index: int) -> dict[str, Any]:
    runs = [stop_run(world, seed * 1000 + index, args) for seed in range(args.stop)]
    out: dict[str, Any] = {"world": name, "truth": world.delta + 0.5}
    for kind in KINDS:
        rs = [r[kind] for r in runs]
        covered = sum(r["covers"] for r in rs)
        by = {}
        for v in ("a", "b", "tie", "open"):
            mine = [r for r in rs if r["verdict"] == v]
            if mine:
                by[v] = {"runs": len(mine), "coverage": float(np.mean([r["covers"] for r in mine]))}
        out[kind] = {
            "runs": len(rs),
            "coverage": covered / len(rs),
            "coverage_ci": list(stats.wilson(covered, len(rs))),
            "naive_coverage": float(np.mean([r["naive"] for r in rs])),
            "cs_coverage": float(np.mean([r["cs"] for r in rs])),
            "mean_bias": float(np.mean([r["mean_error"] for r in rs])),
            "median_bias": float(np.mean([r["median_error"] for r in rs])),
            "mean_deals": float(np.mean([r["deals"] for r in rs])),
            "width": float(np.mean([r["width"] for r in rs])),
            "naive_width": float(np.mean([r["naive_width"] for r in rs])),
            "by_verdict": by,
            "cpu_per_interval": float(np.mean([r["cpu"] for r in rs])),
        }
    return out


def stop_main(args: argparse.Namespace, say: Any) -> dict[str, Any]:
    """Section 3 alone: the estimate interval at the stop (the module docstring)."""
    named = []
    for p in args.stop_pairing or STOP_PAIRINGS:
        pair = tuple(p.split(","))
        named.append((" v ".join(pair), World.of(pair, args, say)))
    tie = named[0][1].mirrored()
    named.append((f"tie world ({named[0][0]} mirrored)", tie))
    named.append((f"zone-edge world (the tie world at {args.edge:.1%})", shifted(tie, args.edge)))
    out = []
    for i, (name, world) in enumerate(named):
        if args.stop_world and i not in args.stop_world:
            continue  # another process's share (each world's runs are seeded by its index)
        r = stop_section(name, world, args, i)
        out.append(r)
        if not args.json:
            print(f"\n{name}: truth {r['truth']:.4f}")
            for kind in KINDS:
                t = r[kind]
                lo, hi = t["coverage_ci"]
                by = ", ".join(
                    f"{v} {b['coverage']:.1%} of {b['runs']}" for v, b in t["by_verdict"].items()
                )
                print(
                    f"  {kind:<8} at the stop {t['coverage']:6.1%} [{lo:.1%}, {hi:.1%}]  naive "
                    f"{t['naive_coverage']:6.1%}  verdict's CS {t['cs_coverage']:6.1%}  bias: mean "
                    f"{t['mean_bias'] * 100:+.3f} pt, median-unbiased "
                    f"{t['median_bias'] * 100:+.3f} pt"
                )
                print(
                    f"           width {t['width'] * 100:.2f} pt "
                    f"(naive {t['naive_width'] * 100:.2f})  "
                    f"deals {t['mean_deals']:,.0f}  by verdict: {by}  "
                    f"{t['cpu_per_interval'] * 1000:.0f} ms CPU an interval"
                )
    return {"stop": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs per comparison world")
    ap.add_argument("--tournaments", type=int, default=200)
    ap.add_argument("--pool-deals", type=int, default=20000)
    ap.add_argument(
        "--batch", type=int, default=100, help="deals a batch (the default target.batch)"
    )
    ap.add_argument("--zone", type=float, default=0.01, help="indifference zone (share)")
    ap.add_argument("--cap", type=int, default=40000, help="a pair's most deals")
    ap.add_argument("--pairing", action="append", help=f"(repeatable; default {PAIRINGS})")
    ap.add_argument("--seed", type=int, default=1, help="the pools' seed")
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--stop", type=int, default=0, help="section 3 alone, RUNS a world and kind")
    ap.add_argument("--stop-cap", type=int, default=20000, help="section 3: a pair's most deals")
    ap.add_argument("--stop-pairing", action="append", help=f"(default {STOP_PAIRINGS})")
    ap.add_argument("--edge", type=float, default=0.509, help="the zone-edge world's truth")
    ap.add_argument(
        "--stop-world", type=int, action="append", help="section 3: only these worlds (0-4)"
    )
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    started = time.perf_counter()
    if args.stop:
        result = {**stop_main(args, say), "args": {**vars(args), "cache": None}}
        result["seconds"] = time.perf_counter() - started
        if args.json:
            print(json.dumps(result, indent=1))
        return 0
    result: dict[str, Any] = {"comparisons": [], "args": {**vars(args), "cache": None}}
    worlds = {}
    for a, b in combinations(BOTS, 2):
        worlds[(a, b)] = World.of((a, b), args, say)
    pairings = [tuple(p.split(",")) for p in args.pairing or PAIRINGS]
    closest = min(worlds, key=lambda p: abs(worlds[p].delta))
    named = [(" v ".join(p), worlds.get(p) or World.of(p, args, say)) for p in pairings]
    named.append((f"tie world ({' v '.join(closest)} mirrored)", worlds[closest].mirrored()))
    for name, world in named:
        r = comparisons(name, world, args)
        result["comparisons"].append(r)
        if not args.json:
            print(f"\n{name}: truth {r['delta'] + 0.5:.4f}, variance raw/adjusted {r['gain']:.2f}")
            for kind in KINDS:
                t = r[kind]
                print(
                    f"  {kind:<8} error {t['error_rate']:5.1%} [{t['error_ci'][0]:.1%}, "
                    f"{t['error_ci'][1]:.1%}]  coverage at stop {t['coverage_at_stop']:6.1%} "
                    f"anytime {t['coverage_anytime']:6.1%}  deals mean {t['mean_deals']:7.0f} "
                    f"median {t['median_deals']:6.0f}  {t['verdicts']}"
                )
    if args.tournaments:
        ordered = list(worlds.values())
        t = tournaments(ordered, args)
        result["tournaments"] = t
        result["truth"] = {" v ".join(p): w.delta + 0.5 for p, w in worlds.items()}
        if not args.json:
            print(f"\n{t['tournaments']} tournaments of {len(BOTS)} bots, {t['pairs']} pairs:")
            for kind in KINDS:
                r = t[kind]
                print(
                    f"  {kind:<8} adaptive {r['mean_games']:9,.0f} games (median "
                    f"{r['median_games']:,.0f}), fixed round robin {r['fixed_mean_games']:9,.0f} "
                    f"({r['fixed_unreached']} never): {r['ratio_of_means']:.1f}x fewer (median "
                    f"ratio {r['median_ratio']:.1f}x); wrong {r['wrong_tournaments']} "
                    f"[{r['wrong_ci'][0]:.1%}, {r['wrong_ci'][1]:.1%}], open pairs "
                    f"{r['open_pairs']}, coverage {r['coverage']:.1%}"
                )
            print(
                "  fixed raw round robin / adaptive luck-adjusted: "
                f"{t['fixed_raw_over_adaptive_adjusted']:.1f}x"
            )
    result["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
