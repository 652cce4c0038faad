"""Reading a run folder and reducing its games to the aggregates reports need.

The games are read part by part and batch by batch with only the columns needed, and
every batch is folded into fixed-size sums (:class:`Aggregates`): memory depends on the
number of strategies and seats, never on the number of games. The sums are cluster
moments (see :class:`harness.stats.Moments`) whose unit is a deal of the whole
run: every table plays deal d on the same dice (in either dice mode), so all the games
of deal d, at every table and in every seat order, are one cluster. A batch therefore
holds whole deals of every table (:func:`iter_games`): the parts of all tables that
cover the same deals are read side by side, and a deal is folded only once every part
has gone past it.

Parts are read with pyarrow and folded from numpy (:class:`Games`): no pandas per part,
one conversion per column and batch. The rating intervals need a second pass (the fit
comes first); what it reads is kept from the first pass while that stays small
(``KEPT_BYTES``), so a run of a few million games is read once. Batches, the order of
every sum and therefore every number are those of the frames this module read before.

Nothing is read unverified from a folder the runner wrote (its ``run.json`` has a
``run_format``): every part the manifest lists is checked against its line first, with
the runner's own check (:func:`harness.runfolder.parts.read_part`: size, sha256, and rows
that are exactly the deals the line claims), and the lines must not overlap (nor, for a
complete run, leave a deal out). A chunk that fails makes the report fail with one line
naming it (:class:`DamagedRun`); ``harness report RUN --repair`` plays it again. Folders
assembled by hand (no ``run_format``) are read as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness import stats
from harness.errors import HarnessError, safe_text
from harness.game.ranking import POINT, Counts
from harness.jsonsafe import TooDeep, loads_bounded
from harness.runfolder.layout import GAMES, MANIFEST, RUN_JSON, part_files
from harness.runfolder.manifest import covered, read_manifest, safe_part_name
from harness.runfolder.parts import (
    ChunkDamaged,
    complete_parts,
    first_line,
    read_part,
    unlisted_note,
)
from harness.runfolder.schema import (
    ACCOUNT_FIELDS,
    ERROR_KINDS,
    FORFEIT,
    RENAMED_COLUMNS,
    SEAT_FIELDS,
    STATUSES,
    TURN_CAP,
    column_type,
    is_optional,
    seat_column,
)

UNKNOWN_KIND = "unknown"  # a forfeit stored before error_kind existed

MAX_WORMS = 40  # every tile's worms together (R1): no score can be higher
CONVERGENCE_BUCKETS = 256  # resolution of the win-share-vs-games curve
BATCH_ROWS = 1 << 17
DENSE_CELLS = 1 << 21  # up to this many (cluster, key) cells are counted densely
FORFEIT_GROUPS = 200  # distinct (strategy, kind, error) forfeit groups kept with an example
FORFEIT_MESSAGES = 100  # distinct messages counted per group (then "100 or more")
# Where a forfeit happened, at the start of its message: one bug forfeits at many turns
# and seats, and the report groups it once (GameError's "turn T, seat S (name) ").
_WHERE = re.compile(r"^turn \d+, seat \d+ \((?P<name>.*?)\) ")
_NUMBER = re.compile(r"(?<![A-Za-z_])\d+(?:\.\d+)?")  # not a rule id (R5) nor a name's digit


def forfeit_detail(error: str, who: str) -> str:
    """A forfeit's message without where it happened (``turn 3, seat 1 (my-bot) ``)."""
    found = _WHERE.match(error)
    if found is not None and found.group("name") == who:
        return error[found.end() :]
    return error


def forfeit_pattern(detail: str) -> str:
    """What groups forfeits of one cause: the message with its numbers (faces, totals,
    a KeyError's key) left out, rule ids kept: "picked #, already set aside (R5)"."""
    return _NUMBER.sub("#", detail)


KEPT_BYTES = 1 << 26  # the rating pass's inputs kept from the first pass up to this size

