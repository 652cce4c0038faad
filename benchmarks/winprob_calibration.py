"""Calibration of the win-probability evaluator on held-out positions.

    python benchmarks/winprob_calibration.py --positions 40000 --players 2,3,4
    python benchmarks/winprob_calibration.py --players 2 --model winprob-2p.bin --json

Plays games the training never saw (seeds ``calib-<seed>-<game>``; the training's are
``train-...``) on the Python engine between a seeded mix of built-ins (``--pool``:
mixed, the default, strong or weak; win-optimal plays with the shipped model), keeps
the position at every turn's start, and sets each seat's predicted chance to win beside
its realised share of first place (R11: a tie is shared). Per player count and over
all of them: predicted against realised win rate in ten bins of the prediction
(0-10%, ..., 90-100%), the difference's 95% interval clustered by game (a game's
positions share its result; the interval that treats them as independent is shown
beside it, and is too narrow), how many bins the intervals show within or outside the
1.0-point target, and the Brier score (mean squared error per seat and position)
of the evaluator beside the normal approximation's (harness.winprob.normal_chances,
what ``optimal``'s end game and today's win-weighted luck use). The evaluator is the
shipped one for each player count (``--model``: a file instead, for its player count);
``--rules PRESET`` plays and judges the games under a preset (by the preset's own model
where one is shipped, piko-blog's; any other variant by the official rules' model of its
player count; win-optimal seats play with the same).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from harness.game.rules import Rules
from harness.stats.intervals import Moments
from harness.training.calibrate import POOLS
from harness.training.progress import Bar
from harness.training.selfplay import play_positions
from harness.winprob import Evaluator, load, normal_chances

# the fields: the calibration step fits to the same ones, so they are written once
BINS = 10
TARGET = 0.01  # the issue's: realised within 1.0 point of predicted in every decile


def measure(players: int, positions: int, seed: int, model_path: Path | None, preset: str,
            bar: Bar, pool: tuple[str, ...] = POOLS["mixed"]) -> dict:  # fmt: skip
    bar.phase(f"{players} players: games", positions)
    pos, labels, games = play_positions(players, positions, seed, tag="calib", pool=pool,
                                    rules=preset, pinned=False, tick=bar.tick)  # fmt: skip
    rules = Rules.preset(preset, players)
    ev = Evaluator(rules, load(model_path)) if model_path else Evaluator(rules)
    bar.phase(f"{players} players: evaluate", len(pos))
    pred, normal = [], []
    for lo in range(0, len(pos), 2000):
        part = pos[lo : lo + 2000]
        for p, c in zip(part, ev.chances_many(part), strict=True):
            pred.append([c[(p.to_move + k) % players] for k in range(players)])
            normal.append([normal_chances(p)[(p.to_move + k) % players] for k in range(players)])
        bar.tick(len(part))
    bar.end()
    return {
        "players": players,
        "evaluator": ev.describe(),
        "positions": len(pos),
        "pred": np.array(pred).ravel(),
        "normal": np.array(normal).ravel(),
        "real": np.array(labels).ravel(),
        # a game per seat prediction (each position gives one per seat): the cluster
        "game": np.repeat(np.array(games), players),
    }


def table(pred: np.ndarray, real: np.ndarray, game: np.ndarray) -> list[dict]:
    """Per bin of the prediction: mean predicted, mean realised, their difference with its
    95% interval clustered by game (the positions of one game share its result, so they are
    not independent: ``Moments``' cluster-robust ratio, each game's summed residual over its
    count in the bin; benchmarks/calibration_interval_coverage.py measures its coverage), and
    the interval that treats every seat prediction as independent, beside it."""
    bins = np.minimum((pred * BINS).astype(int), BINS - 1)
    _, cluster = np.unique(game, return_inverse=True)
    rows = []
    for b in range(BINS):
        sel = bins == b
        n = int(sel.sum())
        if not n:
            rows.append({"bin": b, "n": 0})
            continue
        p, r = float(pred[sel].mean()), float(real[sel].mean())
        resid = np.bincount(cluster[sel], weights=real[sel] - pred[sel])
        count = np.bincount(cluster[sel])
        kept = count > 0
        low, high = Moments.of(resid[kept], count[kept]).interval()
        rows.append({
            "bin": b, "n": n, "games": int(kept.sum()), "predicted": p, "realised": r,
            "diff": r - p, "low": low, "high": high,
            "se_independent": float(real[sel].std(ddof=0) / np.sqrt(n)),
        })  # fmt: skip
    return rows


def worst(rows: list[dict]) -> dict:
    """The largest decile error, and whether each bin's clustered interval shows a miss of
    the 1.0-point target (its interval wholly outside -1..+1 points) or a pass (wholly
    inside); the rest cannot tell at this size."""
    full = [r for r in rows if r["n"]]
    return {
        "largest_error": max(abs(r["diff"]) for r in full),
        "bins_shown_outside": sum(r["low"] > TARGET or r["high"] < -TARGET for r in full),
        "bins_shown_inside": sum(r["low"] > -TARGET and r["high"] < TARGET for r in full),
        "bins": len(full),
    }


def summary(name: str, pred: np.ndarray, normal: np.ndarray, real: np.ndarray,
            game: np.ndarray) -> dict:  # fmt: skip
    bins = table(pred, real, game)
    return {
        "name": name,
        "seat_predictions": int(len(pred)),
        "games": int(len(np.unique(game))),
        "brier": float(np.mean((pred - real) ** 2)),
        "brier_normal": float(np.mean((normal - real) ** 2)),
        "bins": bins,
        "target": worst(bins),
        "bins_normal": table(normal, real, game),
    }


def show(s: dict, positions: int, evaluator: str) -> None:
    print(f"\n{s['name']}: {positions:,} positions from {s['games']:,} games, "
          f"{s['seat_predictions']:,} seat predictions")  # fmt: skip
    print(f"  evaluator: {evaluator}")
    print(
        f"  Brier score: evaluator {s['brier']:.4f}, normal approximation {s['brier_normal']:.4f}"
    )
    print("  bin        seats  predicted  realised   diff (pts), 95% by game   "
          "if independent   normal approx. diff")  # fmt: skip
    for row, nrow in zip(s["bins"], s["bins_normal"], strict=True):
        lo = row["bin"] * 10
        label = f"{lo:>2}-{lo + 10}%"
        normal = f"{100 * nrow['diff']:+6.2f} (n {nrow['n']:,})" if nrow["n"] else "-"
        if not row["n"]:
            print(f"  {label:<8} {0:>8}  {'-':>9}  {'-':>8}  {'-':>26}   {'-':>15}   {normal}")
            continue
        ci = f"{100 * row['diff']:+6.2f} ({100 * row['low']:+.2f} to {100 * row['high']:+.2f})"
        print(f"  {label:<8} {row['n']:>8,}  {100 * row['predicted']:8.2f}%  "
              f"{100 * row['realised']:7.2f}%  {ci:>26}   ±{196 * row['se_independent']:<14.2f}"
              f"   {normal}")  # fmt: skip
    t = s["target"]
    print(f"  largest decile error {100 * t['largest_error']:.2f} points; within 1.0 point, by "
          f"the intervals: {t['bins_shown_inside']} of {t['bins']} bins shown within, "
          f"{t['bins_shown_outside']} shown outside, the rest undecided")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--positions", type=int, default=40_000, help="per player count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--rules", default="official", help="a preset: official, piko-blog, ...")
    ap.add_argument("--pool", choices=sorted(POOLS), default="mixed",
                    help="the strategies the seats are drawn from")  # fmt: skip
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    counts = [int(p) for p in a.players.split(",")]
    if a.model and len(counts) != 1:
        sys.exit("winprob_calibration: --model judges one player count: give --players P")
    cpu = time.process_time()
    bar = Bar()
    parts = [measure(p, a.positions, a.seed, a.model, a.rules, bar, POOLS[a.pool]) for p in counts]
    results = []
    for part in parts:
        name = f"{part['players']} players"
        s = summary(name, *(part[k] for k in ("pred", "normal", "real", "game")))
        results.append((s, part["positions"], part["evaluator"]))
    if len(parts) > 1:
        cat = [np.concatenate([p[k] for p in parts]) for k in ("pred", "normal", "real")]
        # game numbers restart per player count: keep each count's games apart
        offsets = np.cumsum([0] + [int(p["game"].max()) + 1 for p in parts[:-1]])
        cat.append(np.concatenate([p["game"] + o for p, o in zip(parts, offsets, strict=True)]))
        every = sum(p["positions"] for p in parts)
        results.append((summary("all", *cat), every, "as above, per player count"))
    if a.json:
        out = [{**s, "positions": n, "evaluator": e} for s, n, e in results]
        print(json.dumps({"results": out, "cpu_seconds": time.process_time() - cpu}, indent=1))
        return 0
    for s, n, e in results:
        show(s, n, e)
    print(f"\nCPU time {time.process_time() - cpu:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
