"""What a turn's ending is worth on a given board: the payoffs of the turn analysis.

A :class:`TurnBoard` is what one turn can see of the game (R7, R9): the face-up grill
tiles, the opponents' top tiles (steals at an exact total) and the player's own top
tile (lost on a bust). It answers which claim a stop at each total makes and builds
the :class:`~harness.analysis.turn.Payoff` of each question the analysis asks:

* ``at_least(t)``: 1 for a turn that ends with a claim at a total >= t, else 0;
* ``exactly(t)``: 1 for a claim at exactly t (e.g. a steal of tile t), else 0;
* ``worms_gained()``: the worms of the claimed tile, or minus the held tile's worms
  on a bust (R9).

The answers do not depend on the RULES.md variants: ``lower_tile: any`` adds lower
tiles to a stop's choices but never one worth more worms or reaching a higher total,
and the bust variants change which grill tile is turned, not what the player loses.
Pure computation (public surface, like :mod:`harness.analysis.turn`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.analysis.turn import Payoff
from harness.errors import HarnessError
from harness.game.board import legal_claims, mask_of
from harness.game.rules import TILES, worms

FULL_GRILL = TILES


@dataclass(frozen=True)
class TurnBoard:
    """The board as one turn sees it: ``grill`` (face-up tiles), ``tops`` (opponents'
    top tiles) and ``held`` (the player's own top tile, or None)."""

    grill: tuple[int, ...] = FULL_GRILL
    tops: tuple[int, ...] = ()
    held: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "grill", tuple(sorted(self.grill)))
        object.__setattr__(self, "tops", tuple(sorted(self.tops)))
        seen: dict[int, str] = {}
        places = [("the grill", t) for t in self.grill] + [
            ("an opponent's top", t) for t in self.tops
        ]
        if self.held is not None:
            places.append(("your top (--held)", self.held))
        for place, tile in places:
            if type(tile) is not int or tile not in TILES:
                raise HarnessError(f"{place}: {tile!r} is not a tile 21-36 (R1)")
            if tile in seen:
                where = "twice" if seen[tile] == place else f"on {seen[tile]} and {place}"
                raise HarnessError(f"tile {tile} is {where}: each tile exists once (R1)")
            seen[tile] = place
        if not self.grill:
            raise HarnessError("the grill is empty: the game is over (R10), no turn to analyse")

    # -- claims (R7) -----------------------------------------------------------------
    def claim(self, total: int) -> tuple[int, bool] | None:
        """The claim worth most worms for a stop at ``total`` with a worm, as (tile,
        is_steal), or None when R7 offers none (:func:`harness.game.board.legal_claims`,
        the player in seat 0 holding ``held``). Equal worms go to the grill tile (a steal
        is worth more to a player who counts the victim's loss; this counts own worms
        only)."""
        tops = (self.held or 0, *self.tops)
        claims = legal_claims(0, total, True, mask_of(self.grill), tops, False)
        if not claims:
            return None
        tile, victim = max(claims, key=lambda c: (worms(c.tile), c.victim is None))
        return tile, victim is not None

    def stoppable(self, total: int) -> bool:
        return self.claim(total) is not None

    def gain(self, total: int) -> int:
        """Worms gained by stopping at ``total`` (0 if no claim: see :meth:`stoppable`)."""
        found = self.claim(total)
        return worms(found[0]) if found else 0

    @property
    def bust_gain(self) -> int:
        """Worms gained by a bust: minus the held tile's (R9)."""
        return -worms(self.held) if self.held is not None else 0

    # -- payoffs ---------------------------------------------------------------------
    def at_least(self, target: int) -> Payoff:
        return self._payoff(lambda s: 1 if s >= target else 0, 0)

    def exactly(self, target: int) -> Payoff:
        return self._payoff(lambda s: 1 if s == target else 0, 0)

    def worms_gained(self) -> Payoff:
        return self._payoff(self.gain, self.bust_gain)

    def _payoff(self, value, bust: int) -> Payoff:  # noqa: ANN001
        return Payoff.from_function(lambda s: value(s) if self.stoppable(s) else None, bust)

    def describe(self) -> str:
        grill = tile_ranges(self.grill)
        tops = ", ".join(map(str, self.tops)) or "none"
        held = self.held if self.held is not None else "none"
        return f"grill {grill}; opponents' tops {tops}; held {held}"


def tile_ranges(tiles: Iterable[int]) -> str:
    """Tiles written compactly: 21-24,27,30-36."""
    tiles = sorted(tiles)
    parts: list[str] = []
    i = 0
    while i < len(tiles):
        j = i
        while j + 1 < len(tiles) and tiles[j + 1] == tiles[j] + 1:
            j += 1
        parts.append(str(tiles[i]) if i == j else f"{tiles[i]}-{tiles[j]}")
        i = j + 1
    return ",".join(parts) or "-"


def parse_tiles(text: str, what: str) -> tuple[int, ...]:
    """Tiles from ``21-24,27,30-36`` (spaces also separate); one-line error if malformed."""
    return parse_numbers(text, what, TILES, "a tile 21-36 (R1)")


def parse_numbers(text: str, what: str, allowed: Iterable[int], noun: str) -> tuple[int, ...]:
    """Numbers and ranges ``a-b`` separated by commas or spaces, each in ``allowed``."""
    allowed = set(allowed)
    found: list[int] = []
    for part in text.replace(",", " ").split():
        low, sep, high = part.partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise HarnessError(f"{what}: {part!r} is not a number or a range, e.g. 21-24,27")
        a, b = int(low), int(high) if sep else int(low)
        if a > b:
            raise HarnessError(f"{what}: {part!r} is an empty range; write low-high")
        for n in range(a, b + 1):
            if n not in allowed:
                raise HarnessError(f"{what}: {n} is not {noun}")
            if n in found:
                raise HarnessError(f"{what}: {n} given twice")
            found.append(n)
    return tuple(found)
