"""What seat limits cost per game: greedy vs greedy in-process, with time limits, isolated.

    python benchmarks/isolation_cost.py [--games 200] [--repeats 5]

For each mode, the median over repeats of CPU seconds per game of the engine process
(time.process_time) and, with ``isolation: process``, of the seats' processes (their
utime + stime from /proc, Linux), plus wall time per game. The seats' processes are
started once per mode (as a tournament worker keeps them for its games); what starting
one costs is printed apart. Decisions per game are counted, so the cost per question
over the pipe can be read off too.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from harness.dice import SeededDice
from harness.engine import Game
from harness.play import open_seats
from harness.rules import Rules
from harness.seats import SeatLimits
from harness.strategy import Strategy

_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


class Counting(Strategy):
    """Counts the questions a seat is asked (to report decisions per game)."""

    name = "counting"

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.asked = 0

    def new_game(self, seat, rules):
        self.inner.new_game(seat, rules)

    def pick(self, view):
        self.asked += 1
        return self.inner.pick(view)

    def stop(self, view):
        self.asked += 1
        return self.inner.stop(view)

    def claim(self, view, choices):
        self.asked += 1
        return self.inner.claim(view, choices)


def decisions_per_game(games: int) -> float:
    from harness.plugins import create

    seats = [Counting(create("greedy")), Counting(create("greedy"))]
    rules = Rules(players=2)
    for seed in range(games):
        Game(seats, rules, SeededDice(seed), seed=seed).play()
    return sum(s.asked for s in seats) / games


def run(limits: SeatLimits, games: int) -> tuple[float, float, float]:
    """(engine CPU-s, seats' CPU-s, wall s) per game, for ``games`` games."""
    rules = Rules(players=2)
    with open_seats(["greedy", "greedy"], limits) as seats:
        pids = [s.process.pid for s in seats.strategies if hasattr(s, "process")]
        seat_cpu = sum(process_cpu(p) for p in pids)
        wall, cpu = time.perf_counter(), time.process_time()
        for seed in range(games):
            game = Game(seats.strategies, rules, SeededDice(seed), names=seats.names, seed=seed)
            result = game.play()
            assert result.error is None, result.error
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        seat_cpu = sum(process_cpu(p) for p in pids) - seat_cpu
    return cpu / games, seat_cpu / games, wall / games


def startup() -> tuple[float, float]:
    """(wall s, the process's CPU-s) to start one isolated greedy seat, ready to play."""
    wall = time.perf_counter()
    with open_seats(["greedy"], SeatLimits(isolation="process")) as seats:
        wall = time.perf_counter() - wall
        cpu = process_cpu(seats.strategies[0].process.pid)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; medians are shown")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    print(f"greedy vs greedy, {args.repeats} x {args.games} games per mode, medians")
    modes = {
        "in-process": SeatLimits(),
        "in-process, move_time 10 s + game_time 60 s": SeatLimits(10, 60),
        "isolation: process": SeatLimits(isolation="process"),
        "isolation: process, move_time 10 s": SeatLimits(10, None, "process"),
    }
    base = None
    for label, limits in modes.items():
        runs = [run(limits, args.games) for _ in range(args.repeats)]
        engine, seats, wall = (statistics.median(r[i] for r in runs) for i in range(3))
        total = engine + seats
        base = base or total
        print(
            f"  {label:<45} engine {engine * 1e3:7.3f} ms + seats {seats * 1e3:7.3f} ms "
            f"= {total * 1e3:7.3f} CPU-ms/game (x{total / base:.1f}), wall {wall * 1e3:7.3f} ms"
        )
    asked = decisions_per_game(args.games)
    print(f"  decisions per game: {asked:.1f}")
    starts = [startup() for _ in range(args.repeats)]
    print(
        f"  starting one isolated seat: {statistics.median(s[0] for s in starts):.3f} s wall, "
        f"{statistics.median(s[1] for s in starts):.3f} CPU-s (once per seat, not per game)"
    )


if __name__ == "__main__":
    main()
