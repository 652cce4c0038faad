"""The luck benchmarks' plumbing on a tiny pool: what they count is what the runner plays.

benchmarks/luck_variance.py, luck_coverage.py and luck_sprt.py measure the adjusted
estimates on pools of played deals (benchmarks/luck_pool.py); here a pool of a few deals
checks that the pool holds the runner's own rows, that its deal totals add up, and that
each benchmark runs end to end on it.
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from helpers import NEEDS_NATIVE, load_benchmark

from harness import stats


@pytest.fixture(scope="module")
def pool_module():
    return load_benchmark("luck_pool")


@pytest.fixture(scope="module")
def tiny(pool_module):
    return pool_module.play_pool(("greedy", "worm-first"), 2, 24, seed=3)


def test_a_pool_is_the_runners_rows(pool_module, tiny):
    from harness.runfolder.schema import OVER
    from harness.tourney import plan
    from harness.tourney.chunks import play_chunk

    config = pool_module.config_of(("greedy", "worm-first"), 2, 24, 3)
    (spec,) = list(plan.chunks(config))
    assert spec.account and spec.seating == "cyclic"
    result = play_chunk(spec)
    assert tiny.data["over"].sum() == sum(s == OVER for s in result.games["status"])
    # every game's two seats: one greedy (0), one worm-first (1), win points sum to 1
    assert sorted(tiny.data["strat"][0, 0]) == [0, 1]
    points = stats.win_points(tiny.data["rank"])
    assert np.allclose(points.sum(-1), 1.0)
    wluck = [w for s in result.seats for w in s["wluck"]]
    assert sorted(tiny.data["wluck"].ravel()) == sorted(wluck)


def test_deal_totals_add_up(pool_module, tiny):
    y0, m0, c0 = pool_module.deal_totals(tiny, "win", 0)
    y1, m1, c1 = pool_module.deal_totals(tiny, "win", 1)
    over = tiny.data["over"].sum(-1)
    assert np.array_equal(m0, over) and np.array_equal(m1, over)
    assert np.allclose(y0 + y1, m0)  # the two seats' win points split every game
    assert np.allclose(c0 + c1, 0.0)  # W_own - W_other: opposite for the two seats
    h, _, ch = pool_module.deal_totals(tiny, "h2h", 0, 1)
    assert np.allclose(h, y0) and np.allclose(ch, c0)  # 2 players: head to head = win share
    margin, _, luck = pool_module.deal_totals(tiny, "margin", 0)
    worms, strat = tiny.data["worms"], tiny.data["strat"]
    own = np.where(strat == 0, worms, 0).sum(-1)
    other = np.where(strat == 1, worms, 0).sum(-1)
    assert np.allclose(margin, (own - other).sum(-1))
    centred = pool_module.centred(y0, m0, c0)
    assert abs(centred.sum()) < 1e-9


def test_the_benchmarks_run_on_it(pool_module, tiny):
    variance = load_benchmark("luck_variance")
    coverage = load_benchmark("luck_coverage")
    sprt = load_benchmark("luck_sprt")
    targets = [
        (kind, "greedy", *pool_module.deal_totals(tiny, kind, 0)) for kind in ("win", "margin")
    ]
    case = pool_module.Case("tiny", 2, tiny.deals, tiny.games, None, targets)
    measured = variance.measure(case)
    rows = {r["kind"]: r for r in measured["rows"]}
    assert rows["win"]["raw"] == pytest.approx(targets[0][2].sum() / targets[0][3].sum())
    assert rows["win"]["deals"] == tiny.deals
    args = argparse.Namespace(runs=4, deals=12, seed=1)
    covered = coverage.measure(case, args)
    assert [r["kind"] for r in covered["rows"]] == ["win", "margin"]
    assert all(r["intervals"] == 4 for r in covered["rows"])
    y, m, c = pool_module.deal_totals(tiny, "h2h", 0, 1)
    control = pool_module.centred(y, m, c) / m
    run = sprt.one_run(y / m, control, 0.0, 400.0, 1, 100, sprt.TESTS, worm=control)
    assert set(run) == set(sprt.TESTS)
    assert all(deals % sprt.CHECK_DEALS == 0 for _, deals in run.values())
    # the same control in both adjusted tests: the same verdict after the same deals
    assert run["adjusted"] == run["adjusted_wluck"]


def test_the_paired_worms_target_is_what_compare_adjusts(pool_module, tmp_path):
    """luck_variance.py's ``worms_diff`` (issue 30, item 6) is harness compare's paired
    difference of mean worms, with compare's control: the same numbers from two runs of
    the runner on the pool's deals (the worm margin, ``margin_diff``, is not a figure
    compare shows)."""
    from harness.report import cached_summary
    from harness.report.comparisons.compare import compare
    from harness.tourney import run_tournament

    deals, seed = 16, 5
    before, after = pool_module.PAIRED[0]
    pools = [pool_module.play_pool(field, 2, deals, seed) for field in (before, after)]
    y, m, c = pool_module.paired_totals(*pools, "worms")
    summaries = []
    for k, field in enumerate((before, after)):
        entrants = [{"strategy": field[0], "name": "thr"}, *field[1:]]
        config = {"name": f"w{k}", "entrants": entrants, "deals": deals, "seed": seed}
        run = run_tournament({**config, "luck": "on", "workers": 0}, out=tmp_path)
        summaries.append(cached_summary(run.run_dir))
    thr = next(s for s in compare(summaries)["strategies"] if s["strategy"] == "thr")
    cell = thr["diffs"][0]["worms"]
    assert cell["diff"] == pytest.approx(y.sum() / m.sum(), abs=1e-12)
    adjusted = stats.ControlMoments.of(y, c, m, deal=np.arange(deals)).adjusted()
    assert cell["luck_adjusted"]["diff"] == pytest.approx(adjusted.estimate, abs=1e-9)


def test_a_win_luck_pool_holds_the_runners_win_luck(pool_module):
    """``luck: win`` pools (luck_coverage.py and luck_sprt.py ``--control winluck``):
    ``winluck`` is the runner's column, and it replaces the control of the win shares
    and head to head only; margins keep the worm luck."""
    from harness.tourney import plan
    from harness.tourney.chunks import play_chunk

    field = ("greedy", "worm-first")
    played = pool_module.play_pool(field, 2, 12, seed=3, luck="win")
    assert played.luck == "win" and "winluck" in played.data
    (spec,) = list(plan.chunks(pool_module.config_of(field, 2, 12, 3, "win")))
    result = play_chunk(spec)
    column = [w for s in result.seats for w in s["winluck"]]
    assert sorted(played.data["winluck"].ravel()) == sorted(column)
    by_win = played.controlled_by("winluck")
    for kind, b in (("win", None), ("h2h", 1)):
        *_, c_win = pool_module.deal_totals(by_win, kind, 0, b)
        *_, c_worm = pool_module.deal_totals(played, kind, 0, b)
        assert not np.allclose(c_win, c_worm)
    *_, margin_win = pool_module.deal_totals(by_win, "margin", 0)
    *_, margin_worm = pool_module.deal_totals(played, "margin", 0)
    assert np.array_equal(margin_win, margin_worm)
    assert played.controlled_by("wluck") is played
    with pytest.raises(SystemExit, match="no winluck"):
        pool_module.play_pool(field, 2, 4, seed=3).controlled_by("winluck")


def test_win_luck_variance_measures_a_field_of_its_own(capsys):
    """``--field`` replaces the built-in pools (the strong fields of docs/luck.md): the
    pool is the field given, every target measured with both controls; a field and
    ``--only`` together are refused."""
    import json

    bench = load_benchmark("win_luck_variance")
    assert bench.main(["--deals", "40", "--field", "win-optimal,optimal", "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["field"] == ["win-optimal", "optimal"] and result["games"] == 80
    (row,) = result["rows"]
    assert row["target"] == "win-optimal" and {"wluck", "winluck"} <= set(row)
    with pytest.raises(SystemExit):
        bench.main(["--field", "greedy,simple", "--only", "2p"])


def test_win_luck_variance_bounds_every_control_beside_the_vector(capsys):
    """At 3 players each row carries the in-sample least-squares gain of the vector alone
    and with every other stored control beside it: more regressors never leave more
    variance."""
    import json

    bench = load_benchmark("win_luck_variance")
    field = ["greedy", "worm-first", "tactician"]
    assert bench.main(["--deals", "30", "--field", ",".join(field), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert len(result["rows"]) == 3 + 3  # three win shares, three heads to head
    for row in result["rows"]:
        ls = row["least_squares"]
        assert set(ls) == {"winvec", "winvec+winluck+wluck+luck"}
        assert ls["winvec+winluck+wluck+luck"] >= ls["winvec"] - 1e-9 > 0


def test_win_luck_variance_refuses_an_unknown_field_in_one_line(capsys):
    bench = load_benchmark("win_luck_variance")
    with pytest.raises(SystemExit) as stop:
        bench.main(["--deals", "4", "--field", "greedy,nosuch"])
    assert stop.value.code == 2
    assert "unknown strategy 'nosuch'" in capsys.readouterr().err.strip().splitlines()[-1]


def test_win_luck_variance_survives_a_pool_too_small_for_z(capsys):
    """Three deals of one pairing: a correction with no spread gives z nan, not a
    division by zero."""
    bench = load_benchmark("win_luck_variance")
    assert bench.main(["--deals", "3", "--field", "greedy,simple"]) == 0
    assert "|z| max" in capsys.readouterr().out


def test_win_luck_variance_plays_a_preset_judged_by_its_own_model(capsys):
    """``--rules piko-blog``: the pool's games are piko-blog's and its win luck is kept
    in the evaluator of those rules (piko-blog's own model where one is shipped)."""
    import json

    from harness.game.rules import Rules
    from harness.winprob import evaluator

    bench = load_benchmark("win_luck_variance")
    assert bench.main(["--deals", "20", "--field", "greedy,simple", "--rules", "piko-blog",
                       "--json"]) == 0  # fmt: skip
    (result,) = json.loads(capsys.readouterr().out)
    assert result["rules"] == "piko-blog"
    assert result["evaluator"] == evaluator(Rules.preset("piko-blog", 2)).describe()
    official = bench.play(("greedy", "simple"), 20, 1, 1)
    blog = bench.play(("greedy", "simple"), 20, 1, 1, rules="piko-blog")
    assert not np.array_equal(official.data["worms"], blog.data["worms"])  # other games
    with pytest.raises(SystemExit):
        bench.main(["--rules", "nosuch"])


@NEEDS_NATIVE
def test_win_account_cost_sets_the_two_modes_side_by_side():
    """benchmarks/win_account_cost.py: per player count, CPU a game with luck on and win,
    every round played natively, the ratio of the medians; a bad --players is one line."""
    cost = load_benchmark("win_account_cost")
    rows = cost.measure([3], deals=2, repeats=2, seed=1)
    (row,) = rows
    assert row["engine"] == "native" and len(row["rounds"]["win"]) == 2
    assert row["ms_win"] > 0 and row["ratio"] == pytest.approx(row["ms_win"] / row["ms_on"])
    with pytest.raises(SystemExit):
        cost.main(["--players", "three"])
