"""The run folder's writer: creating a run, resuming it, storing and reusing chunks.

What a run folder holds and how its files are read is :mod:`harness.runfolder` (layout,
manifest, parts, schema), shared with every reader; this module is the runner's use of it.

Nothing is ever read as a result unless it is complete: a part file is written to
``.tmp/``, flushed to disk and renamed into ``games/``, and only then listed in the
manifest (an append of one line). A run killed at any point leaves at worst a stray
temp file, a part file not yet listed (deleted on resume) or a torn last manifest line
(dropped on resume).

Nothing stored is believed unchecked. A chunk kept on resume, taken from an earlier run
or read by ``harness report`` is read once and held to its manifest line
(:func:`read_part`): the same size, the same sha256, and rows that are exactly the games
the line says (every seat order of deals first..stop-1 of its table, or of each of its
tables: a chunk of several, :mod:`harness.tourney.groups`). A chunk that fails is
played again (resume, reuse) or named in one line (report). The standings, summary.csv
and the forfeit examples are counted from those verified rows (:func:`part_summary`),
never from numbers in the manifest's text, so they and the report, which reads the same
rows, agree by construction; a chunk just played is counted, where it is stored, from
the arrays its part file is made of (:func:`played_summary`: the same integers, in C).
A chunk of an earlier run with the same content key is reused as a copy of its verified
bytes, never a hard link (see :meth:`RunFolder.link_chunk`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import safe_text
from harness.game.ranking import Counts, add_counts, count_games
from harness.game.seating import deal_seed
from harness.runfolder import schema
from harness.runfolder.layout import (
    GAMES,
    LOCK,
    MANIFEST,
    RUN_FORMAT,
    RUN_JSON,
    TMP,
    StorageError,
    atomic_write,
    describe_os_error,
    read_json,
)
from harness.runfolder.manifest import (
    DIGEST_CHARS,
    MAX_ORDERS,
    OUTPUT_KEY,
    covered,
    digest_of,
    manifest_line,
    manifest_text,
    read_manifest,
    safe_part_name,
    tables_of,
)
from harness.runfolder.parts import (
    ChunkDamaged,
    check_account,
    check_rows,
    group_table,
    parquet_options,
    part_columns,
    part_table,
    read_part,
    seats_in,
    verify_bytes,
)
from harness.runfolder.timing import TIMING_KEY
from harness.tourney.chunks import ChunkResult
from harness.tourney.groups import Chunk, GroupSpec, member_counts
from harness.tourney.plan import engine_digest

# Names the runner's modules, benchmarks and tests take from here (defined in the run
# folder's package, the one place they live).
__all__ = [
    "DIGEST_CHARS",
    "GAMES",
    "MANIFEST",
    "MAX_ORDERS",
    "RUN_FORMAT",
    "ChunkDamaged",
    "RunFolder",
    "StorageError",
    "check_account",
    "check_rows",
    "describe_os_error",
    "digest_of",
    "parquet_options",
    "part_columns",
    "read_manifest",
    "read_part",
    "seats_in",
    "verify_bytes",
]
EXAMPLE_FORFEITS = 3  # forfeit examples taken per chunk; the counters count them all
KEPT_EXAMPLES = 10  # forfeit examples a run keeps in memory for its summary

log = logging.getLogger("harness.tourney")


# -- verifying a stored chunk -------------------------------------------------------------
def claim_of(spec: Chunk) -> tuple[str | tuple[str, ...], int, int, int]:
    """What the manifest line of ``spec``'s chunk claims (see :func:`covered`): a chunk of
    several tables claims the tuple of their ids."""
    table = spec.table_ids if isinstance(spec, GroupSpec) else spec.table
    return (table, spec.first, spec.stop, len(spec.orders))


def account_of(accounts: Mapping[str, bool], entry: Mapping[str, Any]) -> bool | None:
    """Whether a manifest line's chunk keeps the luck account, by its tables (``accounts``:
    table id -> whether it keeps one); None when that is not known, or its tables
    disagree (then the account is held to its identities, whichever it is)."""
    claim = covered(entry)
    if claim is None:
        return None
    said = {accounts.get(t) for t in tables_of(claim[0])}
    return said.pop() if len(said) == 1 else None


@dataclass
class PartSummary:
    """What a verified part adds to the standings: counted from its rows, nothing else."""

    rows: int
    counters: dict[str, Counts]
    forfeits: int
    examples: list[dict[str, Any]] = field(default_factory=list)


def part_summary(table: Any, players: int) -> PartSummary:
    """Standings counters, forfeit count and the first forfeits of a part's rows."""
    import numpy as np
    import pyarrow.compute as pc

    def col(name: str) -> Any:
        return table.column(name).to_numpy(zero_copy_only=False)

    status = table.column("status").cast("string")
    capped = pc.equal(status, schema.STATUSES[schema.TURN_CAP]).to_numpy(zero_copy_only=False)
    error_seat = col("error_seat").astype(np.int64)
    strategies = [col(schema.seat_column(i, "strategy")) for i in range(players)]
    counters = count_games(
        capped,
        error_seat,
        strategies,
        [col(schema.seat_column(i, "worms")) for i in range(players)],
        [col(schema.seat_column(i, "rank")) for i in range(players)],
    )
    forfeit = pc.equal(status, schema.STATUSES[schema.FORFEIT])
    forfeit_rows = np.flatnonzero(forfeit.to_numpy(zero_copy_only=False))
    examples = []
    if len(forfeit_rows):
        deal, seating, seed, error = col("deal"), col("seating"), col("game_seed"), col("error")
        for row in forfeit_rows[:EXAMPLE_FORFEITS]:
            seat = int(error_seat[row])
            examples.append(
                {
                    "deal": int(deal[row]),
                    "seating": int(seating[row]),
                    "seat": seat,
                    "strategy": str(strategies[seat][row]) if 0 <= seat < players else "?",
                    "game_seed": int(seed[row]),
                    "error": safe_text(error[row]),
                    "table": str(table.column("table").take([int(row)]).to_pylist()[0]),
                }
            )
    return PartSummary(table.num_rows, counters, len(forfeit_rows), examples)


