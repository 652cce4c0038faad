"""A racing sweep against the full sweep: the games each takes to find the best value.

    python benchmarks/race_sweep.py [--values 21..30] [--seeds 100] [--pool-deals 10000]
                                    [--cap 20000] [--batch 100] [--cache results/luck_pools]
                                    [--workers 2] [--json]

The sweep is ``threshold(target=21..30)`` at 2 players, a round robin of its values (45
pairs; 20 is below threshold's declared bounds, 21 to 40, so the sweep starts at 21).
A resampling world per pair (as adaptive_cs.py's): a pool of ``--pool-deals`` played
deals with the luck account (luck_pool.py: both seat orders on duplicate dice) is the
population of the pair's deals, its mean head-to-head share the truth, the control
centred on the pool so that its mean there is exactly 0, as in the real world.

**The racing run is the runner's own schedule.** The config (``race: on``, ``schedule:
adaptive``, ``deals: --cap``, ``luck: on``) is checked and planned as ``harness tourney``
does, and a :class:`harness.tourney.adaptive.schedule.Schedule` decides every batch:
which tables play (:meth:`~Schedule.open_tables`), and after each batch the
comparisons' looks and the values out (:meth:`~Schedule.feed`, the code a run calls). The
only thing simulated is where a batch's games come from: each pair's deals are drawn
from its pool, in an order fixed by the seed and the pair (its own stream).

**The full sweep** plays every pair the same streams, every pair every batch. It is
credited with the first batch end at which fixed-sample intervals (normal, the same
alpha a comparison, the luck-adjusted one with the pool's own coefficient: an oracle)
would finish the race by the same rule: every value another value beats out, the
survivors' comparisons all settled. It peeks at every batch end, which favours it: the
ratio is a lower bound on what racing saves.

Printed: the truth (each value's mean share against the others, and the best: the
value that beats every other one head to head), then over the seeds the games of each,
their ratio, how often the survivors hold the best, the survivors and the wrong verdicts.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from adaptive_cs import World, fixed_intervals
from luck_pool import DealPool, centred, deal_totals, pool

from harness.stats.sequential_cs import pair_verdict
from harness.tourney import load_config, plan
from harness.tourney.adaptive.schedule import Schedule


def sweep_config(values: list[int], cap: int, batch: int) -> Any:
    """The racing sweep as a tourney config (checked and planned as harness tourney's)."""
    return load_config(
        {
            "name": "race-bench",
            "entrants": [{"strategy": "threshold", "sweep": {"target": values}, "race": "on"}],
            "deals": cap,
            "seed": 1,
            "luck": "on",
            "schedule": "adaptive",
            "target": {"batch": batch},
        }
    )


class PairPool:
    """A pair's pool as the schedule reads games (strategy index, rank, centred
    win-weighted luck per game and seat) and as the fixed design reads deals (a World)."""

    def __init__(self, p: DealPool, index: list[int]) -> None:
        whole = p.data["over"].all(axis=1)  # deals with a turn-capped game are left out
        p = p.take(np.flatnonzero(whole))
        y, m, c = deal_totals(p, "h2h", 0, 1)
        self.world = World(y, m, c)
        mu = c.sum() / m.sum()  # the pool's mean control a game: taken out, as centred()
        assert np.allclose(self.world.c, centred(y, m, c))
        mine = p.data["strat"] == 0
        self.wluck = p.data["wluck"] - np.where(mine, mu / 2, -mu / 2)
        self.strat = np.asarray(index)[p.data["strat"]]
        self.rank = p.data["rank"]
        self.orders = self.rank.shape[1]

    def games(self, rows: np.ndarray, first: int) -> dict[str, np.ndarray]:
        n = len(rows) * self.orders
        deal = np.repeat(np.arange(first, first + len(rows)), self.orders)
        return {
            "deal": deal.astype(np.int64),
            "strat": self.strat[rows].reshape(n, -1),
            "rank": self.rank[rows].reshape(n, -1),
            "wluck": self.wluck[rows].reshape(n, -1),
        }


def truth(pools: dict[tuple[int, int], PairPool], k: int) -> tuple[np.ndarray, int | None]:
    """The matrix of true head-to-head shares and the value that beats all others."""
    share = np.full((k, k), 0.5)
    for (a, b), pp in pools.items():
        share[a, b] = pp.world.delta + 0.5
        share[b, a] = 0.5 - pp.world.delta
    best = [i for i in range(k) if all(share[i, j] > 0.5 for j in range(k) if j != i)]
    return share, best[0] if best else None


def race(
    config: Any, the_plan: plan.Plan, pools: dict[tuple[int, int], PairPool], seed: int
) -> tuple[Schedule, int, dict[tuple[int, int], list[np.ndarray]], list]:
    """One racing run through the runner's schedule; its games and each pair's draws."""
    schedule = Schedule(config, the_plan)
    rngs = {pair: np.random.default_rng([seed, *pair]) for pair in pools}
    draws: dict[tuple[int, int], list[np.ndarray]] = {pair: [] for pair in pools}
    batch, games = schedule.batch, 0
    for k in range(schedule.count):
        tables = schedule.open_tables()
        if not tables:
            break
        parts = []
        for table in tables:
            pair = tuple(sorted(schedule.index[n] for n in table.names))
            pp = pools[pair]
            rows = rngs[pair].integers(0, len(pp.world.y), batch)
            draws[pair].append(rows)
            parts.append(pp.games(rows, k * batch))
        fed = {key: np.concatenate([g[key] for g in parts]) for key in parts[0]}
        games += len(fed["deal"])
        schedule.feed(k, tables, fed)
    if not schedule.ended:
        schedule.ended = "deals" if schedule.open_pairs() else "settled"
    return schedule, games, draws, list(rngs.items())


def fixed(
    pools: dict[tuple[int, int], PairPool],
    draws: dict[tuple[int, int], list[np.ndarray]],
    rngs: list,
    alpha: float,
    zone: float,
    batch: int,
    cap: int,
    k: int,
) -> tuple[int | None, list[int]]:
    """The full sweep on the same streams (extended to ``cap``): the first batch end at
    which fixed-sample intervals finish the race by the same rule; its games, survivors."""
    rng_of = dict(rngs)
    ends = cap // batch
    verdicts: dict[tuple[int, int], list[str]] = {}
    for pair, pp in pools.items():
        stream = np.concatenate(draws[pair]) if draws[pair] else np.zeros(0, dtype=np.int64)
        more = rng_of[pair].integers(0, len(pp.world.y), ends * batch - len(stream))
        stream = np.concatenate([stream, more]).astype(np.int64)
        mean, half = fixed_intervals(pp.world, stream, "adjusted", alpha, batch)
        verdicts[pair] = [
            pair_verdict(mu - h, mu + h, zone) for mu, h in zip(mean, half, strict=True)
        ]
    for end in range(ends):
        out = set()
        for (a, b), v in verdicts.items():
            if v[end] == "a":
                out.add(b)
            elif v[end] == "b":
                out.add(a)
        left = [i for i in range(k) if i not in out]
        if all(verdicts[(a, b)][end] != "open" for a, b in combinations(left, 2)):
            return (end + 1) * batch * len(pools) * 2, left
    return None, []


def wrong_verdicts(schedule: Schedule, share: np.ndarray, zone: float) -> int:
    """Settled verdicts the truth contradicts."""
    wrong = 0
    for (a, b), c in schedule.comparisons.items():
        delta, v = share[a, b] - 0.5, c.sequence.settled
        wrong += (v == "a" and delta <= 0) or (v == "b" and delta >= 0)
        wrong += v == "tie" and abs(delta) >= zone
    return wrong


def parse_values(text: str) -> list[int]:
    lo, _, hi = text.partition("..")
    return list(range(int(lo), int(hi) + 1)) if hi else [int(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--values", default="21..30", help="threshold targets: LO..HI or a,b,c")
    ap.add_argument("--seeds", type=int, default=100, help="racing runs (each its streams)")
    ap.add_argument("--pool-deals", type=int, default=10000)
    ap.add_argument("--cap", type=int, default=20000, help="deals: a table's most deals")
    ap.add_argument("--batch", type=int, default=100, help="target.batch")
    ap.add_argument("--seed", type=int, default=1, help="the pools' seed")
    ap.add_argument("--workers", type=int, default=1, help="processes playing the pools")
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    started = time.perf_counter()
    values = parse_values(args.values)
    config = sweep_config(values, args.cap, args.batch)
    the_plan = plan.Plan(config)
    probe = Schedule(config, the_plan)
    names = probe.names
    alpha = next(iter(probe.comparisons.values())).sequence.alpha
    zone = config.adaptive.zone
    pools: dict[tuple[int, int], PairPool] = {}
    for a, b in combinations(range(len(names)), 2):
        p = pool((names[a], names[b]), 2, args.pool_deals, args.seed, args.workers, args.cache, say)
        pools[(a, b)] = PairPool(p, [a, b])
    share, best = truth(pools, len(names))
    mean_share = [
        float(np.mean([share[i, j] for j in range(len(names)) if j != i]))
        for i in range(len(names))
    ]
    runs = []
    for seed in range(args.seeds):
        schedule, games, draws, rngs = race(config, the_plan, pools, seed)
        left = [i for i in range(len(names)) if i not in schedule.out]
        fixed_games, fixed_left = fixed(
            pools, draws, rngs, alpha, zone, args.batch, args.cap, len(names)
        )
        runs.append(
            {
                "seed": seed,
                "games": games,
                "ended": schedule.ended,
                "survivors": [names[i] for i in left],
                "holds_best": best in left,
                "wrong": wrong_verdicts(schedule, share, zone),
                "fixed_games": fixed_games,
                "fixed_survivors": [names[i] for i in fixed_left],
            }
        )
    games = np.array([r["games"] for r in runs], dtype=float)
    fixed_games = np.array([r["fixed_games"] or math.nan for r in runs], dtype=float)
    result = {
        "values": names,
        "alpha_per_comparison": alpha,
        "mean_share": dict(zip(names, mean_share, strict=True)),
        "best": names[best] if best is not None else None,
        "seeds": args.seeds,
        "race_mean_games": float(games.mean()),
        "race_median_games": float(np.median(games)),
        "race_max_games": float(games.max()),
        "full_mean_games": float(np.nanmean(fixed_games)),
        "full_never": int(np.isnan(fixed_games).sum()),
        "ratio_of_means": float(np.nanmean(fixed_games) / games.mean()),
        "ratio_median": float(np.nanmedian(fixed_games / games)),
        "ratio_min": float(np.nanmin(fixed_games / games)),
        "holds_best": sum(r["holds_best"] for r in runs),
        "wrong_runs": sum(r["wrong"] > 0 for r in runs),
        "survivors": Counter(", ".join(r["survivors"]) for r in runs).most_common(),
        "ended": Counter(r["ended"] for r in runs).most_common(),
        "args": {**vars(args), "cache": None},
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps({**result, "runs": runs}, indent=1))
        return 0
    pools_text = f"pools of {args.pool_deals:,} deals"
    print(f"\nthe values' mean head-to-head share against the others ({pools_text}):")
    for name, s in zip(names, mean_share, strict=True):
        mark = "  <- beats every other value" if name == result["best"] else ""
        print(f"  {name:<22} {s:6.1%}{mark}")
    print(
        f"\n{args.seeds} racing runs (alpha {alpha:.5f} a comparison, zone {zone * 100:g} point, "
        f"batches of {args.batch}, at most {args.cap:,} deals a table):\n"
        f"  racing sweep   {result['race_mean_games']:10,.0f} games (median "
        f"{result['race_median_games']:,.0f}, most {result['race_max_games']:,.0f})\n"
        f"  full sweep     {result['full_mean_games']:10,.0f} games to finish by the same rule "
        f"({result['full_never']} never within the cap)\n"
        f"  fewer games    {result['ratio_of_means']:.1f}x (ratio of means; median "
        f"{result['ratio_median']:.1f}x, least {result['ratio_min']:.1f}x)\n"
        f"  the best among the survivors in {result['holds_best']} of {args.seeds}; runs with a "
        f"wrong verdict: {result['wrong_runs']}\n"
        f"  survivors: {result['survivors'][:4]}\n  ended: {result['ended']}\n"
        f"  ({result['seconds']:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
