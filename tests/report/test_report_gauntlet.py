"""Gauntlet reports centre on the challenger (issue 10, item 5).

A gauntlet's challenger meets every opponent set; the field meets only the challenger
(and, at 3+ players, each other at the challenger's tables). The report gives the
challenger's head to head with each opponent (share, Elo difference, LOS, all with 95%
intervals) and its overall rating; the field is not ranked by win share, only ordered by
rating and marked as indirect; nothing is said about games that would separate two
entrants that never meet.
"""

from __future__ import annotations

import math

import pytest
from run_builders import row, write_run

from harness import stats
from harness.report import summarise_run, write_report
from harness.report.summaries.summary import elo_span, verdict
from harness.tourney import run_tournament


def gauntlet_rows(challenger="c", field=("a", "b"), deals=40, beats=(0.75, 0.25)):
    """2 players: the challenger against each opponent, both seat orders of every deal.

    Against ``field[t]`` the challenger wins a share ``beats[t]`` of the deals (both
    orders of a deal go the same way).
    """
    rows = []
    for t, opp in enumerate(field):
        for d in range(deals):
            wins = d < round(beats[t] * deals)
            c, o = (5, 1) if wins else (1, 5)
            rows.append(row(f"t{t}", d, 0, [challenger, opp], [c, o]))
            rows.append(row(f"t{t}", d, 1, [opp, challenger], [o, c]))
    return rows


GAUNTLET = {"format": "gauntlet", "challenger": "c"}


def test_the_challenger_against_each_opponent(tmp_path):
    run = write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"], extra=GAUNTLET)
    s = summarise_run(run)
    g = s["gauntlet"]
    assert g["challenger"] == "c"
    # The field in config order (not a ranking), each with its head-to-head numbers.
    assert [o["opponent"] for o in g["opponents"]] == ["a", "b"]
    a, b = g["opponents"]
    assert a["share"] == pytest.approx(0.75) and b["share"] == pytest.approx(0.25)
    assert a["games"] == 80 and a["tables"] == 1
    cells = {(c["a"], c["b"]): c for c in s["head_to_head"]["pairs"]}
    for o in (a, b):
        cell = cells["c", o["opponent"]]
        assert (o["low"], o["high"]) == (cell["low"], cell["high"])
        # Elo difference: the logistic image of the share and of its interval's ends.
        assert o["elo"] == pytest.approx(stats.score_to_elo(cell["share"]))
        assert o["elo_low"] == pytest.approx(stats.score_to_elo(cell["low"]))
        assert o["elo_high"] == pytest.approx(stats.score_to_elo(cell["high"]))
        assert o["elo_low"] < o["elo"] < o["elo_high"]
        assert o["los"] == pytest.approx(stats.los(cell["share"], cell["se"]))
    assert a["elo"] > 0 and a["los"] > 0.5 and a["verdict"] == "ahead"
    assert b["elo"] < 0 and b["los"] < 0.5 and b["verdict"] == "behind"
    assert s["convergence"]["settled"] is True and s["convergence"]["neighbours"] == []


def test_the_challenger_rating_is_against_the_field_average(tmp_path):
    run = write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"], extra=GAUNTLET)
    s = summarise_run(run)
    by = {r["strategy"]: r for r in s["standings"]}
    rating = s["gauntlet"]["rating"]
    field_mean = (by["a"]["elo"] + by["b"]["elo"]) / 2
    assert rating["elo"] == pytest.approx(by["c"]["elo"] - field_mean)
    assert rating["low"] < rating["elo"] < rating["high"]


def test_the_field_is_not_ranked_by_win_share(tmp_path):
    # "a" wins more of its games than "b" only because of whom it plays: a gauntlet's
    # order is by rating and says it is indirect; no "settled" talk about the field.
    run = write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"], extra=GAUNTLET)
    report = write_report(run)
    s = report.summary
    assert s["ranking"]["by"] == "rating" and s["ranking"]["indirect"] is True
    elos = [r["elo"] for r in s["standings"]]
    assert elos == sorted(elos, reverse=True)
    text = " ".join(s["messages"])
    assert "would separate" not in text and "Not settled" not in text
    assert "The ranking is settled" not in text
    assert "Gauntlet: c is ahead of a; behind b" in text
    md = report.markdown.read_text()
    assert "## Gauntlet: c against each opponent" in md
    assert "## All entrants, by rating (an indirect ranking)" in md
    assert "Is the ranking settled?" not in md and "## Standings" not in md
    assert "gauntlet" in report.plots and "standings" not in report.plots


