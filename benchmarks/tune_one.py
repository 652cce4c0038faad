"""The tuner on one parameter against a field, over many seeds.

    python benchmarks/tune_one.py [--bot threshold] [--param target=21..40]
                                  [--grid 21..40] [--field greedy] [--seeds 20]
                                  [--starts 24,27,30] [--budget 20000] [--truth-deals 20000]
                                  [--cache results/luck_pools] [--json]

**The truth.** Every value of ``--grid`` (and every value a tune ends at) is played
against each field member on ``--truth-deals`` deals with the luck account (luck_pool.py's
pools: duplicate dice, both seat orders, the same deals for every value: differences
between values are paired); a value's win share against the field is the mean over the
field of its win share at those tables. The best is the grid's highest.

**The tunes.** For each start (``BOT(NAME=START)``: the tuner starts at the bot's own
value) and each seed 0 .. ``--seeds`` - 1, ``harness tune BOT --param NAME=LO..HI
--against FIELD --budget BUDGET --seed SEED`` is run through :func:`harness.tune.run_tune`
(the command's own code, in this process), its confirmation included. Printed: the
tuned values, their loss against the best (the truth's win share of the best minus the
tuned value's, in points), how many are within 0.5 points, the games, the
confirmations' verdicts, and the time.

``--bot plugins/lean.py:WormBy --param worm_by=0..8 --grid 0..8 --starts 1,7 --floor`` is
the harder case: a real parameter whose best lies inside a flat range. ``--floor`` judges
a tuned value by its floor's pool (exact for WormBy: it compares ``worm_by`` with a whole
number of dice, so 5.63 plays every game as 5 does) instead of playing a pool for it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import deal_totals, pool

from harness.tune import make_setup, run_tune


def share_of(
    bot: str, name: str, value: float, field: list[str], deals: int, cache: Path | None, say: Any
) -> float:
    """A value's win share against the field (the mean over its members)."""
    shares = []
    for member in field:
        p = pool((f"{bot}({name}={value!r})", member), 2, deals, 11, 1, cache, say)
        y, m, _ = deal_totals(p, "win", 0)
        shares.append(y.sum() / m.sum())
    return float(np.mean(shares))


def grid_of(text: str) -> list[float]:
    lo, _, hi = text.partition("..")
    if hi:
        return [float(v) for v in range(int(lo), int(hi) + 1)]
    return [float(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="threshold")
    ap.add_argument("--param", default="target=21..40", help="NAME=LO..HI")
    ap.add_argument("--grid", default="21..40", help="values to find the best among")
    ap.add_argument("--field", default="greedy", help="comma-separated field")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--starts", default="24,27,30", help="starting targets")
    ap.add_argument("--budget", type=int, default=20_000)
    ap.add_argument("--confirm", type=int, default=2_000)
    ap.add_argument("--truth-deals", type=int, default=20_000)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument(
        "--floor",
        action="store_true",
        help="a value plays as its floor (compared with whole numbers only): its truth is "
        "the floor's",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    started = time.perf_counter()
    field = [f.strip() for f in args.field.split(",") if f.strip()]
    name = args.param.split("=", 1)[0]

    def truth_of(value: float) -> float:
        value = int(value) if float(value).is_integer() else value
        return share_of(args.bot, name, value, field, args.truth_deals, args.cache, say)

    share = {v: truth_of(v) for v in grid_of(args.grid)}
    best = max(share, key=share.__getitem__)
    runs = []
    with tempfile.TemporaryDirectory() as out:
        for start in args.starts.split(","):
            for seed in range(args.seeds):
                setup = make_setup(
                    f"{args.bot}({name}={start})",
                    [args.param],
                    field,
                    seed=seed,
                    budget=args.budget,
                    confirm=args.confirm,
                )
                t0 = time.perf_counter()
                result = run_tune(setup, out=out, chart=False)
                tuned = result.values[name]
                if args.floor:
                    tuned = float(np.floor(tuned))
                if tuned not in share:
                    share[tuned] = truth_of(tuned)
                c = result.confirmation
                runs.append(
                    {
                        "start": start,
                        "seed": seed,
                        "tuned": tuned,
                        "value": result.values[name],
                        "loss": (share[best] - share[tuned]) * 100,
                        "games": result.state.games,
                        "confirm_games": c.get("games", 0),
                        "verdict": c["verdict"],
                        "difference": c.get("difference"),
                        "seconds": time.perf_counter() - t0,
                    }
                )
                if not args.json:
                    print(
                        f"start {start} seed {seed:2d}: {name} {tuned:.4g} (loss "
                        f"{runs[-1]['loss']:.2f} points), {result.state.games:,} games; "
                        f"confirmation: {c['verdict']}"
                    )
    losses = np.array([r["loss"] for r in runs])
    result_ = {
        "field": field,
        "truth": {str(t): s for t, s in sorted(share.items())},
        "best": best,
        "runs": len(runs),
        "tuned": dict(sorted(Counter(round(r["tuned"], 2) for r in runs).items())),
        "within_half_point": int((losses <= 0.5).sum()),
        "loss_mean": float(losses.mean()),
        "loss_max": float(losses.max()),
        "games_max": max(r["games"] for r in runs),
        "verdicts": dict(Counter(r["verdict"] for r in runs)),
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps({**result_, "per_run": runs}, indent=1))
        return 0
    print(f"\ntruth (win share against {', '.join(field)}, {args.truth_deals:,} deals a pool):")
    print("  " + "  ".join(f"{t:g}:{s:.1%}" for t, s in sorted(share.items())))
    print(
        f"best {name} {best:g}; {len(runs)} tunes ({args.seeds} seeds x starts {args.starts}), "
        f"at most {result_['games_max']:,} games each:\n"
        f"  tuned values: {result_['tuned']}\n"
        f"  within 0.5 points of the best: {result_['within_half_point']} of {len(runs)}; "
        f"loss mean {result_['loss_mean']:.2f}, max {result_['loss_max']:.2f} points\n"
        f"  confirmations: {result_['verdicts']}\n  ({result_['seconds']:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
