"""A tournament end to end on each engine: wall, CPU, and where the parent's CPU goes.

    python benchmarks/tourney_engines.py [CONFIG] [--engine native] [--games N] [--workers W]

Plays CONFIG (default configs/million.yaml) with ``run_tournament`` into a temporary
folder (``fresh``: nothing resumed or reused), the parent under cProfile, and prints:
wall seconds, games per wall second, CPU seconds of the parent and of the workers, and
the parent's CPU split into planning (the plan and chunk keys), storing chunks (Parquet
and the manifest line) and the final verification (hashing every chunk again). The
report (``harness tourney`` writes it after the run; ``--no-report`` skips it) is timed
separately with ``--report``. ``--games`` reduces the deals per table, to measure the
Python engine in reasonable time (scale its figures per game).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from harness.tourney import run_tournament  # noqa: E402

# The parent's work, by the functions that do it (cumulative CPU in cProfile).
PARTS = {
    "planning": [("plan.py", "chunks"), ("plan.py", "tables"), ("plan.py", "table_engine")],
    "storing (Parquet + manifest)": [("storage.py", "write_chunk")],
    "verification at the end": [("storage.py", "recheck")],
    "standings": [("standings.py", "standings")],
}


def machine_cpu() -> float:
    """CPU seconds of every process on the machine (user + system, from /proc/stat):
    the workers are the fork server's children, not ours, so rusage does not see them."""
    with open("/proc/stat") as fh:
        fields = [int(v) for v in fh.readline().split()[1:]]
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]  # user nice sys irq soft
    return busy / os.sysconf("SC_CLK_TCK")


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "configs" / "million.yaml"))
    parser.add_argument("--engine", default="native", choices=["auto", "python", "native"])
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--report", action="store_true", help="also time writing the report")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        profile = cProfile.Profile()
        wall0, self0, all0 = time.perf_counter(), cpu(resource.RUSAGE_SELF), machine_cpu()
        profile.enable()
        run = run_tournament(
            args.config,
            games=args.games,
            workers=args.workers,
            out=out,
            fresh=True,
            engine=args.engine,
        )
        profile.disable()
        wall = time.perf_counter() - wall0
        parent = cpu(resource.RUSAGE_SELF) - self0
        workers = max(0.0, machine_cpu() - all0 - parent)  # on a quiet machine: the workers
        stats = pstats.Stats(profile)
        cumulative = {
            (Path(file).name, name): ct for (file, _, name), (_, _, _, ct, _) in stats.stats.items()
        }
        print(f"config {args.config}, engine {args.engine}, {run.workers} workers")
        print(f"games {run.played:,} played, status {run.status}, chunks {run.engine_used}")
        print(f"wall {wall:.2f} s: {run.played / wall:,.0f} games per wall second")
        total = parent + workers
        print(f"CPU: parent {parent:.2f} s, workers {workers:.2f} s, total {total:.2f} s")
        print(f"games per CPU-second (all processes): {run.played / total:,.0f}")
        for part, keys in PARTS.items():
            seconds = sum(cumulative.get(k, 0.0) for k in keys)
            print(f"  {part}: {seconds:.2f} s CPU, {100 * seconds / total:.1f}% of all CPU")
        if os.environ.get("PROFILE_TOP"):
            stats.sort_stats("tottime").print_stats(int(os.environ["PROFILE_TOP"]))
        if args.report:
            from harness.report import write_report

            started = time.perf_counter()
            write_report(run.run_dir)
            print(f"report: {time.perf_counter() - started:.2f} s wall")


if __name__ == "__main__":
    main()
