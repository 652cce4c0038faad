"""Coverage of the report's 95% intervals now that every table plays a deal on the same dice.

    python benchmarks/coverage.py [--runs 300] [--deals 300] [--truth-deals 100000]
                                  [--scenario 2p-duplicate ...] [--json]

Deal d has one seed for the whole run (config seed and d only), so a
strategy's results at its different tables are correlated through the shared deals, and
the report clusters every interval by the deal of the whole run
(harness.report.summaries.aggregate.deal_clusters). This measures whether that holds its promise:
for each scenario (a small round robin; see SCENARIOS) it plays ``--runs`` tournaments of
``--deals`` deals with seeds 1, 2, ..., reduces each with the report's own code
(harness.report.summaries.aggregate.aggregate_frames, on the rows the runner would store:
harness.tourney.storage.to_arrow) and counts how often each 95% interval holds the
long-run value of its target:

* standings: a strategy's win share over all its games (ties split);
* head to head: A's share of the games where A finished ahead of B (ties half);
* rating: a strategy's Elo (Plackett-Luce / Bradley-Terry, mean zero), as the report
  shows it, and the Elo difference of every pair (from the sandwich covariance).

The long-run values come from one very large run (``--truth-deals`` deals, another
seed) reduced the same way: the share estimates, and the fitted ratings (the value a
maximum-likelihood fit converges to). Its own error is about sqrt(deals / truth deals)
of a small run's (5% at the defaults) and is ignored.

The same runs are also reduced with the clusters earlier versions used: per (table,
deal) with duplicate dice, per game with independent dice. Those treat the tables (and,
with independent dice, the seat orders) of one deal as independent, which they are not
once the dice are shared: their coverage shows the under-coverage the change removes.

Coverage is pooled over the intervals of a kind (every strategy or pair, every run); its
95% interval is a binomial one clustered by run (runs are independent, the intervals of
one run are not, as they share its games): the report's own share interval
(harness.stats.share_interval) with the run as the cluster. Games are played in
this process by the pure chunk function the workers use
(harness.tourney.chunks.play_chunk), with the native engine where it can (about 100,000
games/s; the Python engine works, about 100 times slower).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import stats
from harness.report.summaries.aggregate import Aggregates, aggregate_frames, moments_of
from harness.runfolder.reader import RunInfo
from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk
from harness.tourney.storage import to_arrow

# Strategies of different styles and comparable strength, so shares are not near 0 or 1
# and a deal that favours one style favours it at all of its tables.
SCENARIOS: dict[str, dict[str, Any]] = {
    "2p-duplicate": {
        "players": 2,
        "dice": "duplicate",
        "entrants": ["greedy", "threshold(target=25)", "worm-first"],
    },
    "2p-independent": {
        "players": 2,
        "dice": "independent",
        "entrants": ["greedy", "threshold(target=25)", "worm-first"],
    },
    "3p-duplicate": {
        "players": 3,
        "dice": "duplicate",
        "entrants": ["greedy", "threshold(target=25)", "worm-first", "threshold(target=28)"],
    },
    "3p-independent": {
        "players": 3,
        "dice": "independent",
        "entrants": ["greedy", "threshold(target=25)", "worm-first", "threshold(target=28)"],
    },
}
KINDS = ("standings", "head_to_head", "rating", "rating_diff")
TRUTH_SEED = 10**9  # far from the small runs' seeds 1..runs: other deals
TRUTH_CHUNK = 5000  # deals of the large run reduced at a time (memory stays flat)


def table_deal_clusters(frame: pd.DataFrame) -> np.ndarray:
    """The clusters of duplicate dice of the older seeding: one per (table, deal)."""
    return frame.groupby(["table", "deal"], sort=False).ngroup().to_numpy()


def game_clusters(frame: pd.DataFrame) -> np.ndarray:
    """The units of independent dice of the older seeding: every game its own."""
    return np.arange(len(frame))


def old_clusters(dice: str) -> Callable[[pd.DataFrame], np.ndarray]:
    return table_deal_clusters if dice == "duplicate" else game_clusters


# -- playing -------------------------------------------------------------------------------
def config_of(scenario: dict[str, Any], deals: int, seed: int, chunk: int) -> Any:
    data = {
        "name": "coverage",
        "players": scenario["players"],
        "dice": scenario["dice"],
        "deals": deals,
        "seed": seed,
        "chunk": chunk,
        "entrants": scenario["entrants"],
        "seating": "balanced",
    }
    return load_config(data)


def info_of(config: Any) -> RunInfo:
    """A RunInfo for games that are never stored: what the aggregator reads of run.json."""
    return RunInfo(
        Path("coverage"),
        {
            "players": config.players,
            "dice": config.dice,
            "entrants": [{"name": e.name} for e in config.entrants],
            "design": plan.design_of(config),
        },
        [],
    )


def played(config: Any) -> Iterator[pd.DataFrame]:
    """The run's games, one frame per chunk boundary: whole deals of every table."""
    by_first: dict[int, list[Any]] = {}
    for spec in plan.chunks(config):
        by_first.setdefault(spec.first, []).append(spec)
    for first in sorted(by_first):
        tables = [to_arrow(spec, play_chunk(spec)).to_pandas() for spec in by_first[first]]
        yield pd.concat(tables, ignore_index=True)


