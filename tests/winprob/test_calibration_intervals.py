"""The calibration benchmark's per-bin intervals, clustered by game: they hold the truth on
games calibrated by construction (where intervals that treat positions as independent do
not), they catch a predictor that is off, and one game's positions count as one cluster.
benchmarks/calibration_interval_coverage.py measures the coverage over 1,000 runs."""

from __future__ import annotations

import numpy as np
from helpers import load_benchmark


def _calibration():
    return load_benchmark("winprob_calibration")


def _coverage():
    _calibration()  # the coverage script imports it as a sibling
    return load_benchmark("calibration_interval_coverage")


def test_the_synthetic_games_are_calibrated_and_won_by_one_seat() -> None:
    cov = _coverage()
    pred, real, game = cov.synthetic_games(np.random.default_rng(3), 400)
    assert set(np.unique(real)) == {0.0, 1.0}
    # both seats of a position: predictions and results sum to one within each game
    for g in np.unique(game)[:20]:
        sel = game == g
        half = sel.sum() // 2
        assert np.allclose(pred[sel][:half] + pred[sel][half:], 1)
        assert np.all(real[sel][:half] + real[sel][half:] == 1)
    # a martingale: realised minus predicted is near zero over everything
    assert abs(float((real - pred).mean())) < 0.03


def test_clustered_intervals_cover_where_independent_ones_do_not() -> None:
    cov = _coverage()
    out = cov.coverage(runs=60, games=400, seed=5)
    clustered = np.mean([b["clustered"] for b in out["bins"]])
    independent = np.mean([b["independent"] for b in out["bins"]])
    assert clustered >= 0.88  # 95% asked; 60 runs leave about 3 points of noise per bin
    assert independent <= 0.85  # the positions of a game share its result


def test_a_predictor_that_is_off_is_shown_outside_the_target() -> None:
    bench, cov = _calibration(), _coverage()
    pred, real, game = cov.synthetic_games(np.random.default_rng(7), 3000)
    rows = bench.table(np.clip(pred + 0.04, 0, 1), real, game)  # 4 points over-confident
    verdict = bench.worst(rows)
    assert verdict["bins_shown_outside"] >= 3
    honest = bench.worst(bench.table(pred, real, game))
    assert honest["bins_shown_outside"] <= 1


def test_the_clusters_are_games_not_seat_predictions() -> None:
    bench = _calibration()
    rng = np.random.default_rng(1)
    pred = rng.uniform(0.3, 0.4, size=2000)
    real = np.repeat(rng.integers(0, 2, size=20).astype(float), 100)  # 20 games of 100
    one_game_each = bench.table(pred, real, np.arange(2000))[3]
    by_game = bench.table(pred, real, np.repeat(np.arange(20), 100))[3]
    assert by_game["games"] == 20 and one_game_each["games"] == 2000
    assert by_game["diff"] == one_game_each["diff"]
    # twenty independent results, not two thousand: the interval is about sqrt(100) wider
    ratio = (by_game["high"] - by_game["low"]) / (one_game_each["high"] - one_game_each["low"])
    assert ratio > 5
