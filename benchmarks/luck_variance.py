"""How much the luck adjustment shrinks the variance per deal, and that it moves no mean.

    python benchmarks/luck_variance.py [--deals 20000] [--seed 1] [--workers 1]
                                       [--cache results/luck_pools] [--only 2p] [--json]

For each case of luck_pool.py (six 2-player pairings, a 3-player and a 4-player field,
and a pair of runs that differ in one entrant), on top of duplicate dice (every deal
played in every seat rotation), for every target:

* win: a strategy's win share (ties split), control W - the others' mean W (win-weighted
  luck); margin: its worms - the others' mean, control L - the others' mean L (luck);
  h2h (3-4 players): A's share of the games where it finished ahead of B, control W_A - W_B;
  win_diff, margin_diff, worms_diff: the paired difference of two runs on the same deals
  (what ``harness compare`` pairs: threshold(target=27) in place of threshold(target=26)),
  control the difference of the twin games' controls; worms_diff is the difference of
  the entrant's own worms, the "mean worms" that ``harness compare`` adjusts (control:
  its luck against the others' mean, as compare's); margin_diff (worms minus the others'
  mean) is not a figure compare shows;
* raw: the estimate with its standard error clustered by deal (harness.stats.Moments);
* adjusted: the same with the control's coefficient cross-fitted on the other fold of
  deals (harness.stats.ControlMoments.adjusted, two folds by deal index);
* z: (adjusted - raw) / its standard error (ControlMoments.correction): the adjustment is
  unbiased, so |z| < 3 is expected of every row (the rows of one case share its deals,
  so their z are not independent of each other);
* gain: (raw se / adjusted se)^2, the variance per deal without over with the adjustment,
  i.e. how many times the deals the raw estimate needs for the adjusted one's precision,
  with a jackknife standard error (20 groups of deals); gain(b=1): with coefficient 1.

The pools are played by luck_pool.py (the runner's chunks: natively once the native
engine keeps the account, by the Python engine until then): with the Python engine,
1.2-2.3 ms of CPU a game for the cheap built-ins with the account, 5.3 for ``optimal v
simple``, 6.8 at 3 players and 8.5 at 4, about 30 minutes of CPU for every pool at the
default 20,000 deals (``--workers 2`` halves the wall time; ``--cache`` keeps them for
the other luck benchmarks, which read the same pools, and for the next run).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import GROUPS, Case, cases

from harness import stats

JACKKNIFE_GROUPS = 20


def moments(y: np.ndarray, m: np.ndarray, c: np.ndarray, first: int = 0) -> stats.ControlMoments:
    """The control moments of per-deal totals of deals ``first``, ``first + 1``, ...
    (folds by deal parity)."""
    return stats.ControlMoments.of(y, c, m, deal=np.arange(first, first + len(y)))


def jackknife_gain(y: np.ndarray, m: np.ndarray, c: np.ndarray) -> float:
    """Jackknife standard error of the gain over groups of consecutive deals (whole pairs
    of folds), from moments that add up: all minus one group."""
    n = len(y)
    bounds = np.linspace(0, n, JACKKNIFE_GROUPS + 1).astype(int) // 2 * 2
    whole = moments(y, m, c)
    values = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        part = moments(y[lo:hi], m[lo:hi], c[lo:hi], lo)
        values.append(stats.ControlMoments(whole.rows - part.rows).gain())
    v = np.asarray(values)
    g = len(v)
    return float(math.sqrt((g - 1) / g * ((v - v.mean()) ** 2).sum()))


def measure(case: Case) -> dict[str, Any]:
    rows = []
    for kind, name, y, m, c in case.targets:
        cm = moments(y, m, c)
        raw, adj, corr = cm.raw, cm.adjusted(), cm.correction()
        rows.append(
            {
                "kind": kind,
                "strategy": name,
                "deals": int(raw.deals),
                "raw": raw.estimate,
                "raw_se": raw.se,
                "adjusted": adj.estimate,
                "adjusted_se": adj.se,
                "z": corr.estimate / corr.se,
                "coef": cm.coef,
                "coefs": cm.coefs().tolist(),
                "gain": cm.gain(),
                "gain_se": jackknife_gain(y, m, c),
                "gain_coef_1": cm.gain(1.0),
            }
        )
    return {
        "case": case.title,
        "players": case.players,
        "deals": case.deals,
        "games": case.games,
        "cpu_ms_per_game": case.cpu_ms_per_game,
        "rows": rows,
    }


def print_result(r: dict[str, Any]) -> None:
    print(f"\n{r['case']}: {r['deals']:,} deals, {r['games']:,} games")
    print(
        f"  {'target':<38} {'raw':>16} {'adjusted':>16} {'z':>6} {'coef':>5} "
        f"{'gain':>12} {'gain(b=1)':>9}"
    )
    for row in r["rows"]:
        print(
            f"  {row['kind'] + ' ' + row['strategy']:<38} "
            f"{row['raw']:8.4f} +-{row['raw_se']:.4f} "
            f"{row['adjusted']:8.4f} +-{row['adjusted_se']:.4f} "
            f"{row['z']:+6.2f} {row['coef']:5.2f} {row['gain']:6.2f} +-{row['gain_se']:.2f} "
            f"{row['gain_coef_1']:9.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20000, help="deals per pool")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument("--only", action="append", choices=GROUPS, help="(repeatable)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    results = []
    for group in args.only or GROUPS:
        for case in cases(group, args.deals, args.seed, args.workers, args.cache, say):
            results.append(measure(case))
            if not args.json:
                print_result(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        zs = [row["z"] for r in results for row in r["rows"]]
        print(
            f"\n{len(zs)} targets: |z| max {max(abs(z) for z in zs):.2f}, mean z "
            f"{np.mean(zs):+.2f}, sd {np.std(zs, ddof=1):.2f} (a standard normal: 0, 1)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
