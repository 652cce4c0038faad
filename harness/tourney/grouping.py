"""Which tables share a chunk: the plan of a run of more tables than ``CHUNK_CAP``.

:func:`make_plan` is the plan the runner builds. A config of at most ``CHUNK_CAP``
tables gets :class:`harness.tourney.plan.Plan` itself: chunks of one table, their keys
and order exactly as before. A config of more tables gets a :class:`GroupedPlan`: the
same tables, engines and luck account, but each deal range of ``tables_per_chunk``
tables (:func:`harness.tourney.config.group_size`: about ``CHUNK_GAMES`` games a chunk,
and never more than ``CHUNK_CAP`` chunks, beside one per kind and deal range) is one
chunk, a :class:`~.groups.GroupSpec`. Tables are grouped in plan order (by id) within
their kind (engine, luck account, user code): a process that plays a group loads only
the user code each of its tables would have loaded. A kind with a single table left
over gets a chunk of one table (its ordinary key).

Its run key is the config's (:func:`harness.tourney.plan.run_key`) with the grouping
(tables a chunk, the group code's digest): a folder of the same config chunked a table
at a time (older code) is never resumed as this one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from itertools import combinations
from typing import Any

from harness.plugins import is_own_module
from harness.seats.settings import SeatSettings
from harness.tourney import plan
from harness.tourney.config import TourneyConfig, table_count
from harness.tourney.groups import Chunk, GroupSpec, code_digest, group_key, member_text
from harness.tourney.plan import Plan, Table

Progress = Callable[[int, int, str], None]


def make_plan(config: TourneyConfig, progress: Progress | None = None) -> Plan | GroupedPlan:
    """The plan of a run: its tables and chunks, each chunk's key (see the module
    docstring for which)."""
    if config.tables_per_chunk == 1:
        the_plan = Plan(config, progress)
        if config.adaptive is not None:  # a run of its own; its chunks are the fixed plan's
            from harness.tourney.adaptive.schedule import adaptive_key

            the_plan.run_key = adaptive_key(the_plan.run_key, config.adaptive, config.races)
        return the_plan
    return GroupedPlan(config, progress)  # never adaptive (config: at most CHUNK_CAP tables)


def run_key(config: TourneyConfig) -> str:
    """What makes two runs the same run: :func:`harness.tourney.plan.run_key`, and for a
    grouped plan its grouping too."""
    key = plan.run_key(config)
    per = config.tables_per_chunk
    if per == 1:
        return key
    content = {"run": key, "tables_per_chunk": per, "group": code_digest()}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]


def listed(config: TourneyConfig, progress: Progress | None = None) -> list[Table]:
    """:func:`harness.tourney.plan.tables` of the config, for a plan of many: the same
    tables, ids and keys (tests/tourney/test_grouped_chunks.py holds them equal), each
    key's JSON text joined from its entrants' pieces, dumped once each, instead of dumped
    table by table (a 635,376-table sweep: half its planning). A round robin's groups are
    taken from the entrants in name order, so each is in table order as it comes; a
    gauntlet's are what plan.tables lists."""
    if config.format != "round_robin":
        return plan.tables(config, progress)
    ordered = sorted(config.entrants, key=lambda e: e.name)
    pieces = [json.dumps([e.name, e.key]) for e in ordered]
    total = table_count(config.format, config.players, len(ordered))
    found = []
    for done, group in enumerate(combinations(range(len(ordered)), config.players)):
        if progress is not None and done % plan.PROGRESS_EVERY == 0:
            progress(done, total, "listed")
        key = "[" + ", ".join([pieces[i] for i in group]) + "]"
        table_id = hashlib.sha256(key.encode()).hexdigest()[:12]
        found.append(Table(table_id, key, tuple([ordered[i] for i in group])))
    return sorted(found, key=lambda t: t.id)


class _Kinds:
    """Each table's engine, luck account and kind (what tables that share a chunk must
    share: the engine, the luck account and the user code a process playing them loads),
    worked out once per signature of its entrants (whether each has a native version,
    its module, its code if it is user code): the answers of :class:`plan._EngineMemo` and
    :func:`plan.table_luck` depend on nothing else, and a sweep has a handful of them."""

    def __init__(self, config: TourneyConfig) -> None:
        self.config = config
        self.engine_of = plan._EngineMemo(config)
        self.entrants: dict[str, tuple[bool, str, str]] = {}
        self.answers: dict[tuple[Any, ...], tuple[str, bool, tuple[Any, ...]]] = {}

    def _entrant(self, entrant: Any) -> tuple[bool, str, str]:
        found = self.entrants.get(entrant.name)
        if found is None:
            native = False
            if self.config.settings.engine != "python":
                from harness import native as engine

                native = engine.supports([entrant.spec])
            module = entrant.spec.cls.__module__
            user = "" if is_own_module(module) else entrant.code
            found = self.entrants[entrant.name] = (native, module, user)
        return found

    def __call__(self, table: Table) -> tuple[str, bool, tuple[Any, ...]]:
        """(engine, luck account, kind) of a table."""
        signature = tuple(sorted(self._entrant(e) for e in table.entrants))
        found = self.answers.get(signature)
        if found is None:
            engine, luck = self.engine_of(table), plan.table_luck(self.config, table)
            user = tuple(sorted({code for _, _, code in signature if code}))
            found = self.answers[signature] = (engine, luck, (engine, luck, user))
        return found


