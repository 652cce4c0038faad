"""The adaptive benchmarks' plumbing: Pocock's recursion against known values, and a
played tournament read back as the runner decided it, the estimate interval's coverage
section (benchmarks/adaptive_played.py, benchmarks/adaptive_boundary.py,
benchmarks/adaptive_cs.py; their figures are in docs/tourney.md)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from helpers import load_benchmark


@pytest.fixture(scope="module")
def played():
    return load_benchmark("adaptive_played")


@pytest.fixture(scope="module")
def boundary():
    return load_benchmark("adaptive_boundary")


def test_the_recursion_gives_the_normal_tail_at_one_look_and_pococks_table_at_five(boundary):
    for c in (1.5, 2.0, 3.0):
        tail = 2 * (1 - statistics.NormalDist().cdf(c))
        assert boundary.crossing(c, 1) == pytest.approx(tail, rel=1e-3)
    # Pocock (1977): c = 2.413 for 5 equally spaced looks at two-sided alpha 0.05
    assert boundary.crossing(2.413, 5) == pytest.approx(0.05, abs=5e-4)
    assert boundary.pocock(5, 0.05) == pytest.approx(2.413, abs=0.005)
    # more looks, a higher constant
    assert boundary.pocock(20, 0.05) > boundary.pocock(5, 0.05)


def test_a_verdict_is_right_by_the_truth_and_the_zone(played):
    assert played.right("a", 0.52, 0.01) and not played.right("a", 0.49, 0.01)
    assert played.right("b", 0.49, 0.01) and not played.right("b", 0.51, 0.01)
    assert played.right("tie", 0.505, 0.01) and not played.right("tie", 0.515, 0.01)
    assert played.right("open", 0.9, 0.01)


def test_the_fixed_credit_is_the_first_batch_end_that_settles(played):
    n = 1000
    deal = np.arange(n)
    m = np.full(n, 2.0)
    y = np.where(deal % 10 < 9, 2.0, 0.0)  # A wins 90% of its deals: settled at once
    assert played.fixed_reach(deal, y, m, np.full(n, np.nan), 0.0, 0.05 / 28) == 100
    even = np.ones(n)  # every deal one win each: a share of exactly 1/2, no spread
    assert played.fixed_reach(deal, even, m, np.full(n, np.nan), 0.0, 0.05 / 28) == 100
    y = np.where(deal % 2 == 0, 2.0, 0.0)  # 1/2 with the widest spread: open at 1,000
    assert played.fixed_reach(deal, y, m, np.full(n, np.nan), 0.0, 0.05 / 28) is None


def test_a_played_tournament_is_read_back_as_the_runner_decided_it(played, tmp_path):
    """One short raw tournament of the 8 bots: the replay must give the run's verdicts
    (the script asserts it), and the figures add up."""
    from harness.tourney import load_config

    order = [e.name for e in load_config(played.adaptive_config("raw", 3, 200)).entrants]
    played._init(order)
    truth = {"pairs": {}}
    for i, a in enumerate(sorted(order)):
        for b in sorted(order)[i + 1 :]:
            truth["pairs"][f"{a} v {b}"] = {"share": 0.5, "coef": 0.0}
    r = played.tournament(("raw", 3, 200, truth, str(tmp_path)))
    assert len(r["pairs"]) == 28
    assert r["games"] == sum(p["games"] for p in r["pairs"].values())
    assert all(p["deals"] in (100, 200) for p in r["pairs"].values())
    # the truth given is 1/2 for every pair: a sign is wrong, a tie or open is right
    for p in r["pairs"].values():
        assert p["right"] == (p["verdict"] in ("tie", "open"))
    reached = [p["fixed_reach"] for p in r["pairs"].values()]
    if None not in reached:
        assert r["fixed_games"] == 2 * 28 * max(reached)
    assert not any(tmp_path.iterdir())  # the run folder is gone once read
    assert math.isfinite(r["cpu"])


def test_the_stop_section_measures_the_estimate_interval_and_its_foils():
    """adaptive_cs.py --stop on a small made-up world: every run stops or reaches the cap,
    and each interval's coverage, the naive one's and the verdict's are counted; the
    zone-edge world's truth is where it was asked to be."""
    import argparse

    cs = load_benchmark("adaptive_cs")
    rng = np.random.default_rng(4)
    y = rng.choice([0.0, 1.0, 2.0], 4000, p=[0.2, 0.58, 0.22])
    world = cs.World(y, np.full(4000, 2.0), rng.normal(0, 0.1, 4000))
    assert cs.shifted(world, 0.509).delta == pytest.approx(0.009)
    args = argparse.Namespace(stop=6, batch=100, zone=0.01, stop_cap=1500)
    out = cs.stop_section("made up", world, args, 0)
    for kind in cs.KINDS:
        r = out[kind]
        assert r["runs"] == 6 and 100 <= r["mean_deals"] <= 1500
        assert sum(b["runs"] for b in r["by_verdict"].values()) == 6
        for key in ("coverage", "naive_coverage", "cs_coverage"):
            assert 0 <= r[key] <= 1
        assert 0 < r["naive_width"] < r["width"] < 0.2  # the stagewise one a little wider
    again = cs.stop_section("made up", world, args, 0)
    assert again["raw"]["mean_bias"] == out["raw"]["mean_bias"]  # seeded: the same runs
