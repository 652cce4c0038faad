"""A position between turns, as the win-probability evaluator sees it, and the ways a
turn can end from it.

A :class:`Position` is what decides who can still win once a turn is over: the face-up
grill (R1, R10), every seat's stack in order (its top can be stolen, R7; the tile below
becomes the next top; the highest tile breaks ties, R11) and the seat to move. Face-down
tiles are out of the game and play no part. :func:`endings` lists every way ``seat``'s
turn can end (each claim R7 can offer at some total, and the bust, R9 with the rules'
variants) with the position it leaves; the board changes are the engine's own
(:func:`harness.game.board.settle_claim`, :func:`harness.game.board.settle_bust`).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.game.board import (
    WORMS,
    Board,
    mask_of,
    settle_bust,
    settle_claim,
    tiles_of,
)
from harness.game.rules import Rules

Ending = tuple[int, int | None] | None
"""A turn's ending: ``(tile, victim)`` for a claim (victim None: from the grill), None
for a bust."""


@dataclass(frozen=True)
class Position:
    """The game between two turns: ``grill`` (face-up tiles, a bit mask: bit t = tile t),
    ``stacks`` (every seat's tiles, bottom to top) and ``to_move`` (the seat whose turn
    is next)."""

    grill: int
    stacks: tuple[tuple[int, ...], ...]
    to_move: int

    @property
    def players(self) -> int:
        return len(self.stacks)

    @property
    def over(self) -> bool:
        """No face-up tile is left: the game is over (R10)."""
        return not self.grill

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(sum(WORMS[t] for t in s) for s in self.stacks)

    @property
    def tiles(self) -> tuple[int, ...]:
        """The face-up grill tiles, ascending."""
        return tiles_of(self.grill)

    @classmethod
    def of(cls, grill: tuple[int, ...] | list[int], stacks, to_move: int = 0) -> Position:  # noqa: ANN001
        """A position from tile lists (tests and the command line write it this way)."""
        return cls(mask_of(tuple(grill)), tuple(tuple(s) for s in stacks), to_move)

    @classmethod
    def from_board(cls, board: Board, to_move: int) -> Position:
        return cls(board.grill, tuple(board.stacks), to_move)


def result_shares(position: Position) -> tuple[float, ...]:
    """Each seat's share of first place at the end of the game (R11): most worms, a tie
    broken by the highest tile; tied seats with no tile at all share it (as the standings
    count it)."""
    keys = [(sum(WORMS[t] for t in s), max(s, default=0)) for s in position.stacks]
    best = max(keys)
    count = keys.count(best)
    return tuple(1.0 / count if k == best else 0.0 for k in keys)


def _board(position: Position, rules: Rules) -> Board:
    board = Board(rules)
    board.load(position.grill, 0, position.stacks)
    return board


def endings(position: Position, rules: Rules) -> list[tuple[Ending, Position]]:
    """Every way the turn of ``position.to_move`` can end, with the position after it
    (the next seat to move): each grill tile (any of them can be the claim of some stop
    under R7 or ``lower_tile: any``), each opponent's top tile (a steal at its exact
    total) and the bust (R9). Grill tiles ascending, then steals by seat, then the bust."""
    seat = position.to_move
    after = (seat + 1) % position.players
    out: list[tuple[Ending, Position]] = []
    base = _board(position, rules)
    for tile in tiles_of(position.grill):
        board = base.copy()
        settle_claim(board, seat, tile, None)
        out.append(((tile, None), Position(board.grill, tuple(board.stacks), after)))
    for victim, stack in enumerate(position.stacks):
        if victim != seat and stack:
            board = base.copy()
            settle_claim(board, seat, stack[-1], victim)
            out.append(((stack[-1], victim), Position(board.grill, tuple(board.stacks), after)))
    board = base.copy()
    settle_bust(board, seat)
    out.append((None, Position(board.grill, tuple(board.stacks), after)))
    return out
