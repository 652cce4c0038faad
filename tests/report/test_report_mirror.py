"""Mirror matches in reports (issue 10, item 3): one strategy under two display names.

The report finds mirrors from run.json's entrant identities (same reference, class,
parameters and code digest; different names) and shows that the two halves agree: the
difference of their win shares (clustered by deal of the run) and their head to head,
each with its 95% interval and whether it holds "no difference".
"""

from __future__ import annotations

import re

import pytest
from run_builders import row, write_run

from harness import stats
from harness.report import summarise_run, write_report
from harness.report.summaries.summary import diff_of_shares, mirror_pairs
from harness.runfolder import games as games_module
from harness.tourney import run_tournament


def ident(name: str, ref: str = "greedy", params=None, code="c1", cls="strategies.g:Greedy"):
    return {"name": name, "ref": ref, "params": params or {}, "code": code, "class": cls}


def entrants_of(*items):
    return {"entrants": list(items), "seating": "balanced"}


def points(r, name, players=2):
    """``name``'s win points in row ``r`` (a shared first place split)."""
    ranks = [r[f"seat{i}_rank"] for i in range(players)]
    for i in range(players):
        if r[f"seat{i}_strategy"] == name and ranks[i] == 1:
            return 1 / ranks.count(1)
    return 0.0


def round_robin_rows(deals: int = 8):
    """a, a2 (a's mirror) and x, 2 players, every deal in both seat orders at each table."""
    rows = []
    for table, (p, q) in enumerate([("a", "a2"), ("a", "x"), ("a2", "x")]):
        for d in range(deals):
            wp, wq = (d * 7 + table * 3) % 5, (d * 3 + table) % 4
            rows.append(row(f"t{table}", d, 0, [p, q], [wp, wq]))
            rows.append(row(f"t{table}", d, 1, [q, p], [(wq + d) % 4, wp]))
    return rows


ENTRANTS = entrants_of(ident("a"), ident("a2"), ident("x", ref="random", cls="strategies.r:R"))


# -- detection ------------------------------------------------------------------------------
def test_mirrors_are_the_same_strategy_under_other_names():
    same = [ident("a"), ident("b"), ident("c")]
    assert mirror_pairs(same) == [("a", "b"), ("a", "c"), ("b", "c")]
    # Anything that makes another strategy is not a mirror: parameters, code, class, ref.
    assert mirror_pairs([ident("a"), ident("b", params={"target": 26})]) == []
    assert mirror_pairs([ident("a"), ident("b", code="c2")]) == []
    assert mirror_pairs([ident("a"), ident("b", cls="strategies.g:Greedy2")]) == []
    assert mirror_pairs([ident("a"), ident("b", ref="mybot.py")]) == []
    # Parameters in another order are the same parameters.
    p1, p2 = {"a": 1, "b": 2}, {"b": 2, "a": 1}
    assert mirror_pairs([ident("a", params=p1), ident("b", params=p2)]) == [("a", "b")]
    # A name listed twice (a hand-edited run.json) is one entrant, not a mirror of itself;
    # entrants run.json does not identify mirror nobody.
    assert mirror_pairs([ident("a"), ident("a")]) == []
    assert mirror_pairs([{"name": "a"}, {"name": "b"}]) == []


def test_a_run_without_mirrors_has_no_mirror_section(tmp_path):
    run = write_run(tmp_path / "r", round_robin_rows())  # entrants a, a2, x: refs differ
    s = summarise_run(run)
    assert s["mirrors"] == []
    assert "Mirror matches" not in write_report(run, plots=False).markdown.read_text()


# -- the numbers ----------------------------------------------------------------------------
def test_the_share_difference_is_a_paired_difference_by_deal(tmp_path):
    rows = round_robin_rows()
    s = summarise_run(write_run(tmp_path / "r", rows, entrants=["a", "a2", "x"], extra=ENTRANTS))
    (m,) = s["mirrors"]
    assert (m["a"], m["b"]) == ("a", "a2")
    # Every deal holds 4 games of each half (2 tables x 2 orders): the ratio difference is
    # then the mean of per-deal differences and its interval the paired t interval.
    per_deal = [
        sum(points(r, "a") - points(r, "a2") for r in rows if r["deal"] == d) / 4 for d in range(8)
    ]
    ref = stats.Moments.of(per_deal)
    assert m["share"]["diff"] == pytest.approx(ref.estimate)
    assert (m["share"]["low"], m["share"]["high"]) == pytest.approx(ref.interval())
    assert m["share"]["units"] == 8
    by = {r["strategy"]: r for r in s["standings"]}
    assert m["share"]["diff"] == pytest.approx(by["a"]["win_share"] - by["a2"]["win_share"])
    cell = next(c for c in s["head_to_head"]["pairs"] if (c["a"], c["b"]) == ("a", "a2"))
    assert m["head_to_head"]["share"] == cell["share"]
    assert m["head_to_head"]["games"] == 16


