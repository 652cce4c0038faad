"""The `optimal` strategy: legal in every rule variant, deterministic, and exactly the
turn DP of harness.analysis on the boards where its values are the worms gained."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import harness.strategies.optimal as optimal_module
from harness import play_game
from harness.analysis.board import TurnBoard
from harness.analysis.simulate import PolicyPlayer
from harness.analysis.turn import solve
from harness.game.dice import SeededDice
from harness.game.engine import Game, GameObserver
from harness.rules import PRESETS, Rules
from harness.strategies.optimal import Optimal
from harness.strategy import Claim


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_optimal_never_breaks_a_rule(preset, players):
    """Full games against every kind of opponent, in every preset: a GameError (an
    illegal pick, stop or claim, or an exception) would be raised (forfeit=False)."""
    field = ["simple", "greedy", "random", "worm-first", "env-heuristic", "optimal"]
    for seed in range(4):
        seats = ["optimal", *field[seed : seed + players - 1]]
        result = play_game(seats, preset, seed=seed * 31 + players)
        assert result.over and result.error is None


def test_optimal_endgame_variants_are_legal_too():
    for params in ("optimal(endgame=0)", "optimal(endgame=16, spread=1.0)", "optimal(flip=0.5)"):
        for seed in range(3):
            assert play_game([params, "optimal", "simple"], "official", seed=seed).over


def _replay(seed: int) -> tuple:
    result = play_game(["optimal", "simple", "optimal(endgame=0)"], seed=seed, record=True)
    return result.state(), [t for t in result.record["turns"]]


def test_optimal_is_deterministic_whatever_its_caches_hold():
    first = [_replay(seed) for seed in (1, 2)]
    optimal_module._SOLVED.clear()
    optimal_module._PLANS.clear()
    assert [_replay(seed) for seed in (2, 1)] == first[::-1]


class _Keeps(GameObserver):
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def kept(self, seat, roll, face, count, total, left) -> None:  # noqa: ANN001
        self.events.append(("kept", roll.faces, face))

    def claimed(self, seat, claim, total) -> None:  # noqa: ANN001
        self.events.append(("claimed", claim.tile, total))

    def busted(self, seat, reason, total, *rest) -> None:  # noqa: ANN001
        self.events.append(("busted", reason, total))


def _first_turn(strategy, seed: int) -> list[tuple]:  # noqa: ANN001
    keeps = _Keeps()
    game = Game([strategy, Optimal()], Rules(players=2), SeededDice(seed), observer=keeps)
    game.play_turn()
    return keeps.events


def test_opening_turn_is_the_exact_expected_worms_policy():
    """On the opening board (full grill, no tops, nothing held) the worm swing is the
    worms gained, so optimal must play exactly the analysis' expected-worms policy."""
    policy = PolicyPlayer(solve(TurnBoard().worms_gained()))
    for seed in range(150):
        assert _first_turn(Optimal(), seed) == _first_turn(policy, seed), seed


def _view(**board) -> SimpleNamespace:  # noqa: ANN003
    defaults = {
        "grill": tuple(range(21, 37)),
        "tops": (None, None),
        "seat": 0,
        "scores": (0, 0),
        "stacks": ((), ()),
        "rules": Rules(players=2),
        "dice_left": 8,
        "kept_faces": (),
        "total": 0,
        "counts": (0, 0, 0, 0, 0, 0, 8),
        "choices": (6,),
    }
    defaults.update(board)
    return SimpleNamespace(**defaults)


def test_a_steal_counts_the_victims_loss():
    """Two players: stealing 26 (2 worms) swings 4; the grill's 25 only 2 (R7 choice)."""
    view = _view(grill=(21, 22, 23, 24, 25, 27, 30), tops=(None, 26), stacks=((), (26,)))
    bot = Optimal()
    bot.pick(view)  # plans the turn
    choices = (Claim(25), Claim(26, 1))
    assert bot.claim(view, choices) == Claim(26, 1)
    assert bot._claims[26, 1] == 4.0 and bot._claims[25, None] == 2.0


def test_four_players_share_the_victims_loss():
    view = _view(
        tops=(None, 26, None, None), stacks=((), (26,), (), ()), scores=(0, 2, 0, 0),
        rules=Rules(players=4), grill=tuple(t for t in range(21, 37) if t != 26),
    )  # fmt: skip
    bot = Optimal(endgame=0)
    bot.pick(view)
    assert bot._claims[26, 1] == pytest.approx(2 * (1 + 1 / 3))


def test_the_end_game_values_winning_not_worms():
    """One tile left: taking it ends the game (R10). Behind by more than its worms, the
    claim is worth nothing; stealing 36 draws level with the game going on (an even
    chance); ahead, taking the last tile wins outright."""
    bot = Optimal(endgame=4)
    behind = _view(grill=(21,), tops=(None, 36), stacks=((), (35, 36)), scores=(0, 8))
    bot.pick(behind)
    assert bot._claims[21, None] == 0.0
    assert bot._claims[36, 1] == 0.5  # 4 against 4, tile 21 still to play for
    ahead = _view(grill=(21,), tops=(33, None), stacks=((33,), ()), scores=(4, 0))
    bot.pick(ahead)
    assert bot._claims[21, None] == 1.0


def test_win_chance_ties_follow_r11():
    bot = Optimal()
    # game over, equal worms: the highest tile wins the tie (R11)
    assert bot._win_chance(0, [3, 3], [30, 29], ()) == 1.0
    assert bot._win_chance(1, [3, 3], [30, 29], ()) == 0.0
    # no tiles at all: a shared result
    assert bot._win_chance(0, [0, 0], [0, 0], ()) == 0.5
    # game on: a lead is worth more than an even game, less than a certainty
    assert 0.5 < bot._win_chance(0, [5, 2], [25, 22], (30, 31)) < 1.0


def test_parameters_are_checked():
    for bad in ({"endgame": 20}, {"spread": 0.0}, {"flip": -1.0}):
        with pytest.raises(ValueError):
            Optimal(**bad)
