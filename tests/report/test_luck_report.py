"""Luck-adjusted estimates in the report (harness.report.summaries.luck), recomputed independently.

The report reduces the games batch by batch into control moments; here the same
estimates are computed again from the stored rows with pandas, in the most literal way
(per deal totals, the coefficient of each fold fitted on the other fold's deals), and
must agree to rounding. A run without the account has no luck section and no adjusted
column; a run where only some tables kept it adjusts those games and enters the rest as
they are.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from harness import load_run
from harness.tourney import run_tournament
from harness.tourney.standings import format_table, with_report

pytestmark = pytest.mark.interpreter


def _config(entrants, luck="on", deals=30, players=2, **extra):
    return {
        "name": "luckreport",
        "players": players,
        "entrants": entrants,
        "deals": deals,
        "seed": 11,
        "luck": luck,
        "engine": "python",
        **extra,
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("luck")
    return run_tournament(_config(["greedy", "tactician", "worm-first"]), out=out, workers=0)


def _seat_frame(run_dir, players: int) -> pd.DataFrame:
    games = pd.read_parquet(run_dir / "games")
    games = games[games.status != "turn-cap"]
    rows = []
    for i in range(players):
        worms = games[[f"seat{j}_worms" for j in range(players)]].to_numpy(float)
        luck = games[[f"seat{j}_luck" for j in range(players)]].to_numpy(float)
        wluck = games[[f"seat{j}_wluck" for j in range(players)]].to_numpy(float)
        ranks = games[[f"seat{j}_rank" for j in range(players)]].to_numpy()
        firsts = (ranks == 1).sum(axis=1)
        others = [j for j in range(players) if j != i]
        rows.append(
            pd.DataFrame(
                {
                    "deal": games.deal.to_numpy(),
                    "strategy": games[f"seat{i}_strategy"].to_numpy(),
                    "win": np.where(ranks[:, i] == 1, 1.0 / firsts, 0.0),
                    "margin": worms[:, i] - worms[:, others].mean(axis=1),
                    "c_win": wluck[:, i] - wluck[:, others].mean(axis=1),
                    "c_margin": luck[:, i] - luck[:, others].mean(axis=1),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _adjusted(frame: pd.DataFrame, y: str, c: str) -> float:
    """The cross-fitted adjusted mean, literally: per deal totals; fold = deal mod 2;
    b of a fold = sum over the other fold's deals of (Y - r M) C / sum C^2."""
    per = frame.assign(m=1.0, c=frame[c].fillna(0.0)).groupby("deal")[[y, "m", "c"]].sum()
    per["fold"] = per.index % 2
    total = 0.0
    for fold in (0, 1):
        other = per[per.fold != fold]
        r = other[y].sum() / other.m.sum()
        b = ((other[y] - r * other.m) * other.c).sum() / (other.c**2).sum()
        mine = per[per.fold == fold]
        total += (mine[y] - b * mine.c).sum()
    return total / per.m.sum()


def test_the_adjusted_estimates_are_the_literal_cross_fit(run):
    report = load_run(run.run_dir).report
    frame = _seat_frame(run.run_dir, 2)
    rows = {r["strategy"]: r for r in report["standings"]}
    for name, mine in frame.groupby("strategy"):
        row = rows[name]
        assert row["win_adj"] == pytest.approx(_adjusted(mine, "win", "c_win"), abs=1e-12)
        assert row["margin_adj"] == pytest.approx(_adjusted(mine, "margin", "c_margin"), abs=1e-12)
        assert row["margin"] == pytest.approx(mine.margin.mean(), abs=1e-12)
        assert row["win_adj_low"] < row["win_adj"] < row["win_adj_high"]
        assert row["margin_adj_low"] < row["margin_adj"] < row["margin_adj_high"]


