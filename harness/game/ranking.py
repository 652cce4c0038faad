"""The one ranking of entrants, and the per-entrant counts it ranks.

Ground floor (rules only; numpy when counting stored columns): the terminal standings
(:mod:`harness.tourney.standings`, ``summary.csv``) and the report
(:mod:`harness.report.summaries.summary`) both count entrants in :class:`Counts` (so do
both engines, per chunk) and order them with :func:`order`, so a tie comes out in the same order
everywhere. Counts are integers, win points included (in units of 1/:data:`POINT`), so
sums are exact in any order and two entrants tied on the stored games compare equal in
every program that counted them, whatever order it added the games in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from harness.game.rules import MAX_PLAYERS

if TYPE_CHECKING:
    import numpy as np

# A first place shared by k players is worth 1/k of a win: in units of 1/POINT every such
# share is a whole number for every table size (lcm(1..7) = 420), so win points add up
# exactly, as the other counts do.
POINT = math.lcm(*range(1, MAX_PLAYERS + 1))


@dataclass(frozen=True)
class Counts:
    """One entrant's counts over some stored games (turn-capped games are never scored).

    ``games`` scored games; ``points`` win points in units of 1/POINT (a sole first is
    POINT, a first shared by k is POINT // k); ``worms`` and ``rank`` the sums of its
    scores and finishing places; ``forfeits`` scored games it forfeited; ``capped`` its
    turn-capped games, counted apart.
    """

    games: int = 0
    points: int = 0
    worms: int = 0
    rank: int = 0
    forfeits: int = 0
    capped: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def wins(self) -> float:
        """Win points: sole firsts plus 1/k for each first shared by k players."""
        return self.points / POINT

    @property
    def win_share(self) -> float:
        return self.points / (POINT * self.games) if self.games else 0.0

    @property
    def mean_worms(self) -> float:
        return self.worms / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank / self.games if self.games else 0.0

    @classmethod
    def of(cls, value: Counts | Mapping[str, Any]) -> Counts:
        """A Counts from itself, or from the older counter mapping (games, wins, shared, ...).

        ``shared[k]`` of the mapping counts firsts shared by k players (the shape chunk
        counters had before they were Counts; see :meth:`from_firsts`).
        """
        if isinstance(value, Counts):
            return value
        return cls.from_firsts(
            value["games"],
            value["wins"],
            value.get("shared") or [],
            value["worms"],
            value["rank"],
            value.get("forfeits", 0),
            value.get("capped", 0),
        )

    @classmethod
    def from_firsts(
        cls,
        games: int,
        sole: int,
        shared: Sequence[int],
        worms: int,
        rank: int,
        forfeits: int = 0,
        capped: int = 0,
    ) -> Counts:
        """Counts from a chunk's counters: ``sole`` firsts and ``shared[k]`` firsts shared
        by k players (what both engines count per entrant), the rest as in Counts."""
        points = sole * POINT + sum(n * (POINT // k) for k, n in enumerate(shared) if k)
        return cls(
            games=int(games),
            points=int(points),
            worms=int(worms),
            rank=int(rank),
            forfeits=int(forfeits),
            capped=int(capped),
        )


def rank_key(name: str, counts: Counts, rating: float | None = None) -> tuple[Any, ...]:
    """The one order of entrants; :func:`order` sorts by it. Best first:

    1. entrants with scored games before those without (0 games say nothing);
    2. the rating, higher first, only where one is given (a gauntlet: its field never
       meets, so win shares taken against different opponents are not compared);
    3. win share, higher first: the tournament's measure;
    4. mean rank, lower first: the rest of the finishing order (R11 decides places on
       worms and then the highest tile), so among equal win shares the entrant with the
       better places goes first (at two players: the one that loses less often, its
       equal share coming from more shared firsts); places are what the rating measures;
    5. mean worms, higher first: the score, a means to a place, only when places tie;
    6. the name, so that the order is total and the same in every program.

    Shares and means are compared as exact fractions of the integer counts: two entrants
    tied on the stored games are tied here, never split by float rounding.
    """
    games = counts.games
    if not games:
        return (True, 0.0, Fraction(0), Fraction(0), Fraction(0), name)
    elo = rating if rating is not None and math.isfinite(rating) else -math.inf
    return (
        False,
        -elo if rating is not None else 0.0,
        -Fraction(counts.points, POINT * games),
        Fraction(counts.rank, games),
        -Fraction(counts.worms, games),
        name,
    )


def order(
    counts: Mapping[str, Counts], ratings: Mapping[str, float | None] | None = None
) -> list[str]:
    """The entrants' names, best first, by :func:`rank_key` (ratings: a gauntlet's order).

    An entrant without a rating (missing, None or nan) goes after every rated one.
    """

    def key(name: str) -> tuple[Any, ...]:
        if ratings is None:
            return rank_key(name, counts[name])
        rating = ratings.get(name)
        return rank_key(name, counts[name], math.nan if rating is None else rating)

    return sorted(counts, key=key)


def count_games(
    capped: np.ndarray,
    error_seat: np.ndarray,
    strategies: Sequence[np.ndarray],
    worms: Sequence[np.ndarray],
    ranks: Sequence[np.ndarray],
) -> dict[str, Counts]:
    """Per-entrant counts of some stored games, one array per column (seat i: index i).

    ``capped`` marks turn-capped games (counted apart, never scored); ``error_seat`` is the
    forfeiting seat or -1.
    """
    # Imported here: the engines build Counts per chunk and should not load numpy for it.
    import numpy as np

    players = len(strategies)
    capped = np.asarray(capped, dtype=bool)
    scored = ~capped
    error_seat = np.asarray(error_seat)
    rank = [np.asarray(r, dtype=np.int64) for r in ranks]
    firsts = np.zeros(len(capped), dtype=np.int64)
    for r in rank:
        firsts += r == 1
    # A seat's win points in a game: POINT // (players sharing first) when it is first.
    share = np.zeros(players + 1, dtype=np.int64)
    share[1:] = [POINT // k for k in range(1, players + 1)]
    share_of_game = share[np.minimum(firsts, players)]
    out: dict[str, Counts] = {}
    for seat in range(players):
        names = np.asarray(strategies[seat], dtype=object)
        seat_worms = np.asarray(worms[seat], dtype=np.int64)
        first = scored & (rank[seat] == 1)
        for name in dict.fromkeys(names.tolist()):  # first-seen order, no sorting of objects
            mine = names == name
            played = mine & scored
            here = Counts(
                games=int(played.sum()),
                points=int(share_of_game[mine & first].sum()),
                worms=int(seat_worms[played].sum()),
                rank=int(rank[seat][played].sum()),
                forfeits=int((played & (error_seat == seat)).sum()),
                capped=int((mine & capped).sum()),
            )
            key = str(name)
            out[key] = out[key] + here if key in out else here
    return out


def add_counts(totals: dict[str, Counts], counts: Mapping[str, Counts | Mapping[str, Any]]) -> None:
    """Add some games' per-entrant counts to ``totals`` (in place; Counts are immutable)."""
    for name, c in counts.items():
        c = Counts.of(c)
        totals[name] = totals[name] + c if name in totals else c


def zero_counts(names: Iterable[str]) -> dict[str, Counts]:
    """Zeroed counts for every entrant (so each appears in the standings, even at 0)."""
    return {name: Counts() for name in names}
