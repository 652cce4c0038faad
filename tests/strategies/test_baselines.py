"""The reference baselines `simple` and `env-heuristic`: their documented behaviour on
scripted views, and legal play through the engine (issue 5)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness import play_game
from harness.strategies.env_heuristic import EnvHeuristic
from harness.strategies.simple import Simple
from harness.strategy import WORM


def view(counts: dict[int, int], kept: tuple[int, ...] = (), total: int = 0, grill=(21,)):  # noqa: ANN001, ANN201
    c = tuple(counts.get(f, 0) for f in range(7))
    return SimpleNamespace(
        counts=c,
        choices=tuple(f for f in range(1, 7) if c[f] and f not in kept),
        kept_faces=kept,
        total=total,
        grill=grill,
        has_worm=WORM in kept,
        dice_left=sum(c),
    )


@pytest.mark.parametrize("bot", [Simple(), EnvHeuristic()], ids=["simple", "env-heuristic"])
class TestBothBaselines:
    def test_worms_from_the_third_roll(self, bot):
        roll = {4: 3, WORM: 1}  # 4s are worth 12, the worm 5
        assert bot.pick(view(roll, kept=(5,))) == 4  # second roll: most points
        assert bot.pick(view(roll, kept=(5, 3))) == WORM  # third roll: the worm

    def test_most_count_times_value(self, bot):
        assert bot.pick(view({1: 4, 3: 2, 5: 1, WORM: 1})) == 3  # 6 points beats 5 and 4
        assert bot.pick(view({2: 3, 5: 1})) == 2

    def test_ties_go_to_the_worm_then_fewer_dice(self, bot):
        assert bot.pick(view({5: 2, WORM: 2, 1: 4})) == WORM  # 10 = 10: the worm
        assert bot.pick(view({2: 4, 4: 2, WORM: 1, 1: 1})) == 4  # 8 = 8: fewer dice

    def test_already_kept_faces_are_not_picked(self, bot):
        assert bot.pick(view({5: 4, 2: 1}, kept=(5, WORM))) == 2


def test_simple_stops_at_the_first_claim_even_a_steal():
    bot = Simple()
    assert bot.stop(view({}, kept=(5, WORM), total=22, grill=(25, 30))) is True


def test_env_heuristic_stops_only_at_the_lowest_grill_tile():
    bot = EnvHeuristic()
    below = view({}, kept=(5, WORM), total=23, grill=(25, 30))
    assert bot.stop(below) is False  # a steal of 23 would be possible: it rolls on
    assert bot.stop(view({}, kept=(5, WORM), total=25, grill=(25, 30))) is True


@pytest.mark.parametrize("name", ["simple", "env-heuristic"])
def test_baselines_play_legal_games(name):
    for seed in range(5):
        result = play_game([name, "greedy", name], "official", seed=seed)
        assert result.over and result.error is None
