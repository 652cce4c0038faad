"""Strength of a strategy against another: seat-rotated duplicate-dice deals, with a 95% CI.

    python benchmarks/optimal_strength.py optimal simple --deals 50000 --workers 2
    python benchmarks/optimal_strength.py optimal greedy --players 4 --deals 5000
    python benchmarks/optimal_strength.py optimal 'optimal(endgame=0)' --deals 20000

A sits in one seat and B in every other; each deal is played in every seat rotation
with the same dice seat by seat (one `harness.game.dice.DuplicateDice` per deal), through
`harness.game.engine.Game`. Prints A's win share (a shared first place split evenly), its
outright wins, draws, mean worms, and a 95% interval computed over deals (the deal is
the independent unit: its rotations share dice). Deals are spread over worker
processes in chunks; every deal is seeded by its number, so the result does not depend
on the workers. (`harness tourney` does the same at scale, with storage and resuming;
this script is for quick, repeatable comparisons while tuning.)
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from multiprocessing import Pool

from harness.game.dice import DuplicateDice, derive_seed
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import Rules


def play_deals(job: tuple[str, str, int, int, int, int]) -> list[tuple[float, float, float, float]]:
    """Per deal: (A's win share, A's outright wins, draws, A's mean worms) over rotations."""
    a_ref, b_ref, players, first, stop, seed = job
    a = resolve(a_ref).create()
    others = [resolve(b_ref).create() for _ in range(players - 1)]
    rules = Rules(players=players)
    out = []
    for deal in range(first, stop):
        dice = DuplicateDice(derive_seed(seed, a_ref, b_ref, players, deal))
        share = wins = draws = worms = 0.0
        for rotation in range(players):
            seats = others[:]
            seats.insert(rotation, a)  # A sits in seat `rotation`
            result = Game(seats, rules, dice, seed=derive_seed(seed, deal, rotation)).play()
            firsts = [s for s, r in enumerate(result.ranks) if r == 1]
            if rotation in firsts:
                share += 1 / len(firsts)
                wins += len(firsts) == 1
                draws += len(firsts) > 1
            worms += result.scores[rotation]
        out.append((share / players, wins / players, draws / players, worms / players))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the strategy measured, e.g. optimal")
    parser.add_argument("b", help="the strategy in every other seat")
    parser.add_argument("--deals", type=int, default=2000, help="deals (x players rotations)")
    parser.add_argument("--players", type=int, default=2, help="players per game")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--chunk", type=int, default=250, help="deals per job")
    parser.add_argument("--seed", type=int, default=5, help="seed of every deal's dice")
    args = parser.parse_args()
    jobs = [
        (args.a, args.b, args.players, lo, min(lo + args.chunk, args.deals), args.seed)
        for lo in range(0, args.deals, args.chunk)
    ]
    wall = time.perf_counter()
    cpu = time.process_time()
    if args.workers > 0:
        with Pool(args.workers) as pool:
            parts = pool.map(play_deals, jobs, chunksize=1)
    else:
        parts = [play_deals(job) for job in jobs]
    deals = [d for part in parts for d in part]
    wall = time.perf_counter() - wall
    share = [d[0] for d in deals]
    mean = statistics.fmean(share)
    half = 1.96 * statistics.stdev(share) / math.sqrt(len(share))
    games = len(deals) * args.players
    print(
        f"{args.a} vs {args.b}: {args.players} players, {len(deals):,} deals x "
        f"{args.players} rotations = {games:,} games (duplicate dice, seed {args.seed})"
    )
    print(
        f"  {args.a} win share {mean:.2%} +- {half:.2%} (95% CI {mean - half:.2%} .. "
        f"{mean + half:.2%}); outright wins {statistics.fmean(d[1] for d in deals):.2%}, "
        f"shared firsts {statistics.fmean(d[2] for d in deals):.2%}; mean worms "
        f"{statistics.fmean(d[3] for d in deals):.2f}; fair share {1 / args.players:.2%}"
    )
    print(
        f"  {wall:.0f} s wall on {max(args.workers, 1)} worker(s) "
        f"({games / wall:,.0f} games/s; parent CPU {time.process_time() - cpu:.1f} s)"
    )


if __name__ == "__main__":
    main()
