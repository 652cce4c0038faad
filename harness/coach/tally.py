"""Sums per deal, the unit every interval clusters on: what the coach and the diff share.

A :class:`DealTally` hears the games of some deals (``begin`` a game, ``end`` it) and
keeps one row of sums per deal; a subclass names its fields (``FIELDS``, the first three
``games``, ``forfeits``, ``capped``) and adds what its seat reports between ``begin`` and
``end``. Every reported item gets its place (:class:`Where`: the game and its number in
the game), so the game can be played again to show it: a tally made with ``catch=n`` keeps
the game's n-th item in :attr:`DealTally.caught`. Tallies of disjoint deals merge
(:meth:`DealTally.merge`), in block order by the caller, so sums are the same for any
number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

GAME_FIELDS = ("games", "forfeits", "capped")


@dataclass(frozen=True, order=True)
class Where:
    """An item's place: the game (deal, table, seat order) and its number in the game
    (counted from 0), so that an example can be played again."""

    deal: int
    table: int
    order: int
    index: int


class DealTally:
    """Rows of sums per deal (see the module docstring)."""

    FIELDS: ClassVar[tuple[str, ...]] = GAME_FIELDS

    def __init__(self, catch: int | None = None) -> None:
        self.rows: dict[int, list[float]] = {}
        self.forfeit_lines: list[str] = []  # the subject's forfeits, a line each
        self.catch = catch
        self.caught: tuple[Any, Any] | None = None
        self._at = {name: i for i, name in enumerate(self.FIELDS)}
        self._row: list[float] = []
        self._game = (0, 0, 0)
        self._index = 0

    def begin(self, deal: int, table: int, order: int) -> None:
        """A game of the subject begins: what is reported until the next is this game's."""
        row = self.rows.get(deal)
        if row is None:
            row = self.rows[deal] = [0.0] * len(self.FIELDS)
        self._row = row
        self._game = (deal, table, order)
        self._index = 0
        row[0] += 1

    def end(self, deal: int, *, forfeit: str | None, capped: bool) -> None:
        """A game of ``deal`` ended: a forfeit of the subject's seat (its line), a turn cap."""
        row = self.rows[deal]
        if forfeit is not None:
            row[1] += 1
            self.forfeit_lines.append(forfeit)
        if capped:
            row[2] += 1

    def place(self, moment: Any, item: Any) -> Where:
        """The place of the item reported now (and the next one's number); caught if asked."""
        index = self._index
        self._index = index + 1
        if index == self.catch:
            self.caught = (moment, item)
        return Where(*self._game, index)

    def merge(self, other: DealTally) -> None:
        """Another tally's deals (disjoint from these) and lines."""
        for deal, row in other.rows.items():
            self.rows[deal] = list(row)
        self.forfeit_lines += other.forfeit_lines

    def index(self, name: str) -> int:
        return self._at[name]

    def column(self, name: str) -> list[float]:
        """One field per deal, in deal order."""
        at = self._at[name]
        return [self.rows[d][at] for d in sorted(self.rows)]


__all__ = ["GAME_FIELDS", "DealTally", "Where"]
