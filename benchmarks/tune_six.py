"""The tuner on six parameters of a plugin, over many seeds, with the best it can be
measured against.

    python benchmarks/tune_six.py tune [--seeds 0..19] [--budget 50000] [--confirm 1000]
                                       [--json-out six_0.json]
    python benchmarks/tune_six.py judge six_0.json [six_1.json ...] [--truth-deals 5000]
                                        [--cache results/luck_pools] [--workers 1]

**The plugin.** ``plugins/staged.py:Staged`` (six bounded parameters: ``spend`` 0..5,
``worm_value`` 3..8, ``worm_by`` 0..8, ``stop3``, ``stop2``, ``stop1`` 21..36, the last
three whole), tuned against greedy at 2 players from its defaults (about 4% against
greedy): ``harness tune plugins/staged.py:Staged --param spend=0..5 --param
worm_value=3..8 --param worm_by=0..8 --param stop3=21..36 --param stop2=21..36 --param
stop1=21..36 --against greedy --budget BUDGET --confirm CONFIRM --seed SEED`` through
:func:`harness.tune.run_tune` (the command's own code, in this process), for each seed.
``tune`` writes each tune's values, games and confirmation to ``--json-out``: the seeds
can be split between processes.

**The truth.** ``judge`` plays every tuned point, the defaults and a sweep around the
best tuned point (each parameter in turn over a few values, the others at that best)
against greedy on the same ``--truth-deals`` deals (luck_pool.py's pools: duplicate
dice, both seat orders, seed 11, deals the tunes never met: their deals are seeded from
the tune's seed): differences between points are paired. The best established is the
highest of all those points; each tune's distance to it is printed with its paired
standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import deal_totals, pool

from harness.tune import make_setup, run_tune

BOT = "plugins/staged.py:Staged"
PARAMS = [
    "spend=0..5",
    "worm_value=3..8",
    "worm_by=0..8",
    "stop3=21..36",
    "stop2=21..36",
    "stop1=21..36",
]
DEFAULTS = {
    "spend": 2.5,
    "worm_value": 5.0,
    "worm_by": 2.0,
    "stop3": 30,
    "stop2": 30,
    "stop1": 30,
}
SWEEP = {
    "spend": [0.0, 0.5, 1.0, 1.5, 2.0, 3.0],
    "worm_value": [4.0, 5.0, 6.0, 7.0],
    "worm_by": [3.0, 4.0, 5.0, 6.0, 7.0],
    "stop3": [21, 22, 23, 25],
    "stop2": [21, 22, 23, 25],
    "stop1": [21, 22, 23, 25],
}
POOL_SEED = 11


def seeds_of(text: str) -> list[int]:
    lo, _, hi = text.partition("..")
    return list(range(int(lo), int(hi) + 1)) if hi else [int(v) for v in text.split(",")]


def tune(args: argparse.Namespace) -> int:
    runs = []
    with tempfile.TemporaryDirectory() as out:
        for seed in seeds_of(args.seeds):
            setup = make_setup(
                BOT, PARAMS, ["greedy"], seed=seed, budget=args.budget, confirm=args.confirm
            )
            t0, c0 = time.perf_counter(), time.process_time()
            result = run_tune(setup, out=out, chart=False)
            c = result.confirmation
            runs.append(
                {
                    "seed": seed,
                    "tuned": result.values,
                    "games": result.state.games,
                    "iterations": result.state.k,
                    "confirmation": {k: v for k, v in c.items() if k not in ("tuned", "start")},
                    "seconds": time.perf_counter() - t0,
                    "cpu": time.process_time() - c0,
                }
            )
            print(
                f"seed {seed}: {result.values} {result.state.games:,} games; "
                f"{c['verdict']} ({c.get('difference', 0) * 100:+.1f} points)",
                file=sys.stderr,
            )
    Path(args.json_out).write_text(json.dumps({"budget": args.budget, "runs": runs}, indent=1))
    return 0


def ref(values: dict[str, Any]) -> str:
    inner = ",".join(f"{k}={values[k]!r}" for k in DEFAULTS)
    return f"{BOT}({inner})"


def judge(args: argparse.Namespace) -> int:
    runs = [r for f in args.files for r in json.loads(Path(f).read_text())["runs"]]
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def totals(values: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        key = ref(values)
        if key not in cache:
            p = pool((key, "greedy"), 2, args.truth_deals, POOL_SEED, args.workers, args.cache)
            y, m, _ = deal_totals(p, "win", 0)
            cache[key] = (y, m)
        return cache[key]

    def share(values: dict[str, Any]) -> float:
        y, m = totals(values)
        return float(y.sum() / m.sum())

    def gap(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float]:
        """share(a) - share(b) in points, and its paired standard error."""
        (ya, ma), (yb, mb) = totals(a), totals(b)
        d = ya / ma.mean() - yb / mb.mean()
        return float(d.mean() * 100), float(d.std(ddof=1) / np.sqrt(len(d)) * 100)

    def canon(v: dict[str, Any]) -> dict[str, Any]:
        return {k: (int(v[k]) if isinstance(DEFAULTS[k], int) else float(v[k])) for k in DEFAULTS}

    points = [canon(r["tuned"]) for r in runs]
    best_tuned = max(points, key=share)
    swept = []
    for name, grid in SWEEP.items():
        for value in grid:
            swept.append(canon({**best_tuned, name: value}))
    candidates = [best_tuned, *swept]
    best = max(candidates, key=share)
    start = canon(DEFAULTS)
    rows = []
    for r, p in zip(runs, points, strict=True):
        dist, se = gap(best, p)
        gain, gse = gap(p, start)
        rows.append({**r, "share": share(p), "distance": dist, "distance_se": se, "gain": gain})
    out = {
        "truth_deals": args.truth_deals,
        "start": {"values": start, "share": share(start)},
        "best": {"values": best, "share": share(best)},
        "best_tuned": {"values": best_tuned, "share": share(best_tuned)},
        "sweep": [{"values": v, "share": share(v)} for v in swept],
        "runs": rows,
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"start {start}: {share(start):.1%}; best established {best}: {share(best):.1%}")
    for row in rows:
        c = row["confirmation"]
        print(
            f"seed {row['seed']:2d}: {row['tuned']} -> {row['share']:.1%} (distance "
            f"{row['distance']:.2f} +- {row['distance_se']:.2f} points), {row['games']:,} "
            f"games, confirmation {c['verdict']} {c.get('difference', 0) * 100:+.1f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tune")
    t.add_argument("--seeds", default="0..19")
    t.add_argument("--budget", type=int, default=50_000)
    t.add_argument("--confirm", type=int, default=1_000)
    t.add_argument("--json-out", default="six.json")
    j = sub.add_parser("judge")
    j.add_argument("files", nargs="+")
    j.add_argument("--truth-deals", type=int, default=5_000)
    j.add_argument("--cache", type=Path, default=None)
    j.add_argument("--workers", type=int, default=1, help="processes playing the truth")
    j.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    return tune(args) if args.what == "tune" else judge(args)


if __name__ == "__main__":
    raise SystemExit(main())
