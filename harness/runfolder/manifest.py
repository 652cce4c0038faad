"""The manifest: ``manifest.jsonl``, the list of a run's complete chunks.

One JSON line per completed chunk, appended once its part file is whole in ``games/``:
its ``key``, ``file``, ``bytes`` and ``sha256`` (the first :data:`DIGEST_CHARS` hex
digits), what it holds (``table``, deals ``first``..``stop``-1, ``games``; a chunk of
several tables lists them, in row order, as ``tables`` instead of ``table``), ``cpu`` and
the user strategy code its process had loaded (``loaded``); a reused chunk adds
``reused_from``. Two fields say what playing it cost its strategies, when there is
anything to say: ``timing`` (the user strategies' decision times,
:mod:`harness.runfolder.timing`) and ``output`` (the characters of output each strategy
wrote, by name: :data:`OUTPUT_KEY`).

The torn-line rule: a kill can tear only the last line, so the first line without a
newline, not JSON, or without its ``file`` (and ``key``) ends the good part
(:func:`read_manifest`); whatever follows is not a result.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.game.seating import MAX_PERMUTATION_PLAYERS
from harness.jsonsafe import loads_bounded
from harness.runfolder.layout import PART_SUFFIX

OUTPUT_KEY = "output"  # a line's characters of plugin output by strategy (or UNLABELLED)
UNLABELLED = "(unattributed)"  # output no seat wrote: an import, C code, a thread
OUTPUT_KEPT = 64 * 1024  # characters of plugin output run.log keeps per chunk
DIGEST_CHARS = 32  # sha256 hex digits kept per chunk: 128 bits, no collision within reach
# Games a deal is played in, at most: every order of the largest permutations design.
MAX_ORDERS = math.factorial(MAX_PERMUTATION_PLAYERS)

# (table, first, stop, orders) a line says its chunk holds; a chunk of several tables
# has the tuple of their ids, in row order, for its table.
Coverage = tuple[str | tuple[str, ...], int, int, int]


def digest_of(data: bytes) -> str:
    """A chunk's digest as the manifest holds it (the first 32 hex digits of its sha256)."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


def read_manifest(path: Path, *, keyed: bool = True) -> tuple[list[dict[str, Any]], int]:
    """The complete lines of a manifest, and the byte length they take.

    A line torn by a kill (no newline, or not JSON) ends the good part, as does a line
    without a text ``file`` (or, when ``keyed``, ``key``: the runner writes both; a
    folder assembled by hand may list files only). A missing manifest has no lines;
    another OSError is the caller's to word.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    entries: list[dict[str, Any]] = []
    good = 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            entry = loads_bounded(line)
        except ValueError:  # a torn line, or one nested too deep to be a line of ours
            break
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("file"), str)
            or (keyed and not isinstance(entry.get("key"), str))
        ):
            break
        entries.append(entry)
        good += len(line)
    return entries, good


def manifest_line(entry: Mapping[str, Any]) -> bytes:
    """One manifest line as it is appended (keys sorted, newline-terminated)."""
    return (json.dumps(entry, sort_keys=True) + "\n").encode()


def manifest_text(entries: Iterable[Mapping[str, Any]]) -> bytes:
    """A whole manifest of ``entries`` (for rewriting one without some lines)."""
    return b"".join(manifest_line(e) for e in entries)


def safe_part_name(name: Any) -> bool:
    """Whether a manifest's file name names a part file inside ``games/`` (no path)."""
    return (
        isinstance(name, str)
        and name.endswith(PART_SUFFIX)
        and not name.startswith(".")
        and "/" not in name
        and "\\" not in name
        and "\x00" not in name
    )


def covered(entry: Mapping[str, Any]) -> Coverage | None:
    """(table, first, stop, orders) a manifest line claims, or None if it is malformed.

    ``orders`` is the games per deal: the number of seat orders of the run's design. A
    line of several tables (``tables``: two or more distinct ids, and no ``table``)
    claims the tuple of them for its table, each with every order of every deal.
    """
    first, stop, games = (entry.get(k) for k in ("first", "stop", "games"))
    table: Any = entry.get("table")
    if "tables" in entry:
        listed = entry["tables"]
        if table is not None or not isinstance(listed, list) or len(listed) < 2:
            return None
        if not all(isinstance(t, str) for t in listed) or len(set(listed)) != len(listed):
            return None
        table = tuple(listed)
    elif not isinstance(table, str):
        return None
    if not all(type(v) is int for v in (first, stop, games)):
        return None
    deals = (stop - first) * len(tables_of(table))
    if first < 0 or deals <= 0 or games <= 0 or games % deals:
        return None
    orders = games // deals
    return (table, first, stop, orders) if 2 <= orders <= MAX_ORDERS else None


def tables_of(table: str | tuple[str, ...]) -> tuple[str, ...]:
    """The tables a claim's table part names (:func:`covered`'s first item), in row order."""
    return (table,) if isinstance(table, str) else tuple(table)
