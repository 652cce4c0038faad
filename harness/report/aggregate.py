"""Reading a run folder and reducing its games to the aggregates reports need.

The games are read part by part and batch by batch with only the columns needed, and
every batch is folded into fixed-size sums (:class:`Aggregates`): memory depends on the
number of strategies and seats, never on the number of games. The sums are cluster
moments (see :class:`harness.report.stats.Moments`) whose unit is a deal of the whole
run: every table plays deal d on the same dice (in either dice mode), so all the games
of deal d, at every table and in every seat order, are one cluster. A batch therefore
holds whole deals of every table (:func:`iter_games`): the parts of all tables that
cover the same deals are read side by side, and a deal is folded only once every part
has gone past it.

Nothing is read unverified from a folder the runner wrote (its ``run.json`` has a
``run_format``): every part the manifest lists is checked against its line first, with
the runner's own check (:func:`harness.tourney.storage.read_part`: size, sha256, and rows
that are exactly the deals the line claims), and the lines must not overlap (nor, for a
complete run, leave a deal out). A chunk that fails makes the report fail with one line
naming it (:class:`DamagedRun`); ``harness report RUN --repair`` plays it again. Folders
assembled by hand (no ``run_format``) are read as they are.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from harness.errors import HarnessError, safe_text
from harness.report import stats
from harness.schema import ERROR_KINDS, SEAT_FIELDS, STATUSES, seat_column

UNKNOWN_KIND = "unknown"  # a forfeit stored before error_kind existed

MAX_WORMS = 40  # every tile's worms together (R1): no score can be higher
CONVERGENCE_BUCKETS = 256  # resolution of the win-share-vs-games curve
BATCH_ROWS = 1 << 17
MANIFEST = "manifest.jsonl"  # the runner's list of completed chunks (harness/schema.py)
DENSE_CELLS = 1 << 21  # up to this many (cluster, key) cells are counted densely
FORFEIT_GROUPS = 200  # distinct (strategy, error) forfeit groups kept with an example

Progress = Callable[[str, int, int], None]
"""progress(phase, rows done, rows in all): called after every batch."""


class ReportError(HarnessError):
    """A run folder that cannot be reported on: missing, malformed or unreadable."""


class DamagedRun(ReportError):
    """Stored results that do not verify: a chunk changed, missing, unreadable or holding
    other games than its manifest line says. ``problems`` lists them all (one line each);
    the message names the first and says how to play them again."""

    def __init__(self, folder: Path, problems: list[str]) -> None:
        self.folder = folder
        self.problems = problems
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        super().__init__(
            f"{folder}: {problems[0]}{more}; the results are not reported: "
            f"`harness report {folder} --repair` plays the damaged chunks again"
        )


# -- the run folder ----------------------------------------------------------------------
@dataclass
class RunInfo:
    """A run folder: its resolved config (``run.json``) and its game part files."""

    path: Path
    config: dict[str, Any]
    parts: list[Path]
    notes: list[str] = field(default_factory=list)  # parts left out, and why
    problems: list[str] = field(default_factory=list)  # what failed verification

    @property
    def verified(self) -> bool:
        """Whether the runner wrote this folder (then every part was verified)."""
        return isinstance(self.config.get("run_format"), str)

    @property
    def name(self) -> str:
        return str(self.config.get("name") or self.path.parent.name)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def players(self) -> int:
        return int(self.config["players"])

    @property
    def dice(self) -> str:
        return str(self.config.get("dice", "duplicate"))

    @property
    def blocks(self) -> bool:
        """Whether intervals go by deal clusters: always, since every table plays a deal on
        the same dice in either dice mode (see :mod:`harness.report.stats`). Kept so that
        callers that choose the interval by it get the clustered one."""
        return True

    @property
    def design(self) -> tuple[tuple[int, ...], ...]:
        """The run's seat orders: order k puts table entrant ``design[k][i]`` in seat i.

        From run.json's ``design`` (schema 3), else its ``seating`` mode, else the cyclic
        rotations every run before seating modes played.
        """
        from harness.tourney import seating

        n = self.players
        raw = self.config.get("design")
        if isinstance(raw, list) and raw:
            try:
                orders = tuple(tuple(int(e) for e in order) for order in raw)
            except (TypeError, ValueError):
                orders = ()
            if orders and all(sorted(o) == list(range(n)) for o in orders):
                return orders
            raise ReportError(
                f"{self.path / 'run.json'}: 'design' must be a list of seat orders of "
                f"0..{n - 1}, got {safe_text(raw, 200)}"
            )
        mode = self.config.get("seating", "cyclic")
        try:
            return seating.design(n, mode if isinstance(mode, str) else "cyclic")
        except ValueError as exc:
            raise ReportError(f"{self.path / 'run.json'}: {exc}") from None

    @property
    def rules(self) -> dict[str, Any]:
        rules = self.config.get("rules") or {}
        return dict(rules) if isinstance(rules, dict) else {"preset": rules}

    @property
    def entrants(self) -> list[dict[str, Any]]:
        return [e for e in self.config.get("entrants") or [] if isinstance(e, dict)]

    def fingerprint(self) -> list[list[Any]]:
        """What the aggregates depend on: each part's name, size and modification time."""
        extra = [f for f in (self.path / "run.json", self.path / MANIFEST) if f.exists()]
        return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in self.parts] + [
            [f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in extra
        ]


def find_run(path: str | Path) -> Path:
    """The run folder ``path`` names: itself, or the newest run inside a config folder."""
    folder = Path(path)
    if not folder.exists():
        raise ReportError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder; give a run folder results/<config>/<run id>")
    if (folder / "run.json").is_file():
        return folder
    runs = [d for d in folder.iterdir() if d.is_dir() and (d / "run.json").is_file()]
    if not runs:
        raise ReportError(
            f"{folder}: not a run folder (no run.json); give results/<config>/<run id>"
        )
    return max(runs, key=lambda d: ((d / "run.json").stat().st_mtime_ns, d.name))


def load_run(path: str | Path, *, check: bool = True) -> RunInfo:
    """Open a run folder and check its ``run.json`` and its stored chunks.

    One-line errors for what is wrong; a chunk that does not verify raises
    :class:`DamagedRun` (with ``check=False`` the problems are left in ``info.problems``
    and the damaged parts out of ``info.parts``, for ``--repair``).
    """
    folder = find_run(path)
    config_path = folder / "run.json"
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{config_path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{config_path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(config, dict):
        raise ReportError(f"{config_path}: expected a JSON object")
    players = config.get("players")
    if type(players) is not int or not 2 <= players <= 7:
        raise ReportError(f"{config_path}: 'players' must be a whole number 2..7, got {players!r}")
    dice = config.get("dice", "duplicate")
    if dice not in ("duplicate", "independent"):
        raise ReportError(
            f"{config_path}: 'dice' must be 'duplicate' or 'independent', got {dice!r}"
        )
    if isinstance(config.get("run_format"), str):
        info = _verified_run(folder, config)
        if check and info.problems:
            raise DamagedRun(folder, info.problems)
        return info
    parts, notes = _complete_parts(folder)
    return RunInfo(folder, config, parts, notes)


def _verified_run(folder: Path, config: dict[str, Any]) -> RunInfo:
    """A runner's folder: only the parts its manifest lists, each verified against its line.

    A part on disk the manifest does not list is a chunk in progress (or left by a kill):
    not a result, left out with a note. Everything else that is not as listed is a problem.
    """
    from harness.tourney.storage import ChunkDamaged, covered, read_part, safe_part_name

    games_dir = folder / "games"
    manifest = folder / MANIFEST
    entries = _manifest_lines(manifest) if manifest.is_file() else []
    parts: list[Path] = []
    listed: set[str] = set()
    problems: list[str] = []
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for entry in entries:
        name = entry["file"]
        claim = covered(entry)
        if not safe_part_name(name) or name in listed or claim is None:
            problems.append(f"manifest line for {str(name)[:200]!r} is malformed or repeated")
            continue
        # What the line claims counts for coverage even if its chunk is damaged: that is
        # one problem (the chunk), not two (the chunk and a gap).
        spans.setdefault(claim[0], []).append((claim[1], claim[2], name))
        listed.add(name)
        try:
            read_part(games_dir / name, entry, columns=[])
        except ChunkDamaged as exc:
            problems.append(f"games/{exc}")
            continue
        parts.append(games_dir / name)
    problems += _coverage(config, spans)
    on_disk = (
        {p.name for p in games_dir.glob("*.parquet") if not p.name.startswith(".")}
        if games_dir.is_dir()
        else set()
    )
    notes = []
    unlisted = len(on_disk - {e["file"] for e in entries})
    if unlisted:
        notes.append(f"{unlisted} part file(s) not in the manifest (chunks not finished) left out")
    parts.sort()
    return RunInfo(folder, config, parts, notes, problems)


def _manifest_lines(manifest: Path) -> list[dict[str, Any]]:
    """The manifest's complete lines (a line torn by a kill ends it)."""
    try:
        raw = manifest.read_bytes()
    except OSError as exc:
        raise ReportError(f"{manifest}: cannot read ({exc.strerror or exc})") from None
    entries = []
    for line in raw.splitlines(keepends=True):
        try:
            entry = json.loads(line) if line.endswith(b"\n") else None
        except ValueError:
            entry = None
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            break
        entries.append(entry)
    return entries


def _coverage(config: dict[str, Any], spans: dict[str, list[tuple[int, int, str]]]) -> list[str]:
    """Chunks of a table must not overlap; a complete run's must cover every deal."""
    problems = []
    for found in spans.values():
        found.sort()
        for (_, stop, a), (first, _, b) in zip(found, found[1:], strict=False):
            if first < stop:
                problems.append(f"games/{b}: its deals overlap those of games/{a}")
    if config.get("status") != "complete":
        return problems
    deals = config.get("games")
    tables = [t.get("id") for t in config.get("tables") or [] if isinstance(t, dict)]
    for table in tables:
        at = 0
        for first, stop, _ in spans.get(str(table), []):
            if first > at:
                break
            at = max(at, stop)
        if at != deals:
            problems.append(
                f"run.json says complete but no stored chunk holds deal {at} of table {table}"
            )
    for table in set(spans) - {str(t) for t in tables}:
        problems.append(f"games of table {table}, which is not a table of this run")
    return problems


def _complete_parts(folder: Path) -> tuple[list[Path], list[str]]:
    """The part files that hold finished results, and notes on any left out.

    With a ``manifest.jsonl`` (written by the runner as each chunk completes) only
    the parts it lists, at the size it records, are results: a file not yet listed is
    a chunk in progress or left by a kill. A line torn by a kill ends the manifest.
    Without a manifest every ``games/*.parquet`` counts.
    """
    games_dir = folder / "games"
    on_disk = (
        sorted(p for p in games_dir.glob("*.parquet") if not p.name.startswith("."))
        if games_dir.is_dir()
        else []
    )
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return on_disk, []
    listed: dict[str, int | None] = {}
    for entry in _manifest_lines(manifest):
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
        notes.append(f"{unlisted} part file(s) not in the manifest (chunks not finished) left out")
    if wrong:
        notes.append(f"{wrong} part file(s) whose size differs from the manifest left out")
    if missing:
        notes.append(f"{missing} part file(s) listed in the manifest are missing")
    return parts, notes


# -- aggregates --------------------------------------------------------------------------
MOMENT_FIELDS = 6  # units, sy, sm, syy, smm, sym: see stats.Moments


def moments_of(row: np.ndarray) -> stats.Moments:
    """A :class:`~harness.report.stats.Moments` from one row of a moment array."""
    return stats.Moments(*(float(v) for v in row))


def cluster_moments(
    cluster: np.ndarray, key: np.ndarray, y: np.ndarray, m: np.ndarray, keys: int
) -> np.ndarray:
    """Moment sums per key over clusters: a (keys, 6) array.

    Each (cluster, key) unit's totals Y = sum(y) and M = sum(m) contribute
    (1 if M > 0, Y, M, Y^2, M^2, Y M) to the key's row.
    """
    out = np.zeros((keys, MOMENT_FIELDS))
    if len(key) == 0:
        return out
    flat = cluster.astype(np.int64) * keys + key
    cells = (int(cluster.max()) + 1) * keys
    # Every (cluster, key) cell counted densely (no hashing) unless most cells would be
    # empty (many keys, as the convergence curve's buckets): then hashing is cheaper.
    if cells <= min(DENSE_CELLS, 8 * len(key)):
        big_y = np.bincount(flat, weights=y, minlength=cells)
        big_m = np.bincount(flat, weights=m, minlength=cells)
        unit_key = np.tile(np.arange(keys), cells // keys)
    else:  # only the cells that occur, found by hashing (linear time, unlike sorting)
        inv, uniq = pd.factorize(flat)
        big_y = np.bincount(inv, weights=y, minlength=len(uniq))
        big_m = np.bincount(inv, weights=m, minlength=len(uniq))
        unit_key = uniq % keys
    for col, values in enumerate(
        (big_m > 0, big_y, big_m, big_y * big_y, big_m * big_m, big_y * big_m)
    ):
        out[:, col] = np.bincount(unit_key, weights=values.astype(float), minlength=keys)
    return out


@dataclass
class Aggregates:
    """Everything a report needs from a run's games, in sums that do not grow with it."""

    info: RunInfo
    strategies: list[str] = field(default_factory=list)
    rows: int = 0
    status: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    shared: int = 0  # scored games with a shared first place
    turns: float = 0.0
    # per strategy (index s): moments of win points, worms and rank; plain totals.
    win: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    worms: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    rank: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    totals: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))  # TOTALS order
    worm_hist: np.ndarray = field(default_factory=lambda: np.zeros((0, MAX_WORMS + 1)))
    capped: np.ndarray = field(default_factory=lambda: np.zeros(0))  # turn-capped games
    seat: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    seat_strategy: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, MOMENT_FIELDS)))
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, MOMENT_FIELDS)))
    conv_width: int = 1
    conv: np.ndarray = field(default_factory=lambda: np.zeros((CONVERGENCE_BUCKETS, 0, 6)))
    choices: stats.ChoiceData = field(default_factory=lambda: stats.ChoiceData(0))
    forfeits: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    forfeit_groups_dropped: int = 0
    # Forfeits by kind (error_kind; "unknown" before schema 2), overall and per strategy:
    # time forfeits depend on the machine, so reports count them apart.
    forfeit_kinds: dict[str, int] = field(default_factory=dict)
    forfeit_kinds_by_strategy: dict[str, dict[str, int]] = field(default_factory=dict)
    tables: dict[str, list[str]] = field(default_factory=dict)
    capped_tables: dict[str, int] = field(default_factory=dict)
    ratings: stats.Ratings | None = None  # with cluster-robust covariance (second pass)