def reduce(config: Any, clusters: list[Any], frames: list[pd.DataFrame] | None) -> list[Any]:
    """Aggregates of the run under each clustering (games played once if ``frames``)."""
    info = info_of(config)

    def source(cols: list[str], phase: str) -> Any:
        return frames if frames is not None else played(config)

    return [aggregate_frames(info, source, clusters=c) for c in clusters]


# -- targets and intervals -----------------------------------------------------------------
@dataclass
class Figures:
    """Point estimates (and 95% intervals) of every target, keyed by (kind, item)."""

    estimate: dict[tuple[str, str], float] = field(default_factory=dict)
    interval: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)


def figures(agg: Aggregates) -> Figures:
    """The report's figures: share intervals as summary.py shows them (stats.share_interval
    of the deal moments), Elo intervals +-1.96 sandwich se, and Elo differences."""
    out = Figures()
    names = agg.strategies
    p = len(names)
    for s in range(p):
        m = moments_of(agg.win[s])
        out.estimate["standings", names[s]] = m.estimate
        out.interval["standings", names[s]] = stats.share_interval(m, True)
    for a in range(p):
        for b in range(a + 1, p):
            m = moments_of(agg.pairs[a, b])
            if m.sm > 0:
                key = ("head_to_head", f"{names[a]} ahead of {names[b]}")
                out.estimate[key] = m.estimate
                out.interval[key] = stats.share_interval(m, True)
    r = agg.ratings
    if r is not None:
        elo, cov = r.elo, r.cov * stats.ELO_PER_NAT**2
        for s in range(p):
            half = stats.Z95 * math.sqrt(max(cov[s, s], 0.0))
            out.estimate["rating", names[s]] = float(elo[s])
            out.interval["rating", names[s]] = (elo[s] - half, elo[s] + half)
        for a in range(p):
            for b in range(a + 1, p):
                d = float(elo[a] - elo[b])
                half = stats.Z95 * math.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
                key = ("rating_diff", f"{names[a]} - {names[b]}")
                out.estimate[key] = d
                out.interval[key] = (d - half, d + half)
    return out


