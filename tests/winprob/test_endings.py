"""endings() against the engine: for every variant and preset, each ending's
after-position is the board a real turn (harness.game.turn.Turn) leaves (R7, R9)."""

from __future__ import annotations

import itertools

import pytest

from harness.game.board import Board
from harness.game.rules import PRESETS, VARIANTS, WORM, Rules
from harness.game.turn import CLAIM, ENDED, STOP_OR_ROLL, Turn
from harness.game.view import View
from harness.winprob import Position, endings

POINTS = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, WORM: 5}


def _keeps(total: int) -> list[tuple[int, int]]:
    """(face, count) keeps with distinct faces, a worm among them, reaching ``total``
    with at most 8 dice (R2, R5)."""
    for worms in range(1, 9):
        rest = total - 5 * worms
        if rest < 0:
            break
        if rest == 0:
            return [(WORM, worms)]
        for face in (5, 4, 3, 2, 1):
            if rest % face == 0 and worms + rest // face <= 8:
                return [(WORM, worms), (face, rest // face)]
        for f1, f2 in itertools.combinations((5, 4, 3, 2, 1), 2):
            for c1 in range(1, 8):
                left = rest - f1 * c1
                if left > 0 and left % f2 == 0 and worms + c1 + left // f2 <= 8:
                    return [(WORM, worms), (f1, c1), (f2, left // f2)]
    raise AssertionError(f"no keeps reach {total}")


def _turn(position: Position, rules: Rules) -> tuple[Board, Turn]:
    board = Board(rules)
    board.load(position.grill, 0, position.stacks)
    turn = Turn(board)
    turn.begin(position.to_move, 1, View(position.to_move, rules, 0))
    return board, turn


def _claim_by_engine(position: Position, rules: Rules, tile: int, victim: int | None) -> Board:
    board, turn = _turn(position, rules)
    left = 8
    for face, count in _keeps(tile):
        filler = 1 if face != 1 else 2
        turn.apply_roll(tuple([face] * count + [filler] * (left - count)))
        phase = turn.keep(face)
        left -= count
    if phase == STOP_OR_ROLL:
        phase = turn.stop()
    if phase == CLAIM:
        phase = turn.take((tile, victim))
    assert phase == ENDED
    return board


def _bust_by_engine(position: Position, rules: Rules) -> Board:
    board, turn = _turn(position, rules)
    turn.apply_roll((1, 2, 2, 2, 2, 2, 2, 2))
    turn.keep(1)
    assert turn.apply_roll((1,) * 7) == ENDED  # R5: no new face
    return board


RULE_SETS = [
    Rules(**dict(zip(VARIANTS, combo, strict=True)))
    for combo in itertools.product(*VARIANTS.values())
]
RULE_SETS += [Rules.preset(name) for name in PRESETS]

BOARDS = [
    # the mover's top is below the grill's highest; a rival to steal from
    Position.of((21, 22, 25, 27, 30, 33, 35), ((24, 31), (23, 36)), 0),
    # the mover's top would be the highest tile back on the grill (returned_tile)
    Position.of((21, 26, 28), ((22, 34), (23, 25)), 0),
    # the mover has no tile (flip_without_tile); three seats
    Position.of((21, 24, 29, 32), ((22,), (23, 30), ()), 2),
    # one tile left: every claim ends the game
    Position.of((26,), ((21, 33), (27,)), 1),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
@pytest.mark.parametrize("index", range(len(BOARDS)))
def test_endings_leave_the_engines_board(rules: Rules, index: int) -> None:
    position = BOARDS[index]
    rules = Rules(**{**{k: getattr(rules, k) for k in VARIANTS}, "players": position.players})
    ends = endings(position, rules)
    assert ends[-1][0] is None  # the bust last
    seen = set()
    for ending, after in ends:
        if ending is None:
            board = _bust_by_engine(position, rules)
        else:
            board = _claim_by_engine(position, rules, *ending)
            seen.add(ending)
        assert after == Position.from_board(board, (position.to_move + 1) % position.players)
    # every grill tile and every rival's top (R7) is an ending, nothing else
    mover = position.to_move
    expected = {(t, None) for t in position.tiles}
    expected |= {(s[-1], v) for v, s in enumerate(position.stacks) if v != mover and s}
    assert seen == expected
