"""Dask against the local backend: the same tournament, games per CPU-second and per second.

    python benchmarks/dask_vs_local.py [--games 300] [--repeats 3] [--workers 2] [--json]

Plays one round robin (2 players, duplicate dice, the built-in strategies but `optimal`,
whose ~200 games/s would make the run about one strategy) on the local backend (worker
processes of our own) and on a local Dask cluster of as many one-thread workers,
interleaved, ``--repeats`` times, each a fresh run (:func:`run_tournament` into a
temporary folder), and prints medians.

CPU time counts the whole process tree (:func:`tree_cpu`): this process (for Dask also
the scheduler, the nannies' threads and the client, which run in it) and every process
below it, live, exited or reaped, read from /proc: each one's own user and system time,
plus what it collected from the children it reaped. The local backend's workers are
forked by a fork server that outlives the run, so ``getrusage(RUSAGE_CHILDREN)``, which
counts only children this process reaped, never saw them (it reported 1.56 M games per
CPU-s, more than the chunk path's measured 262-286k per core: docs/speed.md). Without
/proc (not Linux) the script says so and stops. Starting a Dask cluster is a fixed cost (fresh
Python processes importing harness and Dask), measured apart by runs of one table of two
one-deal chunks (so that every worker starts); "beyond it" is what Dask costs per game
once running. Here the scheduler, the nannies and the client share the two cores with
the workers; on a cluster the scheduler has a machine of its own. Ratios are of runs
made in this one process, interleaved, so that the machine's drift hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from harness.tourney import load_config, plan, run_tournament

DEFAULT = "env-heuristic,greedy,random,simple,tactician,threshold,worm-first"


PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: str) -> tuple[int, int] | None:
    """(parent pid, CPU ticks: utime + stime + cutime + cstime) of a process, or None if
    it is gone. The command name, in parentheses, may hold spaces: fields follow its ')'."""
    try:
        text = (PROC / pid / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    # after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    return int(fields[1]), sum(int(f) for f in fields[11:15])


def tree_cpu(root: int | None = None) -> float:
    """CPU seconds of process ``root`` (this one) and every process below it: each live
    or not yet reaped process's own time, plus what it collected from children it reaped.
    A process counts in one place at a time (itself, or its reaper's children's time)."""
    root = os.getpid() if root is None else root
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            found = _stat(entry.name)
            if found is not None:
                parent[int(entry.name)], ticks[int(entry.name)] = found
    below = {root}
    grew = True
    while grew:  # every descendant, whatever order /proc lists them in
        grew = False
        for pid, ppid in parent.items():
            if ppid in below and pid not in below:
                below.add(pid)
                grew = True
    return sum(ticks.get(pid, 0) for pid in below) / TICKS


def measure(config, backend: str, workers: int, out: str) -> tuple[int, float, float]:
    """A fresh run: (games, CPU seconds of the process tree, wall seconds)."""
    cpu0, wall0 = tree_cpu(), time.perf_counter()
    run = run_tournament(
        config, workers=workers, out=out, fresh=True, progress=False, backend=backend
    )
    wall = time.perf_counter() - wall0
    time.sleep(0.2)  # let the fork server reap the run's last workers
    cpu = tree_cpu() - cpu0
    assert run.status == "complete" and run.played == run.planned, run.status
    return run.played, cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="deals per table")
    parser.add_argument("--repeats", type=int, default=3, help="repeats; medians are shown")
    parser.add_argument("--workers", type=int, default=2, help="workers of either backend")
    parser.add_argument("--entrants", default=DEFAULT, help="comma-separated strategies")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not (PROC / str(os.getpid()) / "stat").exists():
        raise SystemExit("dask_vs_local.py counts the process tree's CPU from /proc (Linux)")
    config = load_config(
        {"name": "bench", "entrants": args.entrants.split(","), "deals": args.games, "seed": 1}
    )
    tiny = load_config(
        {"name": "tiny", "entrants": ["greedy", "random"], "deals": 2, "chunk": 1, "seed": 1}
    )
    tables = len(plan.tables(config))
    chunks = sum(1 for _ in plan.chunks(config))
    total = tables * args.games * config.players
    load0 = os.getloadavg()[0]
    if not args.json:
        print(
            f"{len(config.entrants)} entrants, {tables} tables, {total:,} games in {chunks} "
            f"chunks per run, {args.workers} workers; load average {load0:.2f} at start"
        )
    rates: dict[str, list[float]] = {"local": [], "dask": []}
    walls: dict[str, list[float]] = {"local": [], "dask": []}
    fixed: dict[str, list[tuple[float, float]]] = {"local": [], "dask": []}  # (CPU, wall)
    cpus: dict[str, list[float]] = {"local": [], "dask": []}
    with tempfile.TemporaryDirectory() as out:
        measure(tiny, "dask", args.workers, out)  # warm up: imports, first spawn
        measure(tiny, "local", args.workers, out)
        for _ in range(args.repeats):
            for backend in ("local", "dask"):
                games, cpu, wall = measure(config, backend, args.workers, out)
                rates[backend].append(games / cpu)
                walls[backend].append(games / wall)
                cpus[backend].append(cpu)
                _, cpu, wall = measure(tiny, backend, args.workers, out)
                fixed[backend].append((cpu, wall))
    figures = {
        "games": total,
        "chunks": chunks,
        "workers": args.workers,
        "repeats": args.repeats,
        "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
    }
    for backend in ("local", "dask"):
        start_cpu = statistics.median(c for c, _ in fixed[backend])
        start_wall = statistics.median(w for _, w in fixed[backend])
        cpu = statistics.median(cpus[backend])
        figures[backend] = {
            "games_per_cpu_second": round(statistics.median(rates[backend])),
            "games_per_second": round(statistics.median(walls[backend])),
            "fixed_cpu_seconds": round(start_cpu, 2),
            "fixed_wall_seconds": round(start_wall, 2),
            "games_per_cpu_second_beyond_fixed": round(total / (cpu - start_cpu)),
        }
    local, dask = figures["local"], figures["dask"]
    figures["dask_over_local_cpu"] = round(
        local["games_per_cpu_second"] / dask["games_per_cpu_second"] - 1, 4
    )
    figures["dask_over_local_cpu_beyond_fixed"] = round(
        local["games_per_cpu_second_beyond_fixed"] / dask["games_per_cpu_second_beyond_fixed"] - 1,
        4,
    )
    if args.json:
        print(json.dumps(figures))
        return
    for backend in ("local", "dask"):
        f = figures[backend]
        print(
            f"{backend:<6} {f['games_per_cpu_second']:>7,} games/CPU-s "
            f"{f['games_per_second']:>7,} games/s wall; a run's fixed cost "
            f"{f['fixed_cpu_seconds']:.2f} CPU-s, {f['fixed_wall_seconds']:.2f} s wall "
            f"(a 2-chunk run); beyond it {f['games_per_cpu_second_beyond_fixed']:,} games/CPU-s"
        )
    print(
        f"Dask costs {figures['dask_over_local_cpu']:+.1%} CPU per game end to end, "
        f"{figures['dask_over_local_cpu_beyond_fixed']:+.1%} beyond the fixed cost of a run; "
        f"load average {figures['load'][1]:.2f} at end ({args.repeats} repeats, medians)"
    )


if __name__ == "__main__":
    main()
