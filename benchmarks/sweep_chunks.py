"""A plan of many tables, end to end: planning, play, the parent's bookkeeping, the files.

    python benchmarks/sweep_chunks.py [--values 64] [--players 4] [--deals 1] [--workers 2]
                                      [--limit SECONDS] [--report] [--out DIR] [--json]

The config is a one-line parameter sweep: ``worm-first`` over ``target`` x ``min_dice``
(8 x 8 = 64 values; fewer with ``--values``: the first values of ``random``'s ``p_stop``),
``--players`` a table, every group of entrants a table: C(64, 4) = 635,376 tables at 4
players, each played in the 12 seat orders of the balanced design, ``--deals`` deals a
table (native built-ins: the games are as cheap as they get, so what is not play shows).

It measures, in a child process (so that ``--limit`` can stop a run too long to finish
and what was done can still be counted):

* planning: wall and CPU of the plan the runner builds (its tables, engines and keys);
* the run: its wall from the call to its end and the play loop's (play and storing,
  side by side), this process's CPU (planning, storing each chunk, the manifest,
  run.json, progress: the "parent"), the workers' CPU in their chunks (the manifest's
  ``cpu``: play);
* bookkeeping: the parent's CPU less planning, in all, and during the play loop per
  chunk stored (receiving, checking and storing it, the manifest, the progress line);
* what is on disk: chunks (part files), their bytes, the manifest, run.json and any
  other file of the run folder;
* with ``--report``: ``harness report``'s wall and CPU on the finished run.

With ``--limit``, the run is stopped (as Ctrl-C stops it) after that many seconds of
play, and the figures of the whole plan are extrapolated from the chunks stored so far
(marked "extrapolated"). The figures quoted in docs/tourney.md ("Chunks and big plans")
come from this script, before and after tables were grouped into chunks.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def config(values: int, players: int, deals: int) -> dict[str, Any]:
    if values == 64:
        grid = {"target": list(range(21, 29)), "min_dice": list(range(1, 9))}
        sweep = {"strategy": "worm-first", "sweep": grid}
    else:
        sweep = {"strategy": "random", "sweep": {"p_stop": [i / 100 for i in range(1, values + 1)]}}
    return {"name": "sweep", "players": players, "entrants": [sweep], "deals": deals, "seed": 1}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _planner() -> Any:
    """What the runner plans with (a grouped plan where this harness has one)."""
    from harness.tourney import runner

    return getattr(runner, "make_plan", None) or runner.plan.Plan


def child(args: argparse.Namespace) -> dict[str, Any]:
    """One run in this process; its figures."""
    from harness.tourney import load_config, run_tournament, runner
    from harness.tourney.runner import TourneyInterrupted

    cfg = load_config(config(args.values, args.players, args.deals))
    planner = _planner()
    timed: dict[str, float] = {}

    def timed_plan(*a: Any, **k: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        made = planner(*a, **k)
        timed["plan_wall"] = time.perf_counter() - wall
        timed["plan_cpu"] = time.process_time() - cpu
        timed["chunks"] = len(made.planned)
        timed["tables"] = len(made.tables)
        timed["games"] = made.games
        return made

    if hasattr(runner, "make_plan"):
        runner.make_plan = timed_plan  # type: ignore[attr-defined]
    else:
        runner.plan.Plan = timed_plan  # type: ignore[attr-defined]
    real_play = runner._Run.play

    def timed_play(self: Any, backend: Any) -> None:
        if args.limit:  # Ctrl-C after that much play, as a person would press it
            signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
            signal.setitimer(signal.ITIMER_REAL, args.limit)
        started, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
        try:
            real_play(self, backend)
        finally:
            timed["play_wall"] = time.perf_counter() - started
            timed["play_parent_cpu"] = _cpu(resource.RUSAGE_SELF) - cpu

    runner._Run.play = timed_play  # type: ignore[method-assign]
    wall, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
    interrupted = False
    try:
        run = run_tournament(
            cfg, workers=args.workers, out=args.out, progress=False, echo=lambda text: None
        )
    except TourneyInterrupted as exc:
        run, interrupted = exc.run, True
    signal.setitimer(signal.ITIMER_REAL, 0)
    out = {
        **timed,
        "interrupted": interrupted,
        "wall": time.perf_counter() - wall,
        "parent_cpu": _cpu(resource.RUSAGE_SELF) - cpu,
        "stored": run.stored,
        "run_dir": str(run.run_dir),
    }
    folder = Path(run.run_dir)
    parts = list((folder / "games").glob("*.parquet"))
    out["files"] = len(parts)
    out["parts_bytes"] = sum(p.stat().st_size for p in parts)
    out["run_json_bytes"] = (folder / "run.json").stat().st_size
    out["manifest_bytes"] = (folder / "manifest.jsonl").stat().st_size
    known = ("run.json", "manifest.jsonl")
    others = [p for p in folder.iterdir() if p.is_file() and p.name not in known]
    out["other_files"] = {p.name: p.stat().st_size for p in others}
    lines = (folder / "manifest.jsonl").read_text().splitlines()
    out["stored_chunks"] = len(lines)
    # Workers are forked by a fork server, not by this process: their CPU is what each
    # chunk's manifest line says its playing took.
    out["workers_cpu"] = sum(json.loads(line).get("cpu", 0.0) for line in lines)
    if args.report and not interrupted:
        from harness.report import write_report

        wall, cpu = time.perf_counter(), time.process_time()
        write_report(folder)
        out["report_wall"] = time.perf_counter() - wall
        out["report_cpu"] = time.process_time() - cpu
        out["report_json_bytes"] = (folder / "report.json").stat().st_size
    return out


def shown(f: dict[str, Any]) -> list[str]:
    chunks, stored = f["chunks"], f["stored_chunks"]
    book = f["parent_cpu"] - f["plan_cpu"]
    loop = f["play_parent_cpu"]  # the parent's CPU while chunks were played and stored
    per = loop / stored if stored else float("nan")
    lines = [
        f"plan: {f['tables']:,} tables, {f['games']:,} games, {chunks:,} chunks; planned in "
        f"{f['plan_wall']:.1f} s wall, {f['plan_cpu']:.1f} CPU-s",
        f"run: {f['wall']:.1f} s wall in all, play loop {f['play_wall']:.1f} s, {stored:,} "
        f"chunks stored ({f['stored']:,} games), workers {f['workers_cpu']:.1f} CPU-s, "
        f"parent {f['parent_cpu']:.1f} CPU-s",
        f"bookkeeping (parent CPU less planning): {book:.1f} CPU-s, of which {loop:.1f} in the "
        f"play loop: {1000 * per:.2f} ms a chunk stored",
        f"disk: {f['files']:,} part files, {f['parts_bytes'] / 1e6:.1f} MB; manifest "
        f"{f['manifest_bytes'] / 1e6:.2f} MB; run.json {f['run_json_bytes'] / 1e6:.3f} MB; "
        f"other files {f['other_files']}",
    ]
    if f["interrupted"] and stored:
        scale = chunks / stored
        play = f["workers_cpu"] * f["games"] / max(f["stored"], 1)
        whole = book - loop + loop * scale  # the fixed part once, the loop's per chunk
        lines.append(
            f"extrapolated to the whole plan ({scale:.1f}x the chunks stored): bookkeeping "
            f"{whole / 60:.1f} CPU-min, play {play:.0f} CPU-s, {chunks:,} part files"
        )
    if "report_wall" in f:
        lines.append(
            f"report: {f['report_wall']:.1f} s wall, {f['report_cpu']:.1f} CPU-s; report.json "
            f"{f['report_json_bytes'] / 1e6:.2f} MB"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=64, help="entrants of the sweep")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=float, default=0, help="stop after this many s of play")
    parser.add_argument("--report", action="store_true", help="time harness report too")
    parser.add_argument("--out", default="", help="results folder (default: a temp one)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return
    with tempfile.TemporaryDirectory(prefix="sweep-chunks-") as tmp:
        out = args.out or tmp
        command = [sys.executable, __file__, "--child", "--out", out, *sys.argv[1:]]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.exit(f"the run failed:\n{done.stderr[-3000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print("\n".join(shown(figures)))


if __name__ == "__main__":
    main()