TOTALS = ("busts", "seat_turns", "steals", "stolen", "games")


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
# Columns a part may lack (written before they existed): read as nulls. error_kind came
# with schema 2; a run of schema 1 has no time limits, so its forfeits' kind is unknown.
OPTIONAL_COLUMNS = ("error_kind",)
# Columns renamed since: (new name, old name). A part of schema 1/2 stores the seat
# order's index as ``rotation`` (cyclic design); it is read as ``seating``.
RENAMED_COLUMNS = (("seating", "rotation"),)


def _read_columns(players: int, pass_: str) -> list[str]:
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


def _open_part(part: Path, cols: list[str], players: int) -> _Part:
    """Open a part, map renamed columns, find its deal range; one-line errors."""
    try:
        pf = pq.ParquetFile(part)
        names = pf.schema_arrow.names
        rows = pf.metadata.num_rows
    except Exception as exc:  # noqa: BLE001 - a damaged footer can raise anything from
        # the C++ reader (OSError, ArrowInvalid, even UnicodeDecodeError): one line
        raise ReportError(f"{part}: not a readable Parquet file ({_first_line(exc)})") from None
    rename = {old: new for new, old in RENAMED_COLUMNS if new in cols and new not in names}
    rename = {old: new for old, new in rename.items() if old in names}
    have = set(names) | set(rename.values())
    missing = [c for c in cols if c not in have and c not in OPTIONAL_COLUMNS]
    if missing:
        raise ReportError(
            f"{part}: missing column(s) {', '.join(missing)} (harness/schema.py, players={players})"
        )
    back = {new: old for old, new in rename.items()}
    stored = [back.get(c, c) for c in cols if c in have]
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
        raise ReportError(f"{part}: cannot read ({_first_line(exc)})") from None
    return int(deals.min()), int(deals.max()), bool((np.diff(deals) >= 0).all())


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


