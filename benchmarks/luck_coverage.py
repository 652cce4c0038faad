"""Coverage of the luck-adjusted 95% intervals, raw and adjusted side by side.

    python benchmarks/luck_coverage.py [--runs 2000] [--deals 300] [--pool-deals 20000]
                                       [--only 2p] [--field greedy,tactician ...]
                                       [--control wluck|winluck|winvec]
                                       [--cache results/luck_pools] [--json]

benchmarks/coverage.py measures the report's raw intervals on fresh tournaments. This
measures the adjusted ones (harness.stats.ControlMoments) in a resampling world: a pool
of played deals with the account (luck_pool.py: the six 2-player pairings, a 3-player
and a 4-player field, every deal in every seat rotation on duplicate dice) is the
population, its mean the truth, and each run draws ``--deals`` of its deals without
replacement (a run's deals are distinct, as in a real run; its folds are by position).
The control is centred on the pool first (c - M * its pool mean), so that it has mean
exactly 0 in this world, as it has in the real one.

Every run computes, for every target of luck_pool.targets (win share and worm margin of
a strategy; head to head at 3 and 4 players), the raw interval and the adjusted one with
the report's own functions: ``share_interval(moments, by_deal=True)`` for shares,
``Moments.interval()`` (t on deals - 1) for the margin; the adjusted ones from
``ControlMoments.adjusted()`` (coefficient cross-fitted on the other fold of the run's
deals). Coverage is how often an interval holds the pool's mean, per kind over every
target and run, with a 95% interval clustered by run (the targets of one run share its
deals). Also shown: the mean width, and how much narrower the adjusted intervals are.

``--control`` chooses the win shares' control (win share, head to head, the paired win
share difference): ``wluck`` (the default: win-weighted worm luck, pools played with
``luck: on``), ``winluck`` (the stored win luck, schema 5) or ``winvec`` (its vector,
schema 6: the control every luck-adjusted win share uses where the games stored it; at
2 players the same as winluck's); the last two from pools played with ``luck: win``,
cached under their own names. Margins and worms keep the worm luck either way.

Pools come from luck_pool.py (``--cache`` reads the ones luck_variance.py played); the
resampling takes a minute or two of CPU per pool at the defaults.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import CONTROLS, GROUPS, Case, cases, centred

from harness import stats

KINDS = ("win", "margin", "h2h", "win_diff", "margin_diff", "worms_diff")
SHARES = ("win", "h2h")  # intervals for shares; margins and paired differences: t intervals


def interval(m: stats.Moments, kind: str) -> tuple[float, float]:
    return stats.share_interval(m, True) if kind in SHARES else m.interval()


def measure(case: Case, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    totals = [
        (kind, y, m, centred(y, m, c), y.sum() / m.sum()) for kind, _, y, m, c in case.targets
    ]
    # per kind and method: per run, intervals that held the truth, intervals, widths
    held = {(k, w): np.zeros(args.runs) for k in KINDS for w in ("raw", "adjusted")}
    count = {k: np.zeros(args.runs) for k in KINDS}
    width = {(k, w): [] for k in KINDS for w in ("raw", "adjusted")}
    deal = np.arange(args.deals)
    for run in range(args.runs):
        rows = rng.choice(case.deals, size=args.deals, replace=False)
        for kind, y, m, c, truth in totals:
            cm = stats.ControlMoments.of(y[rows], c[rows], m[rows], deal=deal)
            count[kind][run] += 1
            for way, moments in (("raw", cm.raw), ("adjusted", cm.adjusted())):
                lo, hi = interval(moments, kind)
                held[kind, way][run] += lo <= truth <= hi
                width[kind, way].append(hi - lo)
    out = []
    for kind in KINDS:
        if not count[kind].any():
            continue
        row: dict[str, Any] = {"kind": kind, "intervals": int(count[kind].sum())}
        for way in ("raw", "adjusted"):
            m = stats.Moments.of(held[kind, way], count[kind])
            lo, hi = stats.share_interval(m, True)
            row[way] = {
                "coverage": m.estimate,
                "low": lo,
                "high": hi,
                "mean_width": float(np.mean(width[kind, way])),
            }
        row["width_ratio"] = row["raw"]["mean_width"] / row["adjusted"]["mean_width"]
        out.append(row)
    return {
        "case": case.title,
        "players": case.players,
        "pool_deals": case.deals,
        "runs": args.runs,
        "deals": args.deals,
        "rows": out,
    }


def print_result(r: dict[str, Any]) -> None:
    control = f", win shares' control {r['control']}" if "control" in r else ""
    print(f"\n{r['case']}: {r['runs']} runs x {r['deals']} deals{control}")
    print(f"  {'kind':<7} {'n':>6}  {'raw':<32} {'adjusted':<32} width raw/adj")
    for row in r["rows"]:
        cells = [
            f"{c['coverage']:6.1%} [{c['low']:5.1%}, {c['high']:5.1%}] w {c['mean_width']:.3g}"
            for c in (row["raw"], row["adjusted"])
        ]
        print(
            f"  {row['kind']:<7} {row['intervals']:>6}  {cells[0]:<32} {cells[1]:<32} "
            f"{row['width_ratio']:.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2000, help="resampled runs per pool")
    ap.add_argument("--deals", type=int, default=300, help="deals per run")
    ap.add_argument("--pool-deals", type=int, default=20000, help="deals per pool")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="processes to play pools with")
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument("--only", action="append", choices=GROUPS, help="(repeatable)")
    ap.add_argument("--control", choices=CONTROLS, default="wluck", help="the win shares' control")
    ap.add_argument(
        "--field", action="append", help="only the pools of this field, e.g. greedy,tactician"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    results = []
    for group in args.only or GROUPS:
        fields = [tuple(f.split(",")) for f in args.field] if args.field else None
        found = cases(
            group, args.pool_deals, args.seed, args.workers, args.cache, say, args.control, fields
        )
        for case in found:
            results.append({**measure(case, args), "control": args.control})
            if not args.json:
                print_result(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(
            "\nn: intervals of the kind over all runs; coverage [its 95% interval, clustered "
            "by run] w: mean width (a share, or worms)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
