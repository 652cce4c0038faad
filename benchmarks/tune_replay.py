"""The tuner's method on replayed games: a tune whose every point is looked up, not played.

    python benchmarks/tune_replay.py [--bot plugins/lean.py:WormBy] [--param worm_by=0..8]
                                     [--cells 0..8] [--field greedy] [--starts 1,7]
                                     [--seeds 100] [--budget 20000] [--deals 20000]
                                     [--cache results/luck_pools] [--json]

For a parameter whose bot plays alike within cells (``WormBy.worm_by`` compares a whole
number of dice, so ``worm_by`` and its floor play the same games; threshold's target is
whole), the games of every cell against the field are played once (luck_pool.py's pools:
``--deals`` deals, duplicate dice, both seat orders, seed 11, the account on), and a tune
is replayed on them: :class:`harness.tune.run.State` (the command's own method: its
points, its perturbation, its step, its luck coefficient, its averaged answer) with each
iteration's per-deal sums (win points Y, control C, games M) taken from the pools of the
two points' cells, on 50-deal windows of the pool drawn from the seed and the iteration.
Every point meets the same dice as the other at an iteration, as in a real tune; a
replayed tune differs from a played one only in which deals it meets (windows of one
pool, so different seeds share deals). It costs no games: the method's behaviour over
hundreds of seeds for the price of the pools. What it cannot show is a surface between
the cells; benchmarks/tune_one.py plays real tunes.

Printed per start: where the tunes ended (cells), how many within 0.5 points of the best
cell (its win share in the pools), the mean and the largest loss.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import pool

from harness import stats
from harness.tune import Gains, make_setup
from harness.tune.games import DealSums
from harness.tune.run import State, games_per_iteration, iterations_of, paired
from harness.tune.spsa import snap

POOL_SEED = 11


def cell_sums(bot: str, name: str, cell: int, field: str, deals: int, cache: Path | None):
    """Per deal (Y, C, M) of the bot at ``name=cell`` against ``field`` (both seat orders)."""
    p = pool((f"{bot}({name}={cell!r})", field), 2, deals, POOL_SEED, 1, cache, None)
    d = p.data
    mine = d["strat"] == 0
    ok = d["over"][..., None] & mine
    y = np.where(ok, stats.win_points(d["rank"]), 0.0).sum(axis=(1, 2))
    c = np.where(ok, stats.versus_others(d["wluck"]), 0.0).sum(axis=(1, 2))
    m = ok.sum(axis=(1, 2)).astype(float)
    return y, c, m


def replay_tune(setup: Any, sums: dict[int, tuple], deals: int) -> tuple[State, int]:
    """One tune of ``setup`` on the pools: its final state and the games it would play."""
    state = State(setup, path=[setup.start])
    p = setup.params[0]
    rng = np.random.default_rng([0x7E, setup.seed])
    offsets = rng.integers(0, deals, size=iterations_of(setup))
    cells = sorted(sums)
    for k in range(iterations_of(setup)):
        step = state.plan()
        rows = (offsets[k] + np.arange(setup.batch)) % deals
        got = []
        for point in (step["plus"], step["minus"]):
            value = p.low + point[0] * (p.high - p.low)
            cell = min(max(int(math.floor(value + 1e-9)), cells[0]), cells[-1])
            y, c, m = sums[cell]
            got.append(DealSums(y[rows], c[rows], m[rows]))
        y, c, m, moments = paired(got[0], got[1], 0)
        line = state.apply(step, y, c, m, moments)
        line["games"] = games_per_iteration(setup)
        state.games += line["games"]
    return state, state.games


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="plugins/lean.py:WormBy")
    ap.add_argument("--param", default="worm_by=0..8")
    ap.add_argument("--cells", default="0..8")
    ap.add_argument("--field", default="greedy")
    ap.add_argument("--starts", default="1,7")
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--budget", type=int, default=20_000)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--perturb", type=float, default=Gains.c, help="SPSA's c (--perturb)")
    ap.add_argument("--gain", type=float, default=Gains.a, help="SPSA's a (--gain)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    started = time.process_time()
    name = args.param.split("=", 1)[0]
    lo, _, hi = args.cells.partition("..")
    cells = list(range(int(lo), int(hi) + 1))
    sums = {v: cell_sums(args.bot, name, v, args.field, args.deals, args.cache) for v in cells}
    share = {v: float(sums[v][0].sum() / sums[v][2].sum()) for v in cells}
    best = max(share, key=share.__getitem__)
    out: dict[str, Any] = {"truth": share, "best": best, "starts": {}}
    for start in args.starts.split(","):
        losses, ended = [], []
        for seed in range(args.seeds):
            setup = make_setup(
                f"{args.bot}({name}={start})", [args.param], [args.field], seed=seed,
                budget=args.budget, gains=Gains(a=args.gain, c=args.perturb),
            )  # fmt: skip
            state, _ = replay_tune(setup, sums, args.deals)
            u, _ = state.estimate()
            value = setup.params[0].low + snap(u, setup.steps)[0] * (
                setup.params[0].high - setup.params[0].low
            )
            cell = min(max(int(math.floor(value + 1e-9)), cells[0]), cells[-1])
            ended.append(cell)
            losses.append((share[best] - share[cell]) * 100)
        losses_ = np.array(losses)
        cells_of = Counter(ended)
        out["starts"][start] = {
            "cells": dict(sorted(cells_of.items())),
            "within_half_point": int((losses_ <= 0.5).sum()),
            "tunes": len(losses),
            "loss_mean": float(losses_.mean()),
            "loss_max": float(losses_.max()),
        }
    out["cpu_seconds"] = time.process_time() - started
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print("truth: " + "  ".join(f"{v}:{s:.1%}" for v, s in share.items()) + f"  (best {best})")
    for start, r in out["starts"].items():
        print(
            f"start {start}: {r['tunes']} replayed tunes ended in cells {r['cells']}; within 0.5 "
            f"points {r['within_half_point']} of {r['tunes']}; loss mean {r['loss_mean']:.2f}, "
            f"max {r['loss_max']:.2f} points"
        )
    print(f"({out['cpu_seconds']:.0f} CPU-s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
