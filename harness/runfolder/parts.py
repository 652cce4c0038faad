"""A run's part files: writing a chunk's arrays as one, reading one back verified, listing
the complete ones.

A part is the Parquet file of one chunk: the games of one table, every seat order of deals
first..stop-1, rows by deal then seat order (harness.runfolder.schema); a chunk of several
tables (a plan of more tables than CHUNK_CAP) holds each of its tables' games so, rows by
deal, then table, then seat order (:func:`group_table`). Nothing stored is
believed unchecked: :func:`read_part` reads a part once and holds it to its manifest line
(the same size, the same sha256, rows that are exactly the games the line says) and its
luck account to the identities the account keeps by construction
(:mod:`harness.runfolder.identities`: a digest sealed again over edited rows does not
make them an account), for the writer's resume and reuse and for every reader alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.errors import safe_text
from harness.runfolder import schema
from harness.runfolder.layout import StorageError, part_files
from harness.runfolder.manifest import DIGEST_CHARS, Coverage, covered, digest_of

# The columns read to verify a part (what it covers) and to count it (the standings).
COVER_COLUMNS = ("table", "deal", "seating", "players")
_COUNT_COLUMNS = ("game_seed", "status", "error", "error_seat")
_COUNT_SEAT_FIELDS = ("strategy", "worms", "rank")
_SEEDS = ("seed", "game_seed")
_OLD_SEATING = dict(schema.RENAMED_COLUMNS)["seating"]
_SEAT_STRATEGY = re.compile(r"^seat(\d+)_strategy$")


class ChunkDamaged(StorageError):
    """A stored chunk that is not what its manifest line says: missing, changed, unreadable,
    or holding other games. ``file`` names it, ``reason`` says what is wrong."""

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"{file}: {reason}")


# -- writing ------------------------------------------------------------------------------
# How part files are encoded. Rows and types are what the schema says whatever these are
# (readers see the same table); only the bytes differ. Chosen for the parent's CPU at
# native speed (benchmarks/pipeline_speed.py --writer): the string columns dictionary
# encoded (a handful of names), the integer columns delta bit-packed (small counts and
# seats pack into a few bits), lz4 over both, and no min/max statistics (no reader
# filters on them). Against the former zstd with every column dictionary encoded and
# statistics written, a chunk is written in under half the CPU (0.41 against 0.91
# CPU-us a game) and takes 22 bytes a game against 19 (the seeds are stored plain).
def parquet_options(players: int) -> dict[str, Any]:
    """``pyarrow.parquet.write_table`` options for a part of ``players`` seats.

    The writer is given the string columns dictionary encoded (:func:`part_table`,
    ``encoded``) and stores no Arrow schema of its own (``store_schema``): the Parquet
    types (UTF-8 strings, integers of 8 to 64 bits) read back as the schema's.
    """
    import pyarrow as pa

    stored = schema.arrow_schema(players)
    strings = [f.name for f in stored if pa.types.is_string(f.type)]
    ints = [f.name for f in stored if pa.types.is_integer(f.type)]
    return {
        # The seeds are random 64-bit numbers: packing or compressing them only costs.
        "compression": {name: "none" if name in _SEEDS else "lz4" for name in stored.names},
        "write_statistics": False,
        "store_schema": False,
        "use_dictionary": strings,
        "column_encoding": {n: "PLAIN" if n in _SEEDS else "DELTA_BINARY_PACKED" for n in ints},
    }


def part_table(
    games: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    errors: Mapping[int, str],
    *,
    table: str,
    entrants: Sequence[str],
    orders: Sequence[Sequence[int]],
    players: int,
    encoded: bool = False,
) -> Any:
    """A chunk's arrays as a pyarrow Table of the stored schema.

    ``games`` and ``seats[i]`` hold the arrays of :data:`schema.GAME_ARRAYS` and
    :data:`schema.SEAT_ARRAYS` (codes for the coded columns), and those of
    :data:`schema.ACCOUNT_ARRAYS` when the chunk kept the account (else its columns are
    null), ``errors`` a forfeit's
    message by row; seat i of a row in seat order k holds ``entrants[orders[k][i]]``.
    ``encoded``: the string columns are left dictionary encoded (codes into a few names),
    as the Parquet writer takes them: the same rows, and the file reads back as the stored
    schema, without decoding every name to be encoded again.
    """
    import numpy as np

    rows = len(games["deal"])
    seating = np.frombuffer(games["seating"], dtype=np.int8)
    design = np.array(orders, dtype=np.int8)
    return _table(
        games,
        seats,
        errors,
        players,
        encoded,
        _labels(np.zeros(rows, dtype=np.int8), [table], encoded),
        lambda i: _labels(design[seating, i], entrants, encoded),
    )


def group_table(
    games: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    errors: Mapping[int, str],
    *,
    tables: Sequence[tuple[str, Sequence[int]]],
    entrants: Sequence[str],
    orders: Sequence[Sequence[int]],
    players: int,
    encoded: bool = False,
) -> Any:
    """The part of a chunk of several tables, as :func:`part_table` makes one table's.

    The arrays hold the tables' rows one table after another (as they are played: each
    every seat order of deals first..stop-1, rows by deal then order); ``tables`` each
    table's id and its entrants (indices into ``entrants``, in table order). The part's
    rows go by deal, then table (in that order), then seat order, so that a reader
    streams it by deal as it streams a table's part.
    """
    import numpy as np

    count, k = len(tables), len(orders)
    per = len(games["deal"]) // count
    deals = per // k
    # Row (table m, deal d, order o) is played as row m * per + d * k + o; stored by deal.
    order = (
        np.arange(count)[None, :, None] * per
        + np.arange(deals)[:, None, None] * k
        + np.arange(k)[None, None, :]
    ).ravel()
    if deals > 1:  # (one deal a table: played in that order already)
        games, seats, errors = _reordered(games, seats, errors, order)
    member = (order // per).astype(np.int32)
    seating = np.frombuffer(games["seating"], dtype=np.int8)
    design = np.array(orders, dtype=np.int16)
    picked = np.array([list(p) for _, p in tables], dtype=np.int16)  # (tables, players)
    return _table(
        games,
        seats,
        errors,
        players,
        encoded,
        _labels(member, [t for t, _ in tables], encoded, wide=True),
        lambda i: _labels(picked[member, design[seating, i]], entrants, encoded, wide=True),
    )


def _reordered(
    games: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    errors: Mapping[int, str],
    order: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[int, str]]:
    """A chunk's arrays with row ``i`` taken from row ``order[i]``."""
    import numpy as np

    def take(values: Any) -> Any:
        return np.asarray(values).take(order)  # an array's buffer keeps its type

    where = np.empty_like(order)
    where[order] = np.arange(len(order))
    return (
        {name: take(values) for name, values in games.items()},
        [{name: take(values) for name, values in seat.items()} for seat in seats],
        {int(where[row]): text for row, text in errors.items()},
    )


