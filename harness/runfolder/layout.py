"""Where things are in a run folder, and writing one of its files whole.

Layout of ``<root>/<config name>/<run id>/``::

    run.json         the fully resolved config, the table list, the status and, at the
                     end, the summary (written atomically)
    games/*.parquet  one part file per chunk (harness.runfolder.schema), named
                     ``<table>-<first deal, 9 digits>.parquet`` (:func:`part_name`)
    manifest.jsonl   one JSON line per completed chunk (harness.runfolder.manifest)
    run.log          the log (workers' records included)
    summary.csv      the standings, when the run is complete
    .tmp/            part files being written (renamed into games/ when whole)
    .lock            held (flock) while a process runs the run; removed when it ends
    .dask/           a local Dask cluster's scratch space, removed at the end
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

from harness.errors import RunFailed
from harness.jsonsafe import loads_bounded

# harness-run/2: chunks are verified by sha256 and row range, standings are counted from
# the rows (the manifest holds no counters), and each line records ``loaded``. Folders of
# harness-run/1 are never resumed (one line: use --fresh) and never reused from.
DEFAULT_OUT = "results"  # where runs (and coach and diff pages) go unless --out says
RUN_FORMAT = "harness-run/2"
RUN_JSON = "run.json"
MANIFEST = "manifest.jsonl"
GAMES = "games"
TMP = ".tmp"
LOCK = ".lock"
SCRATCH = ".dask"
RUN_LOG = "run.log"
SUMMARY_CSV = "summary.csv"
PART_SUFFIX = ".parquet"


class StorageError(RunFailed):
    """The results folder cannot be written or read as a run: one line, what and where.
    A RunFailed (exit 1: the input was fine), whichever modules a command has loaded."""


def part_name(table: str, first: int) -> str:
    """The part file of ``table``'s chunk starting at deal ``first``: reading the parts in
    name order gives rows sorted by table and deal."""
    return f"{table}-{first:09d}{PART_SUFFIX}"


def part_files(games_dir: Path) -> list[Path]:
    """The part files in ``games/`` (hidden files are not parts), in name order."""
    if not games_dir.is_dir():
        return []
    return sorted(p for p in games_dir.glob(f"*{PART_SUFFIX}") if not p.name.startswith("."))


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a file, or None if it is missing or unreadable."""
    try:
        data = loads_bounded(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # TooDeep is a ValueError: unreadable, as a torn file
        return None
    return data if isinstance(data, dict) else None


def path_problem(path: Path | str, *, folder: bool) -> str | None:
    """Why ``path`` (a folder to make, or a file to write) cannot be had, judged from the
    tree alone before anything is written: a part of it that is a file, or a file's
    folder that does not exist. None when nothing says so (permissions, a full disk are
    found out by trying)."""
    path = Path(path)
    if not folder and path.is_dir():
        return f"{path} is a folder; give a file name"
    base = path if folder else path.parent
    for part in (base, *base.parents):
        if part.is_dir():
            break
        if part.exists() or part.is_symlink():
            return f"{part} is a file, not a folder"
    if not folder and not base.is_dir():
        return f"there is no folder {base}"
    return None


def os_error_cause(exc: OSError) -> str:
    """The cause of a failed write, in words a person can act on (one wording)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    return exc.strerror or str(exc)


def describe_os_error(exc: OSError, path: Path | str, doing: str) -> StorageError:
    """A one-line error for a failed write, naming the cause a person can fix."""
    return StorageError(f"{path}: cannot {doing}: {os_error_cause(exc)}")


def atomic_write(path: Path, data: bytes, tmp: Path | None = None, doing: str = "write") -> None:
    """Write a file whole or not at all (``tmp``, fsync, rename); ``doing`` names it in errors."""
    tmp = tmp or path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise describe_os_error(exc, path, doing) from None
