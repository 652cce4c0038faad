"""How fast `harness report` is, and that a faster reader gives exactly the same report.

Two jobs, both comparing this tree with an older checkout of harness (``--old``, e.g. a
``git worktree add /tmp/head HEAD`` made before a change):

    python benchmarks/report_speed.py make DIR
        plays the sample runs of the check into DIR (small, a minute or so): 2 players
        round robin, 3 players gauntlet, 4 players balanced seating, independent dice,
        a run with forfeits (a plugin that raises), a mirror match, turn-capped games.
    python benchmarks/report_speed.py check --old /tmp/head RUN [RUN ...]
        writes each run's report with the old code and with this tree (each on its own
        copy of the folder) and compares report.json, report.md and report.html byte for
        byte (summary.csv is the runner's and is compared too); exit status 1 on any
        difference.
    python benchmarks/report_speed.py time --old /tmp/head RUN [--repeat 3]
        times the summary (what `harness tourney --no-report` computes) and the whole
        report (`harness report RUN`), old and new interleaved, each in a fresh process:
        medians of wall and CPU seconds and the ratios.

Every measurement runs in a child process (``python -c``), with ``PYTHONPATH`` set to
the old checkout for the old code, so imports are paid as a user pays them.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

COMPARED = ("report.json", "report.md", "report.html", "summary.csv")

SUMMARY = "from harness.report.api import summarise_run; summarise_run(sys.argv[1])"
REPORT = "from harness.report.api import write_report; write_report(sys.argv[1])"

RAISER = '''
from harness.strategies.greedy import Greedy

class Raiser(Greedy):
    """Greedy, but raises now and then (a forfeit named by seat)."""

    name = "raiser"

    def stop(self, view):
        if view.total % 9 == 4:
            raise RuntimeError(f"unlucky total {view.total}")
        return super().stop(view)
'''

SAMPLES = {
    "rr2": {"players": 2, "format": "round_robin", "entrants": ["greedy", "random", "simple"]},
    "gauntlet3": {
        "players": 3,
        "format": "gauntlet",
        "challenger": "threshold(target=28)",
        "entrants": ["greedy", "random", "worm-first"],
    },
    "balanced4": {
        "players": 4,
        "format": "round_robin",
        "seating": "balanced",
        "entrants": ["greedy", "random", "threshold", "worm-first", "simple"],
    },
    "independent": {
        "players": 3,
        "format": "round_robin",
        "dice": "independent",
        "entrants": ["greedy", "random", "tactician", "threshold"],
    },
    "forfeits": {
        "players": 2,
        "format": "round_robin",
        "entrants": ["greedy", "random", "raiser.py:Raiser"],
    },
    "mirror": {
        "players": 2,
        "format": "round_robin",
        "entrants": [
            "greedy",
            {"strategy": "greedy", "name": "greedy-b"},
            "random",
        ],
    },
    "capped": {
        "players": 2,
        "format": "round_robin",
        "max_turns": 34,
        "entrants": ["greedy", "random", "worm-first"],
    },
}


def make(out: Path) -> None:
    """Play every sample run into ``out`` (config files beside them)."""
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    (out / "raiser.py").write_text(textwrap.dedent(RAISER), encoding="utf-8")
    for name, extra in SAMPLES.items():
        config = {"name": name, "rules": "official", "deals": 120, "seed": 7, **extra}
        path = out / f"{name}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        subprocess.run(
            ["harness", "tourney", str(path), "--out", str(out / "results"), "--no-report"],
            check=False,
            cwd=out,
            stdout=subprocess.DEVNULL,
        )
    for run in sorted((out / "results").glob("*/*/run.json")):
        print(run.parent)


def _child(code: str, run: Path, old: Path | None) -> tuple[float, float, str]:
    """Run ``code`` in a fresh Python: (wall seconds, CPU seconds, stderr).

    It runs in the run's parent folder, never in a checkout (``python -c`` puts its
    working folder first on the path), and says which harness it imported: the old
    checkout's for ``old``, this tree's otherwise, or the measurement is refused.
    """
    env = dict(os.environ)
    if old is not None:
        env["PYTHONPATH"] = str(old)
    else:
        env.pop("PYTHONPATH", None)
    where = "import harness; print(harness.__file__, file=sys.stderr)"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; {code}; {where}", str(run)],
        env=env,
        cwd=run.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode:
        raise SystemExit(f"{run}: the child failed: {done.stderr.strip().splitlines()[-1:]}")
    used = Path(done.stderr.strip().splitlines()[-1]).resolve()
    wanted = (old or Path(__file__).parent.parent).resolve()
    if not used.is_relative_to(wanted):
        raise SystemExit(f"the child imported {used}, not the harness of {wanted}")
    return wall, cpu, done.stderr


def check(runs: list[Path], old: Path) -> int:
    """Old and new reports of each run, compared byte for byte; the number of differences.

    Both are written into one copy of the folder, one after the other (the report names
    its folder, so two copies would differ in that line alone).
    """
    differ = 0
    with tempfile.TemporaryDirectory(prefix="report-check-") as tmp:
        for k, run in enumerate(runs):
            copy = Path(tmp) / str(k) / run.parent.name / run.name
            shutil.copytree(run, copy)
            written = {}
            for side, code in (("old", old), ("new", None)):
                for stale in COMPARED[:3]:
                    (copy / stale).unlink(missing_ok=True)
                _child(REPORT, copy, code)
                written[side] = {
                    n: (copy / n).read_bytes() if (copy / n).is_file() else None for n in COMPARED
                }
            for name in COMPARED:
                same = written["old"][name] == written["new"][name]
                differ += not same
                print(f"{'same' if same else 'DIFFERENT':9} {name:12} {run}")
    return differ


def timing(run: Path, old: Path, repeat: int) -> None:
    """Median wall and CPU seconds of summary and report, old and new interleaved."""
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="report-time-") as tmp:
        copy = Path(tmp) / run.parent.name / run.name
        shutil.copytree(run, copy)
        for _ in range(repeat):
            for what, code in (("summary", SUMMARY), ("report", REPORT)):
                for side, path in (("old", old), ("new", None)):
                    wall, cpu, _ = _child(code, copy, path)
                    results.setdefault((what, side), []).append((wall, cpu))
    print(f"{run} ({repeat} runs each, medians)")
    for what in ("summary", "report"):
        row = {}
        for side in ("old", "new"):
            walls, cpus = zip(*results[(what, side)], strict=True)
            row[side] = (statistics.median(walls), statistics.median(cpus))
            print(f"  {what:8} {side}: {row[side][0]:6.2f} s wall  {row[side][1]:6.2f} s CPU")
        print(
            f"  {what:8} old/new: {row['old'][0] / row['new'][0]:.1f}x wall, "
            f"{row['old'][1] / row['new'][1]:.1f}x CPU"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="job", required=True)
    p_make = sub.add_parser("make", help="play the sample runs of the check")
    p_make.add_argument("out", type=Path)
    p_check = sub.add_parser("check", help="old and new reports, byte for byte")
    p_check.add_argument("--old", type=Path, required=True, help="an older checkout of harness")
    p_check.add_argument("runs", type=Path, nargs="+")
    p_time = sub.add_parser("time", help="old and new, timed side by side")
    p_time.add_argument("--old", type=Path, required=True, help="an older checkout of harness")
    p_time.add_argument("--repeat", type=int, default=3)
    p_time.add_argument("run", type=Path)
    args = parser.parse_args(argv)
    if args.job == "make":
        make(args.out)
        return 0
    if args.job == "check":
        return 1 if check(args.runs, args.old) else 0
    timing(args.run, args.old, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