def iter_games(
    info: RunInfo,
    cols: list[str],
    progress: Progress | None = None,
    phase: str = "reading",
    batch_rows: int | None = None,
) -> Iterator[pd.DataFrame]:
    """The run's games in batches of whole deals of the run (every table's games of them).

    Only ``cols`` are read (an old part's ``rotation`` as ``seating``). The parts of a
    deal group (:func:`_deal_groups`) are read side by side, a few rows of each at a time;
    their rows go by deal (the runner writes them so), so a deal below every part's last
    deal read is complete and is handed out. Memory: about ``batch_rows`` rows, whatever
    the number of tables. A group with a part whose rows are not in deal order (a folder
    assembled by hand) is handed out once read whole.
    """
    opened = [_open_part(part, cols, info.players) for part in info.parts]
    total = sum(p.rows for p in opened)
    batch_rows = batch_rows or BATCH_ROWS
    done = 0
    for group in _deal_groups(opened):
        per_part = max(1, batch_rows // len(group))
        for frame, read in _whole_deals(group, cols, per_part, batch_rows, info.players):
            done += read
            if frame is not None and len(frame):
                _check_duplicates(frame, group[0].path)
                yield frame
            if progress is not None and read:
                progress(phase, done, total)


def _whole_deals(
    group: list[_Part], cols: list[str], per_part: int, batch_rows: int, players: int
) -> Iterator[tuple[pd.DataFrame | None, int]]:
    """(frame of complete deals or None, rows just read), until the group is read whole."""
    readers = [_batches(p, per_part) for p in group]
    last: list[int | None] = [-1] * len(group)  # highest deal read from each; None: all read
    stream = all(p.ordered for p in group)
    pending: list[pd.DataFrame] = []
    pending_rows = 0
    while True:
        open_ = [i for i, d in enumerate(last) if d is not None]
        if not open_:
            yield (pd.concat(pending, ignore_index=True) if pending else None), 0
            return
        i = min(open_, key=lambda j: last[j])  # the part furthest behind
        batch = next(readers[i], None)
        if batch is None:
            last[i] = None
            yield None, 0
            continue
        frame = _frame_of(batch, group[i], cols, players)
        if len(frame):
            last[i] = int(frame["deal"].iat[-1]) if stream else last[i]
            pending.append(frame)
            pending_rows += len(frame)
        if not stream or pending_rows < batch_rows:
            yield None, len(frame)
            continue
        # Rows go by deal in every part: a deal below each open part's last deal read is
        # complete (a part read whole holds nothing more).
        bound = min(d for d in last if d is not None)
        both = pd.concat(pending, ignore_index=True)
        whole = both["deal"].to_numpy(np.int64) < bound
        pending = [both[~whole].reset_index(drop=True)]
        pending_rows = len(pending[0])
        yield both[whole].reset_index(drop=True), len(frame)


def _frame_of(batch: pa.RecordBatch, part: _Part, cols: list[str], players: int) -> pd.DataFrame:
    """A record batch as the frame reports use: renamed, absent columns null, checked."""
    try:  # pandas' own metadata is not needed (and may be the damaged part)
        frame = batch.to_pandas(ignore_metadata=True)
    except Exception as exc:  # noqa: BLE001 - a damaged part: one line
        raise ReportError(f"{part.path}: cannot read ({_first_line(exc)})") from None
    if part.rename:  # an old part's names (a rename copies the frame: only when needed)
        frame = frame.rename(columns=part.rename)
    for absent in cols:
        if absent not in frame:
            frame[absent] = None
    _check_frame(frame, part.path, players)
    return frame


def _batches(part: _Part, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """The part's record batches one at a time; a read error names the part."""
    batches = part.pf.iter_batches(batch_size=batch_rows, columns=part.stored)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:  # noqa: BLE001 - as above: any reader error is one line
            raise ReportError(f"{part.path}: cannot read ({_first_line(exc)})") from None
        yield batch


def _first_line(exc: BaseException) -> str:
    return safe_text(exc, 300) or type(exc).__name__


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


def _check_duplicates(frame: pd.DataFrame, where: Path) -> None:
    """No game twice: a frame holds whole deals of every table, so this sees them all."""
    dups = frame.duplicated(["table", "deal", "seating"])
    if dups.any():
        row = frame[dups].iloc[0]
        raise ReportError(
            f"{where}: table {row['table']} deal {row['deal']} seat order {row['seating']} "
            "is stored twice; the run folder holds duplicate games"
        )


def deal_clusters(frame: pd.DataFrame) -> np.ndarray:
    """Each game's cluster: its deal, the same at every table and in every seat order.

    Frames from :func:`iter_games` hold whole deals, so a batch's clusters are complete
    and their moments add up over batches (see :mod:`harness.report.stats` for why the
    deal of the whole run is the unit with either dice mode).
    """
    return pd.factorize(frame["deal"].to_numpy(np.int64))[0]


class _Aggregator:
    """Folds batches of games into :class:`Aggregates`."""

    def __init__(self, info: RunInfo, clusters: Clusters) -> None:
        self.agg = Aggregates(info)
        self.clusters = clusters
        self.n = info.players
        self.code: dict[str, int] = {}
        self.design = info.design
        self.agg.seat = np.zeros((self.n, MOMENT_FIELDS))
        for entrant in info.entrants:
            name = entrant.get("name")
            if isinstance(name, str) and name not in self.code:
                self._add_strategy(name)

    def _add_strategy(self, name: str) -> None:
        a, n = self.agg, self.n
        self.code[name] = len(a.strategies)
        a.strategies.append(name)
        p = len(a.strategies)
        a.win = _grow(a.win, (p, MOMENT_FIELDS))
        a.worms = _grow(a.worms, (p, MOMENT_FIELDS))
        a.rank = _grow(a.rank, (p, MOMENT_FIELDS))
        a.totals = _grow(a.totals, (p, len(TOTALS)))
        a.worm_hist = _grow(a.worm_hist, (p, MAX_WORMS + 1))
        a.capped = _grow(a.capped, (p,))
        a.seat_strategy = _grow(a.seat_strategy, (p, n, MOMENT_FIELDS))
        a.pairs = _grow(a.pairs, (p, p, MOMENT_FIELDS))
        a.conv = _grow(a.conv, (CONVERGENCE_BUCKETS, p, MOMENT_FIELDS))
        a.choices.strategies = p

    def codes(self, frame: pd.DataFrame) -> np.ndarray:
        """(games, seats) strategy indices, registering names seen for the first time."""
        out = np.empty((len(frame), self.n), dtype=np.int64)
        for i in range(self.n):
            local, names = pd.factorize(frame[seat_column(i, "strategy")])
            for name in names:
                if str(name) not in self.code:
                    self._add_strategy(str(name))
            lookup = np.array([self.code[str(name)] for name in names], dtype=np.int64)
            out[:, i] = lookup[local]
        return out

    def add(self, frame: pd.DataFrame) -> None:
        a, n = self.agg, self.n
        g = len(frame)
        a.rows += g
        strat = self.codes(frame)
        status = frame["status"].astype(str).to_numpy()
        for s in STATUSES:
            a.status[s] += int((status == s).sum())
        self._tables(frame, strat)
        capped = status == "turn-cap"
        if capped.any():
            for s in range(n):
                a.capped += np.bincount(strat[capped, s], minlength=len(a.strategies))
            for table, count in frame.loc[capped, "table"].astype(str).value_counts().items():
                a.capped_tables[table] = a.capped_tables.get(table, 0) + int(count)
        self._forfeits(frame, strat, status)
        keep = ~capped
        frame, strat = frame[keep].reset_index(drop=True), strat[keep]
        g = len(frame)
        if g == 0:
            return
        p = len(a.strategies)
        ranks = frame[[seat_column(i, "rank") for i in range(n)]].to_numpy(np.int64)
        worms = frame[[seat_column(i, "worms") for i in range(n)]].to_numpy(np.float64)
        turns = frame["turns"].to_numpy(np.int64)
        a.turns += float(turns.sum())
        firsts = (ranks == 1).sum(axis=1)
        a.shared += int((firsts > 1).sum())
        points = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1)[:, None], 0.0)
        cluster = self.clusters(frame)
        deal = frame["deal"].to_numpy(np.int64)

        flat_c = np.repeat(cluster, n)
        flat_s = strat.ravel()
        ones = np.ones(g * n)
        a.win += cluster_moments(flat_c, flat_s, points.ravel(), ones, p)
        a.worms += cluster_moments(flat_c, flat_s, worms.ravel(), ones, p)
        a.rank += cluster_moments(flat_c, flat_s, ranks.ravel().astype(float), ones, p)
        seat_idx = np.tile(np.arange(n), g)
        seat_turns = np.maximum((turns[:, None] - np.arange(n) + n - 1) // n, 0)
        for col, values in enumerate(
            (
                frame[[seat_column(i, "busts") for i in range(n)]].to_numpy(np.float64),
                seat_turns.astype(np.float64),
                frame[[seat_column(i, "steals") for i in range(n)]].to_numpy(np.float64),
                frame[[seat_column(i, "stolen") for i in range(n)]].to_numpy(np.float64),
                np.ones((g, n)),
            )
        ):
            a.totals[:, col] += np.bincount(flat_s, weights=values.ravel(), minlength=p)
        hist_key = flat_s * (MAX_WORMS + 1) + np.clip(worms.ravel(), 0, MAX_WORMS).astype(np.int64)
        a.worm_hist += np.bincount(hist_key, minlength=p * (MAX_WORMS + 1)).reshape(p, -1)
        a.seat += cluster_moments(flat_c, seat_idx, points.ravel(), ones, n)
        a.seat_strategy += cluster_moments(
            flat_c, flat_s * n + seat_idx, points.ravel(), ones, p * n
        ).reshape(p, n, MOMENT_FIELDS)
        self._pairs(cluster, strat, ranks, p)
        self._convergence(cluster, deal, strat, points, p)
        for chosen, pool, weight in _choice_events(strat, ranks):
            a.choices.add(chosen, pool, weight)

    def _tables(self, frame: pd.DataFrame, strat: np.ndarray) -> None:
        """Each table's entrants in table order, from its first game: seat i of seat
        order k holds table entrant ``design[k][i]``."""
        a, design = self.agg, self.design
        first = frame.drop_duplicates("table")
        for idx, table in zip(first.index, first["table"].astype(str), strict=True):
            if table in a.tables:
                continue
            row = strat[frame.index.get_loc(idx)]
            k = int(frame["seating"].iat[frame.index.get_loc(idx)])
            entrants = [""] * self.n
            if 0 <= k < len(design):
                for seat, entrant in enumerate(design[k]):
                    entrants[entrant] = a.strategies[row[seat]]
            else:  # an order the design does not have: the seats as stored
                entrants = [a.strategies[s] for s in row]
            a.tables[table] = entrants

    def _forfeits(self, frame: pd.DataFrame, strat: np.ndarray, status: np.ndarray) -> None:
        a = self.agg
        rows = np.flatnonzero(status == "forfeit")
        for r in rows:
            seat = int(frame["error_seat"].iat[r])
            who = a.strategies[strat[r, seat]] if 0 <= seat < self.n else "?"
            error = frame["error"].iat[r]
            error = safe_text(error) if isinstance(error, str) and error else "(no error recorded)"
            kind = frame["error_kind"].iat[r]
            kind = kind if isinstance(kind, str) and kind in ERROR_KINDS else UNKNOWN_KIND
            a.forfeit_kinds[kind] = a.forfeit_kinds.get(kind, 0) + 1
            mine = a.forfeit_kinds_by_strategy.setdefault(who, {})
            mine[kind] = mine.get(kind, 0) + 1
            key = (who, kind, error)
            group = a.forfeits.get(key)
            if group is None:
                if len(a.forfeits) >= FORFEIT_GROUPS:
                    a.forfeit_groups_dropped += 1
                    continue
                a.forfeits[key] = group = {
                    "strategy": who,
                    "kind": kind,
                    "error": error,
                    "count": 0,
                    "example": {
                        "table": str(frame["table"].iat[r]),
                        "deal": int(frame["deal"].iat[r]),
                        "seating": int(frame["seating"].iat[r]),
                        "seed": int(frame["seed"].iat[r]),
                        "seat": seat,
                    },
                }
            group["count"] += 1

    def _pairs(self, cluster: np.ndarray, strat: np.ndarray, ranks: np.ndarray, p: int) -> None:
        keys, ys, cs = [], [], []
        for i in range(self.n):
            for j in range(i + 1, self.n):
                si, sj = strat[:, i], strat[:, j]
                differ = si != sj
                ahead_i = np.where(
                    ranks[:, i] < ranks[:, j], 1.0, np.where(ranks[:, i] == ranks[:, j], 0.5, 0.0)
                )
                lo, hi = np.minimum(si, sj), np.maximum(si, sj)
                keys.append((lo * p + hi)[differ])
                ys.append(np.where(si < sj, ahead_i, 1.0 - ahead_i)[differ])
                cs.append(cluster[differ])
        key = np.concatenate(keys)
        self.agg.pairs += cluster_moments(
            np.concatenate(cs), key, np.concatenate(ys), np.ones(len(key)), p * p
        ).reshape(p, p, MOMENT_FIELDS)

    def _convergence(
        self, cluster: np.ndarray, deal: np.ndarray, strat: np.ndarray, points: np.ndarray, p: int
    ) -> None:
        a = self.agg
        while deal.max() // a.conv_width >= CONVERGENCE_BUCKETS:
            half = a.conv.reshape(CONVERGENCE_BUCKETS // 2, 2, p, MOMENT_FIELDS).sum(axis=1)
            a.conv = np.concatenate([half, np.zeros_like(half)])
            a.conv_width *= 2
        bucket = np.repeat(deal // a.conv_width, self.n)
        a.conv += cluster_moments(
            np.repeat(cluster, self.n),
            bucket * p + strat.ravel(),
            points.ravel(),
            np.ones(len(bucket)),
            CONVERGENCE_BUCKETS * p,
        ).reshape(CONVERGENCE_BUCKETS, p, MOMENT_FIELDS)


def _grow(arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``arr`` zero-padded to ``shape`` (strategies are discovered as games are read)."""
    out = np.zeros(shape)
    out[tuple(slice(0, k) for k in arr.shape)] = arr
    return out


def _choice_events(
    strat: np.ndarray, ranks: np.ndarray
) -> Iterator[tuple[int, tuple[int, ...], float]]:
    """Plackett-Luce events of many games at once, summed over identical events."""
    games, n = strat.shape
    if games == 0:
        return
    base = int(strat.max()) + 2
    for i in range(n):
        ri = ranks[:, [i]]
        active = (ranks > ri).any(axis=1)
        if not active.any():
            continue
        weight = 1.0 / (ranks == ri).sum(axis=1)
        pool = np.where(ranks >= ri, strat + 1, 0)  # 0 marks "not in the pool"
        pool.sort(axis=1)
        code = np.zeros(games, dtype=np.int64)
        for j in range(n):
            code = code * base + pool[:, j]
        if base ** (n + 1) < 2**62:  # chosen and pool in one integer
            inv, uniq = pd.factorize(code[active] * base + strat[active, i])
            pairs = [divmod(int(u), base)[::-1] for u in uniq]
        else:
            inv, uniq = pd.factorize(pd.MultiIndex.from_arrays([strat[active, i], code[active]]))
            pairs = uniq.tolist()
        sums = np.bincount(inv, weights=weight[active])
        for (chosen, c), w in zip(pairs, sums.tolist(), strict=True):
            members = []
            for _ in range(n):
                c, digit = divmod(c, base)
                if digit:
                    members.append(digit - 1)
            yield int(chosen), tuple(sorted(members)), float(w)


Frames = Callable[[list[str], str], Iterable[pd.DataFrame]]
"""frames(columns, phase): a run's games in frames that hold whole deals (as
:func:`iter_games` gives them); called once per pass."""
Clusters = Callable[[pd.DataFrame], np.ndarray]
"""clusters(frame): each game's cluster id within the frame (the unit of every interval)."""


def aggregate(
    path: str | Path | RunInfo, progress: Progress | None = None, *, ratings: bool = True
) -> Aggregates:
    """Read a run folder's games and reduce them; a second pass adds rating intervals."""
    info = path if isinstance(path, RunInfo) else load_run(path)
    return aggregate_frames(
        info, lambda cols, phase: iter_games(info, cols, progress, phase), ratings=ratings
    )


def aggregate_frames(
    info: RunInfo, frames: Frames, *, ratings: bool = True, clusters: Clusters | None = None
) -> Aggregates:
    """Reduce games given as frames (see :data:`Frames`): what :func:`aggregate` does with
    the frames of a run folder, and benchmarks/coverage.py with games played in memory.

    ``clusters`` is :func:`deal_clusters` unless given: the coverage benchmark passes the
    clusters of earlier versions (per table and deal, per game) to show what they give.
    """
    clusters = clusters or deal_clusters
    folder = _Aggregator(info, clusters)
    for frame in frames(_read_columns(info.players, "main"), "reading"):
        folder.add(frame)
    agg = folder.agg
    if ratings and _ratable(agg):
        fitted = stats.fit_plackett_luce(agg.choices)
        scores = frames(_read_columns(info.players, "ratings"), "ratings")
        meat, units = _rating_meat(info, folder, np.nan_to_num(fitted.theta), scores, clusters)
        fitted.cov = stats.sandwich_cov(fitted, meat, units)
        agg.ratings = fitted
    return agg


def _ratable(agg: Aggregates) -> bool:
    return len(stats.present(agg.choices)) >= 2 and stats.connected(agg.choices)


def _rating_meat(
    info: RunInfo,
    folder: _Aggregator,
    theta: np.ndarray,
    frames: Iterable[pd.DataFrame],
    clusters: Clusters,
) -> tuple[np.ndarray, int]:
    """Sum over units of the outer products of their summed Plackett-Luce scores."""
    from scipy import sparse

    p = len(theta)
    meat = np.zeros((p, p))
    units = 0
    for frame in frames:
        frame = frame[frame["status"].astype(str) != "turn-cap"].reset_index(drop=True)
        if not len(frame):
            continue
        strat = folder.codes(frame)
        ranks = frame[[seat_column(i, "rank") for i in range(info.players)]].to_numpy(np.int64)
        rows, cols, vals = stats.pl_scores(theta, strat, ranks)
        cluster = clusters(frame)
        k = int(cluster.max()) + 1
        score = sparse.coo_matrix((vals, (cluster[rows], cols)), shape=(k, p)).tocsr()
        meat += (score.T @ score).toarray()
        units += k
    return meat, units


def nan_to_none(value: Any) -> Any:
    """JSON-safe: nan and infinities become None, recursively through lists and dicts."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [nan_to_none(v) for v in value]
    if isinstance(value, np.floating | np.integer):
        return nan_to_none(value.item())
    return value