def test_a_round_robin_is_unchanged(tmp_path):
    rows = gauntlet_rows()
    s = summarise_run(write_run(tmp_path / "r", rows, entrants=["c", "a", "b"]))
    assert s["gauntlet"] is None and s["ranking"]["by"] == "win_share"
    shares = [r["win_share"] for r in s["standings"]]
    assert shares == sorted(shares, reverse=True)


def test_entrants_that_never_meet_get_no_games_estimate(tmp_path):
    # Two separate pairs that never meet (a hand-assembled round robin): their win
    # shares overlap, but more games would never separate them head to head.
    rows = []
    for d in range(20):
        for t, (p, q) in enumerate([("a", "b"), ("x", "y")]):
            rows.append(row(f"t{t}", d, 0, [p, q], [d % 5, (d * 3) % 4]))
            rows.append(row(f"t{t}", d, 1, [q, p], [(d * 3) % 4, d % 5]))
    report = write_report(write_run(tmp_path / "r", rows), plots=False)
    for c in report.summary["convergence"]["neighbours"]:
        if c["head_to_head_games"] == 0:
            assert c["games_needed"] is None, c
    never = [c for c in report.summary["convergence"]["neighbours"] if not c["head_to_head_games"]]
    assert never  # the attack needs a neighbour pair that never met
    md = report.markdown.read_text()
    for c in never:
        line = next(x for x in md.splitlines() if f"{c['upper']} / {c['lower']}" in x)
        assert "would separate" not in line and "never met" in line


def test_a_gauntlet_without_its_challenger_is_reported_as_a_round_robin(tmp_path):
    extra = {"format": "gauntlet", "challenger": "nobody"}
    s = summarise_run(
        write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"], extra=extra)
    )
    assert s["gauntlet"] is None and s["ranking"]["indirect"] is False


def test_an_opponent_never_met_is_said_so(tmp_path):
    rows = gauntlet_rows(field=("a",), beats=(0.5,))
    run = write_run(tmp_path / "r", rows, entrants=["c", "a", "b"], extra=GAUNTLET)
    report = write_report(run, plots=False)
    b = report.summary["gauntlet"]["opponents"][1]
    assert b["opponent"] == "b" and b["games"] == 0 and b["share"] is None
    assert b["met"] is False and b["verdict"] is None
    assert "| b | 0 | — |" in report.markdown.read_text()


def test_elo_span_and_verdict_edges():
    assert elo_span(0.5, 0.4, 0.6)[0] == 0.0 and str(elo_span(0.5, 0.4, 0.6)[0]) == "0.0"
    e, lo, hi = elo_span(1.0, 0.9, 1.0)
    assert math.isnan(e) and math.isnan(hi) and lo > 0  # no finite Elo at a share of 1
    assert verdict(0.51, 0.6, 0.5) == "ahead" and verdict(0.4, 0.49, 0.5) == "behind"
    assert verdict(0.5, 0.6, 0.5) == "open" and verdict(math.nan, 0.6, 0.5) is None


def test_a_played_gauntlet_at_three_players(tmp_path):
    config = {
        "name": "g3",
        "players": 3,
        "format": "gauntlet",
        "challenger": "greedy",
        "entrants": ["random", "threshold", "worm-first"],
        "deals": 12,
        "seed": 2,
        "engine": "python",
    }
    run = run_tournament(config, out=tmp_path, workers=1, progress=False, echo=lambda t: None)
    report = write_report(run.run_dir, plots=False)
    g = report.summary["gauntlet"]
    assert g["challenger"] == "greedy"
    assert [o["opponent"] for o in g["opponents"]] == ["random", "threshold", "worm-first"]
    # 3 tables (greedy and two of the field); each opponent sits at two of them.
    assert all(o["tables"] == 2 and o["games"] > 0 for o in g["opponents"])
    assert g["rating"]["elo"] is not None
    assert report.summary["ranking"]["indirect"] is True
    html = report.html.read_text()
    assert "Gauntlet: greedy against each opponent" in html and "indirect" in html
    assert "would separate" not in html