def _labels(codes: Any, names: Iterable[str], encoded: bool, wide: bool = False) -> Any:
    """Codes into ``names`` as a string column (dictionary encoded when ``encoded``): int8
    codes, int32 when ``wide`` (a group's tables may be more than 127)."""
    import pyarrow as pa

    coded = pa.DictionaryArray.from_arrays(
        pa.array(codes, type=pa.int32() if wide else pa.int8()),
        pa.array(list(names), type=pa.string()),
    )
    return coded if encoded else coded.cast(pa.string())


def _table(
    games: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    errors: Mapping[int, str],
    players: int,
    encoded: bool,
    table: Any,
    strategy: Any,
) -> Any:
    """The stored columns of a chunk's arrays, given its ``table`` column and each seat's
    ``strategy(i)`` column."""
    import numpy as np
    import pyarrow as pa

    n = players
    rows = len(games["deal"])

    def ints(values: Any, kind: str) -> Any:  # the int and float64 arrays alike
        return pa.array(np.frombuffer(values, dtype=kind), type=getattr(pa, kind)())

    def kinds() -> Any:
        # int8 codes (index into ERROR_KINDS, NO_KIND = no forfeit) -> strings, null for
        # NO_KIND; arrays without the column (made by older code) have no kinds.
        codes = games.get("error_kind")
        if codes is None or len(codes) != rows:
            values = np.full(rows, schema.NO_KIND, dtype=np.int8)
        else:
            values = np.frombuffer(codes, dtype=np.int8)
        return _labels(
            pa.array(np.where(values < 0, 0, values).astype(np.int8), mask=values < 0),
            schema.ERROR_KINDS,
            encoded,
        )

    message = [None] * rows
    for row, text in errors.items():
        message[row] = text
    cols: dict[str, Any] = {
        "table": table,
        "players": pa.array(np.full(rows, n, dtype=np.int8)),
        "status": _labels(np.frombuffer(games["status"], dtype=np.int8), schema.STATUSES, encoded),
        "error": pa.array(message, type=pa.string()),
        "error_kind": kinds(),
    }
    for name in schema.GAME_ARRAYS:
        if name not in cols:
            cols[name] = ints(games[name], schema.GAME_TYPES[name])
    for i, seat in enumerate(seats):
        cols[schema.seat_column(i, "strategy")] = strategy(i)
        for name in schema.SEAT_ARRAYS:
            cols[schema.seat_column(i, name)] = ints(seat[name], schema.SEAT_TYPES[name])
        accounts = {**schema.ACCOUNT_TYPES, **schema.WIN_ACCOUNT_TYPES}
        for name, kind in accounts.items():  # nulls: a chunk without the account
            values = seat.get(name)
            column = schema.seat_column(i, name)
            if values is None:
                cols[column] = pa.nulls(rows, type=getattr(pa, kind)())
            else:
                cols[column] = ints(values, kind)
    if encoded:
        return pa.table({c: cols[c] for c in schema.columns(n)})
    return pa.table([cols[c] for c in schema.columns(n)], schema=schema.arrow_schema(n))