class GroupedPlan:
    """A plan whose chunks hold several tables (see the module docstring). The same face
    as :class:`~harness.tourney.plan.Plan`: ``tables``, ``engines``, ``settings``,
    ``luck``, ``planned`` (chunk key -> games, in plan order), ``games``, ``run_key``,
    :meth:`specs` and :meth:`spec_of`. Specs are built as they are asked for."""

    def __init__(self, config: TourneyConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.tables = listed(config, progress)
        self.ranges = plan.deal_ranges(config)
        self.per_chunk = config.tables_per_chunk
        self.engines: dict[str, str] = {}
        self.settings: dict[str, SeatSettings] = {}
        self.luck: dict[str, bool] = {}
        self.groups = self._group(progress)
        base = plan.key_base(config)
        key_text, base_text = plan.KeyText(base), json.dumps(base, sort_keys=True)
        per_deal = len(plan.design_of(config))
        idents = {  # each entrant as a key holds it, as JSON text (once, not per table)
            e.name: json.dumps([e.name, e.key, e.code, e.class_name]) for e in config.all_entrants()
        }
        self.keys: list[list[str]] = []  # per group: its chunks' keys, in deal order
        self.planned: dict[str, int] = {}
        for group in self.groups:
            members = [self.tables[t] for t in group]
            if len(members) == 1:  # a chunk of one table: its ordinary key
                table = members[0]
                keys = key_text.keys(plan.key_content(config, table, base), self.ranges)
            else:
                content = [member_text(t, idents, self.luck[t.id]) for t in members]
                keys = [group_key(base_text, a, b, content) for a, b in self.ranges]
            self.keys.append(keys)
            for key, (first, stop) in zip(keys, self.ranges, strict=True):
                self.planned[key] = (stop - first) * per_deal * len(members)
        if progress is not None:
            progress(len(self.tables), len(self.tables), "keyed")
        self.games = sum(self.planned.values())
        self.run_key = run_key(config)
        self._index: dict[str, tuple[int, int]] | None = None

    def _group(self, progress: Progress | None) -> list[list[int]]:
        """The tables of each chunk (indices into ``tables``), in plan order: tables of one
        kind in id order, ``per_chunk`` at a time."""
        config, kinds = self.config, _Kinds(self.config)
        by_engine: dict[str, SeatSettings] = {}
        open_: dict[tuple[Any, ...], list[int]] = {}
        groups: list[list[int]] = []
        for index, table in enumerate(self.tables):
            if progress is not None and index % plan.PROGRESS_EVERY == 0:
                progress(index, len(self.tables), "keyed")
            engine, luck, kind = kinds(table)
            self.engines[table.id], self.luck[table.id] = engine, luck
            if engine not in by_engine:
                by_engine[engine] = plan.table_settings(config, table, engine)
            self.settings[table.id] = by_engine[engine]
            members = open_.setdefault(kind, [])
            members.append(index)
            if len(members) == self.per_chunk:
                groups.append(members)
                del open_[kind]
        groups.extend(open_.values())
        return sorted(groups, key=lambda g: g[0])

    # -- chunks -----------------------------------------------------------------------------
    def _spec(self, group: list[int], rank: int, key: str) -> Chunk:
        config = self.config
        first, stop = self.ranges[rank]
        members = [self.tables[t] for t in group]
        head = members[0]
        template = plan.spec_for(
            config,
            head,
            first,
            stop,
            self.settings[head.id],
            key=key,
            account=self.luck[head.id],
        )
        if len(members) == 1:
            return template
        names = sorted({e.name for t in members for e in t.entrants})
        where = {name: i for i, name in enumerate(names)}
        refs: dict[str, Any] = {}
        for table in members:
            for ref in plan.entrant_refs(table):
                refs.setdefault(ref.name, ref)
        return GroupSpec(
            key=key,
            template=template,
            entrants=tuple(refs[name] for name in names),
            tables=tuple((t.id, tuple(where[e.name] for e in t.entrants)) for t in members),
        )

    def specs(self, where: Callable[[str], bool] | None = None) -> Iterator[Chunk]:
        """The chunks in plan order, lazily; with ``where``, only those whose key it
        accepts (asked as each chunk comes up)."""
        for group, keys in zip(self.groups, self.keys, strict=True):
            for rank, key in enumerate(keys):
                if where is None or where(key):
                    yield self._spec(group, rank, key)

    def spec_of(self, key: str) -> Chunk:
        """The chunk of a planned key (KeyError for another key)."""
        if self._index is None:
            self._index = {
                k: (g, r) for g, keys in enumerate(self.keys) for r, k in enumerate(keys)
            }
        g, rank = self._index[key]
        return self._spec(self.groups[g], rank, key)
