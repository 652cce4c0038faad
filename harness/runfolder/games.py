"""Reading a verified run's games (:func:`iter_batches`, :func:`iter_games`): only the
columns asked for, in batches of whole deals of the run (the parts of all tables that
cover the same deals are read side by side, and a deal is handed out only once every part
has gone past it), each batch checked (types, statuses, no duplicate game). Memory: about
:data:`BATCH_ROWS` rows, whatever the number of tables. Parts are read with pyarrow into
numpy (:class:`Games`): no pandas per part.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.runfolder.parts import (
    first_line,
)
from harness.runfolder.reader import ProgressCallback, ReportError, RunInfo, _layout_of
from harness.runfolder.schema import (
    RENAMED_COLUMNS,
    SEAT_FIELDS,
    STATUSES,
    column_type,
    is_optional,
    seat_column,
)

BATCH_ROWS = 1 << 17

READ_COLUMNS = (
    "table",
    "deal",
    "seating",
    "seed",
    "players",
    "turns",
    "status",
    "error",
    "error_seat",
    "error_kind",
)  # what reports use; other columns (game_seed, winner: ranks say it) are never read
# Columns a part may lack (OPTIONAL_COLUMNS: read as nulls) and columns renamed since
# (RENAMED_COLUMNS: an old part's ``rotation`` is read as ``seating``) are the schema's.


def read_columns(players: int, pass_: str) -> list[str]:
    """The columns a pass reads: ``"main"`` (every aggregate) or ``"ratings"`` (the rating
    fit's second pass, and any pass that needs only strategies and ranks of scored games)."""
    if pass_ == "ratings":
        return ["table", "deal", "seating", "status"] + [
            seat_column(i, f) for i in range(players) for f in ("strategy", "rank")
        ]
    return list(READ_COLUMNS) + [seat_column(i, f) for i in range(players) for f in SEAT_FIELDS]


@dataclass
class _Part:
    """One part file opened for reading: the columns to read (stored names) and its deals."""

    path: Path
    pf: pq.ParquetFile
    stored: list[str]  # the names to read, as stored (an old part's "rotation")
    rename: dict[str, str]  # stored name -> the name reports use
    rows: int
    low: int  # its lowest and highest deal (low > high: no rows)
    high: int
    ordered: bool  # its rows go by deal (the runner's order), so it can be streamed


def _open_part(
    part: Path, cols: list[str], players: int, layout: tuple[int, int, int, bool] | None = None
) -> _Part:
    """Open a part, map renamed columns, find its deal range; one-line errors."""
    try:
        pf = pq.ParquetFile(part)
        names = pf.schema_arrow.names
        rows = pf.metadata.num_rows
    except Exception as exc:  # noqa: BLE001 - a damaged footer can raise anything from
        # the C++ reader (OSError, ArrowInvalid, even UnicodeDecodeError): one line
        raise ReportError(f"{part}: not a readable Parquet file ({first_line(exc)})") from None
    rename = {old: new for new, old in RENAMED_COLUMNS if new in cols and new not in names}
    rename = {old: new for old, new in rename.items() if old in names}
    have = set(names) | set(rename.values())
    missing = [c for c in cols if c not in have and not is_optional(c)]
    if missing:
        raise ReportError(
            f"{part}: missing column(s) {', '.join(missing)} "
            f"(harness/runfolder/schema.py, players={players})"
        )
    back = {new: old for old, new in rename.items()}
    stored = [back.get(c, c) for c in cols if c in have]
    if layout is not None and layout[0] == rows:  # found while verifying it
        low, high, ordered = layout[1:]
    else:
        low, high, ordered = _deal_layout(part, pf)
    return _Part(part, pf, stored, rename, rows, low, high, ordered)


def _deal_layout(part: Path, pf: pq.ParquetFile) -> tuple[int, int, bool]:
    """The part's lowest and highest deal, and whether its rows go by deal (as the runner
    writes them), from its deal column alone; (0, -1, True) for a part without rows."""
    if pf.metadata.num_rows == 0:
        return 0, -1, True
    try:
        deals = pf.read(columns=["deal"])["deal"].to_numpy().astype(np.int64)
    except Exception as exc:  # noqa: BLE001 - as above: any reader error is one line
        raise ReportError(f"{part}: cannot read ({first_line(exc)})") from None
    return _layout_of(deals)


def _deal_groups(parts: list[_Part]) -> list[list[_Part]]:
    """Parts in groups that share no deal with any other group, in deal order.

    The runner's chunks have the same boundaries at every table, so a group is the
    parts of every table with the same first deal (``{table}-{first:09d}.parquet``);
    grouping by overlapping deal ranges gives exactly that, and stays right for folders
    chunked otherwise (parts of different sizes, a table's part missing, parts that do
    not follow the naming), because a deal is never split between two groups.
    """
    groups: list[list[_Part]] = []
    high = None
    for part in sorted((p for p in parts if p.rows), key=lambda p: (p.low, p.high, p.path.name)):
        if high is None or part.low > high:
            groups.append([])
            high = part.high
        groups[-1].append(part)
        high = max(high, part.high)
    return groups


class Games:
    """A batch of games as Arrow columns, turned into numpy one column at a time as used.

    Numbers come out as numpy arrays (an integer column with nulls as floats with nan, as
    pandas gives it); text columns as codes and names in order of first appearance (what
    ``pd.factorize`` gives), so the aggregates come out exactly as they did from frames.
    No pandas per part: a whole batch of deals is one conversion per column it uses.
    """

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self._numbers: dict[str, np.ndarray] = {}
        self._labels: dict[str, tuple[np.ndarray, list[str]]] = {}

    @classmethod
    def of(cls, frame: Games | pd.DataFrame) -> Games:
        """``frame`` as games: a frame handed to :func:`aggregate_frames` is converted."""
        if isinstance(frame, Games):
            return frame
        return cls(pa.Table.from_pandas(frame, preserve_index=False))

    def __len__(self) -> int:
        return self.table.num_rows

    def has(self, name: str) -> bool:
        return name in self.table.column_names

    def number(self, name: str) -> np.ndarray:
        """A numeric column as numpy (read-only: it is cached)."""
        out = self._numbers.get(name)
        if out is None:
            out = self._numbers[name] = self.table.column(name).to_numpy()
        return out

    def numbers(self, names: list[str], dtype: type) -> np.ndarray:
        """Columns side by side: a (games, len(names)) array of ``dtype``."""
        out = np.empty((len(self), len(names)), dtype=dtype)
        for j, name in enumerate(names):
            out[:, j] = self.number(name)
        return out

    def labels(self, name: str) -> tuple[np.ndarray, list[str]]:
        """A column's codes and its values as text (a null is "None", as ``astype(str)``
        says), in order of first appearance."""
        found = self._labels.get(name)
        if found is None:
            column = self.table.column(name)
            if pa.types.is_dictionary(column.type):  # categories are not in appearance order
                column = column.cast(column.type.value_type)
            encoded = pc.dictionary_encode(column.combine_chunks())
            names = [str(v) for v in encoded.dictionary.to_pylist()]
            codes = pc.fill_null(encoded.indices, len(names)).to_numpy().astype(np.int64)
            if encoded.null_count:
                names.append(str(None))
            found = self._labels[name] = (codes, names)
        return found

    def matches(self, name: str, value: str) -> np.ndarray:
        """Where a text column equals ``value``: a boolean array."""
        codes, names = self.labels(name)
        return codes == names.index(value) if value in names else np.zeros(len(codes), bool)

    def text(self, name: str) -> np.ndarray:
        """A column as text (``astype(str)``): an object array."""
        codes, names = self.labels(name)
        return np.array(names, dtype=object)[codes]

    def values(self, name: str, rows: np.ndarray) -> list[Any]:
        """The Python values of a column at ``rows`` (a few rows: forfeits)."""
        return self.table.column(name).take(pa.array(rows, pa.int64())).to_pylist()

    def select(self, keep: np.ndarray) -> Games:
        """The games where ``keep`` is true."""
        if keep.all():
            return self
        return Games(self.table.filter(pa.array(keep)))

    def to_pandas(self) -> pd.DataFrame:
        return self.table.to_pandas(ignore_metadata=True)


def iter_games(
    info: RunInfo,
    cols: list[str],
    progress: ProgressCallback | None = None,
    phase: str = "reading",
    batch_rows: int | None = None,
) -> Iterator[pd.DataFrame]:
    """The run's games in frames of whole deals of the run: :func:`iter_batches` as pandas."""
    for games in iter_batches(info, cols, progress, phase, batch_rows):
        yield games.to_pandas()


def iter_batches(
    info: RunInfo,
    cols: list[str],
    progress: ProgressCallback | None = None,
    phase: str = "reading",
    batch_rows: int | None = None,
) -> Iterator[Games]:
    """The run's games in batches of whole deals of the run (every table's games of them).

    Only ``cols`` are read (an old part's ``rotation`` as ``seating``). The parts of a
    deal group (:func:`_deal_groups`) are read side by side, a few rows of each at a time;
    their rows go by deal (the runner writes them so), so a deal below every part's last
    deal read is complete and is handed out. Memory: about ``batch_rows`` rows, whatever
    the number of tables. A group with a part whose rows are not in deal order (a folder
    assembled by hand) is handed out once read whole.
    """
    opened = [_open_part(p, cols, info.players, info.layouts.get(p)) for p in info.parts]
    total = sum(p.rows for p in opened)
    batch_rows = batch_rows or BATCH_ROWS
    done = 0
    for group in _deal_groups(opened):
        per_part = max(1, batch_rows // len(group))
        for games, read in _whole_deals(group, cols, per_part, batch_rows, info.players):
            done += read
            if games is not None and len(games):
                _check_duplicates(games, group[0].path)
                yield games
            if progress is not None and read:
                progress(phase, done, total)


_Piece = tuple[pa.Table, np.ndarray, "_Part"]  # rows of one part, their deals, the part


def _whole_deals(
    group: list[_Part], cols: list[str], per_part: int, batch_rows: int, players: int
) -> Iterator[tuple[Games | None, int]]:
    """(games of complete deals or None, rows just read), until the group is read whole."""
    readers = [_batches(p, per_part) for p in group]
    last: list[int | None] = [-1] * len(group)  # highest deal read from each; None: all read
    stream = all(p.ordered for p in group)
    pending: list[_Piece] = []
    pending_rows = 0
    pending_low: int | None = None  # the lowest deal pending: nothing below it to hand out
    while True:
        open_ = [i for i, d in enumerate(last) if d is not None]
        if not open_:
            yield (_merge([(t, part) for t, _, part in pending], players) if pending else None), 0
            return
        i = min(open_, key=lambda j: last[j])  # the part furthest behind
        batch = next(readers[i], None)
        if batch is None:
            last[i] = None
            yield None, 0
            continue
        piece = _piece_of(batch, group[i], cols, players)
        rows = piece.num_rows
        if rows:
            deals = piece.column("deal").to_numpy().astype(np.int64)
            last[i] = int(deals[-1]) if stream else last[i]
            pending.append((piece, deals, group[i]))
            pending_rows += rows
            low = int(deals[0])
            pending_low = low if pending_low is None else min(pending_low, low)
        if not stream or pending_rows < batch_rows:
            yield None, rows
            continue
        # Rows go by deal in every part: a deal below each open part's last deal read is
        # complete (a part read whole holds nothing more). Each piece's rows go by deal,
        # so its complete deals are a prefix: the batch is the pieces' prefixes in order.
        bound = min(d for d in last if d is not None)
        if pending_low is not None and bound <= pending_low:
            # No deal complete yet (many parts of one deal, read a few rows at a time):
            # the pending pieces stay as they are, not cut and counted again each read.
            yield None, rows
            continue
        whole, rest = [], []
        for table, deals, part in pending:
            cut = int(np.searchsorted(deals, bound, side="left"))
            if cut:
                whole.append((table.slice(0, cut), part))
            if cut < len(deals):
                rest.append((table.slice(cut), deals[cut:], part))
        pending = rest
        pending_rows = sum(len(d) for _, d, _ in rest)
        pending_low = min((int(d[0]) for _, d, _ in rest), default=None)
        yield (_merge(whole, players) if whole else None), rows


def _merge(pieces: list[tuple[pa.Table, _Part]], players: int) -> Games:
    """Pieces of parts as one checked batch (every row is checked once, in the batch it
    goes out in). Parts of one writer share a schema; pieces that do not (a folder
    assembled by hand) are joined as pandas joins them (types widened)."""
    tables = [t for t, _ in pieces]
    same = all(t.schema.equals(tables[0].schema) for t in tables[1:])
    joined = pa.concat_tables(tables) if same else None
    if joined is None or not _looks_valid(joined, players):
        for table, part in pieces:  # find the part at fault, and name it
            _check_piece(table, part, players)
    if joined is not None:
        return Games(joined)
    frame = pd.concat([t.to_pandas(ignore_metadata=True) for t in tables], ignore_index=True)
    return Games(pa.Table.from_pandas(frame, preserve_index=False))


def _piece_of(batch: pa.Table, part: _Part, cols: list[str], players: int) -> pa.Table:
    """Rows of a part as the columns reports use: renamed, absent columns null."""
    table = batch.replace_schema_metadata(None)
    if part.rename:  # an old part's names
        table = table.rename_columns([part.rename.get(n, n) for n in table.column_names])
    names = set(table.column_names)
    for absent in cols:
        if absent not in names:
            kind = getattr(pa, column_type(absent))()  # typed: it joins stored parts
            table = table.append_column(absent, pa.nulls(table.num_rows, type=kind))
    return table


def _check_piece(table: pa.Table, part: _Part, players: int) -> None:
    """Rows of one part checked (:func:`_check_frame`); one line naming the part."""
    if _looks_valid(table, players):
        return
    try:  # the frame check finds (and words) the problem
        frame = table.to_pandas(ignore_metadata=True)
    except Exception as exc:  # noqa: BLE001 - a damaged part: one line
        raise ReportError(f"{part.path}: cannot read ({first_line(exc)})") from None
    _check_frame(frame, part.path, players)


def _looks_valid(table: pa.Table, players: int) -> bool:
    """A quick pass over the Arrow columns: true when :func:`_check_frame` would pass.

    False means "look closer" (the frame check decides and words the error), so this may
    be stricter than the frame check but never looser.
    """
    names = table.column_names
    if "status" not in names or any(
        seat_column(i, "strategy") not in names for i in range(players)
    ):
        return False
    if "players" in names:
        same = pc.fill_null(pc.equal(table.column("players"), players), False)
        if pc.all(same).as_py() is False:
            return False
    status = pc.fill_null(pc.is_in(table.column("status"), value_set=_STATUS_SET), False)
    if pc.all(status).as_py() is False:
        return False
    if any(table.column(seat_column(i, "strategy")).null_count for i in range(players)):
        return False
    if "rank" in "".join(names):
        for i in range(players):
            name = seat_column(i, "rank")
            if name not in names:
                return False
            column = table.column(name)
            if column.null_count or not pa.types.is_integer(column.type):
                return False
            low, high = pc.min_max(column).values()
            if low.as_py() is not None and (low.as_py() < 1 or high.as_py() > players):
                return False
    return True


_STATUS_SET = pa.array(STATUSES, pa.string())


def _batches(part: _Part, batch_rows: int) -> Iterator[pa.Table]:
    """The part's rows, ``batch_rows`` at a time; a read error names the part.

    A part of at most ``batch_rows`` rows is one batch (read whole, which costs less than
    iterating: the same rows as the one batch iterating would give).
    """
    try:
        if part.rows <= batch_rows:
            # One thread: a part is small, and threads cost more than they save here.
            yield part.pf.read(columns=part.stored, use_threads=False)
            return
        batches = part.pf.iter_batches(batch_size=batch_rows, columns=part.stored)
        while True:
            batch = next(batches, None)
            if batch is None:
                return
            yield pa.Table.from_batches([batch])
    except Exception as exc:  # noqa: BLE001 - as above: any reader error is one line
        raise ReportError(f"{part.path}: cannot read ({first_line(exc)})") from None


def _check_frame(frame: pd.DataFrame, part: Path, players: int) -> None:
    bad_players = frame["players"] != players if "players" in frame else None
    if bad_players is not None and bad_players.any():
        value = frame.loc[bad_players, "players"].iloc[0]
        raise ReportError(f"{part}: a game with players={value} in a run of {players} players")
    status = frame["status"].astype(str)
    unknown = ~status.isin(STATUSES)
    if unknown.any():
        raise ReportError(
            f"{part}: unknown status {status[unknown].iloc[0]!r} "
            f"(expected one of {', '.join(STATUSES)})"
        )
    for i in range(players):
        col = seat_column(i, "strategy")
        if frame[col].isna().any():
            raise ReportError(f"{part}: empty {col} in a game")
    if "rank" in "".join(frame.columns):
        ranks = frame[[seat_column(i, "rank") for i in range(players)]].to_numpy()
        if ranks.size and (ranks.min() < 1 or ranks.max() > players):
            raise ReportError(f"{part}: a rank outside 1..{players}")


def _check_duplicates(games: Games, where: Path) -> None:
    """No game twice: a batch holds whole deals of every table, so this sees them all."""
    if not _may_repeat(games):
        return
    frame = games.to_pandas()
    dups = frame.duplicated(["table", "deal", "seating"])
    if dups.any():
        row = frame[dups].iloc[0]
        raise ReportError(
            f"{where}: table {row['table']} deal {row['deal']} seat order {row['seating']} "
            "is stored twice; the run folder holds duplicate games"
        )


def _may_repeat(games: Games) -> bool:
    """Whether two games might share (table, deal, seat order): false only when a count
    over the three as one integer key shows none does (true: let pandas look)."""
    if not all(games.has(c) for c in ("table", "deal", "seating")):
        return True
    table = games.labels("table")[0]
    deal, order = games.number("deal"), games.number("seating")
    if deal.dtype.kind not in "iu" or order.dtype.kind not in "iu":
        return True  # nulls (or floats) in a folder assembled by hand
    d0, s0 = int(deal.min()), int(order.min())
    deals, orders = int(deal.max()) - d0 + 1, int(order.max()) - s0 + 1
    cells = (int(table.max()) + 1) * deals * orders
    if cells >= 2**62:
        return True
    key = (table * deals + (deal.astype(np.int64) - d0)) * orders + (order.astype(np.int64) - s0)
    if cells <= 4 * len(key) + 1024:
        return bool(np.bincount(key, minlength=cells).max() > 1)
    key = np.sort(key)
    return bool((key[1:] == key[:-1]).any())


def deal_clusters(games: Games) -> np.ndarray:
    """Each game's cluster: its deal, the same at every table and in every seat order.

    Batches from :func:`iter_batches` hold whole deals, so a batch's clusters are complete
    and their moments add up over batches (see :mod:`harness.stats` for why the
    deal of the whole run is the unit with either dice mode). Numbered in order of first
    appearance (the order the moments are summed in).
    """
    return pd.factorize(games.number("deal").astype(np.int64))[0]
