"""The one observation encoding and action numbering of the RL environments.

Every environment (:mod:`harness.env.aec`, :mod:`harness.env.gym`, the vector
environment in C and its Python fallback) and the policy adapter
(:mod:`harness.env.policy`) show a seat the same fixed-size float32 vector, built here
from the seat's :class:`~harness.view.View` by :func:`encode` (the C code in
harness/native/c/vecenv.inc.c writes the same bytes; tests/env/test_env_vector.py compares
them). docs/rl.md documents it field by field; :data:`FIELDS` is that table.

A decision is one question of the engine (:class:`~harness.strategy.Strategy`'s
``pick``, ``stop``, ``claim``), so the *phase* says which: the actions legal in it
are :func:`mask`'s ones, and one :data:`ACTIONS`-wide discrete space covers them all:

=========  ============================================================
action     meaning
=========  ============================================================
0..5       keep face 1..6 (5 = action of the worm, face 6) (R5)
6          stop: claim a tile (R7)
7          roll on (R6)
8..23      claim tile 21..36 (when a stop offers more than one, R7)
=========  ============================================================

A claim is named by its tile alone: a tile lies in one place only (R1), so "tile t" is
either the grill tile or the steal, never both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from harness.game.rules import MAX_PLAYERS, TILES
from harness.game.turn import CLAIM, PICK, STOP_OR_ROLL

if TYPE_CHECKING:
    from harness.game.view import View

# The phases: which question a decision answers (``pick``, ``stop``, ``claim``): the
# turn's own (harness.game.turn numbers them so), imported above.
PHASES = ("pick", "stop", "claim")

ACTIONS = 24
STOP = 6
ROLL_ON = 7
FIRST_CLAIM = 8  # action FIRST_CLAIM + (tile - 21) claims tile


def keep_action(face: int) -> int:
    """The action that keeps ``face`` (1-6, 6 = worm)."""
    return face - 1


def claim_action(tile: int) -> int:
    """The action that claims ``tile`` (21-36), from the grill or a steal."""
    return FIRST_CLAIM + tile - TILES[0]


def action_name(action: int) -> str:
    """How an action is written for people: ``keep 3``, ``keep W``, ``stop``, ``claim 27``."""
    if 0 <= action < 6:
        return "keep W" if action == 5 else f"keep {action + 1}"
    if action == STOP:
        return "stop"
    if action == ROLL_ON:
        return "roll on"
    if FIRST_CLAIM <= action < ACTIONS:
        return f"claim {action - FIRST_CLAIM + TILES[0]}"
    return f"action {action!r}"


# (name, size, what): the observation, field by field, in order (docs/rl.md shows it).
FIELDS: tuple[tuple[str, int, str], ...] = (
    ("phase", 3, "one-hot: the question asked (pick a face, stop or roll on, which claim)"),
    ("roll", 6, "dice of the latest roll showing face 1..6 (6 = worm), / 8"),
    ("kept", 6, "dice set aside this turn per face 1..6, / 8"),
    ("total", 1, "points set aside this turn (a worm counts 5), / 40"),
    ("dice_left", 1, "dice not yet set aside this turn, / 8"),
    ("has_worm", 1, "1 once a worm is set aside this turn (a claim needs one, R7)"),
    ("claims", 16, "tile 21..36: 1 if stopping now could claim it (grill or steal, R7)"),
    ("grill", 16, "tile 21..36: 1 if face up on the grill"),
    ("flipped", 16, "tile 21..36: 1 if face down, out of the game (R9)"),
    (
        "seats",
        19 * MAX_PLAYERS,
        "7 blocks of 19, the deciding seat first, then the seats after it in turn order: "
        "present (1 if the game has that seat), worms / 40, stack height / 16, "
        "top tile one-hot 21..36 (all 0 for an empty stack)",
    ),
    (
        "rules",
        6,
        "lower_tile any, bust_flip highest, bust_flip lowest, bust_flip none, "
        "flip_without_tile, returned_tile flip (1 if so)",
    ),
)
OFFSETS: dict[str, int] = {}
_at = 0
for _name, _size, _ in FIELDS:
    OFFSETS[_name] = _at
    _at += _size
OBS_SIZE = _at
SEAT_BLOCK = 19
del _at, _name, _size


def encode(view: View, phase: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of the seat whose ``view`` this is, asked in ``phase`` (-1: asked
    nothing, the phase field all 0).

    Reads only the view's public surface, so an engine, an environment and a strategy
    in a tournament compute it alike. ``out`` (float32, :data:`OBS_SIZE`) is filled in
    place when given.
    """
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    if phase >= 0:
        obs[phase] = 1.0
    counts, kept = view.counts, view.kept
    at = OFFSETS["roll"]
    for face in range(1, 7):
        obs[at + face - 1] = counts[face] / 8
    at = OFFSETS["kept"]
    for face in kept:
        obs[at + face - 1] += 0.125
    obs[OFFSETS["total"]] = view.total / 40
    obs[OFFSETS["dice_left"]] = view.dice_left / 8
    obs[OFFSETS["has_worm"]] = 1.0 if view.has_worm else 0.0
    at = OFFSETS["claims"] - TILES[0]
    for choice in view.claims:
        obs[at + choice.tile] = 1.0
    at = OFFSETS["grill"] - TILES[0]
    for tile in view.grill:
        obs[at + tile] = 1.0
    at = OFFSETS["flipped"] - TILES[0]
    for tile in view.flipped:
        obs[at + tile] = 1.0
    stacks, scores, n, me = view.stacks, view.scores, view.players, view.seat
    for j in range(n):
        seat = (me + j) % n
        at = OFFSETS["seats"] + SEAT_BLOCK * j
        stack = stacks[seat]
        obs[at] = 1.0
        obs[at + 1] = scores[seat] / 40
        obs[at + 2] = len(stack) / 16
        if stack:
            obs[at + 3 + stack[-1] - TILES[0]] = 1.0
    rules = view.rules
    at = OFFSETS["rules"]
    obs[at] = rules.lower_tile == "any"
    obs[at + 1 + ("highest", "lowest", "none").index(rules.bust_flip)] = 1.0
    obs[at + 4] = bool(rules.flip_without_tile)
    obs[at + 5] = rules.returned_tile == "flip"
    return obs


def mask(view: View, phase: int, out: np.ndarray | None = None) -> np.ndarray:
    """The legal actions (int8, 1 = legal) of the seat whose ``view`` this is, in ``phase``:
    exactly the answers the engine accepts to that question (none in phase -1)."""
    legal = np.zeros(ACTIONS, np.int8) if out is None else out
    if out is not None:
        legal[:] = 0
    if phase == PICK:
        for face in view.choices:
            legal[face - 1] = 1
    elif phase == STOP_OR_ROLL:
        legal[STOP] = legal[ROLL_ON] = 1
    elif phase == CLAIM:
        for choice in view.claims:
            legal[claim_action(choice.tile)] = 1
    return legal


__all__ = [
    "ACTIONS",
    "CLAIM",
    "FIELDS",
    "FIRST_CLAIM",
    "OBS_SIZE",
    "OFFSETS",
    "PHASES",
    "PICK",
    "ROLL_ON",
    "STOP",
    "STOP_OR_ROLL",
    "action_name",
    "claim_action",
    "encode",
    "keep_action",
    "mask",
]
