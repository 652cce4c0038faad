"""Whether win-optimal would play better for an average of several models' chances: a
measurement of a design that is not built (docs/winprob.md: "An average of models").

    python benchmarks/win_ensemble.py --models shipped A.bin B.bin --deals 4000 [--seed 1]
        [--workers 2] [--json]

Models trained alike from other seeds err differently; the mean of their chances is a
steadier evaluator than any one of them (the evaluator's error is what a one-turn
programme cannot play around: docs/luck.md). ``--models`` names the files averaged
(``shipped``: the shipped 2-player model); each is checked as a model file is
(harness.winprob.load) and must judge two players. The averaged chances are the
models' own, each seat's mean in the order given.

Both bots, ``win-optimal`` with the shipped model and the one playing for the average,
play `optimal` on the same deals (duplicate dice, both seat orders; win_lookahead.py's
deals of the same seed), on the Python engine: the games are the same until the first
turn the two valuations choose differently, so the paired difference per deal is
measured far more closely than either share. Printed: each bot's win share against
`optimal`, the paired difference with its 95% interval over deals, how many games
differed, and the CPU per game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from multiprocessing import Pool
from typing import Any

import numpy as np

from harness import stats
from harness.game.dice import DuplicateDice
from harness.game.rules import Rules
from harness.play import play_game
from harness.strategies.win_optimal import WinOptimal
from harness.strategy import View
from harness.winprob import ModelError, Position, ending_chances, evaluator, load
from harness.winprob.evaluator import Evaluator

SHIPPED = "shipped"


class Average:
    """The seat-by-seat mean of several evaluators' chances (in the order given)."""

    def __init__(self, rules: Rules, models: Sequence[str]) -> None:
        if rules.players != 2:
            raise ValueError("the average is measured at two players")
        self.parts = [
            evaluator(rules) if m == SHIPPED else Evaluator(rules, load(m)) for m in models
        ]

    def chances_many(self, positions: Sequence[Position]) -> list[tuple[float, ...]]:
        each = [e.chances_many(positions) for e in self.parts]
        n = len(each)
        return [
            tuple(sum(seat) / n for seat in zip(*rows, strict=True))
            for rows in zip(*each, strict=True)
        ]


class AverageWinOptimal(WinOptimal):
    """win-optimal, its endings valued by :class:`Average`."""

    name = "win-optimal-average"

    def __init__(self, models: Sequence[str]) -> None:
        super().__init__()
        self.models = tuple(models)
        self._judge: Average | None = None

    def _plan_key(self, view: View) -> tuple:
        return ("win-average", self.models, *super()._plan_key(view))

    def _ending_values(self, view: View) -> tuple[dict, float]:
        if self._judge is None:
            self._judge = Average(view.rules, self.models)
        position = Position.of(view.grill, view.stacks, view.seat)
        return ending_chances(position, view.rules, self._judge)  # type: ignore[arg-type]


def play_deal(job: tuple[int, int, tuple[str, ...]]) -> dict[str, Any]:
    """One deal, both seat orders, each bot against optimal: the bot's win points per
    order, whether the two games differed, and the CPU each took."""
    deal, seed, models = job
    rules = Rules(players=2)
    out: dict[str, Any] = {"base": [], "average": [], "differ": [], "cpu": [0.0, 0.0]}
    for order in (0, 1):
        results = []
        for k, bot in enumerate((WinOptimal(), AverageWinOptimal(models))):
            seats: list[Any] = ["optimal", "optimal"]
            seats[order] = bot
            # win_lookahead.py's deals: its win-optimal games are these, game for game
            dice = DuplicateDice(f"lookahead-{seed}-{deal}")
            cpu = time.process_time()
            result = play_game(seats, rules, f"lookahead-{seed}-{deal}-{order}", dice=dice)
            out["cpu"][k] += time.process_time() - cpu
            results.append(result)
            points = stats.win_points(np.array([result.ranks]))[0][order]
            out["base" if k == 0 else "average"].append(float(points))
        a, b = results
        out["differ"].append((a.stacks, a.turns, a.flipped) != (b.stacks, b.turns, b.flipped))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", required=True, help="model files, or 'shipped'")
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    models = tuple(a.models)
    try:
        Average(Rules(players=2), models)  # every file checked before any game
    except ModelError as exc:  # a missing or damaged file, a model of other seats
        print(f"win_ensemble: {exc}", file=sys.stderr)
        return 2
    jobs = [(d, a.seed, models) for d in range(a.deals)]
    wall = time.perf_counter()
    if a.workers > 1:
        with Pool(a.workers) as pool:
            parts = pool.map(play_deal, jobs, chunksize=4)
    else:
        parts = [play_deal(job) for job in jobs]
    wall = time.perf_counter() - wall
    base = np.array([p["base"] for p in parts])  # (deals, 2 orders)
    average = np.array([p["average"] for p in parts])
    diff = (average - base).mean(axis=1)  # per deal
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan")
    games = 2 * a.deals
    cpu = np.array([p["cpu"] for p in parts]).sum(axis=0)
    out = {
        "models": list(models),
        "deals": a.deals,
        "seed": a.seed,
        "base_share": float(base.mean()),
        "average_share": float(average.mean()),
        "paired_difference": float(diff.mean()),
        "paired_ci": [float(diff.mean() - 1.96 * se), float(diff.mean() + 1.96 * se)],
        "games_that_differed": int(sum(sum(p["differ"]) for p in parts)),
        "games": games,
        "cpu_ms_per_game": {"base": 1000 * cpu[0] / games, "average": 1000 * cpu[1] / games},
        "wall_seconds": wall,
        "evaluator": evaluator(Rules(players=2)).describe(),
    }
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"win-optimal against optimal, 2 players, {a.deals:,} deals in both seat orders, "
          f"the Python engine ({wall:.0f} s wall)")  # fmt: skip
    print(f"  shipped: {out['evaluator']}")
    print(f"  win-optimal                 {out['base_share']:.2%}")
    print(f"  for the average of {len(models)} models {out['average_share']:.2%}")
    lo, hi = out["paired_ci"]
    print(f"  paired difference           {100 * out['paired_difference']:+.2f} points, "
          f"95% CI {100 * lo:+.2f} to {100 * hi:+.2f}; "
          f"{out['games_that_differed']:,} of {games:,} games differed")  # fmt: skip
    ms = out["cpu_ms_per_game"]
    print(f"  CPU per game: {ms['base']:.1f} and {ms['average']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
