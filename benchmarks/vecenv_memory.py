"""The memory a vector environment's slot holds, and what N costs in speed.

For each player count, in a fresh process per measurement (so that one measurement's
freed memory is not the next one's): the resident memory (VmRSS) added by building
``VectorEnv(N, opponents)`` in C, resetting it and taking 200 steps (the first legal
action of each mask, so the games are under way and every seat has drawn its dice
blocks), divided by N; beside it the C side's own count, ``slot_bytes(players, True)``.
Then agent steps per CPU-second at several N (argmax of the masks, 3 CPU-seconds each).

    python benchmarks/vecenv_memory.py [--slots 4096] [--python-slots 512]

Linux only (it reads /proc/self/status). docs/rl.md ("How many games") quotes it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

CHILD = """
import sys
import numpy as np
from harness.env.vector import VectorEnv, slot_bytes

def rss():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024

n, players, engine, steps = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
opponents = ["greedy"] * (players - 1)
VectorEnv(1, opponents, engine=engine).reset(seed=1)  # first-use costs, not counted
before = rss()
vec = VectorEnv(n, opponents, engine=engine)
obs, _ = vec.reset(seed=1)
for _ in range(steps):
    obs, *_ = vec.step(obs["action_mask"].argmax(axis=1))
said = slot_bytes(players, True) if engine == "native" else 0
print((rss() - before) / n, said)
"""


def measure(n: int, players: int, engine: str, steps: int = 200) -> tuple[float, int]:
    """(resident bytes a slot added, the C side's count) in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(players), engine, str(steps)],
        capture_output=True,
        text=True,
        check=True,
    )
    held, said = done.stdout.split()
    return float(held), int(said)


def speed(n: int) -> float:
    from harness.env.vector import VectorEnv

    vec = VectorEnv(n, ["greedy"], engine="native")
    obs, _ = vec.reset(seed=1)
    steps, start = 0, time.process_time()
    while time.process_time() - start < 3.0:
        obs, *_ = vec.step(obs["action_mask"].argmax(axis=1))
        steps += n
    rate = steps / (time.process_time() - start)
    vec.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=4096)
    parser.add_argument("--python-slots", type=int, default=512)
    args = parser.parse_args()
    print(f"| players | C: bytes a slot ({args.slots:,} slots) | slot_bytes | Python fallback |")
    print("|---|---|---|---|")
    for players in (2, 4, 7):
        held, said = measure(args.slots, players, "native")
        python, _ = measure(args.python_slots, players, "python")
        print(f"| {players} | {held:,.0f} | {said:,} | {python:,.0f} |")
    print()
    for n in (1024, 16384, 65536):
        print(f"N = {n:,}: {speed(n):,.0f} agent steps per CPU-second")


if __name__ == "__main__":
    main()
