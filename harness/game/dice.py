"""Dice: the interned roll values and the dice sources that feed the engine (R2, R4).

A roll only matters through which faces it shows and how many of each, so every
possible roll of 1..8 dice is one interned :class:`Roll` (3,002 of them), built once at
import. Sources draw a number below 6**n with one RNG call and decode it through
precomputed tables: no per-roll allocation.

A dice source answers ``roll(seat, turn, index, n)``: the dice of ``seat``'s
``turn``-th turn (0-based, counted per seat), ``index``-th roll of that turn, with ``n``
dice. The engine asks in order, so a source may ignore the coordinates (a seeded
stream) or use them (duplicate dice, recorded dice).
"""

from __future__ import annotations

import hashlib
import random
from array import array
from itertools import combinations_with_replacement, product
from math import factorial
from operator import itemgetter
from typing import Protocol

from harness.game.rules import DICE, FACE_POINTS, FACES

# A roll of n dice is a number v below 6**n: die i shows face (v // 6**i) % 6 + 1.
_POW6 = tuple(6**n for n in range(8 * DICE + 1))
DICE_MODES = ("duplicate", "independent")
"""How a deal's seat orders get their dice: the same dice seat by seat (duplicate), or
each game its own (independent). The one list: configs, the native engine and the RL
environments all read it here."""

_MAX_ROLLS_PER_TURN = 7  # six keeps at most (one per face), then one roll that busts
_BLOCK = _POW6[DICE * _MAX_ROLLS_PER_TURN]  # one draw covers every roll of a turn


class Roll:
    """The faces shown by one roll: sorted, counted, and precomputed for the engine.

    ``counts[f]`` dice show face f; ``mask`` has bit f for each face shown;
    ``points[f]`` is what setting aside its dice of face f adds to the total (R2);
    ``dice_of[f]`` those dice as a tuple of faces; ``code`` a number v < 6**n that
    :func:`roll_of` reads as this roll (its faces, ascending, as the dice in order).
    """

    __slots__ = ("faces", "counts", "mask", "n", "points", "dice_of", "code")

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.counts = tuple(faces.count(f) for f in range(7))
        self.mask = sum(1 << f for f in set(faces))
        self.n = len(faces)
        self.points = tuple(c * FACE_POINTS[f] for f, c in enumerate(self.counts))
        self.dice_of = tuple((f,) * c for f, c in enumerate(self.counts))
        self.code = sum((f - 1) * 6**i for i, f in enumerate(faces))

    def __repr__(self) -> str:
        return f"Roll({list(self.faces)})"


def _packed(faces: tuple[int, ...]) -> int:
    """Counts per face packed in 4-bit fields; adding two packed values adds the rolls."""
    return sum(1 << (4 * f) for f in faces)


ROLLS: dict[int, Roll] = {
    _packed(c): Roll(c) for n in range(1, DICE + 1) for c in combinations_with_replacement(FACES, n)
}

# _PACK[n][v]: packed counts of the n (<= 4) dice encoded by v.
_PACK: list[list[int]] = [[0]] + [
    [_packed(tuple(d + 1 for d in reversed(digits))) for digits in product(range(6), repeat=n)]
    for n in range(1, 5)
]
_PACK4 = _PACK[4]

# ROLL_LIST[TABLE[n][v]]: the roll of n dice encoded by v < 6**n. The index tables are
# arrays of 16-bit ints, not lists, so the garbage collector never walks their 2 million
# entries; eight dice alone take 1.7 million (3.4 MB), which buys a decode that is two
# indexings. One entry more in each table, TABLE[n][6**n], reads as NO_ROLL.
NO_ROLL = Roll(())
"""The roll of no dice (it shows no face): what a turn block that holds no roll reads as
(a turn with no dice source, harness.game.turn), at TABLE[n][6**n]."""
ROLL_LIST: list[Roll] = [*ROLLS.values(), NO_ROLL]