def played_summary(spec: Chunk, result: ChunkResult, table: Any) -> PartSummary:
    """:func:`part_summary` of a chunk just played, whose rows ``table`` is about to be stored.

    Counted in C (:func:`harness.native.column_counts`) from the very arrays ``table`` was
    made of, here and now (never the ``stats`` a result arrives with): the same integers
    as counting ``table`` (tests hold them to it) at a fortieth of the CPU. Without the
    native extension, and for the rare chunk with a forfeit (whose examples are taken
    from its rows), ``table`` is counted as a stored chunk is.
    """
    import numpy as np

    from harness import native

    n = spec.rules.players
    status = np.frombuffer(result.games["status"], dtype=np.int8)
    grouped = isinstance(spec, GroupSpec)  # counted by numpy, its tables at once
    if (grouped or native.available()) and not (status == schema.FORFEIT).any():
        try:
            if grouped:
                stats = member_counts(spec, result.games, result.seats)
            else:
                stats = native.column_counts(result.games, result.seats, n, spec.orders)
        except (ValueError, IndexError):  # arrays that do not make a chunk: from the rows
            pass
        else:
            counters: dict[str, Counts] = {}
            for entrant, counted in zip(spec.entrants, stats, strict=True):
                add_counts(counters, {entrant.name: counted})
            return PartSummary(result.rows, counters, 0)
    return part_summary(table.cast(schema.arrow_schema(n)), n)


def describes(entry: Mapping[str, Any], spec: Chunk) -> bool:
    """Whether a manifest line claims exactly ``spec``'s file, table, deals and orders."""
    return entry.get("file") == spec.file and covered(entry) == claim_of(spec)


def refuse_reuse(entry: Mapping[str, Any], spec: Chunk) -> str | None:
    """Why a stored chunk may not stand for ``spec`` (None: it may), judging its line.

    Its line must claim exactly the spec's file, table and deals, and record the user
    strategy code its process had loaded: only code of the chunk's own
    entrants may have been there, or the games may depend on another plugin's tampering.
    """
    if not describes(entry, spec):
        return "its manifest line does not describe the chunk its key names"
    loaded = entry.get("loaded")
    if not isinstance(loaded, list) or not all(isinstance(d, str) for d in loaded):
        return "its manifest line does not record which strategy code its process had loaded"
    if not set(loaded) <= {e.code for e in spec.entrants}:
        return "its process had loaded strategy code of other entrants than its own"
    return None