# -- reading, verified --------------------------------------------------------------------
def seats_in(names: Iterable[str]) -> int:
    """The player count a part's columns give (its seat{i}_strategy columns)."""
    return sum(1 for name in names if _SEAT_STRATEGY.match(name))


def part_columns(players: int) -> list[str]:
    """The columns :func:`read_part` reads to verify and count a part of ``players`` seats."""
    seats = [schema.seat_column(i, f) for i in range(players) for f in _COUNT_SEAT_FIELDS]
    return [*COVER_COLUMNS, *_COUNT_COLUMNS, *seats]


def read_part(
    path: Path,
    entry: Mapping[str, Any],
    columns: Iterable[str] | None = None,
    *,
    account: bool | None = None,
) -> Any:
    """A stored chunk's rows (a pyarrow Table), after checking them against the manifest.

    The file is read once: its size and sha256 must be the line's (``bytes``, ``sha256``),
    its rows exactly the games the line says it holds, and its luck account (``account``:
    whether its table keeps one, None if unknown) what the account keeps by construction
    (:func:`check_account`). ``columns`` are returned (default: what verifying and
    counting need). Raises :class:`ChunkDamaged`, one line, otherwise.
    """
    name = str(entry.get("file"))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ChunkDamaged(name, "listed in the manifest but missing") from None
    except OSError as exc:
        raise ChunkDamaged(name, f"cannot be read ({exc.strerror or exc})") from None
    return verify_bytes(data, entry, columns, account=account)


