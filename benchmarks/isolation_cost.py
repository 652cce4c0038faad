"""What seat limits cost per game: greedy vs greedy in-process, with time limits, isolated.

    python benchmarks/isolation_cost.py [--games 200] [--repeats 5]

For each mode, the median over repeats of CPU seconds per game of the engine process
(time.process_time) and, with ``isolation: process``, of the seats' processes (their
utime + stime from /proc, Linux), plus wall time per game. The seats' processes are
started once per mode (as a tournament worker keeps them for its games); what starting
one costs is printed apart. Decisions per game are counted, so the cost per question
over the pipe can be read off too.

The sandbox of isolated seats (harness.seats.sandbox: limits, namespaces, Landlock, seccomp)
is measured against the same seat process without it (what ``isolation: process`` was
before it), side by side: the modes are played in turn, in a new order each repeat, and
so are the seat start-ups.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from harness.game.dice import SeededDice
from harness.game.engine import Game
from harness.play import Seats, open_seats
from harness.rules import Rules
from harness.seats import SeatLimits, _ProcessSeat, close_all
from harness.seats.isolation import SeatProcess
from harness.seats.sandbox import cpu_used, probe
from harness.strategy import Strategy


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used so far."""
    used = cpu_used(pid)
    if used is None:
        raise SystemExit("this benchmark reads seat processes' CPU time from /proc (Linux)")
    return used


def unsandboxed(names: list[str]) -> Seats:
    """Isolated seats as they were before the sandbox: the same process, not confined."""
    limits = SeatLimits(isolation="process")
    seats = [
        _ProcessSeat(SeatProcess({"ref": (n, ())}, n, sandboxed=False), n, limits, None)
        for n in names
    ]
    for seat in seats:
        seat.process.start()
    for seat in seats:
        seat.process.wait_ready()
    return Seats(list(seats), list(names))


Opener = Callable[[list[str]], Any]


def opener(limits: SeatLimits) -> Opener:
    return lambda names: open_seats(names, limits)


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


def run(open_: Opener, games: int) -> tuple[float, float, float]:
    """(engine CPU-s, seats' CPU-s, wall s) per game, for ``games`` games."""
    rules = Rules(players=2)
    with open_(["greedy", "greedy"]) as seats:
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


def startup(open_: Opener) -> tuple[float, float]:
    """(wall s, the process's CPU-s) to start one isolated greedy seat, ready to play."""
    wall = time.perf_counter()
    seats = open_(["greedy"])
    try:
        wall = time.perf_counter() - wall
        cpu = process_cpu(seats.strategies[0].process.pid)
    finally:
        close_all(seats.strategies)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; medians are shown")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    print(f"sandbox here lacks: {', '.join(probe()) or 'nothing'}")
    print(f"greedy vs greedy, {args.repeats} x {args.games} games per mode, medians")
    modes: dict[str, Opener] = {
        "in-process": opener(SeatLimits()),
        "in-process, move_time 10 s + game_time 60 s": opener(SeatLimits(10, 60)),
        "isolation: process (sandboxed)": opener(SeatLimits(isolation="process")),
        "isolation: process, no sandbox (before)": unsandboxed,
        "isolation: process, move_time 10 s": opener(SeatLimits(10, None, "process")),
    }
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in modes}
    order = list(modes)
    shuffle = random.Random(1).shuffle
    for _ in range(args.repeats):  # interleaved, in a new order each round: the machine's
        shuffle(order)  # load and any warming up hit every mode alike
        for label in order:
            runs[label].append(run(modes[label], args.games))
    base = None
    for label, measured in runs.items():
        engine, seats, wall = (statistics.median(r[i] for r in measured) for i in range(3))
        total = engine + seats
        base = base or total
        print(
            f"  {label:<45} engine {engine * 1e3:7.3f} ms + seats {seats * 1e3:7.3f} ms "
            f"= {total * 1e3:7.3f} CPU-ms/game (x{total / base:.1f}), wall {wall * 1e3:7.3f} ms"
        )
    asked = decisions_per_game(args.games)
    print(f"  decisions per game: {asked:.1f}")
    starts: dict[str, list[tuple[float, float]]] = {"sandboxed": [], "no sandbox (before)": []}
    for _ in range(max(args.repeats, 5)):
        starts["sandboxed"].append(startup(opener(SeatLimits(isolation="process"))))
        starts["no sandbox (before)"].append(startup(unsandboxed))
    for label, measured in starts.items():
        print(
            f"  starting one isolated seat, {label:<20} "
            f"{statistics.median(s[0] for s in measured):.3f} s wall, "
            f"{statistics.median(s[1] for s in measured):.3f} CPU-s (once per seat, not per game)"
        )


if __name__ == "__main__":
    main()
