"""benchmarks/win_ensemble.py, the measurement behind docs/winprob.md's "An average of
models": its evaluator is the seat-by-seat mean of the models', its bot plays
win-optimal's games when the models averaged are one, and a model file that cannot
judge the games is refused in one line before any game."""

from __future__ import annotations

import pytest
from helpers import load_benchmark

from harness.game.rules import Rules
from harness.winprob import Position, evaluator, load
from harness.winprob.evaluator import Evaluator
from harness.winprob.model import MODELS


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("win_ensemble")


POSITIONS = [
    Position.of((26, 30, 35), ((21, 33), (24, 27, 29)), 1),
    Position.of((22, 23, 25, 26, 28, 30, 31, 32, 34, 35, 36), ((21, 33), (24, 27, 29)), 0),
]
OTHER = MODELS / "winprob-2p-piko-blog.bin"  # a 2-player model of other games


def test_the_average_is_the_mean_of_the_models_chances(bench):
    rules = Rules(players=2)
    got = bench.Average(rules, ["shipped", str(OTHER)]).chances_many(POSITIONS)
    one = evaluator(rules).chances_many(POSITIONS)
    two = Evaluator(rules, load(OTHER)).chances_many(POSITIONS)
    for mean, a, b in zip(got, one, two, strict=True):
        assert mean == pytest.approx(tuple((x + y) / 2 for x, y in zip(a, b, strict=True)))
        assert sum(mean) == pytest.approx(1.0)
        assert a != b  # the two models do differ there: the mean is not either one


def test_one_model_averaged_plays_win_optimals_games(bench):
    """The shipped model twice is the shipped model (x + x halves exactly): the same
    games as win-optimal, decision for decision; another model in the mean changes some."""
    same = bench.play_deal((3, 1, ("shipped", "shipped")))
    assert same["base"] == same["other"] and not any(same["differ"])
    mixed = [bench.play_deal((d, 1, ("shipped", str(OTHER)))) for d in range(4)]
    assert any(any(out["differ"]) for out in mixed)


def test_a_model_that_cannot_judge_the_games_is_one_line(bench, capsys):
    for bad in (str(MODELS / "winprob-3p.bin"), "/nowhere/winprob.bin"):
        assert bench.main(["--models", "shipped", bad, "--deals", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("win_ensemble: ") and err.count("\n") == 1
