"""A chunk's result: its columns, the helpers that cut and join them, and its counters.

:class:`ChunkResult` is what :func:`harness.tourney.chunks.play_chunk` returns and what
every backend ships between processes and stores: arrays per column (the run folder
schema's, :mod:`harness.runfolder.schema`), a few strings, no per-game objects.
:func:`chunk_stats` counts the standings of its rows in Python (:func:`finish` uses the
native engine's count of the same where the extension is built).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from harness.errors import GameError, IllegalMove
from harness.game.ranking import Counts
from harness.game.seating import Design, design
from harness.runfolder.schema import (
    ACCOUNT_ARRAYS,
    GAME_ARRAYS,
    KIND_CODES,
    SEAT_ARRAYS,
    TURN_CAP,
    WIN,
    WIN_ACCOUNT_ARRAYS,
)
from harness.tourney.plan import ChunkSpec


@dataclass
class ChunkResult:
    """The compact result of a chunk: rows ordered by deal, then seat order index.

    ``games`` holds the game columns, ``seats[i]`` the columns of seat i; ``errors``
    maps a row to its forfeit message; ``stats[e]`` sums up table entrant e (the spec's
    ``entrants[e]``) for the standings; ``cpu`` is the worker's CPU seconds; ``loaded`` the
    sorted code digests of the user (not built-in) strategy code that was loaded in the
    process that played it, when it finished (see :func:`loaded_code`). ``times`` is the
    decision times of its user strategies by name (:mod:`harness.runfolder.timing`, the
    manifest line's ``timing``); ``output`` the characters of output each strategy wrote
    (its ``print()`` and logging: run.log keeps at most 64 kB a chunk), by name.
    """

    key: str
    games: dict[str, array]
    seats: list[dict[str, array]]
    errors: dict[int, str] = field(default_factory=dict)
    stats: list[Counts] = field(default_factory=list)
    cpu: float = 0.0
    loaded: list[str] = field(default_factory=list)
    engine: str = "python"  # which engine played the rows ("native" or "python")
    times: dict[str, Any] = field(default_factory=dict)
    output: dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(self.games["deal"])


def empty_result(spec: ChunkSpec) -> ChunkResult:
    """A result with no rows yet, with every column (the account's when the spec keeps
    it, and the win account's luck when it keeps that: ``account == "win"``)."""
    games = {name: array(code) for name, code in GAME_ARRAYS.items()}
    seat_arrays = {**SEAT_ARRAYS, **ACCOUNT_ARRAYS} if spec.account else SEAT_ARRAYS
    if spec.account == WIN:  # the win account's luck, kept beside the worm account
        seat_arrays = {**seat_arrays, **WIN_ACCOUNT_ARRAYS}
    seats = [
        {name: array(code) for name, code in seat_arrays.items()} for _ in range(spec.rules.players)
    ]
    return ChunkResult(spec.key, games, seats)


def rows_of(result: ChunkResult, start: int, stop: int, offset: int = 0) -> ChunkResult:
    """Rows ``start``..``stop - 1`` of a result's arrays (errors keyed by chunk row: the
    arrays' first row is chunk row ``offset``)."""
    games = {k: v[start:stop] for k, v in result.games.items()}
    seats = [{k: v[start:stop] for k, v in s.items()} for s in result.seats]
    errors = {r: e for r, e in result.errors.items() if offset + start <= r < offset + stop}
    return ChunkResult(result.key, games, seats, errors)


def extend(into: ChunkResult, part: ChunkResult) -> None:
    """Append a part's rows (the rows that follow ``into``'s) in place."""
    for name, values in part.games.items():
        into.games[name].extend(values)
    for mine, theirs in zip(into.seats, part.seats, strict=True):
        for name, values in theirs.items():
            mine[name].extend(values)
    into.errors.update(part.errors)


def finish(spec: ChunkSpec, result: ChunkResult) -> ChunkResult:
    """Fill in the standings counters of a whole chunk.

    Counted in C where the native extension is built (the same integers: tests check
    it): in the parent of a fast run, counting a million rows in Python was a third of
    its CPU.
    """
    from harness import native

    if native.available() and result.rows:
        result.stats = native.column_counts(
            result.games, result.seats, spec.rules.players, spec.orders
        )
    else:
        result.stats = chunk_stats(result, spec.rules.players, spec.orders)
    return result


def win_control_of(result: ChunkResult) -> Any:
    """Each game's win-share control per seat, (rows, seats):
    :func:`harness.stats.win_control` of the columns the chunk kept (the vector and the
    win luck under ``luck: win``, either engine, then the worm account's win-weighted
    luck); None: the chunk kept no account. A column kept but empty (not played for)
    counts as not kept. What ``harness sprt`` and ``harness tune`` adjust a chunk's
    points by, as the report adjusts stored games."""
    import numpy as np

    from harness.stats import win_control

    seats = result.seats
    if "wluck" not in seats[0]:
        return None

    def kept(name: str) -> Any:
        if not len(seats[0].get(name, ())):
            return None
        return np.stack([np.asarray(s[name], dtype=float) for s in seats], axis=1)

    return win_control(kept("wluck"), kept("winluck"), kept("winvec"))


def kind_code(exc: GameError) -> int:
    """The error_kind code of a forfeit (GameError.kind; by class for older errors)."""
    kind = getattr(exc, "kind", None)
    if kind not in KIND_CODES:
        kind = "rule" if isinstance(exc, IllegalMove) else "raised"
    return KIND_CODES[kind]


def chunk_stats(result: ChunkResult, n: int, orders: Design | None = None) -> list[Counts]:
    """Per table entrant (``orders[k][seat]`` of a row in order k), its
    :class:`~harness.game.ranking.Counts` of the chunk's rows. ``orders``: the chunk's design
    (None: the cyclic one). The native engine counts the same in C
    (:func:`harness.native.column_counts`); tests hold the two to the same integers."""
    orders = orders if orders is not None else design(n, "cyclic")
    # Per entrant: games, sole firsts, worms, rank, forfeits, capped; firsts shared by k.
    games, sole, worms_sum, rank_sum, forfeits, capped = ([0] * n for _ in range(6))
    shared = [[0] * (n + 1) for _ in range(n)]
    seating, status, error_seat = (
        result.games["seating"],
        result.games["status"],
        result.games["error_seat"],
    )
    worms = [s["worms"] for s in result.seats]
    ranks = [s["rank"] for s in result.seats]
    for row in range(result.rows):
        order = orders[seating[row]]
        if status[row] == TURN_CAP:  # unfinished, never scored
            for i in range(n):
                capped[order[i]] += 1
            continue
        firsts = [i for i in range(n) if ranks[i][row] == 1]
        for i in range(n):
            e = order[i]
            games[e] += 1
            worms_sum[e] += worms[i][row]
            rank_sum[e] += ranks[i][row]
        if len(firsts) == 1:
            sole[order[firsts[0]]] += 1
        else:
            for i in firsts:
                shared[order[i]][len(firsts)] += 1
        if error_seat[row] >= 0:
            forfeits[order[error_seat[row]]] += 1
    return [
        Counts.from_firsts(
            games[e], sole[e], shared[e], worms_sum[e], rank_sum[e], forfeits[e], capped[e]
        )
        for e in range(n)
    ]
