"""The board as plain values, for engines: bit masks, interned tuples and claims (R7).

Private to the engines (harness.game.engine, and the views they feed): the encoding the
engine keeps its board in (bit t = tile t, bit f = face f), the tables that decode it
without allocating, and :func:`legal_claims`, the one definition of what a stop can
claim, which the engine and :class:`harness.view.View` both use. Nothing here is part
of the plugin API: strategies see the decoded values through their view.

:class:`Claim` and :func:`claim_key` are public, and are exported by harness.game.view
(imported as harness.view and harness.strategy) under that module's name: code digests treat
the view as the versioned API, so a plugin that names ``Claim`` does not hash this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from harness.game.rules import LOWEST_TILE, TILES, worms

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
# KEPT_OF[free]: the faces set aside, ascending, when ``free`` is the mask of those not.
KEPT_OF: tuple[tuple[int, ...], ...] = tuple(FACES_OF[ALL_FACES & ~m] for m in range(128))
WORMS = tuple(worms(t) if t >= LOWEST_TILE else 0 for t in range(37))  # WORMS[tile]
# LE[s]: the tiles <= s, as a bit mask over 0..40.
LE = tuple((1 << (s + 1)) - 1 for s in range(41))


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


def claim_key(choice: Claim) -> tuple[int, int]:
    """Sort key of a claim, greatest first: (worms gained + worms the victim loses, tile).

    A rule of thumb for ordering claims, not the worm swing (the change of the margin a
    turn makes, harness.analysis.account: a steal's worms times P / (P - 1)): a steal
    counts its worms twice here, whatever the player count. Named ``swing`` until issue
    31; that name still imports, deprecated, from harness.strategy and harness.view."""
    gain = worms(choice.tile)
    return (2 * gain if choice.victim is not None else gain, choice.tile)


# Public names, shown where strategies import them (see the module docstring).
Claim.__module__ = claim_key.__module__ = "harness.game.view"

# Interned claims, so the engine builds no objects when it offers them.
GRILL_CLAIMS: dict[int, Claim] = {t: Claim(t) for t in TILES}
STEAL_CLAIMS: dict[tuple[int, int], Claim] = {(t, s): Claim(t, s) for t in TILES for s in range(7)}


def legal_claims(
    seat: int, total: int, worm: bool, grill: int, tops: Sequence[int], lower_any: bool
) -> tuple[Claim, ...]:
    """Every legal claim for ``seat`` stopping at ``total``, greatest :func:`claim_key` first (R7).

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
    choices.sort(key=claim_key, reverse=True)
    return tuple(choices)