def _build_tables() -> list[array]:
    index = {packed: i for i, packed in enumerate(ROLLS)}
    tables = [array("H")] + [array("H", [index[p] for p in _PACK[n]]) for n in range(1, 5)]
    # n > 4 dice: v = low + 1296 * high, the first four dice in `low`. Rows are gathered
    # in C (itemgetter) from the 126 distinct four-dice rolls, so import stays fast.
    distinct4 = sorted(set(_PACK4))
    where4 = itemgetter(*(distinct4.index(p) for p in _PACK4))
    for n in range(5, DICE + 1):
        rows: dict[int, array] = {}
        table = array("H")
        for high in _PACK[n - 4]:
            row = rows.get(high)
            if row is None:
                row = rows[high] = array("H", where4([index[p + high] for p in distinct4]))
            table.extend(row)  # an array extends an array by copying its bytes
        tables.append(table)
    for table in tables[1:]:
        table.append(len(ROLL_LIST) - 1)  # NO_ROLL
    return tables


TABLE: list[array] = _build_tables()


def _ways(roll: Roll) -> int:
    """In how many of the 6**n ways n dice can fall they show ``roll``: the multinomial
    n! / (c1! c2! ... c6!) of its face counts."""
    ways = factorial(roll.n)
    for count in roll.counts:
        ways //= factorial(count)
    return ways


ROLLS_OF: tuple[tuple[tuple[Roll, int], ...], ...] = tuple(
    tuple((roll, _ways(roll)) for roll in ROLLS.values() if roll.n == n) for n in range(DICE + 1)
)
"""``ROLLS_OF[n]``: every roll of n dice with its number of ways out of 6**n (R4), in the
order of :data:`ROLLS`: the one enumeration of rolls and their multinomial weights (the
turn state's chance outcomes and the turn programme's rows are read from it)."""
POW6 = _POW6[: DICE + 1]
BLOCK_BASE = _POW6[DICE]  # one roll's share of a turn block: 8 base-6 digits


def roll_of(v: int, n: int) -> Roll:
    """The roll of ``n`` dice encoded by ``0 <= v < 6**n`` (die i shows digit i + 1)."""
    return ROLL_LIST[TABLE[n][v]]


def encode_turn(rolls: list[list[int]]) -> int:
    """The turn block of the given rolls (faces in die order), as a DiceSource returns it."""
    block = 0
    for j, faces in enumerate(rolls):
        for i, face in enumerate(faces):
            block += (face - 1) * _POW6[DICE * j + i]
    return block


class DiceSource(Protocol):
    """Where the engine's dice come from.

    As each turn begins the engine calls ``start_turn(seat, turn)`` (``turn`` counts
    that seat's turns from 0) and gets the whole turn's dice as one block: an integer
    below 6**56 whose base-6 digits 8j .. 8j+7 are the 8 dice of the turn's j-th roll
    (a digit d shows face d + 1). A roll of n dice shows the first n dice of its
    group. Seven groups cover any turn: six keeps at most, then a roll that busts.
    """

    def start_turn(self, seat: int, turn: int) -> int: ...


class SeededDice:
    """Independent dice from ``random.Random(seed)``: the same seed, the same rolls."""

    __slots__ = ("_getrandbits",)

    def __init__(self, seed: int | str | bytes | None = None) -> None:
        self._getrandbits = random.Random(seed).getrandbits

    def start_turn(self, seat: int, turn: int) -> int:
        block = self._getrandbits(_BLOCK_BITS)
        while block >= _BLOCK:  # exact: uniform below 6**56 (accepts 82% of draws)
            block = self._getrandbits(_BLOCK_BITS)
        return block


_BLOCK_BITS = _BLOCK.bit_length()


def derive_seed(*parts: object) -> int:
    """A 64-bit seed from any parts, stable across machines, processes and Python runs.

    (Python's hash() is salted per process, so it must never decide a seed.)
    """
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


class DuplicateDice:
    """Dice fixed by (key, seat, turn of that seat): duplicate dice.

    Every game played with the same key sees the same dice seat by seat, even when the
    games diverge: a seat's k-th turn always gets the same block, so its j-th roll of
    n dice shows the first n of the same 8 dice. Share one instance between the seat
    rotations of a deal: blocks drawn once are cached.
    """

    __slots__ = ("key", "_streams", "_blocks")

    def __init__(self, key: int | str) -> None:
        self.key = key
        self._streams: dict[int, random.Random] = {}
        self._blocks: dict[int, list[int]] = {}

    def start_turn(self, seat: int, turn: int) -> int:
        blocks = self._blocks.get(seat)
        if blocks is None:
            blocks = self._blocks[seat] = []
            self._streams[seat] = random.Random(derive_seed(self.key, "seat", seat))
        while len(blocks) <= turn:
            blocks.append(self._streams[seat].randrange(_BLOCK))
        return blocks[turn]
