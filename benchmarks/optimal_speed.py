"""Speed of the `optimal` strategy: games and turns per CPU-second, and its cache.

    python benchmarks/optimal_speed.py [--games 2000] [--repeats 3] [--opponent simple]

Plays 2-player duplicate-dice deals (both seat orders), `optimal` against an opponent,
through the real engine, in one process. Shows CPU time (time.process_time) as the
median of repeats, the same for the opponent alone (the engine's own cost), the turns
`optimal` played per CPU-second, how often a turn needed a fresh dynamic programme,
and the cost of one solve. The first repeat starts with cold caches (as a tournament
worker does); later repeats replay the same deals, so they are reported separately
from a run on fresh deals.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

from harness.analysis.turn import Payoff, solve_arrays
from harness.dice import DuplicateDice, derive_seed
from harness.engine import Game
from harness.plugins import resolve
from harness.rules import Rules


def play(first: str, second: str, deals: int, offset: int) -> tuple[float, int, int]:
    """CPU seconds, games, turns of seat-rotated duplicate deals."""
    a, b = resolve(first).create(), resolve(second).create()
    rules = Rules(players=2)
    turns = games = 0
    start = time.process_time()
    for deal in range(offset, offset + deals):
        dice = DuplicateDice(derive_seed("optimal_speed", deal))
        for seats in ((a, b), (b, a)):
            result = Game(list(seats), rules, dice).play()
            turns += result.turns
            games += 1
    return time.process_time() - start, games, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per repeat (even)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats on fresh deals")
    parser.add_argument("--opponent", default="simple", help="the other seat")
    parser.add_argument("--strategy", default="optimal", help="the strategy measured")
    args = parser.parse_args()
    import strategies.optimal as opt

    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    deals = args.games // 2
    solves = [0]
    real_solve = opt.solve_arrays

    def counting_solve(payoff: Payoff):  # noqa: ANN202
        solves[0] += 1
        return real_solve(payoff)

    opt.solve_arrays = counting_solve
    rates, turn_rates, fresh = [], [], []
    for r in range(args.repeats):
        before = solves[0]
        cpu, games, turns = play(args.strategy, args.opponent, deals, r * deals)
        base_cpu, _, base_turns = play(args.opponent, args.opponent, deals, r * deals)
        # The measured strategy plays about half the turns; the other half cost what a
        # turn of the opponent (engine included) costs when it plays itself.
        own = cpu - base_cpu / base_turns * (turns / 2)
        rates.append(games / cpu)
        turn_rates.append((turns / 2) / max(own, 1e-9))
        fresh.append((solves[0] - before) / (turns / 2))
        label = "cold caches" if r == 0 else "warm caches, fresh deals"
        print(
            f"repeat {r + 1} ({label}): {games / cpu:,.0f} games/CPU-s, "
            f"{turns / cpu:,.0f} turns/CPU-s in all; {args.strategy} alone "
            f"{turn_rates[-1]:,.0f} of its turns/CPU-s (engine included); "
            f"{fresh[-1]:.1%} of its turns solved afresh; "
            f"{args.opponent} vs itself {games / base_cpu:,.0f} games/CPU-s"
        )
    opt.solve_arrays = real_solve
    payoffs = [
        Payoff.from_function(lambda s, k=k: (s // 4 + k) if s >= 21 else None, -k)
        for k in range(20)
    ]
    start = time.process_time()
    for payoff in payoffs:
        solve_arrays(payoff)
    per_solve = (time.process_time() - start) / len(payoffs)
    print(
        f"median {statistics.median(rates):,.0f} games/CPU-s; one solve {per_solve * 1e3:.2f} ms; "
        f"{len(opt._SOLVED)} solved turns cached"
    )


if __name__ == "__main__":
    main()
