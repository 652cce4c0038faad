"""The win-unit payoff of a turn (harness.winprob.payoff): what win-optimal plays for and
the win-unit account, the coach and the diff judge by.

Every ending's value is the evaluator's chance of the turn-taker after it (R10/R11 exact);
a stop's value is the best claim R7 offers at its total (with ``lower_tile: any`` every
lower grill tile too); the values are win-optimal's own, claim for claim.
"""

from __future__ import annotations

import contextlib
import random

import pytest

from harness.game.board import legal_claims
from harness.rules import PRESETS, Rules
from harness.strategies.win_optimal import WinOptimal
from harness.winprob import Position, endings, evaluator, stop_values, win_payoff
from harness.winprob.payoff import ending_chances


def _positions(players: int, count: int, seed: int) -> list[Position]:
    """Random boards: each tile on the grill, on a stack or face down (R1)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        grill, stacks = [], [[] for _ in range(players)]
        for tile in range(21, 37):
            where = rng.random()
            if where < 0.5:
                grill.append(tile)
            elif where < 0.9:
                stacks[rng.randrange(players)].append(tile)
        if not grill:
            grill = [36]
        out.append(Position.of(grill, stacks, rng.randrange(players)))
    return out


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3])
def test_each_ending_is_worth_the_evaluators_chance_after_it(preset, players):
    rules = Rules.preset(preset, players)
    judge = evaluator(rules)
    for here in _positions(players, 15, hash((preset, players)) % 1000):
        pay = win_payoff(here, rules)
        seat = here.to_move
        for ending, after in endings(here, rules):
            want = judge.chances(after)[seat]
            got = pay.bust if ending is None else pay.claims[ending]
            assert got == want
        assert pay.before == judge.chances(here)[seat]
        tops = tuple(s[-1] if s else 0 for s in here.stacks)
        for total in range(41):
            legal = legal_claims(seat, total, True, here.grill, tops, rules.lower_tile == "any")
            best = max((pay.claims[c.tile, c.victim] for c in legal), default=None)
            assert pay.stop[total] == best  # R7: the best claim on offer, None: no stop


def test_it_is_win_optimals_own_valuation():
    # one function, two users: the bot's ending values are the payoff's, claim for claim
    # (win-optimal still computes its own: the lead may point it at ending_chances)
    rules = Rules.preset("official", 2)
    bot = WinOptimal()
    for here in _positions(2, 10, 5):
        claims, bust = ending_chances(here, rules)
        mine = bot._ending_values(_view_of(here, rules))
        assert mine == (claims, bust)


def _view_of(here: Position, rules: Rules):  # noqa: ANN202
    """The view the engine hands a seat at a turn's start on this board."""
    from harness.game.dice import DuplicateDice
    from harness.game.engine import Game
    from harness.game.strategy import Strategy

    seen = []

    class Look(Strategy):
        name = "look"

        def pick(self, view):  # noqa: ANN001
            seen.append(view)
            raise KeyboardInterrupt  # stop the game at the first question

    bots = [Look() for _ in range(here.players)]
    game = Game(bots, rules, DuplicateDice(1))
    game.start()
    game.board.load(here.grill, 0, list(here.stacks))
    game._turn = here.to_move  # the turn number: seat to_move plays next (R3)
    with contextlib.suppress(KeyboardInterrupt):
        game.play_turn()
    return seen[0]


def test_the_stop_values_follow_r7_and_its_lower_tile_variant():
    here = Position.of((22, 25, 30), ([21], [26]), 0)
    claims = {(22, None): 0.1, (25, None): 0.3, (30, None): 0.2, (26, 1): 0.5}
    highest = stop_values(here, claims, lower_any=False)
    assert highest[21] is None and highest[24] == 0.1 and highest[26] == 0.5
    assert highest[31] == 0.2  # R7: the highest tile <= 31 is 30, worth less than 25
    anyone = stop_values(here, claims, lower_any=True)
    assert anyone[31] == 0.3  # lower_tile: any: the best of the lower tiles
