"""What timing the decisions costs: a plugin table with and without the clock.

    python benchmarks/decision_timing.py [--deals 1500] [--repeats 9]

A chunk times the decisions of its user (non-built-in) strategies in one game of 16
(harness.runfolder.timing.TIME_EVERY). The costliest case for it is a fast plugin:
greedy's code copied into a file under another class name (a Python seat, every
decision a call into Python), seated against greedy, 2 players. Each round plays the same
chunk with the clock on (1 game in 16), off (TIME_EVERY = 0) and on every game
(TIME_EVERY = 1, for scale), on the native engine (the plugin called back from C) and on
the Python engine, in rotating order; the rows are checked equal (timing never changes a
game). Prints the medians of time.process_time per game, and the median over rounds of
each round's ratio to "off" (the three are played side by side in a round, so a busy
machine's drift cancels).

CPU time on a shared machine swings; instruction counts do not. ``--once EVERY --engine
E`` plays one warm-up round and then one round with TIME_EVERY = EVERY (``-1``: only the
warm-up), for callgrind: the difference of two counts over the round's games is the cost
per game, e.g. ``valgrind --tool=callgrind python benchmarks/decision_timing.py --deals
300 --once 16 --engine native`` against ``--once 0`` and ``--once -1``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads count as CPU time

from harness import native  # noqa: E402
from harness.rules import Rules  # noqa: E402
from harness.runfolder import timing  # noqa: E402
from harness.tourney import chunks  # noqa: E402
from harness.tourney.plan import ChunkSpec  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from native_plugin_speed import plugin_file, ref_of  # noqa: E402

SETTINGS = (("off", 0), ("1 in 16", 16), ("every game", 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1500, help="deals a round (2 games each)")
    parser.add_argument("--repeats", type=int, default=9, help="rounds; medians are shown")
    parser.add_argument("--once", type=int, default=None, help="one round, for callgrind")
    parser.add_argument("--engine", choices=("native", "python"), default="native")
    args = parser.parse_args()
    if args.once is not None:
        once(args.deals, args.once, args.engine)
        return
    print(f"$ python benchmarks/decision_timing.py --deals {args.deals} --repeats {args.repeats}")
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    engines = [("python", chunks.play_chunk)]
    if native.available():
        engines.insert(0, ("native", chunks.play_native))
    with tempfile.TemporaryDirectory() as tmp:
        plugin = plugin_file(Path(tmp))
        spec = ChunkSpec(
            "bench", "tbl", (ref_of(plugin), ref_of("greedy")), Rules(players=2), "independent",
            1, 0, args.deals, 1000, seating="cyclic",
        )  # fmt: skip
        games = spec.games
        for engine, play in engines:
            play(spec)  # warm: imports, caches
            cpu: dict[str, list[float]] = {name: [] for name, _ in SETTINGS}
            rows = {}
            for r in range(args.repeats):
                order = SETTINGS[r % 3 :] + SETTINGS[: r % 3]
                for name, every in order:
                    timing.TIME_EVERY = every
                    start = time.process_time()
                    result = play(spec)
                    cpu[name].append(time.process_time() - start)
                    rows[name] = (result.games, result.seats, result.errors)
            timing.TIME_EVERY = 16
            if len({repr(v) for v in rows.values()}) != 1:
                print("decision_timing: timing changed the games", file=sys.stderr)
                sys.exit(1)
            off = statistics.median(cpu["off"])
            print(f"{engine} engine, {games:,} games a round (copied greedy v greedy), "
                  f"{args.repeats} rounds, medians:")  # fmt: skip
            for name, _ in SETTINGS:
                med = statistics.median(cpu[name])
                print(
                    f"  clock {name:<10} {med / games * 1e6:8.1f} CPU-us a game  x{med / off:.3f}"
                )


def once(deals: int, every: int, engine: str) -> None:
    """A warm-up round, then (unless ``every`` < 0) one round with TIME_EVERY = every."""
    play = chunks.play_native if engine == "native" else chunks.play_chunk
    with tempfile.TemporaryDirectory() as tmp:
        spec = ChunkSpec(
            "bench", "tbl", (ref_of(plugin_file(Path(tmp))), ref_of("greedy")),
            Rules(players=2), "independent", 1, 0, deals, 1000, seating="cyclic",
        )  # fmt: skip
        play(spec)
        if every >= 0:
            timing.TIME_EVERY = every
            play(spec)


if __name__ == "__main__":
    main()
