"""The packed turn state: one small int for the total, the faces set aside and the dice left.

The engine's hot loop updates a turn with one addition per keep (see ``Roll.step``),
and a strategy's view decodes only what it reads. Layout (fits in 16 bits, so Python
keeps it a one-digit int):

* bits 0-5: points set aside this turn (0..40, R2);
* bits 6-11: the faces set aside, face f as bit 5 + f (the worm is bit 11);
* bits 12-15: the dice not yet set aside (0..8).
"""

from __future__ import annotations

from harness.rules import DICE, FACE_POINTS, WORM

TOTAL = 0x3F
FACE_SHIFT = 5
FACES = 0x3F << 6
WORM_KEPT = 1 << (FACE_SHIFT + WORM)
LEFT_SHIFT = 12
ONE_LEFT = 1 << LEFT_SHIFT
START = DICE << LEFT_SHIFT


def face_bit(face: int) -> int:
    """The bit of ``face`` among the faces set aside."""
    return 1 << (FACE_SHIFT + face)


def step(face: int, count: int) -> int:
    """What setting aside ``count`` dice showing ``face`` adds to the state."""
    return face_bit(face) - count * ONE_LEFT + count * FACE_POINTS[face]


def total(state: int) -> int:
    return state & TOTAL


def dice_left(state: int) -> int:
    return state >> LEFT_SHIFT


def kept_faces(state: int) -> tuple[int, ...]:
    """The faces set aside, ascending."""
    return tuple(f for f in range(1, 7) if state & face_bit(f))
