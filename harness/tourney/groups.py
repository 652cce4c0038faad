"""Chunks of several tables: what a plan of more tables than ``CHUNK_CAP`` is cut into.

A chunk is a run of whole deals of one or more tables. A plan whose tables fit the cap
has chunks of one table each (:class:`~harness.tourney.plan.ChunkSpec`, exactly as
before); a plan of more tables (a 4-player sweep of 64 values is 635,376 tables) groups
them (:mod:`.grouping` says which): a :class:`GroupSpec` is deals ``first``..``stop - 1``
of several tables of one kind (the same engine, luck account, user code and seat
settings), every seat order of each. It is stored as one part file, one manifest line,
one content key, so that the parent's few milliseconds a chunk are paid once for many
tables.

Its rows are exactly the rows its tables would have had one chunk each: each table is
played by :func:`~harness.tourney.chunks.play_chunk` as the :class:`ChunkSpec` it would
have had on its own (:meth:`GroupSpec.members`), one after another, rows member by
member (``start``, ``decided``, ``trace_from`` and the watch's rows count through the
group: row r is row ``r % per_table`` of member ``r // per_table``). The part file holds
them by deal, then table, then seat order (:func:`harness.runfolder.parts.group_table`),
so that a report streams it by deal as it streams a table's part.

Backends play every chunk with :func:`play` (a ChunkSpec or a GroupSpec alike) and find
the game of a row with :func:`at`. This module is not among the engine's files (its
digest is not in the keys of single-table chunks, which stay what they were): a group's
key covers its own code instead (:func:`code_digest`, in :func:`group_key`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from harness.errors import GameError
from harness.game.ranking import POINT, Counts
from harness.plugins import files_digest
from harness.runfolder import layout, schema
from harness.runfolder.timing import ChunkTimes
from harness.seats import Beacon
from harness.seats.settings import HoldsSeatSettings, SeatSettings
from harness.tourney.chunk_result import ChunkResult, empty_result, extend, rows_of
from harness.tourney.chunk_result import finish as finish_one
from harness.tourney.chunks import FLUSH_EVERY, Playing, loaded_code, play_chunk
from harness.tourney.plan import ChunkSpec, EntrantRef

Member = tuple[str, tuple[int, ...]]  # (table id, its entrants' indices into the group's)


@dataclass(frozen=True)
class GroupSpec(HoldsSeatSettings):
    """Deals ``first``..``stop - 1`` of several tables, every seat order of each: a chunk.

    ``template`` holds what every member shares (rules, dice, seed, deals, turn cap, seat
    settings, seating, luck account: its own table and entrants are the first member's);
    ``entrants`` is every entrant of the group's tables, by display name; ``tables`` each
    table's id and its entrants' indices into ``entrants`` (in name order, as a table
    numbers them), in row order. Picklable and self-contained, as a ChunkSpec;
    ``dataclasses.replace(group, entrants=...)`` swaps the references of them all (a
    Dask task's shipped plugins).
    """

    key: str
    template: ChunkSpec
    entrants: tuple[EntrantRef, ...]
    tables: tuple[Member, ...]

    # -- what every member shares ---------------------------------------------------------
    @property
    def settings(self) -> SeatSettings:  # type: ignore[override]
        return self.template.settings

    @property
    def rules(self) -> Any:
        return self.template.rules

    @property
    def dice(self) -> str:
        return self.template.dice

    @property
    def seed(self) -> int:
        return self.template.seed

    @property
    def first(self) -> int:
        return self.template.first

    @property
    def stop(self) -> int:
        return self.template.stop

    @property
    def max_turns(self) -> int:
        return self.template.max_turns

    @property
    def seating(self) -> str:
        return self.template.seating

    @property
    def account(self) -> bool:
        return self.template.account

    @property
    def orders(self) -> Any:
        return self.template.orders

    @property
    def limited(self) -> bool:
        return self.template.limited

    @property
    def deals(self) -> int:
        return self.template.deals

    # -- the group itself -----------------------------------------------------------------
    @property
    def table(self) -> str:
        """The first table's id (the part file is named after it)."""
        return self.tables[0][0]

    @property
    def table_ids(self) -> tuple[str, ...]:
        return tuple(table for table, _ in self.tables)

    @property
    def per_table(self) -> int:
        """Rows (games) of each member: every seat order of each deal."""
        return self.template.games

    @property
    def games(self) -> int:
        return self.per_table * len(self.tables)

    @property
    def file(self) -> str:
        return layout.part_name(self.table, self.first)

    def member(self, index: int) -> ChunkSpec:
        """The chunk table ``index`` of the group would have had on its own (its key is
        the group's: its rows are stored as the group's)."""
        table, picked = self.tables[index]
        return replace(
            self.template,
            key=self.key,
            table=table,
            entrants=tuple(self.entrants[i] for i in picked),
        )

    def members(self) -> list[ChunkSpec]:
        return [self.member(i) for i in range(len(self.tables))]

    def describe(self) -> str:
        return (
            f"{len(self.tables)} tables ({self.tables[0][0]} to {self.tables[-1][0]}), "
            f"deals {self.first}-{self.stop - 1}"
        )


Chunk = ChunkSpec | GroupSpec
"""What a backend plays and the runner stores: a chunk of one table or of several."""


def at(spec: Chunk, row: int) -> tuple[ChunkSpec, int]:
    """The one-table chunk a row of ``spec`` belongs to, and its row there."""
    if isinstance(spec, GroupSpec):
        return spec.member(row // spec.per_table), row % spec.per_table
    return spec, row


def table_ids(spec: Chunk) -> tuple[str, ...]:
    """The tables a chunk holds, in row order."""
    return spec.table_ids if isinstance(spec, GroupSpec) else (spec.table,)


# -- the key --------------------------------------------------------------------------------
@cache
def code_digest() -> str:
    """The digest of this module (the code that plays a group, row by row), part of every
    group's key: a change here is never reused or resumed from."""
    return files_digest([Path(__file__)])


def member_text(table: Any, idents: Mapping[str, str], luck: bool) -> str:
    """What a group's key holds of one of its tables, as JSON text: ``[table key,
    [entrant, ...], luck]``, each entrant ``[name, strategy key, code digest, class]``
    (``idents``: that list's JSON text by name, dumped once per plan)."""
    entrants = ", ".join(idents[e.name] for e in table.entrants)
    return f"[{json.dumps(table.key)}, [{entrants}], {'true' if luck else 'false'}]"


def group_key(base_text: str, first: int, stop: int, members: Sequence[str]) -> str:
    """A group's content key: the shared content (``base_text``: the JSON of
    :func:`harness.tourney.plan.key_base`, once per plan), this module's digest, the deal
    range and each member's table key, entrants and luck account (:func:`member_text`),
    in row order: everything that decides its rows, as a chunk key covers its table's."""
    head = json.dumps({"group": code_digest(), "deals": [first, stop]}, sort_keys=True)
    text = f"{base_text}\0{head}\0[{', '.join(members)}]"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# -- playing --------------------------------------------------------------------------------
def play(spec: Chunk, **options: Any) -> ChunkResult:
    """Play a chunk: :func:`~harness.tourney.chunks.play_chunk` for a table's, or
    :func:`play_group` (the same options) for a group's."""
    if isinstance(spec, GroupSpec):
        return play_group(spec, **options)
    return play_chunk(spec, **options)


class _Shifted(Beacon):
    """A backend's watch as one member sees it: its rows are told as the group's (``low``
    on), everything else passed through. It shows no ``progress`` buffer (the native
    engine would write the member's own rows there): a native member is told once, at
    its start."""

    progress = None

    def __init__(self, inner: Any, low: int) -> None:
        self.inner = inner
        self.low = low

    @property  # type: ignore[override]
    def watched(self) -> bool:
        return bool(getattr(self.inner, "watched", False))

    def game(self, row: int) -> None:
        mark = getattr(self.inner, "game", None)
        if mark is not None:
            mark(self.low + row)

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        self.inner.enter(seat, turn, deadline)

    def leave(self) -> None:
        self.inner.leave()

    def __getattr__(self, name: str) -> Any:  # trace, times: the inner watch's own
        return getattr(self.inner, name)


class _Rows:
    """The group's result being filled member by member: a member's rows are moved in
    (their errors keyed by group row) as they come, and handed to the backend's sink at
    most every FLUSH_EVERY seconds (a member of a few dozen games is not one message)."""

    def __init__(
        self, group: GroupSpec, start: int, sink: Callable[[ChunkResult, int], None] | None
    ) -> None:
        self.result = empty_result(group)
        self.upto = start  # group rows moved in so far: start..upto-1
        self.sink = sink
        self.flush_at = time.monotonic() + FLUSH_EVERY

    def move(self, part: ChunkResult, part_start: int, stop: int, low: int) -> None:
        """Member rows up to ``stop`` of ``part`` (whose first row is member row
        ``part_start``; the member's first row is group row ``low``)."""
        begin = self.upto - low
        if stop <= begin:
            return
        rows = rows_of(part, begin - part_start, stop - part_start, part_start)
        rows.errors = {low + r: text for r, text in rows.errors.items()}
        extend(self.result, rows)
        self.upto = low + stop

    def told(self, part: ChunkResult, part_start: int, stop: int, low: int) -> None:
        """A member's sink: its rows moved in, the backend's sink told now and then."""
        self.move(part, part_start, stop, low)
        if self.sink is not None and time.monotonic() >= self.flush_at:
            self.sink(self.result, self.upto)
            self.flush_at = time.monotonic() + FLUSH_EVERY


def play_group(
    group: GroupSpec,
    *,
    start: int = 0,
    decided: dict[int, GameError] | None = None,
    watch: Any = None,
    trace_from: int | None = None,
    sink: Callable[[ChunkResult, int], None] | None = None,
    times: ChunkTimes | None = None,
    now: Playing | None = None,
) -> ChunkResult:
    """Play a group's tables one after another, each as its own chunk would be played:
    :func:`~harness.tourney.chunks.play_chunk`'s contract, rows counted through the group
    (``start``, ``decided``, ``trace_from``, ``watch.game``, ``sink``). ``times`` (by
    the group's entrants) gets each member's decision times once it ends; ``stats`` are
    counted for a whole group played without a sink, by the group's entrants."""
    started = time.process_time()
    per = group.per_table
    decided = decided or {}
    times = times if times is not None else ChunkTimes(len(group.entrants))
    rows = _Rows(group, start, sink)
    engines: set[str] = set()
    for index in range(len(group.tables)):
        low = index * per
        if low + per <= start:
            continue
        member = group.member(index)
        local = max(0, start - low)
        mine = {row - low: e for row, e in decided.items() if low <= row < low + per}
        trace = None if trace_from is None or trace_from >= low + per else max(0, trace_from - low)
        own = ChunkTimes(len(member.entrants))
        played = play_chunk(
            member,
            start=local,
            decided=mine or None,
            watch=None if watch is None else _Shifted(watch, low),
            trace_from=trace,
            sink=lambda part, stop, low=low, local=local: rows.told(part, local, stop, low),
            times=own,
            now=now,
        )
        rows.move(played, local, local + played.rows, low)
        _fold_times(times, own, group.tables[index][1])
        engines.add(played.engine)
    result = rows.result
    result.loaded = loaded_code(group.entrants)
    result.times = times.to_json([e.name for e in group.entrants])
    result.engine = "native" if engines == {"native"} else "python"
    if start == 0 and sink is None:
        result.stats = member_counts(group, result.games, result.seats)
    result.cpu = time.process_time() - started
    return result


def _fold_times(into: ChunkTimes, own: ChunkTimes, picked: tuple[int, ...]) -> None:
    """A member's decision times (by its table entrants) added to the group's."""
    if not any(own.games):  # no game timed (built-ins are not): nothing to add
        return
    for e, g in enumerate(picked):
        into.ns[g] += own.ns[e]
        into.games[g] += own.games[e]
        hist = into.hist[g]
        for bucket, count in enumerate(own.hist[e]):
            if count:
                hist[bucket] += count


# -- counting -------------------------------------------------------------------------------
def member_counts(
    group: GroupSpec, games: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
) -> list[Counts]:
    """Per entrant of the group (``group.entrants``), its counts over a whole group's rows
    (its tables' rows one table after another, as they are played): the integers each
    table's own chunk counts (:func:`~harness.tourney.chunk_result.chunk_stats`, summed),
    counted for all of them at once from the arrays (a group of a thousand tables is
    counted in a few milliseconds, not a thousand calls)."""
    import numpy as np

    n, per = group.rules.players, group.per_table
    count, entrants = len(group.tables), len(group.entrants)

    def column(values: Any, name: str, kinds: Mapping[str, str]) -> Any:
        return np.frombuffer(values, dtype=kinds[name]).astype(np.int64)

    seating = column(games["seating"], "seating", schema.GAME_TYPES)
    scored = column(games["status"], "status", {"status": "int8"}) != schema.TURN_CAP
    error_seat = column(games["error_seat"], "error_seat", schema.GAME_TYPES)
    ranks = [column(s["rank"], "rank", schema.SEAT_TYPES) for s in seats]
    firsts = np.sum([r == 1 for r in ranks], axis=0)
    share = np.zeros(n + 1, dtype=np.int64)
    share[1:] = [POINT // k for k in range(1, n + 1)]
    member = np.repeat(np.arange(count), per)[: len(seating)]
    design = np.array(group.orders, dtype=np.int64)
    picked = np.array([list(p) for _, p in group.tables], dtype=np.int64)
    totals = np.zeros((6, entrants), dtype=np.int64)  # Counts' fields, in order

    def add(field: int, who: Any, weights: Any = None) -> None:
        summed = np.bincount(who, weights=weights, minlength=entrants)
        totals[field] += np.rint(summed).astype(np.int64) if weights is not None else summed

    for seat in range(n):
        who = picked[member, design[seating, seat]]
        mine = who[scored]
        add(0, mine)
        first = scored & (ranks[seat] == 1)
        add(1, who[first], share[np.minimum(firsts[first], n)].astype(np.float64))
        add(2, mine, column(seats[seat]["worms"], "worms", schema.SEAT_TYPES)[scored])
        add(3, mine, ranks[seat][scored].astype(np.float64))
        add(4, who[scored & (error_seat == seat)])
        add(5, who[~scored])
    return [Counts(*(int(v) for v in totals[:, e])) for e in range(entrants)]


def finish(spec: Chunk, result: ChunkResult) -> ChunkResult:
    """:func:`~harness.tourney.chunk_result.finish` of any chunk: a group's counters are
    counted by the group's entrants."""
    if isinstance(spec, GroupSpec):
        result.stats = member_counts(spec, result.games, result.seats) if result.rows else []
        return result
    return finish_one(spec, result)
