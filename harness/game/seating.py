"""Seating: the seat orders in which every deal of a table is played (pure; ground floor).

A **deal** is one set of dice (one deal seed, :func:`deal_seed`)
played once in every seat order of a design: the games of a deal are the unit that
tournaments chunk, resume and store, that the report's intervals cluster on and that sprt
scores. This is the one word for it in code, docstrings and messages. (Older names for
the same thing: a "block" in sprt, a "cluster" or "unit" in the statistics.)

A table's entrants are numbered 0..n-1 (their order at seat order 0, see
:func:`harness.tourney.plan.table_of`). A seating design is a tuple of seat orders; order
``k`` puts table entrant ``design[k][i]`` in seat ``i`` (:func:`seats_of`, the one place
that mapping is written), and every deal is played once in every order of the design
(the stored ``seating`` column is ``k``). The native engine plays the same designs, so
this room sits below both engines and the tourney room. Turn order is
circular: seat n-1 is followed by seat 0, so "A plays immediately before B" means A sits
in seat i and B in seat (i + 1) % n, the last seat included.

* ``cyclic``: the n rotations of one order, seat i holds entrant (i + k) % n. Every
  entrant sits in every seat once, but the relative order never changes: at 3+ players
  entrant 0 always plays just before entrant 1 (a bust of 0 can hand 1 a tile; 1 is the
  first who may steal 0's top tile, R7).
* ``balanced``: every ordered pair of entrants is adjacent (A immediately before B)
  equally often, and every entrant sits in every seat equally often. The designs below
  have n(n-1) orders, the fewest possible: a game has n adjacent pairs, so g games cover
  the n(n-1) ordered pairs equally only if g*n = lam*n(n-1), that is g = lam(n-1); every
  entrant in every seat equally often needs g = mu*n; n-1 and n are coprime, so g is a
  multiple of n(n-1). They were found by an integer programme (every permutation used at
  most once; for n = 3 it is all six) and are checked exactly by the tests
  (tests/game/test_seating.py): each ordered pair adjacent n times, each entrant in each
  seat n-1 times. A Williams square would balance only linear neighbours; the
  Hamiltonian-cycle construction needs 2n(n-1) orders at n = 4 and 6.
* ``permutations``: all n! orders, at most :data:`MAX_PERMUTATION_PLAYERS` players
  (120 orders a deal at 5; 720 at 6 would make one deal cost as much as 360 two-player
  deals, and the stored order index is an int8).

With 2 players the three are the same design: (0, 1) and (1, 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import permutations
from typing import TypeVar

from harness.game.dice import derive_seed
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS

SEATINGS = ("balanced", "cyclic", "permutations")
DEFAULT_SEATING = "balanced"
MAX_PERMUTATION_PLAYERS = 5
SEED_MASK = (1 << 63) - 1  # seeds are stored as int64


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal``: its duplicate dice key, shared by every seat order, every
    table and every run with this config seed (who plays never enters it)."""
    return derive_seed(seed, "deal", deal) & SEED_MASK


def game_seed(deal: int, order: int, dice: str) -> int:
    """The seed game (deal with seed ``deal``, seat order ``order``) is played with
    (``harness play --seed``): dice and ``view.rng``.

    With duplicate dice it is the deal's seed itself (the dice are keyed by it); with
    independent dice each order index gets its own stream (the same at every table).
    """
    if dice == "duplicate":
        return deal
    return derive_seed(deal, "rotation", order) & SEED_MASK  # "rotation": as schema 2 keyed it


# Balanced designs for 4..7 players, one order per string (entrant of seat 0, 1, ...).
_BALANCED = {
    4: "0123 0132 0231 1032 1203 1302 2013 2301 2310 3021 3120 3210",
    5: (
        "01243 01342 01432 02143 12043 12304 12403 13204 23014 23104 "
        "23410 24310 30421 34021 34120 34210 40132 40231 40321 41032"
    ),
    6: (
        "012543 013254 013542 014253 023154 123054 124053 124305 125304 134205 "
        "230415 234105 235104 235410 245310 340215 340521 341520 345210 350421 "
        "401532 450321 451032 451320 452031 501432 502143 502431 503142 512043"
    ),
    7: (
        "0125463 0132654 0135264 0136425 0136542 0142653 1236504 1240536 1240653 "
        "1243065 1246305 1253064 2340615 2350416 2351064 2351640 2354106 2364105 "
        "3405216 3451026 3461520 3462051 3462105 3465210 4502631 4503162 4503216 "
        "4506321 4516320 4562130 5603241 5610432 5613042 5614203 5614320 5620431 "
        "6014352 6021543 6024153 6025314 6025431 6031542"
    ),
}

Design = tuple[tuple[int, ...], ...]
T = TypeVar("T")


def seating_problem(mode: object, players: int) -> str | None:
    """What is wrong with ``seating: mode`` at ``players`` players, or None."""
    if mode not in SEATINGS:
        return f"seating: expected one of {', '.join(SEATINGS)}, got {mode!r}"
    if mode == "permutations" and players > MAX_PERMUTATION_PLAYERS:
        return (
            f"seating: permutations plays all {players}! orders of every deal; at most "
            f"{MAX_PERMUTATION_PLAYERS} players (use balanced: {players * (players - 1)} "
            "orders, every neighbour pair and seat equally often)"
        )
    return None


@cache
def design(players: int, mode: str = DEFAULT_SEATING) -> Design:
    """The seat orders of a deal: ``design(n, mode)[k][i]`` is the table entrant in seat i.

    ValueError for an unknown mode or a player count it does not cover (2..7).
    """
    problem = seating_problem(mode, players)
    if problem is not None:
        raise ValueError(problem)
    n = players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"seating: {n} players; the designs cover {MIN_PLAYERS} to {MAX_PLAYERS}")
    if mode == "cyclic" or n == 2:
        return tuple(tuple((i + k) % n for i in range(n)) for k in range(n))
    if mode == "permutations" or n == 3:  # at 3 players balanced is all six orders
        return tuple(permutations(range(n)))
    return tuple(tuple(int(c) for c in order) for order in _BALANCED[n].split())


def seats_of(items: Sequence[T], order: Sequence[int]) -> list[T]:
    """``items`` (one per table entrant) in seat order: seat i gets ``items[order[i]]``."""
    return [items[e] for e in order]


def by_entrant(seated: Sequence[T], order: Sequence[int]) -> list[T]:
    """The inverse of :func:`seats_of`: ``seated`` (one per seat of a game in ``order``)
    by table entrant, entrant ``order[i]`` getting ``seated[i]``."""
    out: list[T] = list(seated)
    for seat, entrant in enumerate(order):
        out[entrant] = seated[seat]
    return out


def adjacency(orders: Design) -> dict[tuple[int, int], int]:
    """How often entrant a plays immediately before entrant b (circular turn order)."""
    counts: dict[tuple[int, int], int] = {}
    for order in orders:
        n = len(order)
        for i in range(n):
            pair = (order[i], order[(i + 1) % n])
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def seat_counts(orders: Design) -> dict[tuple[int, int], int]:
    """How often entrant e sits in seat i: ``{(e, i): count}``."""
    counts: dict[tuple[int, int], int] = {}
    for order in orders:
        for seat, entrant in enumerate(order):
            counts[(entrant, seat)] = counts.get((entrant, seat), 0) + 1
    return counts


__all__ = [
    "DEFAULT_SEATING",
    "MAX_PERMUTATION_PLAYERS",
    "SEATINGS",
    "Design",
    "adjacency",
    "by_entrant",
    "design",
    "seat_counts",
    "seating_problem",
    "seats_of",
]