@dataclass
class Tally:
    """Per kind: per run, how many of its intervals held the truth and how many it had."""

    held: dict[str, list[float]] = field(default_factory=dict)
    count: dict[str, list[float]] = field(default_factory=dict)
    widths: dict[str, list[float]] = field(default_factory=dict)

    def add(self, truth: Figures, got: Figures) -> None:
        for kind in KINDS:
            held, widths = [], []
            for key, (lo, hi) in got.interval.items():
                if key[0] != kind or key not in truth.estimate:
                    continue
                if math.isnan(lo) or math.isnan(hi):
                    held.append(0.0)  # no interval: it holds nothing
                    continue
                held.append(float(lo <= truth.estimate[key] <= hi))
                widths.append(hi - lo)
            if held:
                self.held.setdefault(kind, []).append(sum(held))
                self.count.setdefault(kind, []).append(len(held))
                self.widths.setdefault(kind, []).extend(widths)

    def row(self, kind: str) -> dict[str, Any]:
        """Coverage with its 95% interval: the runs are the independent units (the
        intervals of one run share its games), so it is the report's own clustered share
        interval with the run as the cluster."""
        held = self.held.get(kind, [])
        if not held:
            return {"kind": kind, "runs": 0}
        m = stats.Moments.of(held, self.count[kind])
        lo, hi = stats.share_interval(m, True)
        return {
            "kind": kind,
            "runs": len(held),
            "intervals": int(m.sm),
            "coverage": m.estimate,
            "low": lo,
            "high": hi,
            "mean_width": float(np.mean(self.widths[kind])) if self.widths[kind] else math.nan,
        }


def run_scenario(name: str, runs: int, deals: int, truth_deals: int, say: Any) -> dict[str, Any]:
    scenario = SCENARIOS[name]
    t0 = time.perf_counter()
    big = config_of(scenario, truth_deals, TRUTH_SEED, min(TRUTH_CHUNK, truth_deals))
    (truth_agg,) = reduce(big, [None], None)
    truth = figures(truth_agg)
    say(
        f"{name}: truth from {truth_deals:,} deals ({truth_agg.rows:,} games) in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    new, old = Tally(), Tally()
    t0 = time.perf_counter()
    for seed in range(1, runs + 1):
        config = config_of(scenario, deals, seed, deals)
        frames = list(played(config))
        by_deal, by_old = reduce(config, [None, old_clusters(scenario["dice"])], frames)
        new.add(truth, figures(by_deal))
        old.add(truth, figures(by_old))
    games = truth_agg.rows * deals // truth_deals
    say(
        f"{name}: {runs} runs of {deals} deals ({games:,} games each) in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    return {
        "scenario": name,
        **{k: v for k, v in scenario.items()},
        "runs": runs,
        "deals": deals,
        "games_per_run": games,
        "truth_deals": truth_deals,
        "by_deal": [new.row(k) for k in KINDS],
        "old": [old.row(k) for k in KINDS],
        "old_clusters": "table and deal" if scenario["dice"] == "duplicate" else "game",
    }


def print_result(result: dict[str, Any]) -> None:
    print(
        f"\n{result['scenario']}: {result['players']} players, {result['dice']} dice, "
        f"{len(result['entrants'])} strategies round robin, balanced seating; "
        f"{result['runs']} runs x {result['deals']} deals ({result['games_per_run']:,} games)"
    )
    old = f"by {result['old_clusters']} (old)"
    print(f"  {'interval':<12} {'n':>5}  {'by deal (now)':<34} {old}")
    for new, was in zip(result["by_deal"], result["old"], strict=True):
        print(f"  {new['kind']:<12} {new.get('intervals', 0):>5}  {_cell(new):<34} {_cell(was)}")


def _cell(row: dict[str, Any]) -> str:
    if not row.get("runs"):
        return "-"
    return (
        f"{row['coverage']:6.1%} [{row['low']:5.1%}, {row['high']:5.1%}] w {row['mean_width']:.3g}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=300, help="small tournaments per scenario")
    ap.add_argument("--deals", type=int, default=300, help="deals per small tournament")
    ap.add_argument("--truth-deals", type=int, default=100_000, help="deals of the large run")
    ap.add_argument(
        "--scenario", action="append", choices=sorted(SCENARIOS), help="(repeatable; default all)"
    )
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    results = [
        run_scenario(name, args.runs, args.deals, args.truth_deals, say)
        for name in args.scenario or list(SCENARIOS)
    ]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for result in results:
            print_result(result)
        print(
            "\nn: intervals of the kind over all runs; coverage [its 95% interval, clustered by "
            "run] w: mean width of the intervals (a share, or Elo points)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
