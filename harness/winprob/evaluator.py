"""Each seat's chance to win from a position between turns.

Exact at the end of the game (R10: the grill is empty; R11 decides, a tie counting as a
shared first place, as the standings count it). Elsewhere, the shipped model for the
number of players (``models/winprob-<P>p.bin``, trained on the official rules by
``python -m harness.training``). A preset with a model of its own
(``models/winprob-<P>p-<preset>.bin``, trained with ``--rules <preset>``) is judged by
it: ``piko-blog``, whose busts turn tiles even from an empty stack, ends games in ways
the official rules' model never saw. Every other variant (a preset without its own
model, a mix of variant keys) uses the official rules' model of its player count
(they change which tile a bust turns, not what a position is worth by much:
docs/winprob.md measures it). A player count without a model falls back to
the normal approximation that ``optimal``'s end game uses: seat i's chance is the
product over the others of ``Phi((worms_i - worms_j) / sqrt(2.5 * grill worms))``,
normalised to sum to one. :func:`evaluator` says which one a rule set gets.

One model per process: files are read and checked once and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import erf, sqrt

import numpy as np

from harness.game.board import WORMS
from harness.game.rules import Rules
from harness.winprob.features import features
from harness.winprob.model import MODELS, Model, ModelError, load, shipped_sums
from harness.winprob.position import Position, result_shares

SPREAD = 2.5  # optimal's end-game spread: the fallback is its normal approximation


OFFICIAL = "official"


def model_name(players: int, preset: str = OFFICIAL) -> str:
    """The file a model of ``players`` seats ships as: one per player count, and one
    for a preset that has its own."""
    return f"winprob-{players}p.bin" if preset == OFFICIAL else f"winprob-{players}p-{preset}.bin"


def shipped_model(players: int, preset: str = OFFICIAL) -> Model | None:
    """The shipped model for ``players`` seats under ``preset``, checked and loaded
    once, or None when none is shipped (for a preset: none of its own)."""
    return _shipped(players, preset)  # one cache key however the preset is given


@cache
def _shipped(players: int, preset: str) -> Model | None:
    name = model_name(players, preset)
    digest = shipped_sums().get(name)
    if digest is None:
        return None
    return load(MODELS / name, digest)


shipped_model.cache_clear = _shipped.cache_clear  # type: ignore[attr-defined]


def rules_model(rules: Rules) -> tuple[str, Model | None]:
    """The shipped model that judges ``rules`` and the preset it was trained for: the
    preset's own where it has one, else the official rules' of the player count."""
    preset = rules.preset_name
    if preset is not None and preset != OFFICIAL:
        own = shipped_model(rules.players, preset)
        if own is not None:
            return preset, own
    return OFFICIAL, shipped_model(rules.players)


def normal_chances(position: Position) -> tuple[float, ...]:
    """The normal approximation (see the module's text), seat by seat."""
    scores = position.scores
    left = sum(WORMS[t] for t in position.tiles)
    sigma = sqrt(SPREAD * left)
    raw = []
    for i, mine in enumerate(scores):
        c = 1.0
        for j, other in enumerate(scores):
            if j != i:
                c *= 0.5 * (1.0 + erf((mine - other) / sigma / sqrt(2.0)))
        raw.append(c)
    total = sum(raw)
    return tuple(c / total for c in raw)


class Evaluator:
    """Win chances for one rule set: exact at the end, learned or approximated before."""

    def __init__(self, rules: Rules, model: Model | None | str = "shipped") -> None:
        """``model``: the shipped one (default), a given :class:`Model` (training, the
        calibration benchmark) or None (the normal approximation)."""
        self.rules = rules
        self.players = rules.players
        # the preset the shipped model was trained under (None: a model given, not shipped)
        self.trained_for: str | None = None
        if isinstance(model, str):
            self.trained_for, model = rules_model(rules)
        elif model is not None and model.players != rules.players:
            raise ModelError(
                f"a {model.players}-player model cannot judge {rules.players}-player games (R3)"
            )
        self.model = model

    @property
    def kind(self) -> str:
        """What answers before the end: 'learned' or 'normal approximation'."""
        return "learned" if self.model is not None else "normal approximation"

    def describe(self) -> str:
        if self.model is None:
            return (
                f"{self.players} players: no trained model; the normal approximation"
                " (exact at the end of the game)"
            )
        if self.trained_for is None:
            return (
                f"{self.players} players: learned, a given model sha256 {self.model.sha256[:12]};"
                " exact at the end of the game"
            )
        borrowed = self.rules != Rules.preset(self.trained_for, self.players)
        variant = f" ({self.trained_for} rules' model)" if borrowed else ""
        return (
            f"{self.players} players: learned, {model_name(self.players, self.trained_for)}"
            f" sha256 {self.model.sha256[:12]}{variant}; exact at the end of the game"
        )

    def chances(self, position: Position) -> tuple[float, ...]:
        """Each seat's chance to win (seat order; they sum to one)."""
        return self.chances_many([position])[0]

    def chance(self, position: Position, seat: int) -> float:
        return self.chances_many([position])[0][seat]

    def chances_many(self, positions: Sequence[Position]) -> list[tuple[float, ...]]:
        """:meth:`chances` of many positions, the model's rows in one product."""
        out: list[tuple[float, ...] | None] = [None] * len(positions)
        todo = []
        for i, p in enumerate(positions):
            if p.over:
                out[i] = result_shares(p)
            elif self.model is None:
                out[i] = normal_chances(p)
            else:
                todo.append(i)
        if todo:
            model = self.model
            rows = np.array([features(positions[i]) for i in todo], dtype=np.int64)
            for i, rotated in zip(todo, model.chances_of(model.logits(rows)), strict=True):
                mover = positions[i].to_move
                n = len(rotated)
                out[i] = tuple(rotated[(seat - mover) % n] for seat in range(n))
        return out  # type: ignore[return-value]


@cache
def evaluator(rules: Rules) -> Evaluator:
    """The evaluator of ``rules``, one per process."""
    return Evaluator(rules)
