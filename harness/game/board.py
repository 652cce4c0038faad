"""The board as plain values, for engines: bit masks, interned tuples, claims and the board.

Private to the engines (harness.game.engine, harness.game.turn, and the views they feed):
the encoding the engine keeps its board in (bit t = tile t, bit f = face f), the tables
that decode it without allocating, :func:`legal_claims`, the one definition of what a
stop can claim (R7), which the turn, the engine's questions and
:class:`harness.view.View` all use, and :class:`Board`, one game's board (grill, face-down
tiles, stacks, tops, scores) with the two moves that change it: taking a claim (R7) and
a bust (R9, with its variants). Nothing here is part of the plugin API: strategies see
the decoded values through their view; observers are handed the board to read
(:meth:`harness.game.engine.GameObserver.handed`).

:class:`Claim` and :func:`claim_key` are public, and are exported by harness.game.view
(imported as harness.view and harness.strategy) under that module's name: code digests treat
the view as the versioned API, so a plugin that names ``Claim`` does not hash this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from harness.game.rules import LOWEST_TILE, TILES, VARIANTS, Rules, worms

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
GRILL_CLAIM: tuple[Claim | None, ...] = tuple(GRILL_CLAIMS.get(t) for t in range(37))  # by tile
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
    below = grill & (LE[total] if 0 <= total <= 40 else LE[max(0, min(total, 40))])
    if not lower_any:  # one grill tile at most: the order is known without sorting
        if total in tops and total:  # (0 marks an empty stack: no tile to steal)
            victim = tops.index(total)
            if victim != seat:
                # A steal's tile is the total, so a grill tile <= total is lower: the
                # steal first, as swing orders them (twice its worms against at most as many).
                if below:
                    return (STEAL_CLAIMS[total, victim], GRILL_CLAIM[below.bit_length() - 1])
                return (STEAL_CLAIMS[total, victim],)
        return (GRILL_CLAIM[below.bit_length() - 1],) if below else ()
    choices: list[Claim] = []
    if below:
        if lower_any:
            choices.extend(GRILL_CLAIMS[t] for t in tiles_of(below))
        else:
            choices.append(GRILL_CLAIMS[below.bit_length() - 1])
    if total in tops and total:
        victim = tops.index(total)
        if victim != seat:
            choices.append(STEAL_CLAIMS[total, victim])
    choices.sort(key=claim_key, reverse=True)
    return tuple(choices)


# -- one game's board (R1, R7, R9-R11) ---------------------------------------------------------
FULL_GRILL_MASK = sum(1 << t for t in TILES)
ONE = tuple((t,) for t in range(37))  # ONE[tile]: (tile,), interned (no allocation per claim)
HIGHEST, LOWEST = 1, 2  # which grill tile a bust turns face down (bust_flip), 0: none
# Rules variants as flags: (lower_any, flip_mode, flip_without_tile, keep_returned), by
# (lower_tile, bust_flip, flip_without_tile, returned_tile).
VARIANT_FLAGS = {
    (lower, flip, without, returned): (
        lower == "any",
        {"highest": HIGHEST, "lowest": LOWEST, "none": 0}[flip],
        without,
        returned == "keep",
    )
    for lower in VARIANTS["lower_tile"]
    for flip in VARIANTS["bust_flip"]
    for without in VARIANTS["flip_without_tile"]
    for returned in VARIANTS["returned_tile"]
}


class Board:
    """One game's board, as its game keeps it: the face-up grill and the face-down tiles
    (bit masks), every seat's stack (a tuple, bottom to top), top tile (0: none) and worms,
    and the counts a result reports (busts, steals made, tiles stolen).

    A game owns its board; its turns (:class:`harness.game.turn.Turn`) change it, by a
    claim (R7) or a bust (R9, with the rules' variants: ``lower_any``, ``flip_mode``,
    ``flip_without_tile``, ``keep_returned`` here); whoever else is handed it (an observer,
    a stepped game's caller) reads it. Plain attributes, for the engine's hot loop;
    :meth:`copy` gives a board of one's own (a solver's branch).
    """

    __slots__ = (
        "players", "lower_any", "grill", "flipped", "stacks", "tops", "scores",
        "busts", "steals", "stolen", "flip_mode", "flip_without_tile", "keep_returned",
    )  # fmt: skip

    def __init__(self, rules: Rules) -> None:
        """The board a game of ``rules`` starts from: every tile face up (R1), no stacks."""
        n = self.players = rules.players
        self.lower_any, self.flip_mode, self.flip_without_tile, self.keep_returned = VARIANT_FLAGS[
            rules.lower_tile, rules.bust_flip, rules.flip_without_tile, rules.returned_tile
        ]
        self.grill = FULL_GRILL_MASK
        self.flipped = 0
        self.stacks: list[tuple[int, ...]] = [()] * n  # immutable stacks: views share them
        self.tops = [0] * n
        self.scores = [0] * n
        self.busts = [0] * n
        self.steals = [0] * n
        self.stolen = [0] * n

    @property
    def over(self) -> bool:
        """No face-up tile is left on the grill: the game is over (R10)."""
        return not self.grill

    def copy(self) -> Board:
        """A board of one's own, equal to this one (lists copied; tuples are shared)."""
        other = object.__new__(Board)
        for name in Board.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if type(value) is list else value)
        return other

    def load(self, grill: int, flipped: int, stacks: Sequence[tuple[int, ...]]) -> None:
        """Take in a board another engine played (the C engine's, at a Python seat's
        question): the grill and face-down masks and every stack; tops and scores follow
        (R11). The counts (busts, steals) are that engine's and are not touched."""
        self.grill, self.flipped = grill, flipped
        self.stacks = list(stacks)
        self.tops = [s[-1] if s else 0 for s in stacks]
        self.scores = [sum(WORMS[t] for t in s) for s in stacks]

    def claims(self, seat: int, total: int) -> tuple[Claim, ...]:
        """Every claim ``seat`` may make stopping at ``total`` with a worm (R7)."""
        return legal_claims(seat, total, True, self.grill, self.tops, self.lower_any)

    def problem(self) -> str | None:
        """What breaks R1/R11 on this board, in one line, or None: every tile in exactly
        one place, scores the worms stacked, each seat's top its stack's last tile."""
        seen = self.grill | self.flipped
        count = self.grill.bit_count() + self.flipped.bit_count()
        for seat, stack in enumerate(self.stacks):
            for tile in stack:
                seen |= 1 << tile
            count += len(stack)
            if self.scores[seat] != sum(WORMS[t] for t in stack):
                return f"seat {seat}: score differs from the worms stacked (R11)"
            if self.tops[seat] != (stack[-1] if stack else 0):
                return f"seat {seat}: top tile differs from its stack (R7)"
        if seen != FULL_GRILL_MASK or count != len(TILES):
            return "tiles lost or duplicated: 16 tiles must stay in play (R1)"
        return None


