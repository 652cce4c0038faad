"""Opening a run folder: finding it, reading run.json and verifying every part the
manifest lists (:func:`open_run` -> :class:`RunInfo`), before anything reads a game.

Nothing is read unverified from a folder the runner wrote (its ``run.json`` has a
``run_format``): every part the manifest lists is checked against its line first, with
the runner's own check (:func:`harness.runfolder.parts.read_part`: size, sha256, rows
that are exactly the deals the line claims, and a luck account that keeps the account's
identities, :mod:`harness.runfolder.identities`), and the lines must not overlap (nor,
for a complete run, leave a deal out). A chunk that fails is one line naming it
(:class:`DamagedRun`); ``harness report RUN --repair`` plays it again. Folders assembled
by hand (no ``run_format``) are read as they are, but for the account's identities,
which hold for any games.

(:func:`harness.load_run` is the notebook's face on a run, a :class:`harness.results.Run`;
this is the verified folder under it.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import HarnessError, safe_text
from harness.jsonsafe import TooDeep, loads_bounded
from harness.runfolder.identities import account_problem, identity_columns
from harness.runfolder.layout import GAMES, MANIFEST, RUN_JSON, part_files
from harness.runfolder.manifest import covered, read_manifest, safe_part_name, tables_of
from harness.runfolder.parts import (
    ChunkDamaged,
    complete_parts,
    read_part,
    unlisted_note,
)
from harness.runfolder.schema import ACCOUNT_FIELDS, WIN
from harness.runfolder.tables import TableRow, TablesDamaged, table_rows

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
            f"{folder}: {problems[0]}{more}; the results are not reported (recounting reads "
            f"the same rows): `harness report {folder} --repair` plays the damaged chunks "
            "again (their games are seeded: the same games come back, checked)"
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


def open_run(path: str | Path, *, check: bool = True) -> RunInfo:
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
    for part in parts:
        _check_hand_part(part, players)
    return RunInfo(folder, config, parts, notes)


def _check_hand_part(part: Path, players: int) -> None:
    """A part of a folder assembled by hand holds no account that breaks an identity (it
    has no digest to check, but the account's identities hold for any games): ReportError,
    one line. A part that cannot be read is left to the reading, which says why."""
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(part).names)
        cols = [c for c in ("deal", "seating", *identity_columns(players)) if c in names]
        if not any(c.endswith(f"_{ACCOUNT_FIELDS[0]}") for c in cols):
            return
        table = pq.read_table(part, columns=cols)
    except Exception:  # noqa: BLE001 - an unreadable part is the reading's to word
        return
    problem = account_problem(table, players, chunk=False)
    if problem is not None:
        raise ReportError(f"{part}: {problem}; the results are not reported")


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
    try:
        tables: list[TableRow] | None = table_rows(folder, config)
    except TablesDamaged as exc:  # --repair writes it again
        problems.append(str(exc))
        tables = None
    kept = account_kept(config, tables or [])
    for entry in entries:
        name = entry["file"]
        claim = covered(entry)
        if not safe_part_name(name) or name in listed or claim is None:
            problems.append(f"manifest line for {str(name)[:200]!r} is malformed or repeated")
            continue
        # What the line claims counts for coverage even if its chunk is damaged: that is
        # one problem (the chunk), not two (the chunk and a gap).
        members = tables_of(claim[0])
        for table in members:
            spans.setdefault(table, []).append((claim[1], claim[2], name))
        listed.add(name)
        said = {kept.get(t) for t in members}  # a chunk of several tables: one answer
        try:
            rows = read_part(
                games_dir / name,
                entry,
                columns=["deal"],
                account=said.pop() if len(said) == 1 else None,
            )
        except ChunkDamaged as exc:
            problems.append(f"games/{exc}")
            continue
        parts.append(games_dir / name)
        good.append(entry)
        deals = rows.column("deal").to_numpy().astype(np.int64)
        layouts[games_dir / name] = (len(deals), *_layout_of(deals))
    problems += _coverage(config, None if tables is None else [t for t, _, _ in tables], spans)
    on_disk = {p.name for p in part_files(games_dir)}
    notes = []
    unlisted = len(on_disk - {e["file"] for e in entries})
    if unlisted:
        notes.append(unlisted_note(unlisted))
    parts.sort()
    return RunInfo(folder, config, parts, notes, problems, layouts, good)


def account_kept(config: dict[str, Any], tables: list[TableRow]) -> dict[str, bool]:
    """Which tables keep the luck account, by table id: every table under run.json's
    ``luck: on`` or ``off``, each as its ``tables[].luck`` says under ``auto``
    (``tables``: the run's, :func:`harness.runfolder.tables.table_rows`). A run.json of
    schema 3 or older says nothing: its tables are left out (unknown)."""
    mode = config.get("luck")
    kept = {}
    for table, _, said in tables:
        if mode in ("on", "off", "win"):
            kept[table] = mode != "off"
        elif mode == "auto" and (isinstance(said, bool) or said == WIN):
            kept[table] = bool(said)  # "win": the worm account and the win account's luck
    return kept


def _manifest_lines(manifest: Path) -> list[dict[str, Any]]:
    """The manifest's complete lines (the torn-line rule: a line torn by a kill ends it)."""
    try:
        return read_manifest(manifest, keyed=False)[0]
    except OSError as exc:
        raise ReportError(f"{manifest}: cannot read ({exc.strerror or exc})") from None


def _coverage(
    config: dict[str, Any], tables: list[str] | None, spans: dict[str, list[tuple[int, int, str]]]
) -> list[str]:
    """Chunks of a table must not overlap; a complete run's must cover every deal of every
    one of its ``tables`` (None: not known, a damaged tables file, told apart)."""
    problems = []
    for found in spans.values():
        found.sort()
        for (_, stop, a), (first, _, b) in zip(found, found[1:], strict=False):
            if first < stop:
                problems.append(f"games/{b}: its deals overlap those of games/{a}")
    if config.get("status") != "complete" or tables is None:
        return problems
    deals = config.get("games")
    # An adaptive run (harness.tourney.adaptive) played each table its own deals, from 0.
    adaptive = config.get("adaptive")
    played = adaptive.get("tables") if isinstance(adaptive, dict) else None
    for table in tables:
        at = 0
        for first, stop, _ in spans.get(str(table), []):
            if first > at:
                break
            at = max(at, stop)
        if at != (played.get(str(table)) if isinstance(played, dict) else deals):
            problems.append(
                f"run.json says complete but no stored chunk holds deal {at} of table {table}"
            )
    for table in set(spans) - {str(t) for t in tables}:
        problems.append(f"games of table {table}, which is not a table of this run")
    return problems


def _layout_of(deals: np.ndarray) -> tuple[int, int, bool]:
    """A part's lowest and highest deal, and whether its rows go by deal."""
    if not len(deals):
        return 0, -1, True
    return int(deals.min()), int(deals.max()), bool((np.diff(deals) >= 0).all())
