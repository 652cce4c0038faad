"""The stored game table: one row per game, the contract between the runner and reports.

Every column is named and typed once, here (:data:`GAME_TYPES`, :data:`SEAT_TYPES`): the
Arrow schema, the typecodes of a played chunk's arrays and the codes of the status and
error-kind columns all derive from these tables.

A run folder (``results/<config name>/<run id>/``) holds ``games/*.parquet`` part files
whose rows all follow this schema, and ``run.json``, the fully resolved config. Read every
game with one call::

    import pandas as pd
    games = pd.read_parquet("results/round_robin/<run id>/games")

Columns (``i`` is a seat, 0 starts; a run has one player count, so ``seat0_`` ..
``seat{players-1}_`` columns exist for every row):

=====================  ========  ====================================================
column                 type      meaning
=====================  ========  ====================================================
table                  string    table id: a digest of its entrants (names, references, params)
deal                   int32     deal index (0-based): deal d has the same dice at every table
seating                int8      index k of the game's seat order in the run's seating
                                 design (run.json ``design``): seat i holds table
                                 entrant ``design[k][i]`` (harness.game.seating)
seed                   int64     the deal's dice seed: config seed and deal only, so
                                 every table and every run with that seed shares it
game_seed              int64     the seed the game was played with (dice and view.rng):
                                 the deal's seed with duplicate dice, one per seat
                                 order with independent dice (``harness play --seed``)
players                int8      players at the table
turns                  int16     turns played
status                 string    "over", "turn-cap" (unfinished) or "forfeit"
winner                 int8      winning seat, -1 for a shared result or no result
error                  string    the forfeit's one-line error, null otherwise
error_seat             int8      the forfeiting seat, -1 if none
error_kind             string    what the forfeit was, null otherwise: "rule" (an illegal
                                 decision), "raised" (the strategy raised), "time" (over
                                 move_time/game_time: depends on the machine), "crash"
                                 (its process died in a decision)
seat{i}_strategy       string    entrant display name in seat i
seat{i}_worms          int8      worms held at the end (R11)
seat{i}_rank           int8      1 = best (R11; a forfeiting seat is last)
seat{i}_busts          int16     busts in the game (R9)
seat{i}_steals         int16     steals made (R7)
seat{i}_stolen         int16     steals suffered
seat{i}_par            float64   the luck and skill account (harness.analysis.account),
seat{i}_luck           float64   null where the run did not keep it: sums over the
seat{i}_wluck          float64   seat's turns of par, luck, win-weighted luck and the
seat{i}_regret_pick    float64   regret of its picks, stop-or-roll decisions and
seat{i}_regret_stop    float64   claims (worms of swing; wluck in win chance), and the
seat{i}_regret_claim   float64   counts of its rolls and of its decisions that offered
seat{i}_rolls          int16     a choice (docs/luck.md)
seat{i}_picks          int16
seat{i}_stops          int16
seat{i}_claims         int16
seat{i}_winluck        float64   the seat's win luck: the sum of the luck of its rolls in
                                 its own chance to win (the win-unit account,
                                 harness.analysis.units), null where the run did not
                                 keep it (only ``luck: win`` does) and in schema 4 parts
seat{i}_winvec         float64   the seat's part of every roll's win luck, its own rolls'
                                 and the other seats': each roll's luck in this seat's
                                 chance under the roller's best play (the vector,
                                 harness.analysis.units); a game's sum over its seats is
                                 0 to rounding; at 2 players ``winluck`` less the other
                                 seat's. Null as ``winluck`` is and in schema 4-5 parts
=====================  ========  ====================================================

Games with status "turn-cap" are unfinished and must not be scored as results.

Part files are named ``<table>-<first deal>.parquet``: reading them in name order gives
rows sorted by table, deal and seat order. Only files listed in the run's
``manifest.jsonl`` are complete results; a run is finished when ``run.json`` says
``"status": "complete"``.

Schema versions: 1 had every column but ``error_kind`` (``game_seed`` was added to its
first draft, a new column, so readers of the draft kept working); 2 adds ``error_kind``
after ``error_seat``; 3 renames ``rotation`` (cyclic: seat i held entrant (i + r) % n) to
``seating`` (the order's index in the run's design, see run.json ``seating`` and
``design``) and derives a deal's seed from (config seed, deal) only, no longer from the
table: rows of schema 1 and 2 are never resumed or reused (their seeds differ); a reader
of an old part maps ``rotation`` to ``seating`` under the cyclic design. Status values
are unchanged. 4 adds the account columns (``seat{i}_par`` .. ``seat{i}_claims``), null
in the rows of a run or table that did not keep the account; parts of schema 1-3 read
them as nulls. 5 adds ``seat{i}_winluck``: the control of luck-adjusted win shares where it
is stored (readers fall back to ``wluck`` where it is null; schema 4 parts read it as
nulls). 6 adds ``seat{i}_winvec``: the control of luck-adjusted win shares where it is
stored, at any player count (readers fall back to ``winluck``, then ``wluck``; schema 4
and 5 parts read it as nulls). Time forfeits (``error_kind ==
"time"``) depend on the machine that played them: count them apart from the others.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 6

# Arrow type names (pyarrow attribute names) of the game columns and of each seat's
# columns, in stored order: the one definition every other view of the schema derives from.
GAME_TYPES = {
    "table": "string",
    "deal": "int32",
    "seating": "int8",
    "seed": "int64",
    "game_seed": "int64",
    "players": "int8",
    "turns": "int16",
    "status": "string",
    "winner": "int8",
    "error": "string",
    "error_seat": "int8",
    "error_kind": "string",
}
# The luck and skill account of a seat (harness.analysis.account.Ledger's fields): kept
# only when the run asks for it, so a part holds these as nulls otherwise.
ACCOUNT_TYPES = {
    "par": "float64",
    "luck": "float64",
    "wluck": "float64",
    "regret_pick": "float64",
    "regret_stop": "float64",
    "regret_claim": "float64",
    "rolls": "int16",
    "picks": "int16",
    "stops": "int16",
    "claims": "int16",
}
# The win-unit account's stored sums (harness.analysis.units.WinAccountant's luck and its
# vector), kept with the account on both engines (account.inc.c keeps them beside the worm
# account); null where the account is not kept and in older parts (schema 4; winvec: 4
# and 5), NaN where the native engine had no evaluator installed.
WIN_ACCOUNT_TYPES = {"winluck": "float64", "winvec": "float64"}
# A table's account when it keeps the win account's luck too (ChunkSpec.account: False,
# True, the worm account alone, or WIN: both).
WIN = "win"
SEAT_TYPES = {
    "strategy": "string",
    "worms": "int8",
    "rank": "int8",
    "busts": "int16",
    "steals": "int16",
    "stolen": "int16",
    **ACCOUNT_TYPES,
    **WIN_ACCOUNT_TYPES,
}
GAME_COLUMNS = tuple(GAME_TYPES)
SEAT_FIELDS = tuple(SEAT_TYPES)

# The status column's values; a played chunk holds each as its index (an int8 code).
STATUSES = ("over", "turn-cap", "forfeit")
STATUS_CODES = {status: code for code, status in enumerate(STATUSES)}
OVER, TURN_CAP, FORFEIT = (STATUS_CODES[s] for s in STATUSES)
# The error_kind column's values; a chunk holds the index, NO_KIND where no seat forfeited.
ERROR_KINDS = ("rule", "raised", "time", "crash")
KIND_CODES = {kind: code for code, kind in enumerate(ERROR_KINDS)}
NO_KIND = -1

# Text columns a played chunk holds as int8 codes into these names.
CODED = {"status": STATUSES, "error_kind": ERROR_KINDS}
# Columns a chunk does not hold as arrays: the same for every row of a chunk (table,
# players), given per forfeit (error) or by the seat order (strategy).
_NOT_ARRAYS = ("table", "players", "error", "strategy", *ACCOUNT_TYPES, *WIN_ACCOUNT_TYPES)
_TYPECODES = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "float64": "d"}


def _arrays(types: dict[str, str], leave: tuple[str, ...] = _NOT_ARRAYS) -> dict[str, str]:
    return {
        name: _TYPECODES["int8" if name in CODED else kind]
        for name, kind in types.items()
        if name not in leave
    }


# What a played chunk holds before it becomes Parquet: array typecodes of the game
# columns and of each seat's columns (both engines fill exactly these).
GAME_ARRAYS = _arrays(GAME_TYPES)
SEAT_ARRAYS = _arrays(SEAT_TYPES)
# ... and of each seat's account, when the chunk keeps one (both engines fill these too).
ACCOUNT_ARRAYS = _arrays(ACCOUNT_TYPES, ())
ACCOUNT_FIELDS = tuple(ACCOUNT_TYPES)
WIN_ACCOUNT_ARRAYS = _arrays(WIN_ACCOUNT_TYPES, ())
WIN_ACCOUNT_FIELDS = tuple(WIN_ACCOUNT_TYPES)


# Columns a part may lack (written before they existed): read as nulls. error_kind came
# with schema 2; a run of schema 1 has no time limits, so its forfeits' kind is unknown.
OPTIONAL_COLUMNS = ("error_kind",)
# Seat fields a part may lack (schema 1-3 parts have no account, schema 4 no winluck, 5 no
# winvec):
# read as nulls.
OPTIONAL_SEAT_FIELDS = ACCOUNT_FIELDS + WIN_ACCOUNT_FIELDS
# Columns renamed since: (new name, old name). A part of schema 1/2 stores the seat
# order's index as ``rotation`` (cyclic design: order r is rotation r); read as ``seating``.
RENAMED_COLUMNS = (("seating", "rotation"),)


def seat_column(seat: int, field: str) -> str:
    """The column of ``field`` for ``seat``: ``seat_column(1, "worms") == "seat1_worms"``."""
    return f"seat{seat}_{field}"


def is_optional(column: str) -> bool:
    """Whether a part may lack ``column`` (written before it existed): read as nulls."""
    if column[4:5].isdigit():
        return column.split("_", 1)[1] in OPTIONAL_SEAT_FIELDS
    return column in OPTIONAL_COLUMNS


def columns(players: int) -> list[str]:
    """Every column of a run with ``players`` seats, in stored order."""
    return list(GAME_COLUMNS) + [
        seat_column(seat, field) for seat in range(players) for field in SEAT_FIELDS
    ]


def column_type(column: str) -> str:
    """The Arrow type name of a column: ``column_type("seat1_worms") == "int8"``.

    Also its pandas dtype name (pandas reads "int8", "string" alike).
    """
    # Seat columns are seat{i}_{field}; "seating" is a game column.
    if column[4:5].isdigit():
        return SEAT_TYPES[column.split("_", 1)[1]]
    return GAME_TYPES[column]


def arrow_schema(players: int) -> Any:
    """The pyarrow schema of a run with ``players`` seats (pyarrow is imported here)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, column_type(name))()) for name in columns(players)])
