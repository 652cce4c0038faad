"""The run folder on disk: run.json, the games' part files, the manifest, summary.csv.

Layout of ``<root>/<config name>/<run id>/``::

    run.json         the fully resolved config, the table list, the status and, at the
                     end, the summary (written atomically)
    games/*.parquet  one part file per chunk (harness.schema); pandas reads the folder
    manifest.jsonl   one JSON line per completed chunk: key, file, size, digest, stats
    run.log          the log (workers' records included)
    summary.csv      the standings, when the run is complete

Nothing is ever read as a result unless it is complete: a part file is written to
``.tmp/``, flushed to disk and renamed into ``games/``, and only then listed in the
manifest (an append of one line). A run killed at any point leaves at worst a stray
temp file, a part file not yet listed (deleted on resume) or a torn last manifest line
(dropped on resume). Chunks are content-keyed: a chunk of an earlier run with the same
key is hard-linked (or copied) instead of being played again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness import schema
from harness.errors import HarnessError
from harness.tourney.chunks import STATUS_NAMES, ChunkResult
from harness.tourney.plan import ChunkSpec
from harness.tourney.standings import add_entry

RUN_FORMAT = "harness-run/1"
MANIFEST = "manifest.jsonl"
RUN_JSON = "run.json"
GAMES = "games"
TMP = ".tmp"
EXAMPLE_FORFEITS = 3  # forfeits kept in full per chunk; the stats count them all
KEPT_EXAMPLES = 10  # forfeit examples a run keeps in memory for its summary


class StorageError(HarnessError):
    """The results folder cannot be written or read as a run: one line, what and where."""


def describe_os_error(exc: OSError, path: Path | str, doing: str) -> StorageError:
    """A one-line error for a failed write, naming the cause a person can fix."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        why = "permission denied"
    elif exc.errno == errno.EROFS:
        why = "the file system is read-only"
    elif exc.errno == errno.ENOTDIR:
        why = "a part of the path is a file, not a folder"
    else:
        why = exc.strerror or str(exc)
    return StorageError(f"{path}: cannot {doing}: {why}")


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file whole or not at all (temp file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise describe_os_error(exc, path, "write") from None


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:32]


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a file, or None if it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_manifest(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The complete lines of a manifest, and the byte length they take.

    A line torn by a kill (no newline, or not JSON) ends the good part.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        raise describe_os_error(exc, path, "read the manifest") from None
    entries: list[dict[str, Any]] = []
    good = 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if not isinstance(entry, dict) or "key" not in entry or "file" not in entry:
            break
        entries.append(entry)
        good += len(line)
    return entries, good


class RunFolder:
    """One run's folder: creating it, resuming it, writing chunks and the manifest."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.games_dir = path / GAMES
        self.tmp_dir = path / TMP
        self.manifest_path = path / MANIFEST
        # What is remembered of each stored chunk is small (file, games, size): the
        # standings counters are summed as entries come, so memory does not grow with
        # the games' detail, only by a few hundred bytes a chunk.
        self.entries: dict[str, dict[str, Any]] = {}  # chunk key -> {file, games, bytes}
        self.totals: dict[str, dict[str, Any]] = {}  # entrant -> standings counters
        self.forfeits = 0
        self.examples: list[dict[str, Any]] = []  # (table, example) of the first forfeits
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
                    f"({data.get('run_format', 'unknown format')}, harness "
                    f"{data.get('version', '?')}); this one writes {RUN_FORMAT}: "
                    "use --fresh to start a new run, or --out for another folder"
                )
            found = run_json.parent
        return found

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
            self._lock = open(self.path / ".lock", "a+")  # noqa: SIM115 - held for the run
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StorageError(
                f"{self.path}: another harness tourney is running this run right now"
            ) from None
        except OSError as exc:
            raise describe_os_error(exc, self.path, "lock the run folder") from None

    def close(self) -> None:
        if self._manifest is not None:
            with contextlib.suppress(OSError):
                self._manifest.close()
            self._manifest = None
        if self._lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
                self._lock.close()
            self._lock = None

    # -- run.json -----------------------------------------------------------------------
    def read_run_json(self) -> dict[str, Any] | None:
        return read_json(self.path / RUN_JSON)

    def write_run_json(self, data: dict[str, Any]) -> None:
        text = json.dumps({"run_format": RUN_FORMAT, **data}, indent=2, default=str) + "\n"
        atomic_write(self.path / RUN_JSON, text.encode())

    # -- the manifest --------------------------------------------------------------------
    def load(self, planned: set[str]) -> list[str]:
        """Read the manifest, keep the chunks whose files are intact, clear the rest.

        Returns notes for the log (what was dropped and why).
        """
        notes: list[str] = []
        entries, good = read_manifest(self.manifest_path)
        kept: dict[str, dict[str, Any]] = {}
        self.entries, self.totals, self.forfeits, self.examples = {}, {}, 0, []
        for entry in entries:
            part = self.games_dir / entry["file"]
            if entry["key"] not in planned:
                notes.append(f"{entry['file']}: not a chunk of this run; dropped")
                continue
            try:
                size = part.stat().st_size
            except OSError:
                notes.append(f"{entry['file']}: listed but missing; will be played again")
                continue
            if size != entry.get("bytes"):
                notes.append(f"{entry['file']}: size differs from the manifest; played again")
                continue
            kept[entry["key"]] = entry
        rewrite = len(kept) != len(entries)
        try:
            if rewrite:
                text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in kept.values())
                atomic_write(self.manifest_path, text.encode())
            elif self.manifest_path.exists() and self.manifest_path.stat().st_size != good:
                notes.append("manifest: a torn last line (the run was killed while writing it)")
                with open(self.manifest_path, "r+b") as f:
                    f.truncate(good)
            # Part files not in the manifest were renamed in but never listed: a kill
            # between the two steps. They are complete, but unlisted means unknown.
            listed = {e["file"] for e in kept.values()}
            for part in self.games_dir.glob("*"):
                if part.name not in listed:
                    part.unlink()
                    notes.append(f"{part.name}: not in the manifest; removed, played again")
            for stray in self.tmp_dir.glob("*"):
                stray.unlink()
        except OSError as exc:
            raise describe_os_error(exc, self.path, "tidy the run folder") from None
        for entry in sorted(kept.values(), key=lambda e: e["file"]):
            self._remember(entry)
        return notes

    def _remember(self, entry: dict[str, Any]) -> None:
        self.entries[entry["key"]] = {k: entry[k] for k in ("file", "games", "bytes")}
        add_entry(self.totals, entry)
        self.forfeits += entry.get("forfeits", 0)
        for example in entry.get("forfeit_examples", []):
            if len(self.examples) < KEPT_EXAMPLES:
                self.examples.append({**example, "table": entry["table"]})

    def _append(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, sort_keys=True) + "\n").encode()
        try:
            if self._manifest is None:
                self._manifest = open(self.manifest_path, "ab")  # noqa: SIM115 - kept open
            self._manifest.write(line)
            self._manifest.flush()
            os.fsync(self._manifest.fileno())
        except OSError as exc:
            raise describe_os_error(exc, self.manifest_path, "append to the manifest") from None
        self._remember(entry)

    # -- chunks -------------------------------------------------------------------------
    def write_chunk(self, spec: ChunkSpec, result: ChunkResult) -> dict[str, Any]:
        """Store a played chunk (atomically) and list it in the manifest."""
        import pyarrow.parquet as pq

        table = to_arrow(spec, result)
        final = self.games_dir / spec.file
        tmp = self.tmp_dir / f"{spec.file}.{os.getpid()}"
        try:
            with open(tmp, "wb") as f:
                pq.write_table(table, f, compression="zstd")
                f.flush()
                os.fsync(f.fileno())
            size = tmp.stat().st_size
            digest = file_digest(tmp)
            os.replace(tmp, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise describe_os_error(exc, final, "write the chunk") from None
        entry = chunk_entry(spec, result, size, digest)
        self._append(entry)
        return entry

    def link_chunk(self, spec: ChunkSpec, source: Path, entry: dict[str, Any]) -> bool:
        """Reuse a stored chunk of another run: hard-link (or copy) it, then list it.

        False if the source is not intact (then the chunk is played instead).
        """
        src = source / GAMES / entry["file"]
        try:
            if src.stat().st_size != entry.get("bytes") or file_digest(src) != entry.get("sha256"):
                return False
        except OSError:
            return False
        final = self.games_dir / spec.file
        tmp = self.tmp_dir / f"{spec.file}.{os.getpid()}"
        try:
            try:
                os.link(src, tmp)
            except OSError:
                data = src.read_bytes()
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(tmp, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise describe_os_error(exc, final, "store a reused chunk") from None
        self._append({**entry, "file": spec.file, "reused_from": str(source)})
        return True

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        atomic_write(path, text.encode())
        return path


def chunk_entry(spec: ChunkSpec, result: ChunkResult, size: int, digest: str) -> dict[str, Any]:
    """The manifest line of a chunk: where it is, how to check it, what it adds up to."""
    n = spec.rules.players
    examples = []
    for row in sorted(result.errors)[:EXAMPLE_FORFEITS]:
        r = result.games["rotation"][row]
        seat = result.games["error_seat"][row]
        examples.append(
            {
                "deal": result.games["deal"][row],
                "rotation": r,
                "seat": seat,
                "strategy": spec.entrants[(seat + r) % n].name,
                "game_seed": result.games["game_seed"][row],
                "error": result.errors[row],
            }
        )
    return {
        "key": spec.key,
        "file": spec.file,
        "table": spec.table,
        "first": spec.first,
        "stop": spec.stop,
        "games": result.rows,
        "bytes": size,
        "sha256": digest,
        "cpu": round(result.cpu, 4),
        "stats": {e.name: s for e, s in zip(spec.entrants, result.stats, strict=True)},
        "forfeits": len(result.errors),
        "forfeit_examples": examples,
    }


def to_arrow(spec: ChunkSpec, result: ChunkResult) -> Any:
    """The chunk's rows as a pyarrow Table of the stored schema (harness.schema)."""
    import numpy as np
    import pyarrow as pa

    n = spec.rules.players
    rows = result.rows

    def ints(values: Any, kind: str) -> Any:
        return pa.array(np.frombuffer(values, dtype=kind), type=getattr(pa, kind)())

    def labels(codes: Any, names: Iterable[str]) -> Any:
        return pa.DictionaryArray.from_arrays(
            pa.array(codes, type=pa.int8()), pa.array(list(names), type=pa.string())
        ).cast(pa.string())

    rotation = np.frombuffer(result.games["rotation"], dtype=np.int8)
    names = [e.name for e in spec.entrants]
    errors = [None] * rows
    for row, message in result.errors.items():
        errors[row] = message
    cols: dict[str, Any] = {
        "table": labels(np.zeros(rows, dtype=np.int8), [spec.table]),
        "deal": ints(result.games["deal"], "int32"),
        "rotation": ints(result.games["rotation"], "int8"),
        "seed": ints(result.games["seed"], "int64"),
        "game_seed": ints(result.games["game_seed"], "int64"),
        "players": pa.array(np.full(rows, n, dtype=np.int8)),
        "turns": ints(result.games["turns"], "int16"),
        "status": labels(np.frombuffer(result.games["status"], dtype=np.int8), STATUS_NAMES),
        "winner": ints(result.games["winner"], "int8"),
        "error": pa.array(errors, type=pa.string()),
        "error_seat": ints(result.games["error_seat"], "int8"),
    }
    for i, seat in enumerate(result.seats):
        cols[schema.seat_column(i, "strategy")] = labels(
            ((rotation + i) % n).astype(np.int8), names
        )
        for field_name in ("worms", "rank"):
            cols[schema.seat_column(i, field_name)] = ints(seat[field_name], "int8")
        for field_name in ("busts", "steals", "stolen"):
            cols[schema.seat_column(i, field_name)] = ints(seat[field_name], "int16")
    return pa.table([cols[c] for c in schema.columns(n)], schema=schema.arrow_schema(n))


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
