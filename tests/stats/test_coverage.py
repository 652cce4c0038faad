"""Intervals cluster by the deal of the whole run (issue 10): a fast check of coverage.

benchmarks/coverage.py measures coverage on many real tournaments; here, a synthetic run
whose truth is known (a strategy's luck in a deal is shared by all its tables, as the
shared dice make it), a case where clustering per (table, deal) would be too narrow, and
a small real case through the benchmark's own code.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import load_benchmark
from run_builders import write_run

from harness import stats
from harness.report.summaries.aggregate import aggregate, aggregate_frames, moments_of
from harness.runfolder.reader import RunInfo

pytestmark = pytest.mark.interpreter

TABLES = {"ab": ("a", "b"), "ac": ("a", "c"), "bc": ("b", "c")}
LUCKY, OTHERWISE = 0.5, 0.2  # a wins every game of a lucky deal, else each with 0.2
A_SHARE = LUCKY + (1 - LUCKY) * OTHERWISE  # a's long-run win share: 0.6


def synthetic(rng: np.random.Generator, deals: int) -> pd.DataFrame:
    """Three entrants, 2 players, both seat orders: a's luck is one draw per deal, shared
    by both of a's tables (what duplicate dice shared across tables do)."""
    lucky = rng.random(deals) < LUCKY
    parts = []
    for table, (x, y) in TABLES.items():
        for k in range(2):
            p_x = np.where(lucky, 1.0, OTHERWISE) if x == "a" else np.full(deals, 0.5)
            x_wins = rng.random(deals) < p_x
            x_seat = k  # order 0: x in seat 0; order 1: x in seat 1
            ranks = np.where(x_wins, 1, 2)
            part = {
                "table": table,
                "deal": np.arange(deals),
                "seating": k,
                "seed": 1000 + np.arange(deals),
                "game_seed": 1000 + np.arange(deals),
                "winner": np.where(x_wins, x_seat, 1 - x_seat),
                "players": 2,
                "turns": 40,
                "status": "over",
                "error": None,
                "error_seat": -1,
                "error_kind": None,
                f"seat{x_seat}_strategy": x,
                f"seat{1 - x_seat}_strategy": y,
                f"seat{x_seat}_rank": ranks,
                f"seat{1 - x_seat}_rank": 3 - ranks,
                f"seat{x_seat}_worms": np.where(x_wins, 5, 1),
                f"seat{1 - x_seat}_worms": np.where(x_wins, 1, 5),
            }
            for seat in range(2):
                for name in ("busts", "steals", "stolen"):
                    part[f"seat{seat}_{name}"] = 0
            parts.append(pd.DataFrame(part))
    df = pd.concat(parts, ignore_index=True).sort_values(["deal", "table"], kind="stable")
    return df.reset_index(drop=True)


def info_for(dice: str = "duplicate") -> RunInfo:
    return RunInfo(
        Path("synthetic"),
        {"players": 2, "dice": dice, "entrants": [{"name": n} for n in "abc"]},
        [],
    )


def per_table_and_deal(df: pd.DataFrame) -> np.ndarray:
    return df.groupby(["table", "deal"], sort=False).ngroup().to_numpy()


def a_interval(df: pd.DataFrame, dice: str = "duplicate", clusters=None) -> tuple:
    agg = aggregate_frames(info_for(dice), lambda c, p: [df], ratings=False, clusters=clusters)
    m = moments_of(agg.win[agg.strategies.index("a")])
    return m, stats.share_interval(m, True)


def test_deal_of_the_whole_run_is_the_unit(tmp_path):
    df = synthetic(np.random.default_rng(7), 60)
    rows = [r for r in df.to_dict("records")]
    run = write_run(tmp_path / "r", rows, by_table=True, parts=3)
    agg = aggregate(run)
    m = moments_of(agg.win[agg.strategies.index("a")])
    assert m.deals == 60  # deals, not the 120 (table, deal) pairs a played
    # exactly the moments of a's totals per deal, over both of its tables
    mine = []
    for _, games in df.groupby("deal"):
        y = sum(1.0 for r in games.itertuples() if _winner(r) == "a")
        played = sum(1 for r in games.itertuples() if "a" in (r.seat0_strategy, r.seat1_strategy))
        mine.append((y, played))
    expected = stats.Moments.of([y for y, _ in mine], [g for _, g in mine])
    assert (m.sy, m.sm, m.syy, m.smm, m.sym) == pytest.approx(
        (expected.sy, expected.sm, expected.syy, expected.smm, expected.sym)
    )
    # and the same with independent dice: their deal's streams are shared across tables too
    ind = write_run(tmp_path / "i", rows, by_table=True, parts=3, dice="independent")
    assert moments_of(aggregate(ind).win[0]).deals == 60


def _winner(r) -> str:
    return r.seat0_strategy if r.seat0_rank == 1 else r.seat1_strategy


def test_per_table_clusters_would_be_too_narrow():
    """a's luck is shared by its two tables: per (table, deal) the interval is about
    1/sqrt(1.6) as wide as it should be; per deal it is right."""
    df = synthetic(np.random.default_rng(3), 400)
    by_deal, (lo, hi) = a_interval(df)
    _, (old_lo, old_hi) = a_interval(df, clusters=per_table_and_deal)
    assert (hi - lo) / (old_hi - old_lo) > 1.15


@pytest.mark.once
def test_coverage_of_a_synthetic_correlated_run():
    """150 runs of 100 deals: the per-deal interval holds a's true share about 95% of the
    time (95.3% in 4,000 runs); per (table, deal) clearly less (85.7%). The bounds are
    about 3 standard errors of 150 runs away from those."""
    rng = np.random.default_rng(2026)
    held = {"deal": 0, "old": 0}
    runs = 150
    for _ in range(runs):
        df = synthetic(rng, 100)
        for name, clusters in (("deal", None), ("old", per_table_and_deal)):
            _, (lo, hi) = a_interval(df, clusters=clusters)
            held[name] += lo <= A_SHARE <= hi
    assert 0.90 <= held["deal"] / runs <= 1.0
    assert held["old"] / runs <= held["deal"] / runs - 0.03


def _benchmark():
    return load_benchmark("coverage", "coverage_benchmark")  # not the coverage package


def test_real_tournaments_small_case():
    """A few real 3-player tournaments (4 entrants, balanced seating): the benchmark's
    per-deal intervals hold the long-run values in most cases (wide tolerance: few runs),
    and not less often than the old per-table clusters."""
    bench = _benchmark()
    result = bench.run_scenario("3p-duplicate", runs=8, deals=80, truth_deals=3000, say=print)
    new = {r["kind"]: r for r in result["by_deal"]}
    old = {r["kind"]: r for r in result["old"]}
    pooled = sum(new[k]["coverage"] * new[k]["intervals"] for k in new) / sum(
        new[k]["intervals"] for k in new
    )
    was = sum(old[k]["coverage"] * old[k]["intervals"] for k in old) / sum(
        old[k]["intervals"] for k in old
    )
    assert pooled >= 0.8 and pooled >= was
    assert all(not math.isnan(new[k]["mean_width"]) for k in new)
    widths = [(new[k]["mean_width"], old[k]["mean_width"]) for k in new]
    assert all(w_new >= w_old for w_new, w_old in widths)
