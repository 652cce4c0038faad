"""A tournament end to end on each engine: wall, CPU, and the parent's share of the CPU.

    python benchmarks/tourney_engines.py [CONFIG] [--engine native] [--games N]
        [--workers W] [--repeats R] [--profile] [--report]

Plays CONFIG (default harness/configs/million.yaml) with ``run_tournament`` into a temporary
folder (``fresh``: nothing resumed or reused), ``--repeats`` times, and prints the median
of: wall seconds, games per wall second, the parent's CPU seconds (planning, receiving
the chunks, Parquet, the manifest, the standings: everything the pipeline adds around the
games) and the workers' CPU seconds. The workers are the fork server's children, not this
process's, so their CPU is taken two ways: the CPU each chunk took to play, as its worker
measured it (summed from the manifest's ``cpu``: a lower bound, so the parent's share
computed from it is an upper bound), and every process's CPU on the machine less the
parent's (/proc/stat: exact on an idle machine, too high on a shared one).

``--profile`` adds one more run with the parent under cProfile (timed by CPU, not wall)
and splits the parent's CPU into planning, storing chunks (Parquet and the manifest
line), receiving the workers' results and the final verification. ``--report`` times
writing the report after the last run (``harness tourney`` writes it; ``--no-report``
skips it). ``--games`` reduces the deals per table, to measure the Python engine in
reasonable time (scale its figures per game).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from harness.runfolder.layout import MANIFEST  # noqa: E402
from harness.runfolder.manifest import read_manifest  # noqa: E402
from harness.tourney import run_tournament  # noqa: E402

# The parent's work, by the functions that do it (cumulative CPU in cProfile).
PARTS = {
    # Plan.__init__ builds the tables and their engines (tables, table_engine) itself.
    "planning": [("plan.py", "__init__"), ("plan.py", "specs")],
    "storing (Parquet + manifest)": [("storage.py", "write_chunk")],
    "receiving results (pipe, unpickling, assembling)": [("process.py", "_serve")],
    "verification at the end": [("storage.py", "recheck")],
    "standings": [("standings.py", "standings"), ("ranking.py", "count_games")],
}


def machine_cpu() -> float:
    """CPU seconds of every process on the machine (user + system, from /proc/stat)."""
    with open("/proc/stat") as fh:
        fields = [int(v) for v in fh.readline().split()[1:]]
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]  # user nice sys irq soft
    return busy / os.sysconf("SC_CLK_TCK")


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def one_run(args: argparse.Namespace, out: str, profile: cProfile.Profile | None) -> dict:
    """One fresh run: its figures (and the run, for the report)."""
    wall0, self0, all0 = time.perf_counter(), cpu(resource.RUSAGE_SELF), machine_cpu()
    if profile is not None:
        profile.enable()
    run = run_tournament(
        args.config,
        games=args.games,
        workers=args.workers,
        out=out,
        fresh=True,
        engine=args.engine,
        progress=False,
    )
    if profile is not None:
        profile.disable()
    wall = time.perf_counter() - wall0
    parent = cpu(resource.RUSAGE_SELF) - self0
    machine = max(0.0, machine_cpu() - all0 - parent)
    entries, _ = read_manifest(Path(run.run_dir) / MANIFEST)
    chunks = sum(entry["cpu"] for entry in entries)
    assert run.status == "complete", run.status
    return {
        "run": run,
        "wall": wall,
        "parent": parent,
        "chunks": chunks,
        "machine": machine,
        "parts": len(entries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "config", nargs="?", default=str(ROOT / "harness" / "configs" / "million.yaml")
    )
    parser.add_argument("--engine", default="native", choices=["auto", "python", "native"])
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3, help="runs; medians are shown")
    parser.add_argument("--profile", action="store_true", help="split the parent's CPU")
    parser.add_argument("--report", action="store_true", help="also time writing the report")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    with tempfile.TemporaryDirectory() as out:
        runs = [one_run(args, out, None) for _ in range(args.repeats)]
        run = runs[-1]["run"]

        def med(name: str) -> float:
            return statistics.median(r[name] for r in runs)

        games = run.played
        print(f"config {args.config}, engine {args.engine}, {run.workers} workers")
        print(f"games {games:,} per run in {runs[-1]['parts']} chunks, {run.engine_used}")
        wall, parent, chunks, machine = med("wall"), med("parent"), med("chunks"), med("machine")
        print(f"wall {wall:.2f} s: {games / wall:,.0f} games per wall second")
        print(
            f"CPU: parent {parent:.2f} s; workers {chunks:.2f} s playing chunks (their own "
            f"count), {machine:.2f} s by /proc/stat (all other processes)"
        )
        shares = [r["parent"] / (r["parent"] + r["chunks"]) for r in runs]
        print(
            f"parent's share of the CPU: {statistics.median(shares):.1%} against the chunks' "
            f"own CPU (upper bound), {parent / (parent + machine):.1%} against /proc/stat; "
            f"{games / (parent + chunks):,.0f} games per CPU-second (parent + chunks); "
            f"{args.repeats} runs, medians"
        )
        if args.profile:
            profile = cProfile.Profile(time.process_time)
            profiled = one_run(args, out, profile)
            stats = pstats.Stats(profile)
            cumulative = {
                (Path(file).name, name): ct
                for (file, _, name), (_, _, _, ct, _) in stats.stats.items()
            }
            total = profiled["parent"] + profiled["chunks"]
            print(f"profiled run (parent under cProfile: {profiled['parent']:.2f} s CPU):")
            for part, keys in PARTS.items():
                seconds = sum(cumulative.get(k, 0.0) for k in keys)
                print(f"  {part}: {seconds:.2f} s CPU, {100 * seconds / total:.1f}% of the CPU")
            if os.environ.get("PROFILE_TOP"):
                stats.sort_stats("tottime").print_stats(int(os.environ["PROFILE_TOP"]))
        if args.report:
            from harness.report import write_report

            started, cpu0 = time.perf_counter(), time.process_time()
            write_report(run.run_dir)
            print(
                f"report: {time.perf_counter() - started:.2f} s wall, "
                f"{time.process_time() - cpu0:.2f} s CPU"
            )


if __name__ == "__main__":
    main()
