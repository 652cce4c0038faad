"""The stored game table: one row per game, the contract between the runner and reports.

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
                                 entrant ``design[k][i]`` (harness.tourney.seating)
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
are unchanged. Time forfeits (``error_kind ==
"time"``) depend on the machine that played them: count them apart from the others.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 3

GAME_COLUMNS = (
    "table",
    "deal",
    "seating",
    "seed",
    "game_seed",
    "players",
    "turns",
    "status",
    "winner",
    "error",
    "error_seat",
    "error_kind",
)
SEAT_FIELDS = ("strategy", "worms", "rank", "busts", "steals", "stolen")
STATUSES = ("over", "turn-cap", "forfeit")
ERROR_KINDS = ("rule", "raised", "time", "crash")
# What a played chunk holds before it becomes Parquet: array typecodes of the game
# columns and of each seat's columns (both engines fill exactly these).
GAME_ARRAYS = {
    "deal": "i",
    "seating": "b",
    "seed": "q",
    "game_seed": "q",
    "turns": "h",
    "status": "b",
    "winner": "b",
    "error_seat": "b",
    "error_kind": "b",
}
SEAT_ARRAYS = {"worms": "b", "rank": "b", "busts": "h", "steals": "h", "stolen": "h"}


def seat_column(seat: int, field: str) -> str:
    """The column of ``field`` for ``seat``: ``seat_column(1, "worms") == "seat1_worms"``."""
    return f"seat{seat}_{field}"


def columns(players: int) -> list[str]:
    """Every column of a run with ``players`` seats, in stored order."""
    return list(GAME_COLUMNS) + [
        seat_column(seat, field) for seat in range(players) for field in SEAT_FIELDS
    ]


# Arrow types of the columns (pyarrow type names; seat columns by their field).
_TYPES = {
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
    "strategy": "string",
    "worms": "int8",
    "rank": "int8",
    "busts": "int16",
    "steals": "int16",
    "stolen": "int16",
}


def column_type(column: str) -> str:
    """The Arrow type name of a column: ``column_type("seat1_worms") == "int8"``."""
    # Seat columns are seat{i}_{field}; "seating" is a game column.
    return _TYPES[column.split("_", 1)[1] if column[4:5].isdigit() else column]


def arrow_schema(players: int) -> Any:
    """The pyarrow schema of a run with ``players`` seats (pyarrow is imported here)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, column_type(name))()) for name in columns(players)])
