"""Engine speed: games per CPU-second, `greedy` seats only, through the public strategy API.

    python benchmarks/engine_speed.py [--games 20000] [--repeats 5]

Every decision is a real call into the plugin (no shortcut for built-ins). Prints the
median of several repeats of CPU time (time.process_time), for 2 and 4 players.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

from harness.game.dice import SeededDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import Rules


def games_per_cpu_second(players: int, games: int, strategy: str, first_seed: int) -> float:
    spec = resolve(strategy)
    rules = Rules(players=players)
    seats = [spec.create() for _ in range(players)]
    start = time.process_time()
    for seed in range(first_seed, first_seed + games):
        Game(seats, rules, SeededDice(seed), seed=seed).play()
    return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=30, help="repeats; the median is shown")
    parser.add_argument("--strategy", default="greedy", help="strategy in every seat")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    for players in (2, 4):
        # Many short repeats over the same seeds: a shared machine's noise comes in
        # bursts, and the median of short runs sees through them.
        rates = [
            games_per_cpu_second(players, args.games, args.strategy, 0) for _ in range(args.repeats)
        ]
        print(
            f"{players} players, {args.strategy}: median {statistics.median(rates):,.0f} "
            f"games/CPU-s = {1e6 / statistics.median(rates):,.0f} us/game "
            f"(worst {min(rates):,.0f}, best {max(rates):,.0f}, "
            f"{args.repeats} x {args.games:,} games)"
        )


if __name__ == "__main__":
    main()