def test_the_interval_counts_the_halves_correlation(tmp_path):
    # Attack the clustering: at their shared table one half's win is the other's loss, so
    # the difference varies more than two independent shares would: an interval built as
    # if they were independent would be too narrow (too many false "disagree"s).
    rows = round_robin_rows(12)
    s = summarise_run(write_run(tmp_path / "r", rows, entrants=["a", "a2", "x"], extra=ENTRANTS))
    (m,) = s["mirrors"]
    by = {r["strategy"]: r for r in s["standings"]}
    independent = stats.Z95 * (by["a"]["win_se"] ** 2 + by["a2"]["win_se"] ** 2) ** 0.5
    paired = (m["share"]["high"] - m["share"]["low"]) / 2
    assert paired > 1.2 * independent


def test_diff_of_shares_edge_cases():
    import numpy as np

    one = np.array([1.0])
    d = diff_of_shares(one, one * 2, one * 0, one * 2)
    assert d["diff"] == 0.5 and np.isnan(d["low"])  # one deal: no interval
    empty = np.zeros(0)
    assert np.isnan(diff_of_shares(empty, empty, empty, empty)["diff"])
    same = np.array([1.0, 2.0, 0.0])
    twos = np.full(3, 2.0)
    d = diff_of_shares(same, twos, same, twos)
    assert d["diff"] == 0 and d["low"] == d["high"] == 0  # identical halves


def test_halves_that_disagree_are_called_out(tmp_path):
    # "a2" is listed as a mirror of "a" but wins every game: the report must not say the
    # halves agree.
    rows = []
    for d in range(20):
        rows.append(row("t", d, 0, ["a", "a2"], [1, 5]))
        rows.append(row("t", d, 1, ["a2", "a"], [5, 1 + d % 2]))
    extra = entrants_of(ident("a"), ident("a2"))
    run = write_run(tmp_path / "r", rows, entrants=["a", "a2"], extra=extra)
    report = write_report(run, plots=False)
    (m,) = report.summary["mirrors"]
    assert m["agree"] is False and m["identical"] is False
    assert m["share"]["holds_zero"] is False and m["head_to_head"]["holds_half"] is False
    assert any("DISAGREE" in msg for msg in report.summary["messages"])
    html = report.html.read_text()
    assert "Mirror matches" in html and re.search(r"<td[^>]*>NO</td>", html)
    # The only neighbours are the mirror's halves: there is no ranking to settle.
    assert report.summary["convergence"]["settled"] is False
    assert not any("settled" in msg.lower() for msg in report.summary["messages"])
    assert "Nothing to settle" in html


def test_results_do_not_depend_on_parts_or_batches(tmp_path, monkeypatch):
    rows = round_robin_rows(6)
    one = write_run(tmp_path / "one", rows, entrants=["a", "a2", "x"], extra=ENTRANTS)
    many = write_run(
        tmp_path / "many", rows, entrants=["a", "a2", "x"], extra=ENTRANTS, parts=4, by_table=True
    )
    expected = summarise_run(one)["mirrors"]
    monkeypatch.setattr(games_module, "BATCH_ROWS", 5)
    assert summarise_run(many)["mirrors"] == expected


def test_a_turn_capped_game_is_left_out_as_everywhere(tmp_path):
    rows = round_robin_rows(6)
    rows[0] = row("t0", 0, 0, ["a", "a2"], [2, 2], status="turn-cap", turns=1000)
    s = summarise_run(write_run(tmp_path / "r", rows, entrants=["a", "a2", "x"], extra=ENTRANTS))
    (m,) = s["mirrors"]
    by = {r["strategy"]: r for r in s["standings"]}
    assert m["share"]["diff"] == pytest.approx(by["a"]["win_share"] - by["a2"]["win_share"])
    assert m["head_to_head"]["games"] == 11


