"""Positions from self-play: the board at every turn's start, labelled by the result.

Games on the Python engine (the reference) between a seeded mix of the built-ins, each
game's seed derived from the run's seed (``train-<seed>-<game>``: the calibration's
held-out games use other seeds and so never meet these). Each position carries the
game's result shares (R11: a tie is a shared first place), seats rotated from the seat
to move as :func:`harness.winprob.features` takes them: the first labels the fit
starts from, before the turn backups of :mod:`harness.training.backup` replace them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from functools import cache

from harness.game.board import Board
from harness.game.engine import GameObserver
from harness.game.rules import Rules
from harness.play.games import play_game
from harness.strategies.win_optimal import WinOptimal
from harness.strategy import Strategy, View
from harness.winprob import Evaluator, Model, Position, ending_chances, result_shares

#: The pools the games' seats are drawn from (each seat independently, seeded).
#: ``mixed`` (the default; the shipped 2-player model's): strong and weak built-ins, for
#: varied positions. ``strong`` (the 3-player model's): mostly strong play, whose
#: results agree better with the turn backups (which assume the mover plays its best);
#: at 2 players it played weaker (docs/winprob.md). ``self``: mostly ``win-optimal``
#: and ``optimal``, the positions the bot meets when it plays with a model (give one:
#: ``--pool-model``). ``win-optimal`` in a pool plays with the normal approximation
#: (:class:`PinnedWinOptimal`), what it played before any model was shipped, or with
#: the model file the run is given (:class:`ModelWinOptimal`): never with whatever
#: models are installed, so that the command gives the same file on any installation.
POOLS: dict[str, tuple[str, ...]] = {
    "mixed": (
        "optimal",
        "optimal(endgame=0)",
        "optimal",
        "tactician",
        "simple",
        "greedy",
        "win-optimal",
    ),  # fmt: skip
    "strong": (
        "optimal",
        "optimal",
        "optimal(endgame=0)",
        "optimal(endgame=16)",
        "tactician",
        "simple",
    ),  # fmt: skip
    "self": (
        "win-optimal",
        "win-optimal",
        "win-optimal",
        "optimal",
        "optimal",
        "optimal(endgame=0)",
        "tactician",
        "simple",
    ),  # fmt: skip
}
POOL = POOLS["mixed"]


class PinnedWinOptimal(WinOptimal):
    """``win-optimal`` valuing each ending by the normal approximation (exact at the end),
    whatever models are installed: the training's games must not depend on them."""

    def _plan_key(self, view: View) -> tuple:
        # Plans are cached per process by this key (harness.strategies.optimal): not
        # the key of win-optimal's own plans, which value the endings otherwise.
        return ("normal", *super()._plan_key(view))

    def _ending_values(self, view: View) -> tuple[dict, float]:
        position = Position.of(view.grill, view.stacks, view.seat)
        return ending_chances(position, view.rules, _normal(view.rules))


class ModelWinOptimal(WinOptimal):
    """``win-optimal`` valuing each ending by a given model (exact at the end): the
    training's own games with the model file it was given, whatever models are
    installed."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
        self._judges: dict[Rules, Evaluator] = {}
        self._tag = model.sha256 or hashlib.sha256(model.to_bytes()).hexdigest()

    def _plan_key(self, view: View) -> tuple:
        return (self._tag, *super()._plan_key(view))  # a plan per model (as above)

    def _ending_values(self, view: View) -> tuple[dict, float]:
        judge = self._judges.get(view.rules)
        if judge is None:
            judge = self._judges[view.rules] = Evaluator(view.rules, self.model)
        position = Position.of(view.grill, view.stacks, view.seat)
        return ending_chances(position, view.rules, judge)


@cache
def _normal(rules: Rules) -> Evaluator:
    return Evaluator(rules, None)


def _seat(name: str, model: Model | None = None) -> str | Strategy:
    if name != "win-optimal":
        return name
    return PinnedWinOptimal() if model is None else ModelWinOptimal(model)


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
    pinned: bool = True,
    model: Model | None = None,
    tick: Callable[[int], None] | None = None,
) -> tuple[list[Position], list[tuple[float, ...]], list[int]]:
    """At least ``count`` turn-start positions of ``players``-seat games (whole games) under
    the preset ``rules``, with each one's result shares rotated from its mover and the
    number of the game it came from (its seed is ``<tag>-<seed>-<number>``; the positions
    of one game are not independent, so intervals over them cluster by it). ``pinned``: a
    ``win-optimal`` seat plays with the normal approximation (:class:`PinnedWinOptimal`,
    the training's) or with ``model`` when one is given (:class:`ModelWinOptimal`), else
    with the shipped model (the calibration's held-out games)."""
    draw = random.Random(f"{tag}-{seed}-tables")
    positions: list[Position] = []
    labels: list[tuple[float, ...]] = []
    games: list[int] = []
    game = 0
    while len(positions) < count:
        seats = [draw.choice(pool) for _ in range(players)]
        observer = TurnStarts()
        result = play_game(
            [_seat(name, model) if pinned else name for name in seats],
            Rules.preset(rules, players),
            f"{tag}-{seed}-{game}",
            observer=observer,
            engine="python",
        )
        game += 1
        if result.status != "over":  # the turn cap: no result to learn from
            continue
        shares = result_shares(observer.final())
        for p in observer.positions:
            positions.append(p)
            labels.append(rotate(shares, p.to_move))
            games.append(game - 1)
        if tick is not None:
            tick(len(observer.positions))
    return positions, labels, games
