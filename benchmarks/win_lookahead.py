"""Whether win-optimal would play better with one turn of search in the end game: a
measurement of a design that is not built (docs/winprob.md: "Search in the end game").

    python benchmarks/win_lookahead.py --tiles 3 --deals 2000 [--seed 1] [--workers 2] [--json]

``win-optimal`` values each way its turn can end by the evaluator's chance at the
position that ending leaves. The variant here values it, once the grill shows ``--tiles``
tiles or fewer, by one turn more: the opponent's exact turn programme from that position
on the evaluator's chances at *its* endings (exact where an ending ends the game, R10,
R11), i.e. the evaluator with its drift at the next turn's start taken out
(benchmarks/win_luck_residue.py measures that drift). Two players (the 2-player strength
target is the one not met).

Both bots play `optimal` on the same deals (duplicate dice, both seat orders), on the
Python engine; the games are the same until the first end-game turn where the two
valuations choose differently, so the paired difference per deal is far less noisy than
either share. Printed: each bot's win share against `optimal`, the paired difference
with its 95% interval over deals, how many games differed, and the CPU per game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from typing import Any

import numpy as np

from harness import stats
from harness.analysis.turn import START, Payoff, solve_arrays
from harness.game.dice import DuplicateDice
from harness.game.rules import Rules
from harness.play import play_game
from harness.strategies.win_optimal import WinOptimal
from harness.strategy import View
from harness.winprob import Position, ending_chances, evaluator
from harness.winprob.payoff import stop_values


class Lookahead:
    """An evaluator one turn deeper in the end game: at a position with ``tiles`` grill
    tiles or fewer (and the game not over), the mover's chance is its exact turn
    programme's value on the base evaluator's chances at its endings; elsewhere the base
    evaluator's. Two players: the other seat's chance is the complement."""

    def __init__(self, rules: Rules, tiles: int) -> None:
        if rules.players != 2:
            raise ValueError("the lookahead is measured at two players")
        self.rules = rules
        self.tiles = tiles
        self.base = evaluator(rules)
        self.lower_any = rules.lower_tile == "any"

    def _deeper(self, position: Position) -> tuple[float, float]:
        claims, bust = ending_chances(position, self.rules, self.base)
        stop = stop_values(position, claims, self.lower_any)
        _, roll, _ = solve_arrays(Payoff(stop, bust))
        mine = float(roll[START])
        return (mine, 1.0 - mine) if position.to_move == 0 else (1.0 - mine, mine)

    def chances_many(self, positions: list[Position]) -> list[tuple[float, ...]]:
        shallow = self.base.chances_many(positions)
        return [
            self._deeper(p) if not p.over and p.grill.bit_count() <= self.tiles else c
            for p, c in zip(positions, shallow, strict=True)
        ]


class LookaheadWinOptimal(WinOptimal):
    """win-optimal, its endings valued by :class:`Lookahead` in the end game."""

    name = "win-optimal-lookahead"

    def __init__(self, tiles: int = 3) -> None:
        super().__init__()
        self.tiles = tiles
        self._judges: dict[Rules, Lookahead] = {}

    def _plan_key(self, view: View) -> tuple:
        return ("win-lookahead", self.tiles, *super()._plan_key(view))

    def _ending_values(self, view: View) -> tuple[dict, float]:
        position = Position.of(view.grill, view.stacks, view.seat)
        if len(view.grill) > self.tiles + 1:  # no ending leaves an end-game grill (R9)
            return super()._ending_values(view)
        judge = self._judges.get(view.rules)
        if judge is None:
            judge = self._judges[view.rules] = Lookahead(view.rules, self.tiles)
        return ending_chances(position, view.rules, judge)  # type: ignore[arg-type]


def play_deal(job: tuple[int, int, int]) -> dict[str, Any]:
    """One deal, both seat orders, each bot against optimal: the bot's win points per
    order, whether the two games differed, and the CPU each took."""
    deal, seed, tiles = job
    rules = Rules(players=2)
    out: dict[str, Any] = {"base": [], "lookahead": [], "differ": [], "cpu": [0.0, 0.0]}
    for order in (0, 1):
        results = []
        for k, bot in enumerate((WinOptimal(), LookaheadWinOptimal(tiles))):
            seats = ["optimal", "optimal"]
            seats[order] = bot  # type: ignore[call-overload]
            dice = DuplicateDice(f"lookahead-{seed}-{deal}")
            cpu = time.process_time()
            result = play_game(seats, rules, f"lookahead-{seed}-{deal}-{order}", dice=dice)
            out["cpu"][k] += time.process_time() - cpu
            results.append(result)
            points = stats.win_points(np.array([result.ranks]))[0][order]
            out["base" if k == 0 else "lookahead"].append(float(points))
        a, b = results
        out["differ"].append((a.stacks, a.turns, a.flipped) != (b.stacks, b.turns, b.flipped))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiles", type=int, default=3)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    jobs = [(d, a.seed, a.tiles) for d in range(a.deals)]
    wall = time.perf_counter()
    if a.workers > 1:
        with Pool(a.workers) as pool:
            parts = pool.map(play_deal, jobs, chunksize=4)
    else:
        parts = [play_deal(job) for job in jobs]
    wall = time.perf_counter() - wall
    base = np.array([p["base"] for p in parts])  # (deals, 2 orders)
    look = np.array([p["lookahead"] for p in parts])
    diff = (look - base).mean(axis=1)  # per deal
    se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
    games = 2 * a.deals
    cpu = np.array([p["cpu"] for p in parts]).sum(axis=0)
    out = {
        "tiles": a.tiles,
        "deals": a.deals,
        "seed": a.seed,
        "base_share": float(base.mean()),
        "lookahead_share": float(look.mean()),
        "paired_difference": float(diff.mean()),
        "paired_ci": [float(diff.mean() - 1.96 * se), float(diff.mean() + 1.96 * se)],
        "games_that_differed": int(sum(sum(p["differ"]) for p in parts)),
        "games": games,
        "cpu_ms_per_game": {"base": 1000 * cpu[0] / games, "lookahead": 1000 * cpu[1] / games},
        "wall_seconds": wall,
        "evaluator": evaluator(Rules(players=2)).describe(),
    }
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"win-optimal against optimal, 2 players, {a.deals:,} deals in both seat orders, "
          f"the Python engine ({wall:.0f} s wall)")  # fmt: skip
    print(f"  evaluator: {out['evaluator']}")
    print(f"  win-optimal               {out['base_share']:.2%}")
    print(f"  with one turn of search   {out['lookahead_share']:.2%}  (grill of "
          f"{a.tiles} tiles or fewer)")  # fmt: skip
    lo, hi = out["paired_ci"]
    print(f"  paired difference         {100 * out['paired_difference']:+.2f} points, "
          f"95% CI {100 * lo:+.2f} to {100 * hi:+.2f}; "
          f"{out['games_that_differed']:,} of {games:,} games differed")  # fmt: skip
    ms = out["cpu_ms_per_game"]
    print(f"  CPU per game (this process's share): {ms['base']:.1f} and {ms['lookahead']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