def test_the_luck_section_holds_the_account_per_strategy(run):
    report = load_run(run.run_dir).report
    luck = report["luck"]
    assert luck["accounted"] == 1.0
    games = pd.read_parquet(run.run_dir / "games")
    for row in luck["standings"]:
        mask0 = games.seat0_strategy == row["strategy"]
        mask1 = games.seat1_strategy == row["strategy"]
        regret = sum(
            games.loc[m, f"seat{i}_regret_{k}"].sum()
            for i, m in ((0, mask0), (1, mask1))
            for k in ("pick", "stop", "claim")
        )
        n = int(mask0.sum() + mask1.sum())
        assert row["games_accounted"] == n
        assert row["regret_per_game"] == pytest.approx(regret / n)
        kinds = row["by_kind"]
        assert sum(k["regret_per_game"] for k in kinds.values()) == pytest.approx(regret / n)
        assert sum(luck["histogram"]["counts"][row["strategy"]]) == n
    # head to head: the two sides of a pair add up to one
    cells = {(c["a"], c["b"]): c for c in luck["head_to_head"]}
    for (a, b), cell in cells.items():
        assert cell["share_adj"] + cells[b, a]["share_adj"] == pytest.approx(1.0)


def test_the_terminal_shows_the_adjusted_share_where_there_is_one(run):
    report = load_run(run.run_dir).report
    rows = with_report(run.counts, report)
    lines = format_table(rows)
    header = lines[0].split()
    assert "luck-adj." in header
    # every strategy's row: its raw share and interval, then the adjusted ones (two "to")
    data = lines[2 : 2 + len(rows)]  # then a line on what the luck columns are
    assert all(line.count(" to ") >= 2 and line.count("%") >= 4 for line in data), lines


def test_a_run_without_the_account_has_no_luck_section(tmp_path):
    plain = run_tournament(_config(["greedy", "simple"], luck="off"), out=tmp_path, workers=0)
    report = load_run(plain.run_dir).report
    assert report["luck"] is None
    assert all("win_adj" not in r for r in report["standings"])
    lines = format_table(with_report(plain.counts, report))
    assert "luck-adj." not in lines[0]
    assert json.loads(json.dumps(report))  # still plain JSON


def test_tables_without_the_account_enter_unadjusted(tmp_path):
    # auto: greedy v simple keeps no account, the tables with optimal do
    mixed = run_tournament(
        _config(["greedy", "simple", "optimal"], luck="auto", deals=12), out=tmp_path, workers=0
    )
    report = load_run(mixed.run_dir).report
    assert 0 < report["luck"]["accounted"] < 1
    frame = _seat_frame(mixed.run_dir, 2)
    assert frame.c_win.isna().any() and frame.c_win.notna().any()
    rows = {r["strategy"]: r for r in report["standings"]}
    for name, mine in frame.groupby("strategy"):
        assert rows[name]["win_adj"] == pytest.approx(_adjusted(mine, "win", "c_win"), abs=1e-12)


def test_the_results_api_gives_each_seats_account(run):
    seats = load_run(run.run_dir).seats()
    over = seats[seats.status == "over"].copy()
    over["own"] = over.par + over.luck - over.regret
    twice = over.groupby(["table", "deal", "seating"])
    # two players: (own of this seat) - (own of the other) = margin, for every seat
    other = twice["own"].transform("sum") - over["own"]
    assert ((over["own"] - other) - over["margin"]).abs().max() < 1e-9
    assert (over.regret >= 0).all() and over.rolls.notna().all()


@pytest.mark.once
def test_the_report_has_a_luck_and_skill_section_and_chart(run, tmp_path):
    from harness.report import write_report

    write_report(run.run_dir)
    html = (run.run_dir / "report.html").read_text()
    md = (run.run_dir / "report.md").read_text()
    assert "Luck and skill" in html and "Luck and skill" in md
    assert "luck-adjusted" in md and (run.run_dir / "plots" / "luck.png").exists()
    plain = run_tournament(_config(["greedy", "simple"], luck="off"), out=tmp_path, workers=0)
    write_report(plain.run_dir)
    assert "Luck and skill" not in (plain.run_dir / "report.md").read_text()
    assert not (plain.run_dir / "plots" / "luck.png").exists()
