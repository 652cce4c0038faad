"""A Python plugin at a native table: games per CPU-second against the Python engine.

    python benchmarks/native_plugin_speed.py [--deals 1500] [--repeats 7] [--profile]

The plugin is greedy's code copied into a file under another class name (so it cannot
go native: it plays as a Python seat, every decision a call back into Python), seated
against native ``greedy``, 2 players, official rules, independent dice. Each round plays
the same chunk (``--deals`` deals in both seat orders) through ``chunks.play_native`` (the
C engine, the plugin called back) and ``chunks.play_chunk`` on the Python engine, in
alternating order; the rows are checked equal. Prints the medians of time.process_time
and their ratio. Expected: at least 2x the Python engine's games per CPU-second.

``--profile``: also where the mixed table's CPU goes (cProfile of one native round).
``--plugins-only``: both seats the copied plugin (no native seat at all): whether the C
loop with callbacks still beats the Python engine (it decides what ``engine: auto`` does
with such a table).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads count as CPU time

from harness import native  # noqa: E402
from harness.plugins import resolve  # noqa: E402
from harness.rules import Rules  # noqa: E402
from harness.tourney import chunks  # noqa: E402
from harness.tourney.plan import ChunkSpec, EntrantRef  # noqa: E402


def plugin_file(where: Path) -> str:
    """Greedy's code as a file plugin, its class renamed: not a built-in."""
    source = (ROOT / "harness" / "strategies" / "greedy.py").read_text()
    path = where / "copied_greedy.py"
    path.write_text(source.replace("class Greedy(", "class CopiedGreedy("))
    return f"{path}:CopiedGreedy"


def ref_of(text: str) -> EntrantRef:
    spec = resolve(text)
    return EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"])


def timed(play, spec: ChunkSpec) -> tuple[float, chunks.ChunkResult]:
    start = time.process_time()
    result = play(spec)
    return time.process_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1500, help="deals a round (2 games each)")
    parser.add_argument("--repeats", type=int, default=7, help="rounds; medians are shown")
    parser.add_argument("--profile", action="store_true", help="profile one native round")
    parser.add_argument("--plugins-only", action="store_true", help="the plugin in both seats")
    args = parser.parse_args()
    if not native.available():
        print("native_plugin_speed: the native engine is not built", file=sys.stderr)
        sys.exit(1)
    flags = "".join(
        f" --{f}" for f in ("profile", "plugins-only") if vars(args)[f.replace("-", "_")]
    )
    print(f"$ python benchmarks/native_plugin_speed.py --deals {args.deals} "
          f"--repeats {args.repeats}{flags}")  # fmt: skip
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        plugin = plugin_file(Path(tmp))
        rival = plugin if args.plugins_only else "greedy"
        spec = ChunkSpec(
            "bench", "tbl", (ref_of(plugin), ref_of(rival)), Rules(players=2), "independent",
            1, 0, args.deals, 1000, seating="cyclic",
        )  # fmt: skip
        games = spec.games
        timed(chunks.play_native, spec)  # warm: imports, caches
        mixed, python = [], []
        for r in range(args.repeats):
            order = [("native", chunks.play_native), ("python", chunks.play_chunk)]
            results = {}
            for name, play in order if r % 2 == 0 else order[::-1]:
                cpu, results[name] = timed(play, spec)
                (mixed if name == "native" else python).append(cpu)
            a, b = results["native"], results["python"]
            if (a.games, a.seats, a.errors) != (b.games, b.seats, b.errors):
                print("native_plugin_speed: the engines played different rows", file=sys.stderr)
                sys.exit(1)
        m, p = statistics.median(mixed), statistics.median(python)
        table = "copied greedy v " + ("copied greedy" if args.plugins_only else "native greedy")
        print(f"{games:,} games a round ({table}, 2 players), "
              f"{args.repeats} rounds, medians of CPU time:")  # fmt: skip
        print(f"  native engine, plugin called back: {games / m:10,.0f} games per CPU-second")
        print(f"  Python engine:                     {games / p:10,.0f} games per CPU-second")
        target = "" if args.plugins_only else " (target: at least 2x)"
        print(f"  ratio: {p / m:.2f}x{target}")
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(chunks.play_native, spec)
            print("\nwhere a native round's CPU goes (cProfile, top 12 by own time):")
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
