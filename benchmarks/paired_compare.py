"""How much narrower a paired ``harness compare`` is than an unpaired one for a small change.

    python benchmarks/paired_compare.py [--games 200] [--players 2] [--seeds 1] [--json]

Two runs of one small field, the same seed and dice, differing only in one entrant:
``threshold(target=26)`` in run A and ``threshold(target=27)`` in run B, both under the
display name ``thr``. Every game of ``thr`` in A has a twin in B (same deal, dice, seat
and opponents), so :func:`harness.report.comparisons.compare.compare` pairs them, clustered by
deal; with ``paired=False`` it compares the two runs' win shares as independent
samples, as it did before. Printed: both 95% intervals of thr's win-share difference
(B - A), their widths, and the ratio (unpaired / paired; its square is how many times
more games an unpaired compare needs for the same precision).

With ``--seeds K`` the pair of runs is played for K seeds: the widths are averaged, and
the spread (sd) of the K paired estimates is shown beside the mean paired standard error
(they should agree: the interval is honest). Runs go to a temporary folder (``--out`` to
keep them), with the python engine in-process unless told otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.report import cached_summary
from harness.report.comparisons.compare import compare
from harness.report.comparisons.paired import width_ratio
from harness.stats import Z95
from harness.tourney import run_tournament

FIELD = ["greedy", "random", "worm-first"]
THR = {"strategy": "threshold", "name": "thr"}  # the same display name in both runs


def config(target: int, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    return {
        "name": f"paired_compare_{target}",
        "players": args.players,
        "entrants": FIELD
        + [{"strategy": "threshold", "params": {"target": target}, "name": "thr"}],
        "deals": args.games,
        "seed": seed,
        "dice": args.dice,
        "workers": args.workers,
        "engine": args.engine,
    }


def one_seed(args: argparse.Namespace, seed: int, out: Path) -> dict[str, Any]:
    a = run_tournament(config(26, args, seed), out=out).run_dir
    b = run_tournament(config(27, args, seed), out=out).run_dir
    summaries = [cached_summary(a), cached_summary(b)]
    found = {}
    for mode, paired in (("paired", True), ("unpaired", False)):
        result = compare(summaries, paired=paired)
        row = next(s for s in result["strategies"] if s["strategy"] == "thr")
        d = row["diffs"][0]
        cell = d["win_share"]
        found[mode] = {
            "paired": d["paired"],
            "shared_deals": d["shared_deals"],
            "diff": cell["diff"],
            "low": cell["low"],
            "high": cell["high"],
            "width": cell["high"] - cell["low"],
        }
    found["games"] = summaries[0]["games"]["scored"]
    found["thr_games"] = next(
        r["games"] for r in summaries[0]["standings"] if r["strategy"] == "thr"
    )
    p, u = found["paired"], found["unpaired"]
    found["ratio"] = width_ratio((p["low"], p["high"]), (u["low"], u["high"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="deals per table (default 200)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--dice", default="duplicate", choices=("duplicate", "independent"))
    parser.add_argument("--seeds", type=int, default=1, help="pairs of runs, one per seed")
    parser.add_argument("--seed", type=int, default=2024, help="the first seed")
    parser.add_argument("--engine", default="python")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        seeds = [one_seed(args, args.seed + k, out) for k in range(args.seeds)]
    wall = time.perf_counter() - started
    mean = {
        mode: statistics.fmean(s[mode]["width"] for s in seeds) for mode in ("paired", "unpaired")
    }
    result: dict[str, Any] = {
        "players": args.players,
        "dice": args.dice,
        "deals_per_table": args.games,
        "games_per_run": seeds[0]["games"],
        "thr_games_per_run": seeds[0]["thr_games"],
        "seeds": seeds,
        "mean_width_paired": mean["paired"],
        "mean_width_unpaired": mean["unpaired"],
        "width_ratio": mean["unpaired"] / mean["paired"],
        "wall_s": round(wall, 1),
    }
    if len(seeds) > 1:
        estimates = [s["paired"]["diff"] for s in seeds]
        result["paired_sd_over_seeds"] = statistics.stdev(estimates)
        result["paired_mean_se"] = mean["paired"] / (2 * Z95)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(
        f"{args.players} players, {args.dice} dice, {args.games} deals per table: "
        f"{result['games_per_run']:,} games a run, {result['thr_games_per_run']:,} of thr; "
        f"{len(seeds)} seed(s), {wall:.0f} s"
    )
    for k, s in enumerate(seeds):
        p, u = s["paired"], s["unpaired"]
        print(
            f"  seed {args.seed + k}: thr 27 - 26: paired {p['diff'] * 100:+.1f} pts "
            f"[{p['low'] * 100:+.1f}, {p['high'] * 100:+.1f}] (on {p['shared_deals']} deals), "
            f"unpaired {u['diff'] * 100:+.1f} [{u['low'] * 100:+.1f}, {u['high'] * 100:+.1f}]"
        )
    print(
        f"mean 95% interval width: paired {mean['paired'] * 100:.1f} pts, unpaired "
        f"{mean['unpaired'] * 100:.1f} pts: {result['width_ratio']:.2f}x narrower "
        f"(an unpaired compare needs {result['width_ratio'] ** 2:.1f}x the games)"
    )
    if len(seeds) > 1:
        print(
            f"paired estimate over seeds: sd {result['paired_sd_over_seeds'] * 100:.2f} pts, "
            f"mean reported se {result['paired_mean_se'] * 100:.2f} pts"
        )


if __name__ == "__main__":
    main()