def settle_claim(board: Board, seat: int, tile: int, victim: int | None) -> None:
    """R7 on ``board``: ``tile`` onto ``seat``'s stack, from the grill (``victim`` None)
    or from the top of ``victim``'s stack (a steal). The one place a claim changes a
    board: the turn's stop and every solver's branch (``harness.winprob``) call it."""
    if victim is None:
        board.grill ^= 1 << tile
    else:
        board.stacks[victim] = stack = board.stacks[victim][:-1]
        board.tops[victim] = stack[-1] if stack else 0
        board.scores[victim] -= WORMS[tile]
        board.steals[seat] += 1
        board.stolen[victim] += 1
    board.stacks[seat] += ONE[tile]
    board.tops[seat] = tile
    board.scores[seat] += WORMS[tile]


def settle_bust(board: Board, seat: int) -> tuple[int | None, int | None]:
    """R9 on ``board`` with the rules' variants: ``seat``'s top tile (if any) back on the
    grill face up, then the highest face-up grill tile (``bust_flip``: or the lowest, or
    none) turned face down, unless it is the tile just returned (``returned_tile:
    keep``) or the seat had no tile (unless ``flip_without_tile``). Returns (the tile
    returned, the tile turned), each None when there is none. The one place a bust
    changes a board, as :func:`settle_claim` for claims."""
    board.busts[seat] += 1
    stack = board.stacks[seat]
    returned = turned = None
    if stack:
        returned = stack[-1]
        board.stacks[seat] = stack = stack[:-1]
        board.tops[seat] = stack[-1] if stack else 0
        board.scores[seat] -= WORMS[returned]
        board.grill |= 1 << returned
        flip = True
    else:
        flip = board.flip_without_tile
    grill = board.grill
    if flip and board.flip_mode and grill:
        if board.flip_mode == HIGHEST:
            target = grill.bit_length() - 1
        else:
            target = (grill & -grill).bit_length() - 1
        if target != returned or not board.keep_returned:
            board.grill = grill ^ (1 << target)
            board.flipped |= 1 << target
            turned = target
    return returned, turned
