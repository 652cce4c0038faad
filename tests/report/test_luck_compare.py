"""``harness compare`` with the luck account: each paired difference also luck-adjusted,
recomputed here literally from the stored twins; nothing of it where a run kept none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.report import cached_summary
from harness.report.comparisons.compare import compare
from harness.tourney import run_tournament


def _config(target: int, luck: str) -> dict:
    return {
        "name": "twins",
        "players": 2,
        "entrants": [
            {"strategy": "threshold", "name": "mine", "params": {"target": target}},
            "greedy",
        ],
        "deals": 40,
        "seed": 8,
        "luck": luck,
        "engine": "python",
    }


def _seats(run_dir) -> pd.DataFrame:
    games = pd.read_parquet(run_dir / "games")
    rows = []
    for i in (0, 1):
        ranks = games[["seat0_rank", "seat1_rank"]].to_numpy()
        firsts = (ranks == 1).sum(axis=1)
        w = games[["seat0_wluck", "seat1_wluck"]].to_numpy(float)
        rows.append(
            pd.DataFrame(
                {
                    "who": games[f"seat{i}_strategy"],
                    "deal": games.deal,
                    "seat": i,
                    "points": np.where(ranks[:, i] == 1, 1.0 / firsts, 0.0),
                    "c": w[:, i] - w[:, 1 - i],
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _literal(a: pd.DataFrame, b: pd.DataFrame) -> float:
    twins = a.merge(b, on=["who", "deal", "seat"], suffixes=("_a", "_b"))
    twins = twins[twins.who == "mine"]
    d = twins.points_b - twins.points_a
    c = twins.c_b - twins.c_a
    per = pd.DataFrame({"deal": twins.deal, "y": d, "c": c, "m": 1.0}).groupby("deal").sum()
    per["fold"] = per.index % 2
    total = 0.0
    for fold in (0, 1):
        other = per[per.fold != fold]
        r = other.y.sum() / other.m.sum()
        b = ((other.y - r * other.m) * other.c).sum() / (other.c**2).sum()
        total += (per[per.fold == fold].y - b * per[per.fold == fold].c).sum()
    return total / per.m.sum()


def test_a_paired_difference_is_also_given_luck_adjusted(tmp_path):
    a = run_tournament(_config(26, "on"), out=tmp_path, workers=0)
    b = run_tournament(_config(28, "on"), out=tmp_path, workers=0)
    comparison = compare([cached_summary(a.run_dir), cached_summary(b.run_dir)])
    (row,) = [r for r in comparison["strategies"] if r["strategy"] == "mine"]
    (diff,) = row["diffs"]
    assert diff["paired"]
    cell = diff["win_share"]["luck_adjusted"]
    want = _literal(_seats(a.run_dir), _seats(b.run_dir))
    assert cell["diff"] == pytest.approx(want, abs=1e-12)
    assert cell["low"] < cell["diff"] < cell["high"] and cell["accounted"] == 1.0
    assert "p_holm" in cell and "luck-adjusted" in comparison["method"]
    assert diff["worms"]["luck_adjusted"] is not None


def test_without_the_account_there_is_no_adjusted_difference(tmp_path):
    a = run_tournament(_config(26, "off"), out=tmp_path, workers=0)
    b = run_tournament(_config(28, "off"), out=tmp_path, workers=0)
    comparison = compare([cached_summary(a.run_dir), cached_summary(b.run_dir)])
    for row in comparison["strategies"]:
        for diff in row["diffs"]:
            assert "luck_adjusted" not in diff["win_share"]
    assert "luck-adjusted" not in comparison["method"]
