"""How much faster ``harness diff`` finds a known difference than a paired ``harness compare``.

    python benchmarks/diff_speed.py [--deals 200] [--seeds 10] [--luck] [--search] [--json]

The difference: ``threshold(target=26)`` (A) against ``threshold(target=27)`` (B), each
played against greedy, random and worm-first at 2 players on duplicate deals, every seat
order. Both methods play exactly the same games for the same seed and deals:

* **paired compare**: two tournament runs (a gauntlet of thr = A, then thr = B, against
  the field), read back and compared
  (:func:`harness.report.comparisons.compare.compare`): the paired difference of thr's win
  share, clustered by deal. With ``--luck`` both runs keep the luck account and the
  luck-adjusted paired difference is measured too.
* **diff**: :func:`harness.coach.diff`: B's gain in worms of swing per game, from the
  exact values of the decisions where A and B part, clustered by deal.

Each finds the difference when its 95% interval excludes 0. For each method and seed the
script measures the estimate and its standard error at ``--deals`` deals and the CPU
seconds spent (games, reading back, statistics; in this process: workers 0 / 1); then
the deals a method needs for 80% power at 5% two-sided, extrapolated from the large
sample, ``n = N (2.80 se / |mean|)^2`` (se its mean standard error at N deals, mean its
mean estimate over the seeds), and the CPU to a verdict, ``n x CPU per deal``. The signs
must agree: every seed's estimate of both methods says A is better. ``--search``
measures instead of extrapolating: for deal counts of a grid, every seed played at that
many deals, the fewest at which 80% of the seeds' own 95% intervals (each tool's, t on
deals - 1 degrees of freedom) say A is better, and the median CPU of one run there (fixed
costs included: a tournament run's folder, its summary).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.coach import diff
from harness.report import cached_summary
from harness.report.comparisons.compare import compare
from harness.stats import Z95
from harness.tourney import run_tournament

FIELD = ["greedy", "random", "worm-first"]
POWER_Z = Z95 + 0.8416  # 80% power at 5% two-sided


def compare_once(seed: int, deals: int, luck: bool, out: Path) -> dict[str, Any]:
    started = time.process_time()
    summaries = []
    for target in (26, 27):
        config = {
            "name": f"diff_speed_{target}",
            "format": "gauntlet",
            "challenger": {"strategy": "threshold", "params": {"target": target}, "name": "thr"},
            "entrants": FIELD,
            "deals": deals,
            "seed": seed,
            "workers": 0,
            "luck": "on" if luck else "off",
        }
        run = run_tournament(config, out=out, progress=False, fresh=True)
        summaries.append(cached_summary(run.run_dir))
    found = compare(summaries)
    cpu = time.process_time() - started
    row = next(s for s in found["strategies"] if s["strategy"] == "thr")["diffs"][0]
    cell = row["win_share"]
    result = {
        "estimate": cell["diff"],
        "high": cell["high"],
        "se": (cell["high"] - cell["low"]) / (2 * Z95),
        "paired": row["paired"],
        "cpu": cpu,
    }
    adjusted = cell.get("luck_adjusted")
    if adjusted:
        result["adjusted"] = {
            "estimate": adjusted["diff"],
            "high": adjusted["high"],
            "se": (adjusted["high"] - adjusted["low"]) / (2 * Z95),
        }
    return result


def diff_once(seed: int, deals: int) -> dict[str, Any]:
    started = time.process_time()
    d = diff(
        "threshold(target=26)",
        "threshold(target=27)",
        opponents=FIELD,
        deals=deals,
        seed=seed,
        workers=1,
        examples=0,
        unit="worms",  # the figures in docs/coach.md were measured in worms
    )
    v = d.verdict
    return {
        "estimate": v["estimate"],
        "high": v["high"],
        "se": (v["high"] - v["low"]) / (2 * Z95),
        "cpu": time.process_time() - started,
        "engine": d.engine,
    }


def needed(runs: list[dict[str, Any]], deals: int) -> dict[str, Any]:
    mean = statistics.fmean(r["estimate"] for r in runs)
    se = statistics.fmean(r["se"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    n = deals * (POWER_Z * se / abs(mean)) ** 2
    return {
        "mean": mean,
        "se_at_deals": se,
        "sd_of_estimates": statistics.stdev(r["estimate"] for r in runs) if len(runs) > 1 else None,
        "all_negative": all(r["estimate"] < 0 for r in runs),
        "cpu_per_deal": cpu / deals,
        "deals_to_verdict": n,
        "cpu_to_verdict": n * cpu / deals,
    }


GRID = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 300)


def one(method: str, seed: int, deals: int, luck: bool, out: Path) -> dict[str, Any]:
    if method == "diff":
        return diff_once(seed, deals)
    found = compare_once(seed, deals, luck or method == "adjusted", out)
    return {**found["adjusted"], "cpu": found["cpu"]} if method == "adjusted" else found


def search(method: str, seeds: list[int], luck: bool, out: Path) -> dict[str, Any]:
    """The fewest deals (of GRID) at which at least 80% of the seeds' 95% intervals say A
    is better (each tool's own interval: t on deals - 1 degrees of freedom), with the
    median CPU seconds of one run at that many deals."""
    for n in GRID:
        runs = [one(method, seed, n, luck, out) for seed in seeds]
        share = sum(r["high"] < 0 for r in runs) / len(runs)
        if share >= 0.8:
            return {"deals": n, "share": share, "cpu": statistics.median(r["cpu"] for r in runs)}
    return {"deals": None, "share": share, "cpu": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--luck", action="store_true", help="also the luck-adjusted compare")
    parser.add_argument(
        "--search",
        action="store_true",
        help="also the fewest deals at which 80%% of seeds find it (measured, with its CPU)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seeds = list(range(1, args.seeds + 1))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        runs: dict[str, list[dict[str, Any]]] = {"compare": [], "diff": []}
        for seed in seeds:
            c = compare_once(seed, args.deals, args.luck, out)
            runs["compare"].append(c)
            if "adjusted" in c:
                runs.setdefault("adjusted", []).append({**c["adjusted"], "cpu": c["cpu"]})
            runs["diff"].append(diff_once(seed, args.deals))
        found = {m: needed(r, args.deals) for m, r in runs.items()}
        if args.search:
            for m in found:
                found[m]["search"] = search(m, seeds, args.luck, out)
    report = {
        "deals": args.deals,
        "seeds": len(seeds),
        "games_per_deal": 12,  # 3 opponents x 2 seat orders x (2 runs | 2 sides)
        "diff_engine": runs["diff"][0]["engine"],
        "methods": found,
        "speedup_deals": found["compare"]["deals_to_verdict"] / found["diff"]["deals_to_verdict"],
        "speedup_cpu": found["compare"]["cpu_to_verdict"] / found["diff"]["cpu_to_verdict"],
    }
    if args.search and found["diff"]["search"]["deals"] and found["compare"]["search"]["deals"]:
        c, d = found["compare"]["search"], found["diff"]["search"]
        report["measured_speedup_deals"] = c["deals"] / d["deals"]
        report["measured_speedup_cpu"] = c["cpu"] / d["cpu"]
    if "adjusted" in found:
        report["speedup_cpu_vs_adjusted"] = (
            found["adjusted"]["cpu_to_verdict"] / found["diff"]["cpu_to_verdict"]
        )
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(
        f"threshold(target=26) v 27 against {', '.join(FIELD)}: {args.deals} deals x "
        f"{len(seeds)} seeds, 12 games a deal for either method"
    )
    for m, f in found.items():
        unit = "worms/game" if m == "diff" else "pts of win share"
        scale = 1 if m == "diff" else 100
        line = (
            f"  {m:<9} mean {f['mean'] * scale:+.3f} {unit} (se {f['se_at_deals'] * scale:.3f}, "
            f"sd over seeds {(f['sd_of_estimates'] or 0) * scale:.3f}); every seed says A "
            f"better: {f['all_negative']}; {f['cpu_per_deal'] * 1000:.2f} CPU-ms/deal; "
            f"{f['deals_to_verdict']:.1f} deals and {f['cpu_to_verdict']:.3f} CPU-s to a verdict "
            "(80% power)"
        )
        print(line)
        if "search" in f:
            s = f["search"]
            print(
                f"    measured: {s['share']:.0%} of seeds find it at {s['deals']} deals, "
                f"{s['cpu']:.3f} CPU-s a run (median)"
            )
    if "measured_speedup_deals" in report:
        print(
            f"measured: diff {report['measured_speedup_deals']:.1f}x fewer deals, "
            f"{report['measured_speedup_cpu']:.1f}x less CPU than the paired compare"
        )
    print(
        f"extrapolated: diff {report['speedup_deals']:.1f}x fewer deals, "
        f"{report['speedup_cpu']:.1f}x less CPU than the paired compare"
        + (
            f" ({report['speedup_cpu_vs_adjusted']:.1f}x less CPU than the luck-adjusted one)"
            if "speedup_cpu_vs_adjusted" in report
            else ""
        )
    )


if __name__ == "__main__":
    main()