def verify_bytes(
    data: bytes,
    entry: Mapping[str, Any],
    columns: Iterable[str] | None = None,
    players: int | None = None,
    *,
    account: bool | None = None,
) -> Any:
    """:func:`read_part` on bytes already read (reuse copies exactly the bytes it checked).

    ``players``: the seats the rows must have (None: as many as the part's columns say).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from harness.runfolder.identities import identity_columns

    name = str(entry.get("file"))
    claim = covered(entry)
    if claim is None:
        raise ChunkDamaged(name, "its manifest line is malformed (table, first, stop, games)")
    size, digest = entry.get("bytes"), entry.get("sha256")
    if len(data) != size:
        raise ChunkDamaged(name, f"{len(data):,} bytes where the manifest says {size}")
    if not isinstance(digest, str) or len(digest) != DIGEST_CHARS:
        raise ChunkDamaged(name, "the manifest holds no sha256 for it")
    if digest_of(data) != digest:
        raise ChunkDamaged(
            name, "its sha256 differs from the manifest's: the file changed after it was stored"
        )
    try:
        part = pq.ParquetFile(pa.BufferReader(data))
        names = set(part.schema_arrow.names)
        if players is None:
            players = seats_in(names)
        wanted = list(columns) if columns is not None else part_columns(players)
        for needed in COVER_COLUMNS:
            if needed not in wanted:
                wanted.append(needed)
        # The account's identities are checked on every read (a part of schema 1-3 has
        # no account columns: they count as null).
        checked = [c for c in identity_columns(players) if c in names or not schema.is_optional(c)]
        wanted_all = wanted + [c for c in checked if c not in wanted]
        # A part of schema 1/2 (a report of an older run) has ``rotation``: under the
        # cyclic design rotation r is order r. Resume and reuse never reach one (their
        # keys and run.json's schema differ), so only reports read it this way.
        old = "seating" not in names and _OLD_SEATING in names
        read = [(_OLD_SEATING if old and c == "seating" else c) for c in wanted_all]
        missing = [c for c in read if c not in names]
        table = None if missing else part.read(columns=read)
        if old and table is not None:
            table = table.rename_columns(
                ["seating" if c == _OLD_SEATING else c for c in table.column_names]
            )
    except Exception as exc:  # noqa: BLE001 - a damaged file can raise anything from the
        # C++ reader (OSError, ArrowInvalid, even UnicodeDecodeError from its metadata)
        raise ChunkDamaged(name, f"not a readable Parquet file ({first_line(exc)})") from None
    if missing:
        raise ChunkDamaged(
            name, f"missing column(s) {', '.join(missing)} (harness/runfolder/schema.py)"
        )
    check_rows(table, claim, name, players)
    check_account(table, name, players, account)
    return table.select(wanted)


def check_account(table: Any, name: str, players: int, account: bool | None = None) -> None:
    """The chunk's luck account keeps every identity the account keeps by construction
    (:func:`harness.runfolder.identities.account_problem`); ``account``: whether its table
    keeps one (None: unknown). A chunk that breaks one is damaged: its games are seeded,
    so playing it again (``--repair``, a resume) stores the same games with their own
    account."""
    from harness.runfolder.identities import account_problem  # numpy: imported when used

    problem = account_problem(table, players, account)
    if problem is not None:
        raise ChunkDamaged(name, problem)


def check_rows(table: Any, claim: Coverage, name: str, players: int | None = None) -> None:
    """The rows are every seat order of deals first..stop-1 of one table (of each table of a
    claim of several, :func:`_check_group_rows`), once each, and
    every row has ``players`` seats (any one count from 2 to 7 when None)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    table_id, first, stop, orders = claim
    if not isinstance(table_id, str):
        _check_group_rows(table, claim, name, players)
        return
    deals = stop - first
    wrong = f"its rows are not deals {first}-{stop - 1} of table {table_id} in {orders} seat orders"
    if table.num_rows != deals * orders:
        raise ChunkDamaged(
            name, f"{table.num_rows:,} games where the manifest says {deals * orders:,}"
        )
    ids = table.column("table")
    if pa.types.is_dictionary(ids.type) and not ids.null_count:
        ids = ids.combine_chunks().dictionary  # a chunk being stored: its names, used or not
    if pc.unique(ids.cast("string")).to_pylist() != [table_id]:
        raise ChunkDamaged(name, wrong)
    deal = table.column("deal").to_numpy().astype(np.int64)
    seating = table.column("seating").to_numpy().astype(np.int64)
    seats = table.column("players").to_numpy()
    want_deal = np.repeat(np.arange(first, stop), orders)
    want_seating = np.tile(np.arange(orders), deals)
    # Rows are stored in that order; rows in another order may still be the same games.
    if not (np.array_equal(deal, want_deal) and np.array_equal(seating, want_seating)):
        order = np.lexsort((seating, deal))
        deal, seating = deal[order], seating[order]
    _check_players(seats, players, name, wrong)
    if not np.array_equal(deal, want_deal) or not np.array_equal(seating, want_seating):
        raise ChunkDamaged(name, wrong)


