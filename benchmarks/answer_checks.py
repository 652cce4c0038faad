"""The cost of checking answers by value: engine games per CPU-second, before and after.

    git worktree add --detach /tmp/head-engine HEAD     # "before": a read-only copy
    python benchmarks/answer_checks.py --before /tmp/head-engine [--games 1000] [--repeats 21]
    python benchmarks/answer_checks.py --before /tmp/head-engine --callgrind [--games 200]
    git worktree remove /tmp/head-engine

Two worker processes, one importing harness (and strategies) from the ``--before``
copy, one from this working tree, play the same seeded games, greedy against greedy,
2 players, through ``Game(...).play()`` exactly as tournament chunks do. Repeats are
interleaved (before, after, before, after, ...) in one run, so the shared machine's
bursts of noise fall on both alike; the report gives each side's median games per
CPU-second (time.process_time in the worker, games only) and the ratio after/before.

CPU time on a shared VM swings by tens of percent between identical runs; ``--callgrind``
counts instructions instead (valgrind, deterministic with PYTHONHASHSEED=0): each side
plays ``--games`` games and none, and the difference divided by the games is the cost
of a game, import and start-up left out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# The worker: imports harness from whatever PYTHONPATH puts first, then answers one line
# per request ("GAMES FIRST_SEED") with the games per CPU-second it measured.
WORKER = r"""
import json, sys, time
import harness
from harness.game.dice import SeededDice
from harness.game.engine import Game
from harness.rules import Rules
from harness.strategies.greedy import Greedy

rules = Rules(players=2)
print(json.dumps({"harness": harness.__file__}), flush=True)
for line in sys.stdin:
    games, first = map(int, line.split())
    seats = [Greedy(), Greedy()]
    start = time.process_time()
    for seed in range(first, first + games):
        Game(seats, rules, SeededDice(seed), seed=seed).play()
    print(json.dumps({"rate": games / (time.process_time() - start)}), flush=True)
"""


def start_worker(root: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
    )
    assert proc.stdout is not None
    loaded = json.loads(proc.stdout.readline())["harness"]
    if not Path(loaded).resolve().is_relative_to(root.resolve()):
        sys.exit(f"the worker for {root} imported harness from {loaded}")
    return proc


CALLGRIND = r"""
import sys
from harness.game.dice import SeededDice
from harness.game.engine import Game
from harness.rules import Rules
from harness.strategies.greedy import Greedy

rules = Rules(players=2)
seats = [Greedy(), Greedy()]
for seed in range(int(sys.argv[1])):
    Game(seats, rules, SeededDice(seed), seed=seed).play()
"""


def instructions(root: Path, games: int) -> int:
    """Instructions valgrind counts for ``games`` games under ``root``'s harness."""
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED="0")
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        + [sys.executable, "-c", CALLGRIND, str(games)],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=True,
    ).stderr
    match = re.search(r"Collected : (\d+)", out)
    if match is None:
        sys.exit(f"no instruction count from valgrind:\n{out[-500:]}")
    return int(match.group(1))


def callgrind(before: Path, after: Path, games: int) -> None:
    per_game = {
        name: (instructions(root, games) - instructions(root, 0)) / games
        for name, root in (("before", before), ("after", after))
    }
    print(f"instructions per game (valgrind callgrind, {games} games, greedy vs greedy, 2 players)")
    for name, count in per_game.items():
        print(f"{name:>6}: {count:,.0f}")
    print(f"ratio after/before: {per_game['after'] / per_game['before']:.3f}")


def measure(proc: subprocess.Popen[str], games: int, first: int) -> float:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{games} {first}\n")
    proc.stdin.flush()
    return float(json.loads(proc.stdout.readline())["rate"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a copy of the old tree")
    parser.add_argument("--after", type=Path, default=HERE, help="the tree to compare")
    parser.add_argument("--games", type=int, default=1000, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=21, help="repeats per side")
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead")
    args = parser.parse_args()
    if args.callgrind:
        callgrind(args.before, args.after, args.games)
        return
    sides = {"before": start_worker(args.before), "after": start_worker(args.after)}
    rates: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for proc in sides.values():  # warm-up: caches, lazy tables
            measure(proc, args.games // 4 or 1, 0)
        for _ in range(args.repeats):
            for name, proc in sides.items():  # A B A B: the same noise for both
                rates[name].append(measure(proc, args.games, 0))
    finally:
        for proc in sides.values():
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait()
    medians = {name: statistics.median(r) for name, r in rates.items()}
    print(f"{sys.implementation.name} {sys.version.split()[0]}; greedy vs greedy, 2 players")
    for name, rate in rates.items():
        print(
            f"{name:>6}: median {medians[name]:,.0f} games/CPU-s "
            f"({1e6 / medians[name]:,.0f} us/game; worst {min(rate):,.0f}, best {max(rate):,.0f}; "
            f"{args.repeats} x {args.games:,} games)"
        )
    ratio = medians["after"] / medians["before"]
    pairs = sorted(a / b for a, b in zip(rates["after"], rates["before"], strict=True))
    print(
        f"ratio after/before: {ratio:.3f} (median of paired repeats {statistics.median(pairs):.3f})"
    )


if __name__ == "__main__":
    main()
