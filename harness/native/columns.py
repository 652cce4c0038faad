"""Values as the C code takes and gives them: the columns a batch fills (in the order of
its buffers), the rules and the seating design as plain values, the standings counters
of a chunk, the final boards.

This module is the one Python table of every layout the C code shares with Python:
tests/native/test_c_layout.py writes harness/native/c/layout.inc.c from it (and from the
tables of the rules, the schema and the environments), and fails when the two differ.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.game.rules import MAX_PLAYERS, PRESETS, TILES, Rules
from harness.game.seating import design
from harness.runfolder.schema import (
    ACCOUNT_ARRAYS,
    GAME_ARRAYS,
    SEAT_ARRAYS,
    WIN,
    WIN_ACCOUNT_ARRAYS,
)

# The columns a chunk fills (harness.runfolder.schema), as array typecodes.
GAME_COLUMNS: dict[str, str] = GAME_ARRAYS
SEAT_COLUMNS: dict[str, str] = SEAT_ARRAYS
# The luck account's columns per seat (harness.analysis.account, kept by account.inc.c),
# with the win account's luck and its vector (harness.analysis.units: winluck, winvec),
# kept beside it.
ACCOUNT_COLUMNS: dict[str, str] = {**ACCOUNT_ARRAYS, **WIN_ACCOUNT_ARRAYS}
SEATING = "seating"  # the seat order's index: the schema's seating column

# The order the C code takes their buffers in (not the dicts' order, which is the
# schema's to change): the game columns, each seat's, and each seat's account (its
# float64 sums, then its int16 counts).
GAME_ORDER = (
    "deal", SEATING, "seed", "game_seed", "turns", "status", "winner", "error_seat", "error_kind"
)  # fmt: skip
SEAT_ORDER = ("worms", "rank", "busts", "steals", "stolen")
ACCOUNT_ORDER = (
    "par", "luck", "wluck", "regret_pick", "regret_stop", "regret_claim", "winluck", "winvec",
    "rolls", "picks", "stops", "claims",
)  # fmt: skip

MAX_ORDERS = 127  # the seating column is an int8: a design has at most 127 seat orders
# chunk_stats' counters of a table entrant, in the order the C code gives them; then
# shared[0..players]: the firsts it shared with k players.
STAT_FIELDS = ("games", "wins", "worms", "rank", "forfeits", "capped")
# The bust_flip variant as the C code's flip mode (RULES.md R9).
FLIP_MODES = ("none", "highest", "lowest")
# A game's final board (detail=True): DETAIL_BYTES a game, the grill and the face-down
# tiles as 16-bit masks (tile 21 the lowest bit), then per seat its stack's height and
# its tiles, bottom first (DETAIL_SEAT bytes a seat).
DETAIL_BYTES = 128
DETAIL_HEAD = 4
DETAIL_SEAT = 1 + len(TILES)
assert DETAIL_HEAD + DETAIL_SEAT * MAX_PLAYERS <= DETAIL_BYTES


def evaluator_slot(rules: Rules) -> int:
    """Which of the C engine's installed evaluators judges ``rules``: their preset's
    (its index in PRESETS; a mix of variant keys is judged as the official rules, 0).
    harness.native.evaluators installs in it the model Python's evaluator uses."""
    return list(PRESETS).index(rules.preset_name or "official")


def rules_c(rules: Rules) -> tuple[int, int, int, int, int, int]:
    """(players, lower_any, flip mode, flip_without_tile, keep_returned, evaluator slot)
    for the C code."""
    return (
        rules.players,
        int(rules.lower_tile == "any"),
        FLIP_MODES.index(rules.bust_flip),
        int(rules.flip_without_tile),
        int(rules.returned_tile == "keep"),
        evaluator_slot(rules),
    )