def _check_players(seats: Any, players: int | None, name: str, wrong: str) -> None:
    """Every row has ``players`` seats (one count from 2 to 7 when None)."""
    expected = players if players is not None else int(seats[0])
    if (seats != expected).any() or not 2 <= expected <= 7:
        raise ChunkDamaged(name, wrong)


def _check_group_rows(table: Any, claim: Coverage, name: str, players: int | None) -> None:
    """:func:`check_rows` of a chunk of several tables: every seat order of deals
    first..stop-1 of each table it lists, once each (stored by deal, then table, then
    seat order; any order of the same games passes)."""
    import numpy as np
    import pyarrow.compute as pc

    tables, first, stop, orders = claim
    count, deals = len(tables), stop - first
    wrong = (
        f"its rows are not deals {first}-{stop - 1} of its {count} tables ({tables[0]} to "
        f"{tables[-1]}) in {orders} seat orders"
    )
    if table.num_rows != count * deals * orders:
        raise ChunkDamaged(
            name, f"{table.num_rows:,} games where the manifest says {count * deals * orders:,}"
        )
    ids = pc.dictionary_encode(table.column("table").combine_chunks().cast("string"))
    if ids.null_count:
        raise ChunkDamaged(name, wrong)
    where = {t: i for i, t in enumerate(tables)}
    found = [where.get(t, -1) for t in ids.dictionary.to_pylist()]
    if -1 in found:
        raise ChunkDamaged(name, wrong)
    member = np.array(found, dtype=np.int64)[ids.indices.to_numpy()]
    deal = table.column("deal").to_numpy().astype(np.int64)
    seating = table.column("seating").to_numpy().astype(np.int64)
    want_deal = np.repeat(np.arange(first, stop), count * orders)
    want_member = np.tile(np.repeat(np.arange(count), orders), deals)
    want_seating = np.tile(np.arange(orders), deals * count)
    same = (
        np.array_equal(deal, want_deal)
        and np.array_equal(member, want_member)
        and np.array_equal(seating, want_seating)
    )
    if not same:
        order = np.lexsort((seating, member, deal))
        deal, member, seating = deal[order], member[order], seating[order]
    _check_players(table.column("players").to_numpy(), players, name, wrong)
    if not (
        np.array_equal(deal, want_deal)
        and np.array_equal(member, want_member)
        and np.array_equal(seating, want_seating)
    ):
        raise ChunkDamaged(name, wrong)


def first_line(exc: BaseException) -> str:
    """An exception as one line for an error message (its type when it says nothing)."""
    return safe_text(exc, 300) or type(exc).__name__


# -- listing ------------------------------------------------------------------------------
def complete_parts(
    games_dir: Path, entries: list[dict[str, Any]] | None
) -> tuple[list[Path], list[str]]:
    """The part files of a folder the runner did not verify that hold finished results,
    and notes on any left out.

    With a manifest (``entries``: its complete lines; None: no manifest) only the parts it
    lists, at the size it records, are results: a file not yet listed is a chunk in
    progress or left by a kill. Without a manifest every part file counts.
    """
    on_disk = part_files(games_dir)
    if entries is None:
        return on_disk, []
    listed: dict[str, int | None] = {}
    for entry in entries:
        size = entry.get("bytes")
        listed[entry["file"]] = size if isinstance(size, int) else None
    parts, notes = [], []
    wrong = 0
    for path in on_disk:
        if path.name not in listed:
            continue
        size = listed[path.name]
        if size is not None and path.stat().st_size != size:
            wrong += 1
            continue
        parts.append(path)
    missing = len(set(listed) - {p.name for p in on_disk})
    unlisted = len(on_disk) - len(parts) - wrong
    if unlisted:
        notes.append(unlisted_note(unlisted))
    if wrong:
        notes.append(f"{wrong} part file(s) whose size differs from the manifest left out")
    if missing:
        notes.append(f"{missing} part file(s) listed in the manifest are missing")
    return parts, notes


def unlisted_note(count: int) -> str:
    """The note on part files no manifest line lists (chunks in progress, or a kill's)."""
    return f"{count} part file(s) not in the manifest (chunks not finished) left out"