def source_problem(settings: Mapping[str, Any] | None, spec: Chunk) -> str | None:
    """Why another run's chunk may not stand for ``spec`` by that run's own settings
    (None: it may). A manifest line's key is only a claim: the run that wrote the chunk
    must have played with everything the key covers besides its table and deals."""
    if settings is None:
        return "its run.json cannot be read"
    wanted = {
        "seed": spec.seed,
        "dice": spec.dice,
        "max_turns": spec.max_turns,
        "rules": spec.rules.to_dict(),
        "engine": engine_digest(),
        "schema": schema.SCHEMA_VERSION,
        "design": [list(o) for o in spec.orders],
        **spec.settings.limit_values(),  # move_time, game_time, isolation
    }
    for name, value in wanted.items():
        if settings.get(name) != value:
            return f"its run played with another {name}"
    return None


def seeds_problem(table: Any, spec: Chunk) -> str | None:
    """Why a chunk's rows were not dealt by ``spec``'s seed (None: they were)."""
    deals = table.column("deal").to_pylist()
    seeds = table.column("seed").to_pylist()
    for deal, seed in zip(deals, seeds, strict=True):
        if seed != deal_seed(spec.seed, deal):
            return f"deal {deal} was not dealt with this run's seed"
    return None


class RunFolder:
    """One run's folder: creating it, resuming it, writing chunks and the manifest."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.games_dir = path / GAMES
        self.tmp_dir = path / TMP
        self.manifest_path = path / MANIFEST
        # What is remembered of each stored chunk is small (its line's claims and digest):
        # the standings counters are summed as chunks are verified, so memory does not grow
        # with the games' detail, only by a few hundred bytes a chunk.
        self.entries: dict[str, dict[str, Any]] = {}  # chunk key -> file, games, bytes, ...
        self.totals: dict[str, Counts] = {}  # entrant -> standings counters
        self.forfeits = 0
        self.examples: list[dict[str, Any]] = []  # the first forfeits, with their table
        self.damaged: list[str] = []  # notes on stored chunks found damaged (played again)
        self._planned: set[str] = set()
        self._accounts: Mapping[str, bool] = {}  # table id -> whether it keeps the account
        self._manifest: Any = None
        self._lock: Any = None

    # -- finding, creating, locking -----------------------------------------------------
    @staticmethod
    def find(root: Path, name: str, key: str) -> Path | None:
        """The latest run folder of this config with this run key, if any.

        A folder with the same key written in another format is an error: it is this
        run, but this version cannot continue it.
        """
        base = root / name
        if not base.is_dir():
            return None
        found = None
        for run_json in sorted(base.glob(f"*/{RUN_JSON}")):
            data = read_json(run_json)
            if data is None or data.get("key") != key:
                continue
            if data.get("run_format") != RUN_FORMAT:
                raise StorageError(
                    f"{run_json.parent}: a results folder of another harness version "
                    f"({safe_text(data.get('run_format', 'unknown format'), 40)}, harness "
                    f"{safe_text(data.get('version', '?'), 40)}); this one writes "
                    f"{RUN_FORMAT}: use --fresh to start a new run, or --out for another folder"
                )
            if data.get("schema") != schema.SCHEMA_VERSION:
                # Its rows were dealt from other seeds (schema 2: per-table deal seeds and
                # a rotation column): never continued; a new run is started beside it.
                log.warning(
                    "%s: stored with schema %s (this harness writes %d); not resumed, a new "
                    "run is started",
                    run_json.parent,
                    safe_text(data.get("schema"), 20),
                    schema.SCHEMA_VERSION,
                )
                continue
            found = run_json.parent
        return found

    @staticmethod
    @contextlib.contextmanager
    def starting(root: Path, name: str) -> Iterator[None]:
        """Hold the config's start lock (a flock on the config's folder itself, so that
        it holds no file of its own): one start at a time finds or makes its run and
        writes its run.json; the next one waits (briefly) and then sees it. A folder that
        cannot even be made is one line (StorageError)."""
        base = root / name
        try:
            base.mkdir(parents=True, exist_ok=True)
            fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as exc:
            raise describe_os_error(exc, exc.filename or base, "create the run folder") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def discard(self) -> None:
        """Remove a run folder this process made when nothing of a run got into it (its
        first writes failed): no folder without run.json is left behind."""
        if (self.path / RUN_JSON).exists():
            return
        shutil.rmtree(self.path, ignore_errors=True)

    @staticmethod
    def new_path(root: Path, name: str, key: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = root / name / f"{stamp}-{key[:8]}"
        n = 2
        while path.exists():
            path = root / name / f"{stamp}-{key[:8]}-{n}"
            n += 1
        return path

    def create(self) -> None:
        """Make the folders (checking they can be written) and take the run's lock."""
        try:
            if self.path.parent.parent.exists() and not self.path.parent.parent.is_dir():
                raise StorageError(f"{self.path.parent.parent}: is a file, not a folder")
            self.games_dir.mkdir(parents=True, exist_ok=True)
            self.tmp_dir.mkdir(exist_ok=True)
            probe = self.tmp_dir / f"probe-{os.getpid()}"
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as exc:
            raise describe_os_error(
                exc, exc.filename or self.path, "create the run folder"
            ) from None
        try:
            self._lock = self._take_lock()
        except BlockingIOError:
            raise StorageError(
                f"{self.path}: another harness tourney is running this run right now"
            ) from None
        except OSError as exc:
            raise describe_os_error(exc, self.path, "lock the run folder") from None

    def _take_lock(self) -> Any:
        """The run's lock: ``.lock`` opened and locked, and still the file of that name.

        :meth:`close` removes ``.lock`` (a finished folder holds only the run), so a
        process may lock a file another has just removed: then it locks the new one.
        """
        path = self.path / LOCK
        for _ in range(100):
            handle = open(path, "a+")  # noqa: SIM115 - held for the run
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                held, named = os.fstat(handle.fileno()), os.stat(path)
                if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                    return handle
            except FileNotFoundError:
                pass  # removed between the lock and the look: try again
            except BaseException:
                handle.close()
                raise
            handle.close()  # it was removed (and perhaps made again) meanwhile
        raise BlockingIOError  # cannot happen: 100 closes in the time of one open

    def close(self) -> None:
        """Release the run: close the manifest, remove ``.tmp/`` if empty (its files are
        written whole, then renamed into games/) and ``.lock`` (removed while still
        locked, so no other process can take a lock that stops meaning anything).
        Resuming needs neither: :meth:`create` makes both again. A folder whose lock this
        process does not hold (another's run) is left as it is."""
        self._close_manifest()
        if self._lock is None:
            return  # not this process's run (its lock is another's): nothing of it to touch
        with contextlib.suppress(OSError):
            self.tmp_dir.rmdir()  # only when empty: a stray file stays for load() to clear
        with contextlib.suppress(OSError):
            os.unlink(self.path / LOCK)
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
            self._lock.close()
        self._lock = None

    def _close_manifest(self) -> None:
        if self._manifest is not None:
            with contextlib.suppress(OSError):
                self._manifest.close()
            self._manifest = None

    # -- run.json -----------------------------------------------------------------------
    def read_run_json(self) -> dict[str, Any] | None:
        return read_json(self.path / RUN_JSON)

    def write_run_json(self, data: dict[str, Any]) -> None:
        text = json.dumps({"run_format": RUN_FORMAT, **data}, indent=2, default=str) + "\n"
        atomic_write(self.path / RUN_JSON, text.encode())

    # -- the manifest --------------------------------------------------------------------
    def load(self, planned: set[str], accounts: Mapping[str, bool] | None = None) -> list[str]:
        """Read the manifest, keep the chunks that verify, clear the rest.

        Every listed chunk is read and held to its line (:func:`read_part`): a chunk that
        is missing, changed (sha256), unreadable, holds other games or an account that
        breaks an identity (``accounts``: whether each table id keeps one, the plan's
        ``luck``) is dropped from the manifest and its file deleted, so it is played
        again. Its counters are counted from its rows. Returns notes for the log (what
        was dropped and why).
        """
        self._planned = set(planned)
        if accounts is not None:
            self._accounts = dict(accounts)
        notes: list[str] = []
        entries, good = read_manifest(self.manifest_path)
        kept: dict[str, tuple[dict[str, Any], PartSummary]] = {}
        files: set[str] = set()
        self.entries, self.totals, self.forfeits, self.examples = {}, {}, 0, []
        self.damaged = []
        for entry in entries:
            name = entry["file"]
            if entry["key"] not in planned:
                notes.append(f"{safe_text(name, 200)}: not a chunk of this run; dropped")
                continue
            if entry["key"] in kept or name in files or not safe_part_name(name):
                notes.append(f"{safe_text(name, 200)}: listed twice or misnamed; dropped")
                continue
            try:
                table = read_part(
                    self.games_dir / name, entry, account=account_of(self._accounts, entry)
                )
            except ChunkDamaged as exc:
                notes.append(f"{exc}; played again")
                self.damaged.append(str(exc))
                continue
            # read_part checked the players column holds one count
            kept[entry["key"]] = (entry, part_summary(table, int(table.column("players")[0])))
            files.add(name)
        rewrite = len(kept) != len(entries)
        try:
            if rewrite:
                self._close_manifest()  # a handle would still point at the old file
                atomic_write(self.manifest_path, manifest_text(e for e, _ in kept.values()))
            elif self.manifest_path.exists() and self.manifest_path.stat().st_size != good:
                notes.append("manifest: a torn last line (the run was killed while writing it)")
                with open(self.manifest_path, "r+b") as f:
                    f.truncate(good)
            # Part files not in the manifest were renamed in but never listed: a kill
            # between the two steps. They are complete, but unlisted means unknown.
            noted = {n.split(":", 1)[0] for n in notes}
            for part in self.games_dir.glob("*"):
                if part.name not in files:
                    part.unlink()
                    if part.name not in noted:
                        notes.append(f"{part.name}: not in the manifest; removed, played again")
            for stray in self.tmp_dir.glob("*"):
                stray.unlink()
        except OSError as exc:
            raise describe_os_error(exc, self.path, "tidy the run folder") from None
        for entry, summary in sorted(kept.values(), key=lambda k: k[0]["file"]):
            self._remember(entry, summary)
        return notes

    def against_plan(self, spec: Chunk) -> str | None:
        """Why the kept chunk of ``spec.key`` cannot stand for that chunk (None: it can).

        Its line must describe the spec's own file, table and deals (a line relabelled
        with another key is caught here). ``loaded`` is not held against a run's own
        chunks: they were played the way this run plays them (``workers: 0`` plays every
        table with every plugin loaded, and says so in run.log), so playing them again
        would play them the same way; it is other runs' chunks that must not stand in
        (:func:`refuse_reuse`).
        """
        if not describes(self.entries[spec.key], spec):
            return "its manifest line does not describe the chunk its key names"
        return None

    def drop(self, problems: Mapping[str, str]) -> list[str]:
        """Forget kept chunks (key -> why) so they are played again; notes for the log.

        The manifest is rewritten without them and their files deleted; then the rest is
        loaded (and verified) again, so the counters never hold a dropped chunk's games.
        Rare (a manifest edited by hand), so the second pass costs nothing in practice.
        """
        found = [f"{self.entries[key]['file']}: {why}" for key, why in problems.items()]
        notes = [f"{text}; played again" for text in found]
        entries, _ = read_manifest(self.manifest_path)
        keep = [e for e in entries if e["key"] not in problems]
        self._close_manifest()
        atomic_write(self.manifest_path, manifest_text(keep))
        damaged = self.damaged + found
        notes += self.load(self._planned)  # deletes the files no longer listed
        self.damaged = damaged + self.damaged
        return notes

    def _remember(self, entry: dict[str, Any], summary: PartSummary) -> None:
        fields = ("file", "table", "tables", "first", "stop", "bytes", "sha256")
        self.entries[entry["key"]] = {
            **{k: entry.get(k) for k in fields if k in entry},
            "games": summary.rows,
            "loaded": entry.get("loaded"),
        }
        add_counts(self.totals, summary.counters)
        self.forfeits += summary.forfeits
        for example in summary.examples:  # each with its table, read from its row
            if len(self.examples) < KEPT_EXAMPLES:
                self.examples.append(example)

    def _append(self, entry: dict[str, Any], summary: PartSummary) -> None:
        line = manifest_line(entry)
        try:
            if self._manifest is None:
                self._manifest = open(self.manifest_path, "ab")  # noqa: SIM115 - kept open
            self._manifest.write(line)
            self._manifest.flush()
            os.fsync(self._manifest.fileno())
        except OSError as exc:
            raise describe_os_error(exc, self.manifest_path, "append to the manifest") from None
        self._remember(entry, summary)

    def recheck(self) -> list[str]:
        """Notes on stored chunks whose bytes no longer match their sha256 (none: all do).

        The last look before a run calls itself complete: hashing every chunk again costs
        about 0.04 CPU-seconds per million games (benchmarks/verify_cost.py), and closes
        the window between a chunk's verification and the run's end.
        """
        notes = []
        for entry in self.entries.values():
            try:
                data = (self.games_dir / entry["file"]).read_bytes()
            except OSError as exc:
                notes.append(f"{entry['file']}: cannot be read ({exc.strerror or exc})")
                continue
            if len(data) != entry["bytes"] or digest_of(data) != entry["sha256"]:
                notes.append(f"{entry['file']}: changed on disk while the run went on")
        return notes

    # -- chunks -------------------------------------------------------------------------
    def write_chunk(self, spec: Chunk, result: ChunkResult) -> dict[str, Any]:
        """Store a played chunk (atomically) and list it in the manifest.

        Returns its manifest line, plus ``forfeits`` and ``forfeit_examples`` counted from
        the rows as stored (they are not kept in the manifest: counts come from rows).
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = to_arrow(spec, result, encoded=True)
        try:  # the rows resume will hold it to: a chunk that would fail is never stored
            check_rows(table, claim_of(spec), spec.file, spec.rules.players)
            check_account(table, spec.file, spec.rules.players, spec.account)
        except ChunkDamaged as exc:
            raise StorageError(f"{spec.describe()}: not stored: {exc.reason}") from None
        summary = played_summary(spec, result, table)
        # Serialised in memory (a chunk is a few hundred kB), so the digest is of exactly
        # the bytes handed to the file system.
        try:
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, **parquet_options(spec.rules.players))
            data = sink.getvalue().to_pybytes()
        except OSError as exc:
            raise describe_os_error(exc, self.games_dir / spec.file, "write the chunk") from None
        self._store(spec, data, "write the chunk")
        entry = chunk_entry(spec, result, len(data), digest_of(data))
        self._append(entry, summary)
        return {**entry, "forfeits": summary.forfeits, "forfeit_examples": summary.examples}

    def link_chunk(self, spec: Chunk, source: Path, entry: dict[str, Any]) -> bool:
        """Reuse a stored chunk of another run: verify it, copy it, list it.

        False if it may not stand for ``spec`` (see :func:`refuse_reuse`) or its file does
        not verify (then the chunk is played instead; the log says why).

        Why a copy and not a hard link (as before) or a reflink: a hard link makes two
        runs share one mutable file, so damage to either later changes both, and a
        reflink or ``os.copy_file_range`` copies whatever the source holds at the moment
        of the copy, which would have to be hashed a second time. Copying the bytes that
        were just verified writes exactly what was checked; chunks are small (about
        23 MB per million games), so the disk a shared copy would save is small too.
        """
        name = entry.get("file")
        why = refuse_reuse(entry, spec)
        if why is not None:
            log.info("not reused: %s/%s: %s", source, safe_text(name, 200), why)
            return False
        why = source_problem(read_json(source / RUN_JSON), spec)
        if why is not None:
            log.info("not reused: %s/%s: %s", source, safe_text(name, 200), why)
            return False
        src = source / GAMES / str(name)
        try:
            data = src.read_bytes()
            table = verify_bytes(
                data,
                entry,
                [*part_columns(spec.rules.players), "seed"],
                spec.rules.players,
                account=spec.account,
            )
        except (OSError, ChunkDamaged) as exc:
            reason = exc.reason if isinstance(exc, ChunkDamaged) else exc.strerror or str(exc)
            log.warning("not reused: %s: %s; the chunk is played instead", src, reason)
            return False
        why = seeds_problem(table, spec)
        if why is not None:
            log.warning("not reused: %s: %s; the chunk is played instead", src, why)
            return False
        summary = part_summary(table, spec.rules.players)
        self._store(spec, data, "store a reused chunk")
        # What the chunk cost when it was played (cpu, decision times, plugin output)
        # comes with it: a reused chunk's strategies took that long to play it.
        kept = {
            k: entry[k] for k in ("key", "table", "tables", "first", "stop", "games") if k in entry
        }
        kept |= {k: entry[k] for k in ("cpu", TIMING_KEY, OUTPUT_KEY) if k in entry}
        line = {
            **kept,
            "file": spec.file,
            "bytes": len(data),
            "sha256": digest_of(data),
            "loaded": entry["loaded"],
            "reused_from": str(source),
        }
        self._append(line, summary)
        return True

    def _store(self, spec: Chunk, data: bytes, doing: str) -> None:
        """A chunk's part file, written whole via ``.tmp/`` (not yet in the manifest)."""
        tmp = self.tmp_dir / f"{spec.file}.{os.getpid()}"
        atomic_write(self.games_dir / spec.file, data, tmp, doing)

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        atomic_write(path, text.encode())
        return path