def orders_c(orders: Any, players: int) -> bytes:
    """A seating design as core.c takes it: ``players`` bytes per order, order by order.

    ValueError (one line) unless ``orders`` is 1 to 127 seat orders, each a permutation of
    the table's entrants 0..players-1 given as plain ints. The sequence is read once
    (a sequence that answers differently each time is judged on what it gave); the C
    code checks the bytes again.
    """
    try:
        rows = [tuple(order) for order in orders]
    except TypeError:
        raise ValueError("orders: expected a sequence of seat orders (sequences of ints)") from None
    if not 1 <= len(rows) <= MAX_ORDERS:
        raise ValueError(f"orders: {len(rows)} seat orders; a design has 1 to {MAX_ORDERS}")
    flat = bytearray()
    for k, order in enumerate(rows):
        if not all(type(e) is int for e in order) or sorted(order) != list(range(players)):
            raise ValueError(
                f"orders: order {k} is not a permutation of 0..{players - 1}: {order!r:.60}"
            )
        flat.extend(order)
    return bytes(flat)


def design_c(orders: Sequence[Sequence[int]] | None, players: int) -> bytes:
    """The design as bytes for the C code; None is the cyclic design."""
    return orders_c(design(players, "cyclic") if orders is None else orders, players)


@dataclass
class NativeResult:
    """Columns of the games played, as a chunk stores them, plus the final boards.

    ``games`` and ``seats`` have the keys and typecodes of a
    :class:`~harness.tourney.chunks.ChunkResult`'s; played with ``account=True``, each
    ``seats[i]`` also holds the luck account's columns (:data:`ACCOUNT_COLUMNS`: the
    sums and counts of :class:`harness.analysis.account.Ledger`, bit for bit the
    Accountant's). ``detail`` (when asked for) holds each game's final grill, face-down
    tiles and stacks, read with :meth:`board`.
    """

    games: dict[str, array]
    seats: list[dict[str, array]]
    detail: bytearray | None = None

    @property
    def rows(self) -> int:
        return len(self.games["deal"])

    def board(self, row: int) -> dict[str, list]:
        """The final {"grill", "flipped", "stacks"} of a row (needs ``detail=True``)."""
        if self.detail is None:
            raise ValueError("no boards kept: play with detail=True")
        d = self.detail[row * DETAIL_BYTES : (row + 1) * DETAIL_BYTES]
        grill = d[0] | d[1] << 8
        flipped = d[2] | d[3] << 8
        stacks = []
        for s in range(len(self.seats)):
            at = DETAIL_HEAD + DETAIL_SEAT * s
            stacks.append(list(d[at + 1 : at + 1 + d[at]]))
        return {
            "grill": [t for i, t in enumerate(TILES) if grill >> i & 1],
            "flipped": [t for i, t in enumerate(TILES) if flipped >> i & 1],
            "stacks": stacks,
        }


def zeros(columns: dict[str, str], rows: int) -> dict[str, array]:
    """Zeroed arrays of ``rows`` rows, one per column (name -> typecode)."""
    return {k: array(code, bytes(rows * array(code).itemsize)) for k, code in columns.items()}


def new_columns(
    players: int, rows: int, account: bool | str = False
) -> tuple[dict[str, array], list[dict[str, array]]]:
    """The zeroed game columns and each seat's (with its account's when kept: the win
    account's luck too when ``account`` is "win")."""
    games = zeros(GAME_COLUMNS, rows)
    kept = ACCOUNT_COLUMNS if account == WIN else ACCOUNT_ARRAYS
    seat = {**SEAT_COLUMNS, **kept} if account else SEAT_COLUMNS
    return games, [zeros(seat, rows) for _ in range(players)]


def account_c(seats: list[dict[str, array]], account: bool | str) -> tuple | None:
    """The account's buffers as core.c takes them (None: no account kept; without the
    win account, its winluck and winvec buffers left out: core.c then keeps the worm
    account alone)."""
    if not account:
        return None
    return tuple(s[k] for s in seats for k in ACCOUNT_ORDER if k in s)


def flat(games: dict[str, array], seats: list[dict[str, array]]) -> tuple:
    """The game columns, then each seat's, as core.c takes their buffers."""
    return (*(games[k] for k in GAME_ORDER), *(s[k] for s in seats for k in SEAT_ORDER))
