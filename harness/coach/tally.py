"""Sums per deal, the unit every interval clusters on: what the coach and the diff share.

A :class:`DealTally` hears the games of some deals (``begin`` a game, ``end`` it) and
keeps one row of sums per deal; a subclass names its fields (``FIELDS``, the first three
``games``, ``forfeits``, ``capped``) and adds what its seat reports between ``begin`` and
``end`` into the game's own row (:attr:`DealTally.game_row`) and its own pending items
(:meth:`DealTally.later`).

**Only completed games count.** A game that ends in a forfeit (any seat's: the bot's,
an opponent's, a crash of the process it was played in, a time limit) is left out of the
figures whole: what was reported during it is dropped at its ``end``, and it is counted
in ``forfeits`` with who forfeited and why (:class:`Forfeit`, :attr:`DealTally.forfeited`).
So every figure per game is per *completed* game (``games``), and says so.

Every reported item gets its place (:class:`Where`: the game and its number in the
game), so the game can be played again to show it: a tally made with ``catch=n`` keeps
the game's n-th item in :attr:`DealTally.caught`. Tallies of disjoint deals merge
(:meth:`DealTally.merge`), in block order by the caller, so sums are the same for any
number of workers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

GAME_FIELDS = ("games", "forfeits", "capped")
#: Who forfeited a game: the bot's own seat (the coach's bot, the diff's A or B in its own
#: games), an opponent's seat, or no seat at all (its process died outside any call).
ROLES = ("bot", "opponent", "none")


@dataclass(frozen=True, order=True)
class Where:
    """An item's place: the game (deal, table, seat order) and its number in the game
    (counted from 0), so that an example can be played again."""

    deal: int
    table: int
    order: int
    index: int


@dataclass(frozen=True)
class Forfeit:
    """Why a game did not complete: who forfeited it (a strategy's name and its role,
    :data:`ROLES`), the kind (``rule``, ``raised``, ``time``, ``crash``) and the line."""

    strategy: str
    role: str
    kind: str
    text: str


class DealTally:
    """Rows of sums per deal (see the module docstring)."""

    FIELDS: ClassVar[tuple[str, ...]] = GAME_FIELDS

    def __init__(self, catch: int | None = None) -> None:
        self.rows: dict[int, list[float]] = {}
        # (strategy, role, kind) -> [games, the first one's line]: in deal order once merged
        self.forfeited: dict[tuple[str, str, str], list[Any]] = {}
        self.catch = catch
        self.caught: tuple[Any, Any] | None = None
        self._at = {name: i for i, name in enumerate(self.FIELDS)}
        self.game_row: list[float] = []  # the game in play's own sums, added at its end
        self._pending: list[Callable[[], None]] = []
        # Games begun and not ended: (deal, table, order) -> (row, pending). The native
        # engine tells a batch's ends after all of its games.
        self._open: dict[tuple[int, int, int], tuple[list[float], list[Any]]] = {}
        self._game = (0, 0, 0)
        self._index = 0

    def begin(self, deal: int, table: int, order: int) -> None:
        """A game of the subject begins: what is reported until the next is this game's."""
        if deal not in self.rows:
            self.rows[deal] = [0.0] * len(self.FIELDS)
        self.game_row = [0.0] * len(self.FIELDS)
        self._pending = []
        self._game = (deal, table, order)
        self._open[self._game] = (self.game_row, self._pending)
        self._index = 0

    def later(self, commit: Callable[[], None]) -> None:
        """Run ``commit`` when the game in play completes (never, if it is forfeited)."""
        self._pending.append(commit)

    def end(
        self,
        deal: int,
        *,
        forfeit: Forfeit | None,
        capped: bool,
        game: tuple[int, int] | None = None,
    ) -> None:
        """A game of ``deal`` ended (``game``: its table and seat order; None: the one
        begun last): completed (its sums added), or forfeited (left out, counted with who
        and why)."""
        key = self._game if game is None else (deal, *game)
        game_row, pending = self._open.pop(key)
        row = self.rows[deal]
        if forfeit is not None:
            row[1] += 1
            key = (forfeit.strategy, forfeit.role, forfeit.kind)
            found = self.forfeited.get(key)
            if found is None:
                self.forfeited[key] = [1, forfeit.text]
            else:
                found[0] += 1
        else:
            for i in range(3, len(row)):
                row[i] += game_row[i]
            row[0] += 1
            if capped:
                row[2] += 1
            for commit in pending:
                commit()

    def forfeit(self, deal: int, table: int, order: int, forfeit: Forfeit) -> None:
        """A game decided as a forfeit without being played (its process died in it, or
        ran out of time there)."""
        self.begin(deal, table, order)
        self.end(deal, forfeit=forfeit, capped=False)

    def __getstate__(self) -> dict[str, Any]:
        """What crosses between processes: the sums, never a game in play."""
        state = dict(self.__dict__)
        state.update(game_row=[], _pending=[], _open={})
        return state

    def place(self, moment: Any, item: Any) -> Where:
        """The place of the item reported now (and the next one's number); caught if asked."""
        index = self._index
        self._index = index + 1
        if index == self.catch:
            self.caught = (moment, item)
        return Where(*self._game, index)

    def merge(self, other: DealTally) -> None:
        """Another tally's deals (disjoint from these) and forfeits."""
        for deal, row in other.rows.items():
            self.rows[deal] = list(row)
        for key, (count, text) in other.forfeited.items():
            found = self.forfeited.get(key)
            if found is None:
                self.forfeited[key] = [count, text]
            else:
                found[0] += count

    def index(self, name: str) -> int:
        return self._at[name]

    def column(self, name: str) -> list[float]:
        """One field per deal, in deal order."""
        at = self._at[name]
        return [self.rows[d][at] for d in sorted(self.rows)]

    def forfeit_rows(self) -> list[dict[str, Any]]:
        """Who forfeited how many games and why, most games first: one row per
        (strategy, role, kind), with the first such game's line."""
        rows = [
            {"strategy": s, "role": r, "kind": k, "games": int(n), "example": text}
            for (s, r, k), (n, text) in self.forfeited.items()
        ]
        return sorted(rows, key=lambda row: (-row["games"], row["strategy"], row["kind"]))


__all__ = ["GAME_FIELDS", "ROLES", "DealTally", "Forfeit", "Where"]
