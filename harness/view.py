"""The read-only view of a game that strategies are given, and the claims of a board.

One view serves a seat for a whole game. It holds no path back to the engine: no
reference to the game, its dice, the other seats' strategies or any state the engine
reads. The engine pushes plain values into it instead (the board as immutable values
at the start of each of the seat's turns, the turn state as the turn goes), so what a
plugin does to its view, or to anything reachable from it, fools only itself.

Every public attribute is an immutable value (ints, bools, tuples). A view can also be
turned into plain data (:meth:`View.snapshot`) and rebuilt from it
(:meth:`View.from_snapshot`, :meth:`View.update`): that is how a strategy running in a
process of its own (``isolation: process``) sees exactly what it would see in-process.

What stopping would claim (R7) is :func:`legal_claims`, a pure function of the board
that the engine and the view both use.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from harness.dice import ROLLS, derive_seed
from harness.rules import LOWEST_TILE, TILES, Rules, worms

_TILE_TUPLES: dict[int, tuple[int, ...]] = {}


def tiles_of(mask: int) -> tuple[int, ...]:
    """The tiles of a bit mask (bit t = tile t), ascending; cached since masks repeat."""
    tiles = _TILE_TUPLES.get(mask)
    if tiles is None:
        tiles = _TILE_TUPLES[mask] = tuple(t for t in range(LOWEST_TILE, 37) if mask >> t & 1)
    return tiles


def mask_of(tiles: Sequence[int]) -> int:
    """The bit mask of some tiles (or faces): the inverse of :func:`tiles_of`."""
    mask = 0
    for t in tiles:
        mask |= 1 << t
    return mask


# FACES_OF[mask]: the faces of a face mask (bit f = face f), ascending.
FACES_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(f for f in range(1, 7) if m >> f & 1) for m in range(128)
)
ALL_FACES = 0b1111110  # the mask of faces 1..6
_FACES_BY_COUNTS = {roll.counts: roll.faces for roll in ROLLS.values()}
WORMS = tuple(worms(t) if t >= LOWEST_TILE else 0 for t in range(37))  # WORMS[tile]
# LE[s]: the tiles <= s, as a bit mask over 0..40.
LE = tuple((1 << (s + 1)) - 1 for s in range(41))


# -- claims (R7) ------------------------------------------------------------------------
class Claim(NamedTuple):
    """A tile a stop can take (R7): from the grill (``victim`` None) or a steal."""

    tile: int
    victim: int | None = None

    @property
    def is_steal(self) -> bool:
        return self.victim is not None

    @property
    def worms(self) -> int:
        return worms(self.tile)

    def __str__(self) -> str:
        if self.victim is None:
            return f"{self.tile} from the grill"
        return f"{self.tile} from seat {self.victim}"


def swing(choice: Claim) -> tuple[int, int]:
    """Sort key of a claim: (worms gained + worms the victim loses, tile number)."""
    gain = worms(choice.tile)
    return (2 * gain if choice.victim is not None else gain, choice.tile)


# Interned claims, so the engine builds no objects when it offers them.
GRILL_CLAIMS: dict[int, Claim] = {t: Claim(t) for t in TILES}
STEAL_CLAIMS: dict[tuple[int, int], Claim] = {(t, s): Claim(t, s) for t in TILES for s in range(7)}


def legal_claims(
    seat: int, total: int, worm: bool, grill: int, tops: Sequence[int], lower_any: bool
) -> tuple[Claim, ...]:
    """Every legal claim for ``seat`` stopping at ``total``, best worm swing first (R7).

    ``grill`` is the face-up tiles as a bit mask, ``tops`` every seat's top tile (0 for
    an empty stack), ``lower_any`` the ``lower_tile: any`` variant. Pure: it reads its
    arguments only.
    """
    if not worm:
        return ()
    below = grill & LE[max(0, min(total, 40))]
    choices: list[Claim] = []
    if below:
        if lower_any:
            choices.extend(GRILL_CLAIMS[t] for t in tiles_of(below))
        else:
            choices.append(GRILL_CLAIMS[below.bit_length() - 1])
    if total in tops:
        victim = tops.index(total)
        if victim != seat:
            choices.append(STEAL_CLAIMS[total, victim])
    choices.sort(key=swing, reverse=True)
    return tuple(choices)


_UNSET: Any = object()  # the seat's rng seed is not derived yet
_NO_STACKS = tuple(((),) * n for n in range(8))
_NO_COUNTS = (0,) * 7
_RULES_DATA: dict[Rules, dict[str, Any]] = {}  # Rules.to_dict() is slow; rule sets are few


def _rules_data(rules: Rules) -> dict[str, Any]:
    """``rules.to_dict()``, cached. A plugin may have written junk into its own copy (an
    unhashable value, say): then it is computed afresh, and the cache stays small."""
    try:
        data = _RULES_DATA.get(rules)
    except TypeError:
        return rules.to_dict()
    if data is None:
        if len(_RULES_DATA) >= 64:
            _RULES_DATA.clear()
        data = _RULES_DATA[rules] = rules.to_dict()
    return dict(data)


class View:
    """What a strategy may read of the game, from the point of view of its seat.

    Turn state (``counts``, ``choices``, ``total``, ``dice_left``, ``has_worm``,
    ``rolled``, ``kept``) describes the turn in progress: it is always the viewer's own
    turn when a strategy is asked something. Board state (``grill``, ``stacks``,
    ``tops``, ``scores``, ...) is what the engine pushed at the start of the turn.

    The view is read-only by contract. The turn-state fields strategies read on every
    call (``counts``, ``choices``, ``total``, ``dice_left``, ``has_worm``) are plain
    slots, because in the hot loop of millions of games a property costs a function
    call; the engine rewrites them before each question and never reads the view back,
    so a strategy that writes to its view fools only itself, never the game. Every
    other public attribute is a property and cannot be assigned.
    """

    __slots__ = (
        "counts", "choices", "total", "dice_left", "has_worm",
        "_seat", "_players", "_rules", "_lower_any", "_turn", "_grill", "_flipped", "_stacks",
        "_free", "_keeps",
        "_game_seed", "_rng_seed", "_rng",
    )  # fmt: skip

    def __init__(self, seat: int, rules: Rules, seed: int | str | None = None) -> None:
        """A view for ``seat`` under ``rules``; ``seed`` is the game's seed (for ``rng``)."""
        self._seat = seat
        self._players = rules.players
        self._rules = rules
        self._lower_any = rules.lower_tile == "any"
        self._turn = 0
        # The board: face-up and face-down tiles as bit masks, every stack as a tuple.
        # Tops and scores follow from the stacks (R11), so they are computed when asked:
        # the engine pushes three values a turn, and allocates one tuple for them.
        self._grill = 0
        self._flipped = 0
        self._stacks: tuple[tuple[int, ...], ...] = _NO_STACKS[rules.players]
        self._game_seed = seed
        self._rng_seed: int | None = _UNSET
        self._rng: random.Random | None = None
        #: Dice of the last roll showing each face: ``counts[face]`` for face 1..6.
        self.counts: tuple[int, ...] = _NO_COUNTS
        #: Faces of the last roll not yet set aside this turn: the legal picks (R5).
        self.choices: tuple[int, ...] = ()
        #: Points set aside this turn (a worm counts 5, R2).
        self.total = 0
        #: Dice not yet set aside this turn.
        self.dice_left = 8
        #: True once a worm is set aside this turn (needed to claim, R7).
        self.has_worm = False
        self._free = ALL_FACES  # faces not yet set aside this turn
        # The dice set aside this turn: a list the engine appends to and never reads.
        self._keeps: list[int] | tuple[int, ...] = ()

    # -- the game ---------------------------------------------------------------
    @property
    def seat(self) -> int:
        """This strategy's seat (0 starts, R3)."""
        return self._seat

    @property
    def players(self) -> int:
        return self._players

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def turn(self) -> int:
        """The number of the game's current turn, from 1."""
        return self._turn

    @property
    def grill(self) -> tuple[int, ...]:
        """Face-up tiles on the grill, ascending."""
        return tiles_of(self._grill)

    @property
    def flipped(self) -> tuple[int, ...]:
        """Face-down tiles, out of the game (R9), ascending."""
        return tiles_of(self._flipped)

    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's stack, bottom to top."""
        return self._stacks

    @property
    def tops(self) -> tuple[int | None, ...]:
        """Every seat's top tile, or None for an empty stack."""
        return tuple(s[-1] if s else None for s in self._stacks)

    @property
    def scores(self) -> tuple[int, ...]:
        """Worms per seat (R11)."""
        return tuple(sum(WORMS[t] for t in s) for s in self._stacks)

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
        tops = tuple(s[-1] if s else 0 for s in self._stacks)
        return legal_claims(
            self._seat, self.total, self.has_worm, self._grill, tops, self._lower_any
        )

    @property
    def rng(self) -> random.Random:
        """A random stream for this seat and game, fixed by the game's seed.

        Strategies that randomise must draw from it (not from ``random``) so that the
        same seed replays the same game whatever process or chunk plays it.
        """
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self._seat_seed())
        return rng

    def _seat_seed(self) -> int | None:
        # Derived on first use only: most strategies never draw, and a hash per seat
        # per game is measurable in the engine's hot loop.
        if self._rng_seed is _UNSET:
            seed = self._game_seed
            self._rng_seed = None if seed is None else derive_seed(seed, "strategy", self._seat)
        return self._rng_seed

    # -- helpers ------------------------------------------------------------------
    def bust_cost(self) -> int:
        """Worms this seat would lose by busting now: its top tile's worms."""
        stack = self._stacks[self._seat]
        return WORMS[stack[-1]] if stack else 0

    # -- plain data, for a strategy in another process -------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Everything the view shows, as plain data (ints, bools, tuples, None, a dict).

        ``rng_seed`` is the int seed of ``rng`` for this seat and game (None for an
        unseeded game). :meth:`from_snapshot` rebuilds an equal view.
        """
        return {
            "seat": self._seat,
            "players": self._players,
            "rules": _rules_data(self._rules),
            "rng_seed": self._seat_seed(),
            "turn": self._turn,
            "grill": tiles_of(self._grill),
            "flipped": tiles_of(self._flipped),
            "stacks": self._stacks,
            "tops": self.tops,
            "scores": self.scores,
            "counts": self.counts,
            "choices": self.choices,
            "kept": tuple(self._keeps),
            "total": self.total,
            "dice_left": self.dice_left,
            "has_worm": self.has_worm,
        }

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> View:
        """A detached view showing what :meth:`snapshot` returned.

        Its ``claims`` and ``bust_cost()`` are computed from the snapshot; its ``rng`` is
        ``random.Random(rng_seed)``, created on first use and kept across :meth:`update`
        calls for the same seed, so one detached view per game draws one stream.
        """
        view = cls(int(data["seat"]), Rules.from_dict(dict(data["rules"])))
        view._rng_seed = data.get("rng_seed")
        view.update(data)
        return view

    def update(self, data: Mapping[str, Any]) -> None:
        """Take the values of a (full or partial) :meth:`snapshot` into this view.

        Keys left out keep their value, so a caller may send the board once per turn and
        only the turn state with each question. A new ``rng_seed`` starts a new stream.
        ``tops`` and ``scores`` follow from ``stacks`` (R11) and ``players`` from
        ``rules``: those keys are not read.
        """
        if "rules" in data and data["rules"] != _rules_data(self._rules):
            rules = Rules.from_dict(dict(data["rules"]))
            self._rules, self._players = rules, rules.players
            self._lower_any = rules.lower_tile == "any"
        if "seat" in data:
            self._seat = int(data["seat"])
        if "rng_seed" in data and data["rng_seed"] != self._rng_seed:
            self._rng_seed, self._rng = data["rng_seed"], None
        if "turn" in data:
            self._turn = int(data["turn"])
        if "grill" in data:
            self._grill = mask_of(data["grill"])
        if "flipped" in data:
            self._flipped = mask_of(data["flipped"])
        if "stacks" in data:
            self._stacks = tuple(tuple(s) for s in data["stacks"])
        if "counts" in data:
            self.counts = tuple(data["counts"])
        if "choices" in data:
            self.choices = tuple(data["choices"])
        if "kept" in data:
            self._keeps = list(data["kept"])
            self._free = ALL_FACES ^ mask_of(self._keeps)
        if "total" in data:
            self.total = data["total"]
        if "dice_left" in data:
            self.dice_left = data["dice_left"]
        if "has_worm" in data:
            self.has_worm = data["has_worm"]

    def __repr__(self) -> str:
        return (
            f"<View seat {self._seat} turn {self._turn}: rolled {list(self.rolled)} "
            f"kept {self._keeps} total {self.total}>"
        )
