"""The read-only view of a game that strategies are given.

One view serves a seat for a whole game; the engine updates its private slots as the
turn goes and every public attribute is a property that returns an immutable value
(ints, tuples), computed only when a strategy asks. Assigning to the view raises
AttributeError, and nothing a strategy does to what it is given reaches the engine.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from harness.dice import ROLLS
from harness.rules import LOWEST_TILE, Rules, worms

if TYPE_CHECKING:
    from harness.strategy import Claim

_TILE_TUPLES: dict[int, tuple[int, ...]] = {}


def tiles_of(mask: int) -> tuple[int, ...]:
    """The tiles of a bit mask (bit t = tile t), ascending; cached since masks repeat."""
    tiles = _TILE_TUPLES.get(mask)
    if tiles is None:
        tiles = _TILE_TUPLES[mask] = tuple(t for t in range(LOWEST_TILE, 37) if mask >> t & 1)
    return tiles


# FACES_OF[mask]: the faces of a face mask (bit f = face f), ascending.
FACES_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(f for f in range(1, 7) if m >> f & 1) for m in range(128)
)
ALL_FACES = 0b1111110  # the mask of faces 1..6
_FACES_BY_COUNTS = {roll.counts: roll.faces for roll in ROLLS.values()}


class View:
    """What a strategy may read of the game, from the point of view of its seat.

    Turn state (``counts``, ``choices``, ``total``, ``dice_left``, ``has_worm``,
    ``rolled``, ``kept``) describes the turn in progress: it is always the viewer's own
    turn when a strategy is asked something. Board state (``grill``, ``stacks``,
    ``tops``, ``scores``, ...) is computed when asked and returned as tuples.

    The view is read-only by contract. The turn-state fields strategies read on every
    call (``counts``, ``choices``, ``total``, ``dice_left``, ``has_worm``) are plain
    slots, because in the hot loop of millions of games a property costs a function
    call; the engine rewrites them before each question and never reads the view back,
    so a strategy that writes to its view fools only itself, never the game. Every
    other attribute is a property and cannot be assigned.
    """

    __slots__ = (
        "counts", "choices", "total", "dice_left", "has_worm",
        "_game", "_seat", "_free", "_keeps",
    )  # fmt: skip

    def __init__(self, game: object, seat: int) -> None:
        self._game = game
        self._seat = seat
        #: Dice of the last roll showing each face: ``counts[face]`` for face 1..6.
        self.counts: tuple[int, ...] = (0,) * 7
        #: Faces of the last roll not yet set aside this turn: the legal picks (R5).
        self.choices: tuple[int, ...] = ()
        #: Points set aside this turn (a worm counts 5, R2).
        self.total = 0
        #: Dice not yet set aside this turn.
        self.dice_left = 8
        #: True once a worm is set aside this turn (needed to claim, R7).
        self.has_worm = False
        self._free = ALL_FACES  # faces not yet set aside this turn
        self._keeps: list[int] = []

    # -- the game ---------------------------------------------------------------
    @property
    def seat(self) -> int:
        """This strategy's seat (0 starts, R3)."""
        return self._seat

    @property
    def players(self) -> int:
        return self._game._players

    @property
    def rules(self) -> Rules:
        return self._game._rules

    @property
    def turn(self) -> int:
        """The number of the game's current turn, from 1."""
        return self._game._turn

    @property
    def grill(self) -> tuple[int, ...]:
        """Face-up tiles on the grill, ascending."""
        return tiles_of(self._game._grill)

    @property
    def flipped(self) -> tuple[int, ...]:
        """Face-down tiles, out of the game (R9), ascending."""
        return tiles_of(self._game._flipped)

    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's stack, bottom to top."""
        return tuple(map(tuple, self._game._stacks))

    @property
    def tops(self) -> tuple[int | None, ...]:
        """Every seat's top tile, or None for an empty stack."""
        return tuple(t or None for t in self._game._tops)

    @property
    def scores(self) -> tuple[int, ...]:
        """Worms per seat (R11)."""
        return tuple(self._game._scores)

    # -- the turn in progress -----------------------------------------------------
    @property
    def rolled(self) -> tuple[int, ...]:
        """Faces of the dice just rolled, ascending (6 = worm)."""
        return _FACES_BY_COUNTS.get(self.counts, ())

    @property
    def kept(self) -> tuple[int, ...]:
        """Faces set aside this turn, one entry per die, in the order kept."""
        return tuple(self._keeps)

    @property
    def kept_faces(self) -> tuple[int, ...]:
        """The distinct faces set aside this turn, ascending."""
        return FACES_OF[ALL_FACES ^ self._free]

    @property
    def claims(self) -> tuple[Claim, ...]:
        """What stopping now would offer (R7), best worm swing first; () if nothing."""
        return self._game._claims(self._seat, self.total, self.has_worm)

    @property
    def rng(self) -> random.Random:
        """A random stream for this seat and game, fixed by the game's seed.

        Strategies that randomise must draw from it (not from ``random``) so that the
        same seed replays the same game whatever process or chunk plays it.
        """
        return self._game._strategy_rng(self._seat)

    # -- helpers ------------------------------------------------------------------
    def bust_cost(self) -> int:
        """Worms this seat would lose by busting now: its top tile's worms."""
        top = self._game._tops[self._seat]
        return worms(top) if top else 0

    def __repr__(self) -> str:
        return (
            f"<View seat {self._seat} turn {self.turn}: rolled {list(self.rolled)} "
            f"kept {list(self.kept)} total {self.total}>"
        )