def chunk_entry(spec: Chunk, result: ChunkResult, size: int, digest: str) -> dict[str, Any]:
    """The manifest line of a chunk: where it is, how to check it, what it holds.

    No standings counters: those are counted from the chunk's rows whenever it is read.
    ``loaded`` is the user strategy code the playing process had loaded (ChunkResult.loaded,
    None from a player that does not report it: such a chunk is never reused). What
    playing it cost besides ``cpu``: the user strategies' decision times (``timing``,
    :mod:`harness.runfolder.timing`) and the characters of output each strategy wrote
    (``output``), when there are any.
    """
    loaded = getattr(result, "loaded", None)
    extra = {}
    if getattr(result, "times", None):
        extra[TIMING_KEY] = result.times
    if getattr(result, "output", None):
        extra[OUTPUT_KEY] = result.output
    where = (
        {"tables": list(spec.table_ids)} if isinstance(spec, GroupSpec) else {"table": spec.table}
    )
    return {
        "key": spec.key,
        "file": spec.file,
        **where,
        "first": spec.first,
        "stop": spec.stop,
        "games": result.rows,
        "bytes": size,
        "sha256": digest,
        "cpu": round(result.cpu, 4),
        "loaded": sorted(str(d) for d in loaded) if loaded is not None else None,
        **extra,
    }


