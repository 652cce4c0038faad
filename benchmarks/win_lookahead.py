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
from collections.abc import Callable
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


def play_pair(deal: int, seed: int, challenger: Callable[[], WinOptimal]) -> dict[str, Any]:
    """One deal, both seat orders, ``win-optimal`` and ``challenger()`` each against
    optimal on the same dice: each bot's win points per order ("base", "other"), whether
    the two games differed, and the CPU each took."""
    rules = Rules(players=2)
    out: dict[str, Any] = {"base": [], "other": [], "differ": [], "cpu": [0.0, 0.0]}
    for order in (0, 1):
        results = []
        for k, bot in enumerate((WinOptimal(), challenger())):
            seats: list[Any] = ["optimal", "optimal"]
            seats[order] = bot
            dice = DuplicateDice(f"lookahead-{seed}-{deal}")
            cpu = time.process_time()
            result = play_game(seats, rules, f"lookahead-{seed}-{deal}-{order}", dice=dice)
            out["cpu"][k] += time.process_time() - cpu
            results.append(result)
            points = stats.win_points(np.array([result.ranks]))[0][order]
            out["base" if k == 0 else "other"].append(float(points))
        a, b = results
        out["differ"].append((a.stacks, a.turns, a.flipped) != (b.stacks, b.turns, b.flipped))
    return out


def play_deal(job: tuple[int, int, int]) -> dict[str, Any]:
    """:func:`play_pair` of the searching bot (``tiles``)."""
    deal, seed, tiles = job
    return play_pair(deal, seed, lambda: LookaheadWinOptimal(tiles))


def play_all(play: Callable[[Any], dict[str, Any]], jobs: list, workers: int) -> tuple[list, float]:
    """Every deal's pair, over ``workers`` processes; and the wall seconds."""
    wall = time.perf_counter()
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(play, jobs, chunksize=4)
    else:
        parts = [play(job) for job in jobs]
    return parts, time.perf_counter() - wall


def summary(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Both bots' shares, the paired difference per deal with its 95% interval, the games
    that differed and the CPU per game."""
    base = np.array([p["base"] for p in parts])  # (deals, 2 orders)
    other = np.array([p["other"] for p in parts])
    diff = (other - base).mean(axis=1)  # per deal
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan")
    games = 2 * len(parts)
    cpu = np.array([p["cpu"] for p in parts]).sum(axis=0)
    return {
        "base_share": float(base.mean()),
        "other_share": float(other.mean()),
        "paired_difference": float(diff.mean()),
        "paired_ci": [float(diff.mean() - 1.96 * se), float(diff.mean() + 1.96 * se)],
        "games_that_differed": int(sum(sum(p["differ"]) for p in parts)),
        "games": games,
        "cpu_ms_per_game": {"base": 1000 * cpu[0] / games, "other": 1000 * cpu[1] / games},
        "evaluator": evaluator(Rules(players=2)).describe(),
    }


def report(setting: dict[str, Any], parts: list[dict[str, Any]], wall: float, label: str,
           as_json: bool) -> int:  # fmt: skip
    """Print the measurement (one JSON document with ``as_json``): ``setting`` (what was
    run), :func:`summary` of ``parts``, the wall seconds; ``label`` names the other bot."""
    out = {**setting, **summary(parts), "wall_seconds": wall}
    if as_json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"win-optimal against optimal, 2 players, {len(parts):,} deals in both seat orders, "
          f"the Python engine ({wall:.0f} s wall)")  # fmt: skip
    print(f"  evaluator: {out['evaluator']}")
    print(f"  win-optimal               {out['base_share']:.2%}")
    print(f"  {label:<25} {out['other_share']:.2%}")
    lo, hi = out["paired_ci"]
    print(f"  paired difference         {100 * out['paired_difference']:+.2f} points, "
          f"95% CI {100 * lo:+.2f} to {100 * hi:+.2f}; "
          f"{out['games_that_differed']:,} of {out['games']:,} games differed")  # fmt: skip
    ms = out["cpu_ms_per_game"]
    print(f"  CPU per game (this process's share): {ms['base']:.1f} and {ms['other']:.1f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiles", type=int, default=3)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    jobs = [(d, a.seed, a.tiles) for d in range(a.deals)]
    parts, wall = play_all(play_deal, jobs, a.workers)
    setting = {"tiles": a.tiles, "deals": a.deals, "seed": a.seed}
    return report(setting, parts, wall, f"with one turn of search ({a.tiles} tiles or fewer)",
                  a.json)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