ProgressCallback = Callable[[str, int, int], None]
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
    # Each verified part's (rows, lowest deal, highest deal, rows go by deal), found while
    # verifying it: reading the games then need not read its deal column again.
    layouts: dict[Path, tuple[int, int, int, bool]] = field(default_factory=dict)
    # The manifest lines of the verified parts: what playing each chunk cost (cpu, the
    # decision times, the plugins' output), for the report.
    entries: list[dict[str, Any]] = field(default_factory=list)

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
    def by_deal(self) -> bool:
        """Whether intervals go by deal clusters: always, since every table plays a deal on
        the same dice in either dice mode (see :mod:`harness.stats`). Kept so that
        callers that choose the interval by it get the clustered one."""
        return True

    @property
    def design(self) -> tuple[tuple[int, ...], ...]:
        """The run's seat orders: order k puts table entrant ``design[k][i]`` in seat i.

        From run.json's ``design`` (schema 3), else its ``seating`` mode, else the cyclic
        rotations every run before seating modes played.
        """
        from harness.game import seating

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
                f"{self.path / RUN_JSON}: 'design' must be a list of seat orders of "
                f"0..{n - 1}, got {safe_text(raw, 200)}"
            )
        mode = self.config.get("seating", "cyclic")
        try:
            return seating.design(n, mode if isinstance(mode, str) else "cyclic")
        except ValueError as exc:
            raise ReportError(f"{self.path / RUN_JSON}: {exc}") from None

    @property
    def rules(self) -> dict[str, Any]:
        rules = self.config.get("rules") or {}
        return dict(rules) if isinstance(rules, dict) else {"preset": rules}

    @property
    def entrants(self) -> list[dict[str, Any]]:
        return [e for e in self.config.get("entrants") or [] if isinstance(e, dict)]

    def fingerprint(self) -> list[list[Any]]:
        """What the aggregates depend on: each part's name, size and modification time."""
        extra = [f for f in (self.path / RUN_JSON, self.path / MANIFEST) if f.exists()]
        return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in self.parts] + [
            [f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in extra
        ]


def find_run(path: str | Path) -> Path:
    """The run folder ``path`` names: itself, or the newest run inside a config folder."""
    folder = Path(path)
    if _is_run(folder):
        return folder
    return runs_in(folder)[-1]


def _is_run(folder: Path) -> bool:
    if not folder.exists():
        raise ReportError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder; give a run folder results/<config>/<run id>")
    return (folder / RUN_JSON).is_file()


def runs_in(path: str | Path) -> list[Path]:
    """The run folders of a config folder (``results/<config>``), oldest first: by when
    their run.json was last written (a run's last play), then by name."""
    folder = Path(path)
    if _is_run(folder):
        raise ReportError(
            f"{folder}: a run folder, not a config folder; give results/<config> for its runs"
        )
    runs = [d for d in folder.iterdir() if d.is_dir() and (d / RUN_JSON).is_file()]
    if not runs:
        raise ReportError(
            f"{folder}: not a run folder (no run.json); give results/<config>/<run id>"
        )
    return sorted(runs, key=lambda d: ((d / RUN_JSON).stat().st_mtime_ns, d.name))


def load_run(path: str | Path, *, check: bool = True) -> RunInfo:
    """Open a run folder and check its ``run.json`` and its stored chunks.

    One-line errors for what is wrong; a chunk that does not verify raises
    :class:`DamagedRun` (with ``check=False`` the problems are left in ``info.problems``
    and the damaged parts out of ``info.parts``, for ``--repair``).
    """
    folder = find_run(path)
    config_path = folder / RUN_JSON
    try:
        config = loads_bounded(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{config_path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{config_path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except TooDeep as exc:
        raise ReportError(f"{config_path}: not a run.json of harness: {exc}") from None
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
    manifest = folder / MANIFEST
    entries = _manifest_lines(manifest) if manifest.is_file() else None
    parts, notes = complete_parts(folder / GAMES, entries)
    return RunInfo(folder, config, parts, notes)


def _verified_run(folder: Path, config: dict[str, Any]) -> RunInfo:
    """A runner's folder: only the parts its manifest lists, each verified against its line.

    A part on disk the manifest does not list is a chunk in progress (or left by a kill):
    not a result, left out with a note. Everything else that is not as listed is a problem.
    """
    games_dir = folder / GAMES
    manifest = folder / MANIFEST
    entries = _manifest_lines(manifest) if manifest.is_file() else []
    parts: list[Path] = []
    listed: set[str] = set()
    problems: list[str] = []
    spans: dict[str, list[tuple[int, int, str]]] = {}
    layouts: dict[Path, tuple[int, int, int, bool]] = {}
    good: list[dict[str, Any]] = []
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
            rows = read_part(games_dir / name, entry, columns=["deal"])
        except ChunkDamaged as exc:
            problems.append(f"games/{exc}")
            continue
        parts.append(games_dir / name)
        good.append(entry)
        deals = rows.column("deal").to_numpy().astype(np.int64)
        layouts[games_dir / name] = (len(deals), *_layout_of(deals))
    problems += _coverage(config, spans)
    on_disk = {p.name for p in part_files(games_dir)}
    notes = []
    unlisted = len(on_disk - {e["file"] for e in entries})
    if unlisted:
        notes.append(unlisted_note(unlisted))
    parts.sort()
    return RunInfo(folder, config, parts, notes, problems, layouts, good)


def _manifest_lines(manifest: Path) -> list[dict[str, Any]]:
    """The manifest's complete lines (the torn-line rule: a line torn by a kill ends it)."""
    try:
        return read_manifest(manifest, keyed=False)[0]
    except OSError as exc:
        raise ReportError(f"{manifest}: cannot read ({exc.strerror or exc})") from None


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


# -- aggregates --------------------------------------------------------------------------
MOMENT_FIELDS = 6  # deals, sy, sm, syy, smm, sym: see stats.Moments


def moments_of(row: np.ndarray) -> stats.Moments:
    """A :class:`~harness.stats.Moments` from one row of a moment array."""
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
    # per strategy, exact integers (COUNTS order): what the one ranking orders by.
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
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
    # The luck and skill account (docs/luck.md), per strategy: control moments per deal
    # fold (stats.CONTROL_FIELDS) of the win share (control: win-weighted luck against the
    # others'), of the worm margin (own worms - the others' mean; control: luck) and, per
    # pair a < b, of a's head-to-head point (control: W_a - W_b); the account's sums
    # (ACCOUNT_SUMS) and a histogram of a seat's luck in a game (LUCK_BINS).
    luck_win: np.ndarray = field(default_factory=lambda: _control_zeros(0))
    luck_margin: np.ndarray = field(default_factory=lambda: _control_zeros(0))
    luck_pairs: np.ndarray = field(default_factory=lambda: _control_zeros(0, 0))
    account: np.ndarray = field(default_factory=lambda: np.zeros((0, len(ACCOUNT_SUMS))))
    luck_hist: np.ndarray = field(default_factory=lambda: np.zeros((0, len(LUCK_BINS) + 1)))

    def entrant_counts(self) -> dict[str, Counts]:
        """Each strategy's :class:`~harness.game.ranking.Counts`, exact (counted as integers)."""
        out = {}
        for s, name in enumerate(self.strategies):
            games, points, worms, rank = (int(v) for v in self.counts[s])
            forfeits = sum(self.forfeit_kinds_by_strategy.get(name, {}).values())
            out[name] = Counts(games, points, worms, rank, forfeits, int(self.capped[s]))
        return out


TOTALS = ("busts", "seat_turns", "steals", "stolen", "games")
# The account's sums per strategy, over the games that kept it: its columns, then the
# games and seat turns they cover (schema.ACCOUNT_FIELDS).
ACCOUNT_SUMS = (*ACCOUNT_FIELDS, "games", "seat_turns")
# A seat's luck over a game, in worms: histogram edges (the last bin takes the rest).
LUCK_BINS = tuple(np.arange(-20.0, 20.5, 1.0))


def _control_zeros(*shape: int) -> np.ndarray:
    return np.zeros((*shape, stats.FOLDS, len(stats.CONTROL_FIELDS)))


COUNTS = ("games", "points", "worms", "rank")  # Aggregates.counts: points in 1/POINT units


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


def _layout_of(deals: np.ndarray) -> tuple[int, int, bool]:
    """A part's lowest and highest deal, and whether its rows go by deal."""
    if not len(deals):
        return 0, -1, True
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
_Scored = tuple[np.ndarray, np.ndarray, np.ndarray]  # strategies, ranks, clusters of a batch


def _whole_deals(
    group: list[_Part], cols: list[str], per_part: int, batch_rows: int, players: int
) -> Iterator[tuple[Games | None, int]]:
    """(games of complete deals or None, rows just read), until the group is read whole."""
    readers = [_batches(p, per_part) for p in group]
    last: list[int | None] = [-1] * len(group)  # highest deal read from each; None: all read
    stream = all(p.ordered for p in group)
    pending: list[_Piece] = []
    pending_rows = 0
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
        if not stream or pending_rows < batch_rows:
            yield None, rows
            continue
        # Rows go by deal in every part: a deal below each open part's last deal read is
        # complete (a part read whole holds nothing more). Each piece's rows go by deal,
        # so its complete deals are a prefix: the batch is the pieces' prefixes in order.
        bound = min(d for d in last if d is not None)
        whole, rest = [], []
        for table, deals, part in pending:
            cut = int(np.searchsorted(deals, bound, side="left"))
            if cut:
                whole.append((table.slice(0, cut), part))
            if cut < len(deals):
                rest.append((table.slice(cut), deals[cut:], part))
        pending = rest
        pending_rows = sum(len(d) for _, d, _ in rest)
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


class _Aggregator:
    """Folds batches of games into :class:`Aggregates`."""

    def __init__(self, info: RunInfo, clusters: Clusters | None, keep: bool = False) -> None:
        self.agg = Aggregates(info)
        self.clusters = clusters
        self.n = info.players
        self.code: dict[str, int] = {}
        self.design = info.design
        self.agg.seat = np.zeros((self.n, MOMENT_FIELDS))
        # What the rating pass reads, kept from this pass while it fits in KEPT_BYTES:
        # then the games are read once (None: too many, the rating pass reads them again).
        self.kept: list[_Scored] | None = [] if keep else None
        self.kept_bytes = 0
        # Whether any game may hold the account: run.json's ``luck`` (a run of schema 3 or
        # older, or with luck off, has none: its luck moments are skipped).
        self.luck_kept = info.config.get("luck", "off") != "off"
        self._seen_messages: dict[tuple[str, str, str], set[str]] = {}  # per forfeit group
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
        a.counts = _grow(a.counts, (p, len(COUNTS)))
        a.seat_strategy = _grow(a.seat_strategy, (p, n, MOMENT_FIELDS))
        a.pairs = _grow(a.pairs, (p, p, MOMENT_FIELDS))
        a.conv = _grow(a.conv, (CONVERGENCE_BUCKETS, p, MOMENT_FIELDS))
        a.choices.strategies = p
        fields = (stats.FOLDS, len(stats.CONTROL_FIELDS))
        a.luck_win = _grow(a.luck_win, (p, *fields))
        a.luck_margin = _grow(a.luck_margin, (p, *fields))
        a.luck_pairs = _grow(a.luck_pairs, (p, p, *fields))
        a.account = _grow(a.account, (p, len(ACCOUNT_SUMS)))
        a.luck_hist = _grow(a.luck_hist, (p, len(LUCK_BINS) + 1))

    def codes(self, games: Games) -> np.ndarray:
        """(games, seats) strategy indices, registering names seen for the first time."""
        out = np.empty((len(games), self.n), dtype=np.int64)
        for i in range(self.n):
            local, names = games.labels(seat_column(i, "strategy"))
            for name in names:
                if name not in self.code:
                    self._add_strategy(name)
            lookup = np.array([self.code[name] for name in names], dtype=np.int64)
            out[:, i] = lookup[local]
        return out

    def cluster(self, games: Games) -> np.ndarray:
        """Each game's cluster (given clusters are computed on the games as a frame)."""
        return deal_clusters(games) if self.clusters is None else self.clusters(games.to_pandas())

    def add(self, games: Games) -> None:
        a, n = self.agg, self.n
        g = len(games)
        a.rows += g
        strat = self.codes(games)
        codes, names = games.labels("status")
        counts = np.bincount(codes, minlength=len(names))
        for s in STATUSES:
            a.status[s] += int(counts[names.index(s)]) if s in names else 0
        self._tables(games, strat)
        capped = games.matches("status", STATUSES[TURN_CAP])
        if capped.any():
            for s in range(n):
                a.capped += np.bincount(strat[capped, s], minlength=len(a.strategies))
            tables = pd.Series(games.text("table")[capped])
            for table, count in tables.value_counts().items():
                a.capped_tables[table] = a.capped_tables.get(table, 0) + int(count)
        self._forfeits(games, strat, games.matches("status", STATUSES[FORFEIT]))
        keep = ~capped
        games, strat = games.select(keep), strat[keep]
        g = len(games)
        if g == 0:
            return
        p = len(a.strategies)
        ranks = games.numbers([seat_column(i, "rank") for i in range(n)], np.int64)
        worms = games.numbers([seat_column(i, "worms") for i in range(n)], np.float64)
        turns = games.number("turns").astype(np.int64)
        a.turns += float(turns.sum())
        firsts = (ranks == 1).sum(axis=1)
        a.shared += int((firsts > 1).sum())
        points = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1)[:, None], 0.0)
        cluster = self.cluster(games)
        self._keep(strat, ranks, cluster)
        deal = games.number("deal").astype(np.int64)

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
                games.numbers([seat_column(i, "busts") for i in range(n)], np.float64),
                seat_turns.astype(np.float64),
                games.numbers([seat_column(i, "steals") for i in range(n)], np.float64),
                games.numbers([seat_column(i, "stolen") for i in range(n)], np.float64),
                np.ones((g, n)),
            )
        ):
            a.totals[:, col] += np.bincount(flat_s, weights=values.ravel(), minlength=p)
        # The same games counted exactly: integer weights, whose float sums within a batch
        # stay far below 2**53, so rounding them back is exact.
        share = np.where(ranks == 1, POINT // np.maximum(firsts, 1)[:, None], 0)
        for col, values in enumerate((np.ones_like(ranks), share, worms, ranks)):
            summed = np.bincount(flat_s, weights=values.ravel(), minlength=p)
            a.counts[:, col] += np.rint(summed).astype(np.int64)
        hist_key = flat_s * (MAX_WORMS + 1) + np.clip(worms.ravel(), 0, MAX_WORMS).astype(np.int64)
        a.worm_hist += np.bincount(hist_key, minlength=p * (MAX_WORMS + 1)).reshape(p, -1)
        a.seat += cluster_moments(flat_c, seat_idx, points.ravel(), ones, n)
        a.seat_strategy += cluster_moments(
            flat_c, flat_s * n + seat_idx, points.ravel(), ones, p * n
        ).reshape(p, n, MOMENT_FIELDS)
        self._pairs(cluster, strat, ranks, p)
        self._luck(games, deal, strat, ranks, points, worms, seat_turns, p)
        self._convergence(cluster, deal, strat, points, p)
        for chosen, pool, weight in _choice_events(strat, ranks):
            a.choices.add(chosen, pool, weight)

    def scored(self, games: Games) -> _Scored | None:
        """The scored games' (strategies, ranks, clusters), or None if there are none."""
        games = games.select(~games.matches("status", STATUSES[TURN_CAP]))
        if not len(games):
            return None
        ranks = games.numbers([seat_column(i, "rank") for i in range(self.n)], np.int64)
        return self.codes(games), ranks, self.cluster(games)

    def _keep(self, strat: np.ndarray, ranks: np.ndarray, cluster: np.ndarray) -> None:
        if self.kept is None:
            return
        kept = (strat.astype(np.int32), ranks.astype(np.int8), cluster.astype(np.int32))
        self.kept_bytes += sum(a.nbytes for a in kept)
        if self.kept_bytes > KEPT_BYTES:
            self.kept = None
        else:
            self.kept.append(kept)

    def _tables(self, games: Games, strat: np.ndarray) -> None:
        """Each table's entrants in table order, from its first game: seat i of seat
        order k holds table entrant ``design[k][i]``."""
        a, design = self.agg, self.design
        codes, names = games.labels("table")
        if all(name in a.tables for name in names):
            return
        present, first = np.unique(codes, return_index=True)
        for code, row in sorted(zip(present.tolist(), first.tolist(), strict=True), key=_second):
            table = names[code]
            if table in a.tables:
                continue
            k = int(games.values("seating", np.array([row]))[0])
            entrants = [""] * self.n
            if 0 <= k < len(design):
                for seat, entrant in enumerate(design[k]):
                    entrants[entrant] = a.strategies[strat[row, seat]]
            else:  # an order the design does not have: the seats as stored
                entrants = [a.strategies[s] for s in strat[row]]
            a.tables[table] = entrants

    def _forfeits(self, games: Games, strat: np.ndarray, forfeit: np.ndarray) -> None:
        a = self.agg
        rows = np.flatnonzero(forfeit)
        if not len(rows):
            return
        columns = ("error_seat", "error", "error_kind", "table", "deal", "seating", "seed")
        values = zip(*(games.values(c, rows) for c in columns), strict=True)
        for r, (seat, error, kind, table, deal, seating, seed) in zip(rows, values, strict=True):
            seat = int(seat)
            who = a.strategies[strat[r, seat]] if 0 <= seat < self.n else "?"
            error = safe_text(error) if isinstance(error, str) and error else "(no error recorded)"
            kind = kind if isinstance(kind, str) and kind in ERROR_KINDS else UNKNOWN_KIND
            a.forfeit_kinds[kind] = a.forfeit_kinds.get(kind, 0) + 1
            mine = a.forfeit_kinds_by_strategy.setdefault(who, {})
            mine[kind] = mine.get(kind, 0) + 1
            detail = forfeit_detail(error, who)
            key = (who, kind, forfeit_pattern(detail))
            group = a.forfeits.get(key)
            if group is None:
                if len(a.forfeits) >= FORFEIT_GROUPS:
                    a.forfeit_groups_dropped += 1
                    continue
                a.forfeits[key] = group = {
                    "strategy": who,
                    "kind": kind,
                    "error": error,  # the first one, whole
                    "detail": detail,
                    "count": 0,
                    "messages": 0,
                    "example": {
                        "table": str(table),
                        "deal": int(deal),
                        "seating": int(seating),
                        "seed": int(seed),
                        "seat": seat,
                    },
                }
                self._seen_messages[key] = set()
            group["count"] += 1
            seen = self._seen_messages[key]
            if len(seen) < FORFEIT_MESSAGES and detail not in seen:
                seen.add(detail)
                group["messages"] = len(seen)

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

    def _luck(
        self,
        games: Games,
        deal: np.ndarray,
        strat: np.ndarray,
        ranks: np.ndarray,
        points: np.ndarray,
        worms: np.ndarray,
        seat_turns: np.ndarray,
        p: int,
    ) -> None:
        """The account's moments and sums (a run that never kept it: nothing to do)."""
        if not self.luck_kept:
            return
        a, n = self.agg, self.n
        field_of = {f: games.numbers([seat_column(i, f) for i in range(n)], np.float64)
                    for f in ACCOUNT_FIELDS}  # fmt: skip
        luck, wluck = field_of["luck"], field_of["wluck"]  # nan: a game without the account
        a.luck_win += stats.seat_rows(deal, strat, points, stats.versus_others(wluck), p)
        a.luck_margin += stats.seat_rows(
            deal, strat, stats.versus_others(worms), stats.versus_others(luck), p
        )
        a.luck_pairs += stats.pair_rows(deal, strat, ranks, wluck, p)
        kept = ~np.isnan(luck)
        if not kept.any():
            return
        flat_s = strat[kept]
        for col, name in enumerate(ACCOUNT_FIELDS):
            a.account[:, col] += np.bincount(flat_s, weights=field_of[name][kept], minlength=p)
        a.account[:, len(ACCOUNT_FIELDS)] += np.bincount(flat_s, minlength=p)
        a.account[:, len(ACCOUNT_FIELDS) + 1] += np.bincount(
            flat_s, weights=seat_turns[kept].astype(float), minlength=p
        )
        bins = np.searchsorted(np.asarray(LUCK_BINS), luck[kept], side="right")
        a.luck_hist += np.bincount(
            flat_s * (len(LUCK_BINS) + 1) + bins, minlength=p * (len(LUCK_BINS) + 1)
        ).reshape(p, -1)

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
    out = np.zeros(shape, dtype=arr.dtype)
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


def _second(pair: tuple[int, int]) -> int:
    return pair[1]


Frames = Callable[[list[str], str], Iterable["Games | pd.DataFrame"]]
"""frames(columns, phase): a run's games in batches that hold whole deals (as
:func:`iter_batches` gives them, or as frames); called once per pass."""
Clusters = Callable[[pd.DataFrame], np.ndarray]
"""clusters(frame): each game's cluster id within the frame (the unit of every interval)."""


def aggregate(
    path: str | Path | RunInfo, progress: ProgressCallback | None = None, *, ratings: bool = True
) -> Aggregates:
    """Read a run folder's games and reduce them; a second pass adds rating intervals."""
    info = path if isinstance(path, RunInfo) else load_run(path)
    return aggregate_frames(
        info, lambda cols, phase: iter_batches(info, cols, progress, phase), ratings=ratings
    )


def aggregate_frames(
    info: RunInfo, frames: Frames, *, ratings: bool = True, clusters: Clusters | None = None
) -> Aggregates:
    """Reduce games given in batches (see :data:`Frames`): what :func:`aggregate` does with
    the batches of a run folder, and benchmarks/coverage.py with frames played in memory.

    ``clusters`` is :func:`deal_clusters` unless given: the coverage benchmark passes the
    clusters of earlier versions (per table and deal, per game) to show what they give.
    """
    folder = _Aggregator(info, clusters, keep=ratings)
    for frame in frames(read_columns(info.players, "main"), "reading"):
        folder.add(Games.of(frame))
    agg = folder.agg
    if ratings and _ratable(agg):
        fitted = stats.fit_plackett_luce(agg.choices)
        if folder.kept is not None:
            scored: Iterable[_Scored | None] = folder.kept
        else:
            again = frames(read_columns(info.players, "ratings"), "ratings")
            scored = (folder.scored(Games.of(frame)) for frame in again)
        meat, deals = _rating_meat(np.nan_to_num(fitted.theta), scored)
        fitted.cov = stats.sandwich_cov(fitted, meat, deals)
        agg.ratings = fitted
    return agg


def _ratable(agg: Aggregates) -> bool:
    return len(stats.present(agg.choices)) >= 2 and stats.connected(agg.choices)


def _rating_meat(theta: np.ndarray, batches: Iterable[_Scored | None]) -> tuple[np.ndarray, int]:
    """Sum over deals of the outer products of their summed Plackett-Luce scores."""
    from scipy import sparse

    p = len(theta)
    meat = np.zeros((p, p))
    deals = 0
    for batch in batches:
        if batch is None:
            continue
        strat, ranks, deal = (a.astype(np.int64) for a in batch)
        rows, cols, vals = stats.pl_scores(theta, strat, ranks)
        k = int(deal.max()) + 1
        score = sparse.coo_matrix((vals, (deal[rows], cols)), shape=(k, p)).tocsr()
        meat += (score.T @ score).toarray()
        deals += k
    return meat, deals
