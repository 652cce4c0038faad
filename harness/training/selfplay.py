"""Positions from self-play: the board at every turn's start, labelled by the result.

Games on the Python engine (the reference) between a seeded mix of the built-ins, each
game's seed derived from the run's seed (``train-<seed>-<game>``: the calibration's
held-out games use other seeds and so never meet these). Each position carries the
game's result shares (R11: a tie is a shared first place), seats rotated from the seat
to move as :func:`harness.winprob.features` takes them: the first labels the fit
starts from, before the turn backups of :mod:`harness.training.backup` replace them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from harness.game.board import Board
from harness.game.engine import GameObserver
from harness.game.rules import Rules
from harness.play.games import play_game
from harness.winprob import Position, result_shares

#: The strategies the games are drawn from (each seat independently, seeded). Mostly
#: strong play, since the turn backups assume the mover plays its best and the first
#: labels should agree with them (a pool half of weak bots labelled leads as safer than
#: they are between strong players: docs/winprob.md); the weaker seats vary the
#: positions. Nothing here depends on a shipped model (``win-optimal`` would), so the
#: command gives the same file whatever models are installed.
POOL: tuple[str, ...] = (
    "optimal",
    "optimal",
    "optimal(endgame=0)",
    "optimal(endgame=16)",
    "tactician",
    "simple",
)


class TurnStarts(GameObserver):
    """Keeps the position at the start of every turn of one game."""

    def __init__(self) -> None:
        self.board: Board | None = None
        self.positions: list[Position] = []

    def handed(self, board: Board) -> None:
        self.board = board

    def turn_started(self, turn: int, seat: int) -> None:
        assert self.board is not None
        self.positions.append(Position.from_board(self.board, seat))

    def final(self) -> Position:
        assert self.board is not None
        return Position.from_board(self.board, 0)


def rotate(values: Sequence[float], mover: int) -> tuple[float, ...]:
    """Seat order to the model's order: k = 0 is ``mover``, then the seats after it."""
    n = len(values)
    return tuple(values[(mover + k) % n] for k in range(n))


def play_positions(
    players: int,
    count: int,
    seed: int | str,
    *,
    tag: str = "train",
    pool: Sequence[str] = POOL,
    rules: str = "official",
    tick: Callable[[int], None] | None = None,
) -> tuple[list[Position], list[tuple[float, ...]], list[str]]:
    """At least ``count`` turn-start positions of ``players``-seat games (whole games) under
    the preset ``rules``, with each one's result shares rotated from its mover and the
    table that played it."""
    draw = random.Random(f"{tag}-{seed}-tables")
    positions: list[Position] = []
    labels: list[tuple[float, ...]] = []
    tables: list[str] = []
    game = 0
    while len(positions) < count:
        seats = [draw.choice(pool) for _ in range(players)]
        observer = TurnStarts()
        result = play_game(
            seats,
            Rules.preset(rules, players),
            f"{tag}-{seed}-{game}",
            observer=observer,
            engine="python",
        )
        game += 1
        if result.status != "over":  # the turn cap: no result to learn from
            continue
        shares = result_shares(observer.final())
        table = " vs ".join(seats)
        for p in observer.positions:
            positions.append(p)
            labels.append(rotate(shares, p.to_move))
            tables.append(table)
        if tick is not None:
            tick(len(observer.positions))
    return positions, labels, tables