def to_arrow(spec: Chunk, result: ChunkResult, *, encoded: bool = False) -> Any:
    """The chunk's rows as a pyarrow Table of the stored schema (harness.runfolder.schema).

    ``encoded``: the string columns are left dictionary encoded, as the Parquet writer
    takes them (:meth:`RunFolder.write_chunk`; see :func:`harness.runfolder.parts.part_table`).
    """
    names = [e.name for e in spec.entrants]
    if isinstance(spec, GroupSpec):
        return group_table(
            result.games,
            result.seats,
            result.errors,
            tables=spec.tables,
            entrants=names,
            orders=spec.orders,
            players=spec.rules.players,
            encoded=encoded,
        )
    return part_table(
        result.games,
        result.seats,
        result.errors,
        table=spec.table,
        entrants=names,
        orders=spec.orders,
        players=spec.rules.players,
        encoded=encoded,
    )


def scan_reusable(root: Path, wanted: set[str], exclude: Path) -> Iterator[tuple[Path, dict]]:
    """Chunks of other runs under ``root`` whose keys are wanted: (run folder, entry)."""
    if not wanted or not root.is_dir():
        return
    for manifest in sorted(root.glob(f"*/*/{MANIFEST}")):
        run = manifest.parent
        if run == exclude:
            continue
        data = read_json(run / RUN_JSON)
        if data is None or data.get("run_format") != RUN_FORMAT:
            continue
        try:
            entries, _ = read_manifest(manifest)
        except StorageError:
            continue
        for entry in entries:
            if entry["key"] in wanted:
                yield run, entry
