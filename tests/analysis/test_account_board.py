"""The luck account reads the game's board (handed to it) and R7 from the one definition.

* Its sums are main's to the last bit (account_sums.json: four games, every preset, 2-4
  players, both dice modes), computed before it read the board.
* It is handed the game's own board and keeps no copy of it; without one it refuses in
  one line.
* Its payoff and a claim's options and value are R7's legal claims
  (harness.game.board.legal_claims) valued by the one steal share, on any board; the turn
  analysis's board (TurnBoard.claim) asks the same function.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from harness.analysis.account import (
    Accountant,
    board_payoff,
    claim_options,
    claim_value,
    ledger_row,
    steal_share,
    swing_payoff,
)
from harness.analysis.board import TurnBoard
from harness.game.board import Board, legal_claims, mask_of
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import Game, GameObserver
from harness.game.rules import TILES, Rules, worms
from harness.plugins import resolve

pytestmark = pytest.mark.engine

SUMS = json.loads((Path(__file__).parent / "account_sums.json").read_text())["games"]


@pytest.mark.parametrize("game", SUMS, ids=lambda g: f"{g['preset']}-{len(g['seats'])}p")
def test_the_accounts_sums_are_mains_to_the_last_bit(game):
    rules = Rules.preset(game["preset"], len(game["seats"]))
    accountant = Accountant(rules)
    seed = game["seed"]
    dice = SeededDice(seed) if game["dice"] == "seeded" else DuplicateDice(seed)
    seats = [resolve(ref).create() for ref in game["seats"]]
    Game(seats, rules, dice, seed=seed, observer=accountant).play()
    assert ledger_row(accountant.ledgers) == game["sums"]


class Watch(GameObserver):
    """Checks at every turn's start that the account's payoff is the live board's."""

    def __init__(self, accountant: Accountant) -> None:
        self.accountant, self.turns = accountant, 0

    def turn_started(self, turn, seat):
        board = self.accountant.board
        assert self.accountant._stop == board_payoff(board.grill, tuple(board.tops), seat)[0]
        self.turns += 1


def test_the_account_is_handed_the_games_board_and_keeps_no_copy():
    rules = Rules.preset("piko-blog", 3)
    accountant = Accountant(rules)
    watch = Watch(accountant)
    from harness.game.engine import Fanout

    seats = [resolve(r).create() for r in ("tactician", "greedy", "random")]
    game = Game(seats, rules, SeededDice(4), seed=4, observer=Fanout([accountant, watch]))
    assert accountant.board is game.board  # handed over before turn 1
    game.play()
    assert watch.turns == game.turn > 10
    for copy in ("grill", "stacks", "scores", "tops"):
        assert not hasattr(accountant, copy), copy


def test_an_account_that_was_not_handed_a_board_refuses_in_one_line():
    accountant = Accountant(Rules())
    with pytest.raises(RuntimeError) as info:
        accountant.turn_started(1, 0)
    assert "\n" not in str(info.value) and "board" in str(info.value)


# -- R7 once: the payoff, the options, the value, TurnBoard ------------------------------------
def _boards(count: int, seed: int = 5):
    """Random boards: a grill, every seat's top (0: none), a seat."""
    rng = random.Random(seed)
    for _ in range(count):
        players = rng.randint(2, 7)
        tiles = list(TILES)
        rng.shuffle(tiles)
        grill = sorted(tiles[: rng.randint(1, 16)])
        rest = tiles[len(grill) :]
        tops = [rest.pop() if rest and rng.random() < 0.6 else 0 for _ in range(players)]
        yield tuple(grill), tuple(tops), rng.randrange(players)


def test_the_payoff_is_the_best_legal_claims_value_at_every_total():
    for grill, tops, seat in _boards(400):
        for lower_any in (False, True):
            stop, bust = swing_payoff(grill, tops, seat, lower_any)
            assert bust == -float(worms(tops[seat]) if tops[seat] else 0)
            for total in range(41):
                claims = legal_claims(seat, total, True, mask_of(grill), tops, lower_any)
                best = max((claim_value(c, len(tops)) for c in claims), default=None)
                assert stop[total] == best, (grill, tops, seat, total)


def test_claim_options_are_the_legal_claims_in_their_order_with_their_values():
    for grill, tops, seat in _boards(200, seed=9):
        for total in range(21, 41):
            for lower_any in (False, True):
                options = claim_options(grill, tops, seat, total, lower_any)
                claims = legal_claims(seat, total, True, mask_of(grill), tops, lower_any)
                assert [o.move for o in options] == [tuple(c) for c in claims]
                assert [o.value for o in options] == [claim_value(c, len(tops)) for c in claims]
                values = [o.value for o in options]
                assert values == sorted(values, reverse=True)  # best first


@pytest.mark.parametrize("players", range(2, 8))
def test_a_steal_is_worth_its_worms_times_the_one_steal_share(players):
    assert steal_share(players) == 1 + 1 / (players - 1)
    for tile in TILES:
        assert claim_value((tile, None), players) == float(worms(tile))
        assert claim_value((tile, 0), players) == worms(tile) * steal_share(players)


def test_the_turn_boards_claim_asks_the_legal_claims():
    """TurnBoard.claim: the legal claim worth most of the player's own worms, the grill
    tile on equal worms, and the same as legal_claims offers."""
    for grill, tops, seat in _boards(300, seed=13):
        held = tops[seat] or None
        others = tuple(t for i, t in enumerate(tops) if i != seat and t)
        board = TurnBoard(grill, others, held)
        player_tops = (tops[seat], *[t for i, t in enumerate(tops) if i != seat])
        for total in range(41):
            claims = legal_claims(0, total, True, mask_of(grill), player_tops, False)
            found = board.claim(total)
            if not claims:
                assert found is None
                continue
            tile, steal = found
            assert (tile, 0 if steal else None) in [
                (c.tile, None if c.victim is None else 0) for c in claims
            ]
            assert worms(tile) == max(worms(c.tile) for c in claims)
            if steal:
                assert all(worms(c.tile) < worms(tile) for c in claims if c.victim is None)


def test_a_board_is_one_games_and_copies_are_its_own():
    board = Board(Rules(players=3))
    other = board.copy()
    other.stacks[0] += (21,)
    other.tops[0] = 21
    other.grill ^= 1 << 21
    other.scores[0] += 1
    assert board.stacks[0] == () and board.tops[0] == 0 and board.scores[0] == 0
    assert board.grill >> 21 & 1
    assert other.problem() is None
    assert board.problem() is None
