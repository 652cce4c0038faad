"""The read-only view of a game that strategies are given: the plugin API's window.

One view serves a seat for a whole game. It holds no path back to the engine: no
reference to the game, its dice, the other seats' strategies or any state the engine
reads. The engine pushes plain values into it instead, and never reads it back: the
board by :meth:`View.show_turn` at the start of each of the seat's turns, the turn
state by writing the plain slots of :data:`TURN_SLOTS` as the turn goes. So what a
plugin does to its view, or to anything reachable from it, fools only itself. That
surface is for engines only, not part of the plugin API (harness.strategy).

Every public attribute is an immutable value (ints, bools, tuples). A view can also be
turned into plain data (:meth:`View.snapshot`) and rebuilt from it
(:meth:`View.from_snapshot`, :meth:`View.update`): that is how a strategy running in a
process of its own (``isolation: process``) sees exactly what it would see in-process.

What stopping would claim (R7) is :func:`legal_claims`, a pure function of the board
that the engine and the view both use (defined with the board's encoding in
harness.game.board, and re-exported here with :class:`Claim` and :func:`claim_key`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from harness.errors import deprecated
from harness.game.board import (
    FACES_OF,
    WORMS,
    Claim,
    claim_key,
    legal_claims,
    mask_of,
    tiles_of,
)
from harness.game.dice import ROLLS, derive_seed
from harness.game.rules import Rules

_FACES_BY_COUNTS = {roll.counts: roll.faces for roll in ROLLS.values()}

TURN_SLOTS = ("counts", "choices", "kept", "kept_faces", "total", "dice_left", "has_worm")
"""The view's turn state, for engines: plain slots an engine writes during a turn.

After a roll with a new face, before ``pick()``: ``counts`` (a
:class:`harness.game.dice.Roll`'s ``counts``) and ``choices`` (the legal picks, ascending).
After a pick, before anything else is asked: ``kept`` (one entry per die, in order),
``kept_faces`` (distinct, ascending), ``total``, ``dice_left`` and ``has_worm``. Only
immutable values (tuples, ints, bools); :meth:`View.show_turn` resets them a turn.
"""

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

    Turn state (``counts``, ``choices``, ``kept``, ``kept_faces``, ``total``,
    ``dice_left``, ``has_worm``, and ``rolled``, ``claims`` which follow from them)
    describes the turn in progress: it is always the viewer's own turn when a strategy
    is asked something. Board state (``grill``, ``stacks``, ``tops``, ``scores``, ...) is
    what the engine pushed at the start of the turn (:meth:`show_turn`).

    The view is read-only by contract. The turn state is seven plain slots, because
    strategies read it on every call and in the hot loop of millions of games a property
    (or a method call per die set aside) costs a function call: an engine writes them
    before each question (the :data:`TURN_SLOTS`) and never reads the view back, so a
    strategy that writes to its view fools only itself, never the game. Every other
    public attribute is a property and cannot be assigned.
    """

    __slots__ = (
        "counts", "choices", "kept", "kept_faces", "total", "dice_left", "has_worm",
        "_seat", "_players", "_rules", "_lower_any", "_turn", "_grill", "_flipped", "_stacks",
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
        #: Faces set aside this turn, one entry per die, in the order kept.
        self.kept: tuple[int, ...] = ()
        #: The distinct faces set aside this turn, ascending.
        self.kept_faces: tuple[int, ...] = ()
        #: Points set aside this turn (a worm counts 5, R2).
        self.total = 0
        #: Dice not yet set aside this turn.
        self.dice_left = 8
        #: True once a worm is set aside this turn (needed to claim, R7).
        self.has_worm = False

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
    def claims(self) -> tuple[Claim, ...]:
        """What stopping now would offer (R7), greatest :func:`claim_key` first; () if nothing."""
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

    # -- for engines only: how an engine feeds the view (not the plugin API) ---------
    def show_turn(
        self, turn: int, grill: int, flipped: int, stacks: tuple[tuple[int, ...], ...]
    ) -> None:
        """For engines: one of this seat's turns begins (game turn ``turn``, from 1).

        ``grill`` and ``flipped`` are bit masks (bit t = tile t), ``stacks`` every seat's
        stack bottom to top, as immutable values: they are stored as given, unchecked.
        The turn state starts afresh (nothing set aside, 8 dice); during the turn the
        engine writes the :data:`TURN_SLOTS` before each question.
        """
        self._turn = turn
        self._grill = grill
        self._flipped = flipped
        self._stacks = stacks
        self.kept = ()
        self.kept_faces = ()
        self.total = 0
        self.dice_left = 8
        self.has_worm = False

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
            "kept": self.kept,
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
            self.kept = tuple(data["kept"])
            self.kept_faces = FACES_OF[mask_of(self.kept)]
        if "total" in data:
            self.total = data["total"]
        if "dice_left" in data:
            self.dice_left = data["dice_left"]
        if "has_worm" in data:
            self.has_worm = data["has_worm"]

    def __repr__(self) -> str:
        return (
            f"<View seat {self._seat} turn {self._turn}: rolled {list(self.rolled)} "
            f"kept {list(self.kept)} total {self.total}>"
        )


_OLD_NAMES = {"swing": "claim_key"}
"""Public names renamed, still imported under the old one (deprecated, said once): ``swing``
named the claims' sort key until issue 31; "swing" is the account's payoff alone now."""


def _old_name(module: str, name: str) -> Any:
    """The object an old public name of ``module`` stands for, with a Deprecated warning."""
    new = _OLD_NAMES.get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    deprecated(f"{module}.{name} is now {new} (the same function); {name} still works for now")
    return globals()[new]


def __getattr__(name: str) -> Any:
    return _old_name("harness.view", name)


__all__ = ["TURN_SLOTS", "Claim", "View", "claim_key", "legal_claims"]
