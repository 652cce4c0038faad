"""Coverage of the calibration benchmark's per-bin intervals, on games whose evaluator is
calibrated by construction.

    python benchmarks/calibration_interval_coverage.py --runs 1000 --games 1700
    python benchmarks/calibration_interval_coverage.py --runs 200 --json

benchmarks/winprob_calibration.py gives each bin's "realised minus predicted" a 95%
interval clustered by game: the positions of one game share its result, so they are not
independent. This checks that interval where the truth is known. A synthetic two-seat
game of T turns (T uniform in 20..40, about a Pickomino 2-player game's turn starts) is
a random walk B_t of unit steps, won by seat 0 when B_T > 0; the prediction at turn t
is P(B_T > 0 | B_t) = Phi(B_t / sqrt(T - t)), exactly the chance to win, so in every bin
of the prediction the realised rate equals the mean prediction in expectation (a
martingale is calibrated conditionally on anything known at its time, the bin
included). Each position gives both seats' predictions and results, as the benchmark's
2-player rows do. Over ``--runs`` runs of ``--games`` games: how often each bin's
interval covers 0, clustered by game and as if the seat predictions were independent,
with the Monte Carlo error of a coverage at 95% (1.96 x sqrt(0.95 x 0.05 / runs)).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.special import ndtr
from winprob_calibration import BINS, table


def synthetic_games(rng: np.random.Generator, games: int) -> tuple[np.ndarray, ...]:
    """Seat predictions, results and game numbers of ``games`` calibrated two-seat games."""
    turns = rng.integers(20, 41, size=games)
    pred, real, game = [], [], []
    for g, t_end in enumerate(turns):
        walk = np.concatenate([[0.0], np.cumsum(rng.standard_normal(t_end))])
        won = float(walk[-1] > 0)
        p = ndtr(walk[:-1] / np.sqrt(t_end - np.arange(t_end)))
        pred += [p, 1 - p]
        real += [np.full(t_end, won), np.full(t_end, 1 - won)]
        game += [np.full(2 * t_end, g)]
    return np.concatenate(pred), np.concatenate(real), np.concatenate(game)


def coverage(runs: int, games: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    clustered = np.zeros(BINS)
    independent = np.zeros(BINS)
    seen = np.zeros(BINS)
    for _ in range(runs):
        rows = table(*synthetic_games(rng, games))
        for row in rows:
            if not row["n"]:
                continue
            b = row["bin"]
            seen[b] += 1
            clustered[b] += row["low"] <= 0 <= row["high"]
            half = 1.96 * row["se_independent"]
            independent[b] += abs(row["diff"]) <= half
    return {
        "runs": runs,
        "games": games,
        "seed": seed,
        "mc_error": 1.96 * float(np.sqrt(0.95 * 0.05 / runs)),
        "bins": [
            {
                "bin": b,
                "runs": int(seen[b]),
                "clustered": clustered[b] / seen[b],
                "independent": independent[b] / seen[b],
            }  # fmt: skip
            for b in range(BINS)
            if seen[b]
        ],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--games", type=int, default=1700, help="per run (about 50,000 positions)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cpu = time.process_time()
    out = coverage(a.runs, a.games, a.seed)
    out["cpu_seconds"] = time.process_time() - cpu
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{a.runs:,} runs of {a.games:,} calibrated games; coverage of 0 by each bin's 95% "
          f"interval (Monte Carlo error ±{100 * out['mc_error']:.1f} points)")  # fmt: skip
    print("  bin       clustered by game   as if independent")
    for row in out["bins"]:
        lo = row["bin"] * 10
        print(f"  {lo:>2}-{lo + 10}%   {100 * row['clustered']:15.1f}%   "
              f"{100 * row['independent']:16.1f}%")  # fmt: skip
    print(f"CPU time {out['cpu_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