def test_halves_with_different_tables_compare_only_head_to_head(tmp_path):
    # A gauntlet whose challenger is mirrored in the field: the challenger meets everyone,
    # its mirror only the challenger. Their win shares measure different things.
    rows = []
    for d in range(10):
        for t, opp in enumerate(["c2", "x"]):
            rows.append(row(f"t{t}", d, 0, ["c", opp], [d % 4, (d + t) % 3]))
            rows.append(row(f"t{t}", d, 1, [opp, "c"], [(d + t) % 3, d % 4]))
    extra = {
        **entrants_of(ident("c"), ident("c2"), ident("x", ref="random")),
        "format": "gauntlet",
        "challenger": "c",
    }
    report = write_report(
        write_run(tmp_path / "r", rows, entrants=["c", "c2", "x"], extra=extra), plots=False
    )
    (m,) = report.summary["mirrors"]
    assert m["share"] is None and "tables differ" in m["share_note"]
    assert m["head_to_head"]["games"] == 20
    assert "only their head to head compares them" in report.markdown.read_text()


def test_halves_that_never_meet_compare_their_shares(tmp_path):
    # Both halves in a gauntlet's field: each meets only the challenger, on the same deals.
    rows = []
    for d in range(10):
        for t, opp in enumerate(["f1", "f2"]):
            rows.append(row(f"t{t}", d, 0, ["c", opp], [d % 4, (d * (t + 1)) % 5]))
            rows.append(row(f"t{t}", d, 1, [opp, "c"], [(d * (t + 1)) % 5, d % 4]))
    extra = {
        **entrants_of(ident("c", ref="random"), ident("f1"), ident("f2")),
        "format": "gauntlet",
        "challenger": "c",
    }
    s = summarise_run(write_run(tmp_path / "r", rows, entrants=["c", "f1", "f2"], extra=extra))
    (m,) = s["mirrors"]
    assert m["head_to_head"] is None
    assert m["share"]["diff"] is not None and m["agree"] is not None


# -- real runs ------------------------------------------------------------------------------
def _play(tmp_path, players: int, seating: str, entrants, deals: int):
    config = {
        "name": f"mirror{players}{seating}",
        "players": players,
        "deals": deals,
        "seed": 5,
        "engine": "python",
        "seating": seating,
        "entrants": entrants,
    }
    run = run_tournament(config, out=tmp_path, workers=1, progress=False, echo=lambda t: None)
    return write_report(run.run_dir, plots=False)


def test_a_mirror_match_agrees_with_itself(tmp_path):
    report = _play(
        tmp_path,
        2,
        "balanced",
        ["greedy", {"strategy": "greedy", "name": "greedy-b"}, "random"],
        40,
    )
    (m,) = report.summary["mirrors"]
    assert (m["a"], m["b"]) == ("greedy", "greedy-b")
    # The same strategy on the same dice in both seat orders: exactly equal halves.
    assert m["agree"] is True and m["identical"] is True
    assert m["share"]["diff"] == 0 and m["head_to_head"]["share"] == 0.5
    assert any("agree exactly" in msg for msg in report.summary["messages"])
    assert "yes (identical)" in report.html.read_text()
    # Neighbours in the ranking, but no ranking question: a strategy never separates from
    # itself, so no "not settled" and no games estimate for the pair.
    conv = report.summary["convergence"]
    (pair,) = [c for c in conv["neighbours"] if c["mirror"]]
    assert {pair["upper"], pair["lower"]} == {"greedy", "greedy-b"}
    assert pair["games_needed"] is None
    assert conv["settled"] is True
    assert not any("Not settled" in msg for msg in report.summary["messages"])
    assert any("mirror pairs apart" in msg for msg in report.summary["messages"])


def test_cyclic_seating_at_three_players_says_the_order_is_fixed(tmp_path):
    field = ["greedy", {"strategy": "greedy", "name": "greedy-b"}, "random"]
    cyclic = _play(tmp_path / "c", 3, "cyclic", field, 12).summary["mirrors"][0]
    assert "relative turn order" in cyclic["seat_order_note"]
    balanced = _play(tmp_path / "b", 3, "balanced", field, 12).summary["mirrors"][0]
    assert balanced["seat_order_note"] == ""
    assert balanced["identical"] is True  # every order played: the halves swap exactly
